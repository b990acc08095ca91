"""mindspore.numpy as MindSpore 2.7.2 runs it: dtypes and values recorded from the real
mnp (each key ran under /work/main/.venv-ms, `import mindspore.numpy as mnp`), gradients through
mnp functions, refusals, and `import mindspore.numpy` through the alias."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minispore
import minispore as ms
import minispore.numpy as mnp
from minispore import Tensor
from minispore._mindspore_alias import install, uninstall
from tests.ops.harness import check_grad

# {expression: (dtype, shape, value)} as MindSpore 2.7.2 returned them (the first element of a
# tuple or list result).
RECORDED = {
    'mnp.zeros((2, 3))':
        ('Float32', (2, 3), [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
    'mnp.ones(3)':
        ('Float32', (3,), [1.0, 1.0, 1.0]),
    'mnp.full((2,), 3)':
        ('Int32', (2,), [3, 3]),
    'mnp.full((2,), 3.5)':
        ('Float32', (2,), [3.5, 3.5]),
    'mnp.full((2,), True)':
        ('Bool', (2,), [True, True]),
    'mnp.empty((2,))':
        ('Float32', (2,), [0.0, 0.0]),
    'mnp.arange(3)':
        ('Int32', (3,), [0, 1, 2]),
    'mnp.arange(0, 1, 0.25)':
        ('Float32', (4,), [0.0, 0.25, 0.5, 0.75]),
    'mnp.arange(1, 7, 2)':
        ('Int32', (3,), [1, 3, 5]),
    'mnp.arange(0.0, 3)':
        ('Float32', (3,), [0.0, 1.0, 2.0]),
    'mnp.linspace(0, 1, 5)':
        ('Float32', (5,), [0.0, 0.25, 0.5, 0.75, 1.0]),
    'mnp.linspace(0, 4, 5, dtype=ms.int32)':
        ('Int32', (5,), [0, 1, 2, 3, 4]),
    'mnp.logspace(0, 2, 3)':
        ('Float32', (3,), [1.0, 10.0, 100.0]),
    'mnp.geomspace(1, 8, 4)':
        ('Float32', (4,), [1.0, 2.0, 4.0, 8.0]),
    'mnp.eye(3)':
        ('Float32', (3, 3), [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
    'mnp.eye(2, 3, 1)':
        ('Float32', (2, 3), [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
    'mnp.identity(2)':
        ('Float32', (2, 2), [[1.0, 0.0], [0.0, 1.0]]),
    'mnp.tri(3)':
        ('Float32', (3, 3), [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 1.0, 1.0]]),
    'mnp.array([1, 2, 3])':
        ('Int32', (3,), [1, 2, 3]),
    'mnp.array([1.0, 2.0])':
        ('Float32', (2,), [1.0, 2.0]),
    'mnp.asarray([True, False])':
        ('Bool', (2,), [True, False]),
    'mnp.zeros_like(mnp.array([1, 2]))':
        ('Int32', (2,), [0, 0]),
    'mnp.full_like(mnp.array([1, 2]), 0.5)':
        ('Int32', (2,), [0, 0]),
    'mnp.asfarray([1, 2])':
        ('Float32', (2,), [1.0, 2.0]),
    'mnp.array([1, 2], ndmin=3)':
        ('Int32', (1, 1, 2), [[[1, 2]]]),
    'mnp.mean(mnp.array([1, 2, 4]))':
        ('Int32', (), 2),
    'mnp.sqrt(mnp.array([1, 4, 9]))':
        ('Float32', (3,), [1.0, 2.0, 3.0]),
    'mnp.sin(mnp.array([0, 1]))':
        ('Float32', (2,), [0.0, 0.8414709568023682]),
    'mnp.true_divide(mnp.array([1, 2]), mnp.array([2, 2]))':
        ('Float32', (2,), [0.5, 1.0]),
    'mnp.sum(mnp.array([1, 2, 3]))':
        ('Int64', (), 6),
    'mnp.sum(mnp.array([True, True]))':
        ('Int64', (), 2),
    'mnp.std(mnp.array([1, 2, 3]))':
        ('Float32', (), 0.8164966106414795),
    'mnp.var(mnp.array([1.0, 2.0, 4.0]))':
        ('Float32', (), 1.5555557012557983),
    'mnp.power(mnp.array([1, 2, 3]), 2)':
        ('Int32', (3,), [1, 4, 9]),
    'mnp.add(mnp.array([1, 2, 3]), 1.5)':
        ('Float32', (3,), [2.5, 3.5, 4.5]),
    'mnp.argmax(mnp.array([1.0, 5.0, 2.0]))':
        ('Int64', (), 1),
    'mnp.cumsum(mnp.array([True, True]))':
        ('Int32', (2,), [1, 2]),
    'mnp.isclose(mnp.array([1.0, 2.0]), mnp.array([1.0, 2.1]))':
        ('Bool', (2,), [True, False]),
    'mnp.abs(mnp.array([-1, 2]))':
        ('Int32', (2,), [1, 2]),
    'mnp.outer(mnp.array([1, 2]), mnp.array([1, 2, 3]))':
        ('Int32', (2, 3), [[1, 2, 3], [2, 4, 6]]),
    'mnp.floor_divide(mnp.array([-7, 7]), 2)':
        ('Int32', (2,), [-4, 3]),
    'mnp.remainder(mnp.array([-7.0, 7.0]), 3)':
        ('Float32', (2,), [2.0, 1.0]),
    'mnp.fmod(mnp.array([-7.0, 7.0]), 3)':
        ('Float32', (2,), [-1.0, 1.0]),
    'mnp.where(mnp.array([True, False]), 1, 2)':
        ('Int32', (2,), [1, 2]),
    'mnp.count_nonzero(mnp.array([0, 1, 2]))':
        ('Int32', (), 2),
    'mnp.average(mnp.array([1, 2, 4]))':
        ('Int32', (), 2),
    'mnp.diff(mnp.array([1, 4, 9]))':
        ('Int32', (2,), [3, 5]),
    'mnp.ptp(mnp.array([1, 4, 9]))':
        ('Int32', (), 8),
    'mnp.rad2deg(mnp.array([1, 2]))':
        ('Float32', (2,), [57.2957763671875, 114.591552734375]),
    'mnp.square(mnp.array([1, 2, 3]))':
        ('Int32', (3,), [1, 4, 9]),
    'mnp.reciprocal(mnp.array([1, 2]))':
        ('Int32', (2,), [1, 0]),
    'mnp.cbrt(mnp.array([8.0, -27.0]))':
        ('Float32', (2,), [2.0, -3.0]),
    'mnp.exp2(mnp.array([1, 2, 3]))':
        ('Int32', (3,), [2, 4, 8]),
    'mnp.ceil(mnp.array([1, 2]))':
        ('Float32', (2,), [1.0, 2.0]),
    'mnp.negative(mnp.array([1, 2]))':
        ('Int32', (2,), [-1, -2]),
    'mnp.sign(mnp.array([-2.0, 0.0, 3.0]))':
        ('Float32', (3,), [-1.0, 0.0, 1.0]),
    'mnp.heaviside(mnp.array([-2.0, 0.0, 3.0]), mnp.array(0.5))':
        ('Float32', (3,), [0.0, 0.5, 1.0]),
    'mnp.kron(mnp.array([1, 2]), mnp.array([1, 1]))':
        ('Int32', (4,), [1, 1, 2, 2]),
    'mnp.vander(mnp.array([1, 2, 3]))':
        ('Int32', (3, 3), [[1, 1, 1], [4, 2, 1], [9, 3, 1]]),
    'mnp.gcd(mnp.array([4, 6]), mnp.array([6, 9]))':
        ('Int32', (2,), [2, 3]),
    'mnp.norm(mnp.array([3.0, 4.0]))':
        ('Float32', (), 5.0),
    'mnp.matmul(mnp.array([[1, 2]]), mnp.array([[1], [2]]))':
        ('Int32', (1, 1), [[5]]),
    'mnp.amax(mnp.array([1, 3]))':
        ('Int32', (), 3),
    'mnp.sometrue(mnp.array([0, 1]))':
        ('Bool', (), True),
    'mnp.float_power(mnp.array([2.0]), mnp.array([3.0]))':
        ('Float32', (1,), [8.0]),
    'mnp.take(mnp.array([1, 2, 3]), mnp.array([5, -1]))':
        ('Int32', (2,), [3, 3]),
    'mnp.roll(mnp.arange(5), 2)':
        ('Int32', (5,), [3, 4, 0, 1, 2]),
    'mnp.rot90(mnp.array([[1, 2], [3, 4]]))':
        ('Int32', (2, 2), [[2, 4], [1, 3]]),
    'mnp.array_equal(mnp.array([1.0]), mnp.array([1.0]))':
        ('Bool', (), True),
    'mnp.isin(mnp.array([1, 2, 3]), mnp.array([2]))':
        ('Bool', (3,), [False, True, False]),
    'mnp.average(mnp.array([1.0, 2.0, 3.0]), weights=mnp.array([1.0, 1.0, 2.0]))':
        ('Float32', (), 2.25),
    "mnp.nanmax(mnp.array([1.0, float('nan')]))":
        ('Float32', (), 1.0),
    "mnp.nansum(mnp.array([1.0, float('nan')]))":
        ('Float32', (), 1.0),
    'mnp.argmin(mnp.array([[3.0, 1.0], [0.0, 2.0]]), axis=1)':
        ('Int32', (2,), [1, 0]),
    'mnp.tril_indices(3)[1]':
        ('Int32', (6,), [0, 0, 1, 0, 1, 2]),
    'mnp.indices((2, 2))':
        ('Int32', (2, 2), [[0, 0], [1, 1]]),
    'mnp.dot(mnp.array([1, 2]), mnp.array([3, 4]))':
        ('Int32', (), 11),
    'mnp.concatenate((mnp.array([1, 2]), mnp.array([1.5])))':
        ('Float32', (3,), [1.0, 2.0, 1.5]),
    'mnp.trace(mnp.eye(3))':
        ('Float32', (), 3.0),
    'mnp.cumprod(mnp.array([1.0, 2.0, 3.0]))':
        ('Float32', (3,), [1.0, 2.0, 6.0]),
    'mnp.logical_xor(mnp.array([1, 0]), mnp.array([1, 1]))':
        ('Bool', (2,), [False, True]),
    'mnp.isnan(mnp.array([1, 2]))':
        ('Bool', (2,), [False, False]),
    'mnp.tensordot(mnp.ones((2, 3)), mnp.ones((3, 2)), 1)':
        ('Float32', (2, 2), [[3.0, 3.0], [3.0, 3.0]]),
    "mnp.isneginf(mnp.array([-float('inf'), 1.0]))":
        ('Bool', (2,), [True, False]),
    'mnp.repeat(mnp.array([1, 2]), 2)':
        ('Int32', (4,), [1, 1, 2, 2]),
    'mnp.tile(mnp.array([1, 2]), 2)':
        ('Int32', (4,), [1, 2, 1, 2]),
    'mnp.divide(mnp.array([1.0, 2.0]), 2)':
        ('Float32', (2,), [0.5, 1.0]),
}


@pytest.mark.parametrize("code", list(RECORDED))
def test_matches_mindspore_recorded(code):
    dtype, shape, value = RECORDED[code]
    out = eval(code, {"mnp": mnp, "ms": ms})  # noqa: S307  (the recorded snippets)
    if isinstance(out, (tuple, list)):
        out = out[0]
    assert str(out.dtype) == dtype
    assert tuple(out.shape) == shape
    # float32 rounding may differ in the last bit (rad2deg multiplies in float64 here)
    np.testing.assert_allclose(out.asnumpy(), np.asarray(value), rtol=1e-6)


RNG = np.random.default_rng(2)


@pytest.mark.parametrize("fn,shapes", [
    (lambda x: mnp.std(x, axis=1, ddof=1), [(3, 4)]),
    (lambda x: mnp.nanmean(mnp.sin(x), axis=0), [(3, 4)]),
    (lambda x, y: mnp.tensordot(x, y, ((0, 2), (1, 0))), [(2, 3, 4), (4, 2, 5)]),
    (lambda x, y: mnp.matmul(x, y), [(2, 1, 3, 4), (5, 4, 2)]),
    (lambda x, y: mnp.cross(x, y), [(4, 3), (4, 3)]),
    (lambda x: mnp.norm(x, 3, 1), [(3, 4)]),
    (lambda x: mnp.roll(mnp.rot90(x, 1, (0, 1)), 2, 1), [(3, 4)]),
    (lambda x: mnp.cumprod(x, 1), [(3, 4)]),
    (lambda x, w: mnp.average(x, 1, w), [(3, 4), (4,)]),
    (lambda x, y: mnp.where(mnp.greater(x, 0), mnp.exp(x), mnp.square(y)), [(3, 4), (3, 4)]),
    (lambda x: mnp.take_along_axis(x, Tensor(np.array([[2], [0], [3]], np.int32)), 1), [(3, 4)]),
    (lambda x, y: mnp.linspace(x, y, 5, axis=1, dtype=mnp.float64), [(3,), (3,)]),
    (lambda x: mnp.concatenate(mnp.split(x, [1, 3], 1)[::-1], 1), [(3, 4)]),
])
def test_gradients_through_mnp_match_finite_differences(fn, shapes):
    arrays = [RNG.uniform(0.2, 1.5, s) for s in shapes]
    check_grad(fn, arrays, rtol=1e-5, atol=1e-7)


def test_unsupported_arguments_are_refused_by_name():
    with pytest.raises(NotImplementedError, match="'where'"):
        mnp.amin(mnp.ones((2, 2)), where=mnp.ones((2, 2)) > 0)
    with pytest.raises(NotImplementedError, match="singular values"):
        mnp.norm(mnp.ones((2, 2)), "nuc")


def test_bad_inputs_name_function_and_value():
    # MindSpore 2.7.2 refuses a NumPy array here too (TypeError naming its type).
    with pytest.raises(TypeError, match="mindspore.numpy.array.*numpy.ndarray"):
        mnp.array(np.zeros(2))
    with pytest.raises(ValueError, match="mindspore.numpy.swapaxes, axis 3 is out of range"):
        mnp.swapaxes(mnp.ones((2, 2)), 0, 3)
    with pytest.raises(ValueError, match="mindspore.numpy.arange, step must not be 0"):
        mnp.arange(0, 3, 0)
    with pytest.raises(ValueError, match="mindspore.numpy.matmul.*do not align"):
        mnp.matmul(mnp.ones((2, 3)), mnp.ones((2, 3)))


def test_graph_mode_traces_mnp():
    @ms.jit
    def f(x):
        return mnp.sum(mnp.square(mnp.flip(x, 0)) * mnp.arange(3.0), axis=1)

    x = RNG.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(f(Tensor(x)).asnumpy(), (x[::-1] ** 2 * np.arange(3.0)).sum(1),
                               rtol=1e-6)


def test_mindspore_numpy_is_minispore_numpy():
    install()
    try:
        import mindspore
        import mindspore.numpy as alias_mnp
        assert alias_mnp is minispore.numpy and mindspore.numpy is minispore.numpy
    finally:
        uninstall()


def test_mnp_script_under_python_m_minispore(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import mindspore as ms
        import mindspore.numpy as mnp
        x = mnp.arange(6).reshape(2, 3)
        g = ms.grad(lambda t: mnp.sum(mnp.sin(t)))(mnp.linspace(0.0, 1.0, 3))
        print("OUT", mnp.mean(mnp.asfarray(x), axis=0).asnumpy().tolist(), x.dtype,
              [round(v, 6) for v in g.asnumpy().tolist()])
    """))
    proc = subprocess.run([sys.executable, "-m", "minispore", str(script)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "OUT [1.5, 2.5, 3.5] Int32 [1.0, 0.877583, 0.540302]" in proc.stdout
