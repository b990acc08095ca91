"""Shift and Rolling (MindSpore's pandas-style kernels) against float64 numpy references
written as pandas defines them, the gradient of Shift by finite differences, errors, and the
PrimitiveWithInfer front end that reaches them by name (as MindSpore's own tests do)."""
import math

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore import _checkparam as validator
from minispore.common import dtype as mstype
from minispore.ops import PrimitiveWithInfer, prim_attr_register
from tests.ops.harness import check_grad, rand


def np_shift(a, periods, axis, fill):
    out = np.full_like(a, fill)
    n = a.shape[axis]
    src = [slice(None)] * a.ndim
    dst = [slice(None)] * a.ndim
    if abs(periods) < n:
        src[axis] = slice(max(-periods, 0), n - max(periods, 0))
        dst[axis] = slice(max(periods, 0), n - max(-periods, 0))
        out[tuple(dst)] = a[tuple(src)]
    return out


def np_rolling(a, window, min_periods, center, axis, closed, method):
    reduce = {"max": np.max, "min": np.min, "mean": np.mean, "sum": np.sum,
              "std": lambda v, axis: np.std(v, axis=axis, ddof=1),
              "var": lambda v, axis: np.var(v, axis=axis, ddof=1)}[method]
    a64 = np.moveaxis(a.astype(np.float64), axis, -1)
    n = a64.shape[-1]
    out = np.empty_like(a64)
    offset = (window - 1) // 2 if center else 0
    for i in range(n):
        end = i + offset + 1
        start = end - window - (closed in ("left", "both"))
        end -= closed in ("left", "neither")
        start, end = min(max(start, 0), n), min(max(end, 0), n)
        if end - start < min_periods:
            out[..., i] = np.nan if a.dtype.kind == "f" else 0
        else:
            out[..., i] = reduce(a64[..., start:end], axis=-1)
    return np.moveaxis(out, -1, axis).astype(a.dtype)


@pytest.mark.parametrize("dtype, fill", [(np.float32, np.nan), (np.float64, -2.5),
                                         (np.int32, 7), (np.int64, -1), (np.bool_, True)])
@pytest.mark.parametrize("periods", [0, 2, -3, 5, -9])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_shift_matches_numpy(dtype, fill, periods, axis):
    a = (rand(5, 4, 3, seed=1) * 10).astype(dtype)
    out = ops.Shift(periods, axis)(Tensor(a), fill)
    assert out.dtype == Tensor(a).dtype
    np.testing.assert_array_equal(out.asnumpy(), np_shift(a, periods, axis, fill))


def test_shift_gradient_and_graph_mode_with_rolling():
    check_grad(lambda x: ops.Shift(2, 1)(x, 0.0), [rand(3, 5, seed=2).astype(np.float64)])
    check_grad(lambda x: ops.Shift(-1, 0)(x, 1.5), [rand(4, 2, seed=3).astype(np.float64)])

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.shift = ops.Shift(1, 0)
            self.rolling = ops.Rolling(2, 1, False, 0, "right", "max")

        def construct(self, x):
            return self.rolling(self.shift(x, 3.0) * 2)

    a = rand(3, 2, seed=4)
    want = np_rolling(np_shift(a, 1, 0, 3.0) * 2, 2, 1, False, 0, "right", "max")
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        np.testing.assert_allclose(Net()(Tensor(a)).asnumpy(), want, rtol=1e-6)
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("method", ["max", "min", "mean", "sum", "std", "var"])
@pytest.mark.parametrize("closed", ["right", "left", "both", "neither"])
@pytest.mark.parametrize("center", [False, True])
def test_rolling_matches_pandas_definition(method, closed, center):
    rng = np.random.default_rng(5)
    for dtype, a in ((np.float32, rng.random((3, 9, 2)).astype(np.float32)),
                     (np.float64, rng.random((2, 3, 8))),
                     (np.int32, rng.integers(0, 100, (4, 7)).astype(np.int32))):
        for window, min_periods, axis in ((3, 3, 1), (4, 2, -1)):
            out = ops.Rolling(window, min_periods, center, axis, closed, method)(Tensor(a))
            want = np_rolling(a, window, min_periods, center, axis, closed, method)
            assert out.asnumpy().dtype == a.dtype
            np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6,
                                       equal_nan=True)


