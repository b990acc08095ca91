"""The plain eager path of the binary elementwise operators (BinaryElementwise.__call__): two host
tensors of one dtype and one shape, with nothing watching, go to the kernel's ufunc without the
interpreter. These tests prove it is taken, that it gives exactly what the generic path gives,
and that anything else (broadcasting, mixed dtypes, scalars, float16, a refused dtype, a tape,
the profiler, pynative_synchronize, a trace) still goes through infer and the interpreter."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from minispore.common import profiling
from minispore.common.context import BASE
from minispore.ops import interpreter

BINARY = [ops.add, ops.sub, ops.mul, ops.maximum, ops.minimum, ops.equal, ops.less]


@pytest.fixture
def generic_calls(monkeypatch):
    """The operator names eager_apply (the generic eager interpreter, the base of the stack,
    plain or profiled) ran, in order."""
    calls = []
    run = interpreter.eager_apply

    def counted(prim, args, impl=None):
        calls.append(prim.name)
        return run(prim, args, impl)

    monkeypatch.setattr(interpreter, "eager_apply", counted)    # what the profiled base calls
    saved = list(BASE)
    BASE[:2] = counted, counted
    yield calls
    BASE[:] = saved


def _pair(shape, dtype, rng):
    if np.dtype(dtype).kind == "f":
        return [rng.standard_normal(shape).astype(dtype) for _ in range(2)]
    return [rng.integers(-5, 6, shape).astype(dtype) for _ in range(2)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("shape", [(4,), (2, 3), ()])
def test_plain_calls_skip_the_interpreter_and_match_it(generic_calls, dtype, shape):
    rng = np.random.default_rng(0)
    xa, ya = _pair(shape, dtype, rng)
    x, y = Tensor(xa), Tensor(ya)
    for op in BINARY:
        fast = op(x, y)
        with profiling_on():                     # watched: the generic path
            slow = op(x, y)
        assert type(fast) is Tensor and type(fast.asnumpy()) is np.ndarray, op.__name__
        assert fast.dtype == slow.dtype and fast.shape == slow.shape == shape, op.__name__
        assert fast.asnumpy().dtype == slow.asnumpy().dtype, op.__name__
        np.testing.assert_array_equal(fast.asnumpy(), slow.asnumpy())
    assert len(generic_calls) == len(BINARY)     # only the profiled calls
    np.testing.assert_array_equal((x + y).asnumpy(), xa + ya)
    assert len(generic_calls) == len(BINARY)


class profiling_on:
    def __enter__(self):
        profiling.start(profiling.Recorder())

    def __exit__(self, *exc):
        profiling.stop()


def test_other_calls_take_the_generic_path(generic_calls):
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    row = Tensor(np.ones(3, np.float32))
    np.testing.assert_array_equal(ops.add(x, row).asnumpy(), x.asnumpy() + 1)    # broadcast
    assert generic_calls == ["Add"]
    wide = Tensor(np.ones((2, 3), np.float64))
    assert ops.add(x, wide).dtype == ms.float64                                  # promotion
    assert generic_calls[-1] == "Add" and "Cast" in generic_calls
    generic_calls.clear()
    assert (x + 1.5).dtype == ms.float32                                         # a scalar
    assert generic_calls == ["Add"]
    half = Tensor(np.ones(3, np.float16))
    out = ops.mul(half, half)                                                    # float16
    assert out.dtype == ms.float16 and out.asnumpy().dtype == np.float16
    assert generic_calls[-1] == "Mul"


def test_a_refused_dtype_raises_every_time():
    b = Tensor(np.array([True, False]))
    for _ in range(2):
        with pytest.raises(TypeError, match="For 'Add', the dtype of 'x' must be one of"):
            ops.add(b, b)


def test_watched_calls_are_seen(generic_calls):
    x = Tensor(np.array([1.0, 2.0], np.float32))
    y = Tensor(np.array([3.0, 4.0], np.float32))
    dx, dy = ops.grad(lambda a, b: ops.mul(a, b).sum(), grad_position=(0, 1))(x, y)
    np.testing.assert_array_equal(dx.asnumpy(), y.asnumpy())
    np.testing.assert_array_equal(dy.asnumpy(), x.asnumpy())
    assert "Mul" in generic_calls                # the tape saw the forward call
    generic_calls.clear()
    ms.set_context(pynative_synchronize=True)
    ops.add(x, y)
    assert generic_calls == ["Add"]
    ms.set_context(pynative_synchronize=False)
    ops.add(x, y)
    assert generic_calls == ["Add"]              # the setting's change is seen both ways
    generic_calls.clear()

    @ms.jit
    def f(a, b):
        return ops.add(a, b) * b

    np.testing.assert_array_equal(f(x, y).asnumpy(), (x.asnumpy() + y.asnumpy()) * y.asnumpy())
    assert generic_calls == []                   # traced into a graph, not run eagerly


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("make, inputs, message", [
    (ops.Add, 1, r"For 'Add'.*its inputs are \(x, y\), but it was called with 1 input"),
    (ops.Add, 3, r"For 'Add'.*its inputs are \(x, y\), but it was called with 3 input"),
    (ops.ReLU, 2, r"For 'ReLU'.*its inputs are \(x\), but it was called with 2 input"),
    (ops.MatMul, 1, r"For 'MatMul'.*its inputs are \(x, y\), but it was called with 1 input"),
])
def test_a_wrong_input_count_names_the_operator(mode, make, inputs, message):
    # MindSpore 2.7.2 raises TypeError too (naming the class's __call__ parameters)
    ms.set_context(mode=mode)
    try:
        op = make()
        x = Tensor(np.ones((2, 2), np.float32))
        with pytest.raises(TypeError, match=message):
            ms.jit(lambda t: op(*[t] * inputs))(x) if mode == ms.GRAPH_MODE else \
                op(*[x] * inputs)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