def test_errors_name_the_operator():
    with pytest.raises(TypeError, match=r"For 'Shift', 'periods' must be an int"):
        ops.Shift(1.5)
    with pytest.raises(ValueError, match=r"For 'Shift', 'axis' must be in \[-2, 2\)"):
        ops.Shift(1, 2)(Tensor(np.ones((2, 2), np.float32)), 0.0)
    with pytest.raises(TypeError, match=r"'fill_value' 0.5 cannot fill an Int32"):
        ops.Shift(1, 0)(Tensor(np.ones(3, np.int32)), 0.5)
    with pytest.raises(ValueError, match=r"'method' must be one of"):
        ops.Rolling(3, 1, False, 0, "right", "median")
    with pytest.raises(ValueError, match=r"'min_periods' in \[1, window\]"):
        ops.Rolling(3, 4, False, 0, "right", "sum")
    with pytest.raises(TypeError, match=r"For 'Rolling'.*Bool"):
        ops.Rolling(2, 1, False, 0, "right", "sum")(Tensor(np.ones(3, np.bool_)))


class Shift(PrimitiveWithInfer):
    """A front end as MindSpore's test_shift_op.py writes it (no super().__init__ call)."""

    @prim_attr_register
    def __init__(self, periods=1, axis=-1):
        self.periods = validator.check_value_type("periods", periods, [int], self.name)
        self.axis = validator.check_value_type("axis", axis, [int], self.name)
        self.init_prim_io_names(inputs=['x', 'fill_value'], outputs=['output'])

    def __infer__(self, x, fill_value):
        return {'shape': tuple(x['shape']), 'dtype': x['dtype'], 'value': None}


class Rolling(PrimitiveWithInfer):
    @prim_attr_register
    def __init__(self, window, min_periods, center, axis, closed, method):
        super().__init__(name="Rolling")

    def infer_shape(self, x_shape):
        return x_shape

    def infer_dtype(self, x_dtype):
        return validator.check_tensor_dtype_valid("x", x_dtype, [mstype.float32], self.name)


def test_primitive_with_infer_runs_the_named_kernel():
    a = rand(4, 5, seed=6)
    shift = Shift(2, 1)
    assert shift.attrs["periods"] == 2 and shift.attrs["axis"] == 1
    np.testing.assert_array_equal(shift(Tensor(a), math.nan).asnumpy(), np_shift(a, 2, 1, np.nan))
    roll = Rolling(2, 1, False, 0, "right", "sum")
    np.testing.assert_allclose(roll(Tensor(a)).asnumpy(),
                               np_rolling(a, 2, 1, False, 0, "right", "sum"), rtol=1e-6)
    with pytest.raises(TypeError, match=r"For 'Rolling', the type of 'x' must be in"):
        roll(Tensor(a.astype(np.float64)))      # the front end's own dtype check runs first
    with pytest.raises(TypeError, match=r"For 'Shift', the 'periods' must be of type"):
        Shift(1.5)


def test_primitive_with_infer_without_a_kernel_and_disagreeing_infer():
    class NoSuchKernel(PrimitiveWithInfer):
        @prim_attr_register
        def __init__(self):
            pass

    with pytest.raises(NotImplementedError, match="no kernel named 'NoSuchKernel'"):
        NoSuchKernel()(Tensor(np.ones(2, np.float32)))

    class WrongShape(PrimitiveWithInfer):
        @prim_attr_register
        def __init__(self, periods=1, axis=-1):
            super().__init__(name="Shift")

        def infer_shape(self, x_shape, fill_shape):
            return (1,) + tuple(x_shape)

    with pytest.raises(RuntimeError, match="inference gives .* but the 'Shift' kernel returns"):
        WrongShape()(Tensor(np.ones(3, np.float32)), 0.0)


def test_checkparam_validators():
    assert validator.check_positive_int(3, "n", "Op") == 3
    with pytest.raises(ValueError, match=r"For 'Op', the 'n' must be > 0, but got 0"):
        validator.check_positive_int(0, "n", "Op")
    with pytest.raises(TypeError, match="must be an int"):
        validator.check_positive_int(True, "n", "Op")
    with pytest.raises(ValueError, match=r"must be in range of \(0.0, 1.0\), but got 1.0"):
        validator.check_float_range(1.0, 0.0, 1.0, validator.INC_NEITHER, "beta", "Op")
    with pytest.raises(TypeError, match="must be the same"):
        validator.check_scalar_or_tensor_types_same({"a": mstype.float32, "b": mstype.int32},
                                                    [mstype.float32, mstype.int32], "Op")
    assert validator.check_value_type("k", 2, [int, float], "Op") == 2
