"""Math operators: forward vs float64 numpy, backward vs finite differences, bad input."""
import numpy as np
import pytest

from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand

BINARY_SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((5,), ())]

BINARY = {
    "add": (ops.add, np.add),
    "sub": (ops.sub, np.subtract),
    "mul": (ops.mul, np.multiply),
    "div": (ops.div, np.divide),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("sx,sy", BINARY_SHAPES)
def test_binary_forward_and_grad(name, sx, sy):
    op, ref = BINARY[name]
    x = rand(*sx, seed=1)
    y = rand(*sy, seed=2, low=0.5, high=1.5)  # away from 0 for div
    check_forward(op, ref, [x, y])
    check_grad(op, [x, y])


def test_binary_scalar_operand_keeps_dtype():
    x = Tensor(rand(3, seed=0))
    assert (x * 2.0).dtype == x.dtype
    np.testing.assert_allclose((2.0 - x).asnumpy(), 2.0 - x.asnumpy())


def test_binary_bad_broadcast_names_op_and_shapes():
    with pytest.raises(ValueError, match=r"For 'Add'.*\(3, 4\).*\(5,\)"):
        ops.add(Tensor(rand(3, 4)), Tensor(rand(5)))


def test_binary_mixed_dtype_is_type_error():
    with pytest.raises(TypeError, match="Mul.*Float32.*Float64"):
        ops.mul(Tensor(rand(3)), Tensor(rand(3, dtype=np.float64)))


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul_forward_and_grad(ta, tb):
    a = rand(*((4, 3) if ta else (3, 4)), seed=3)
    b = rand(*((5, 4) if tb else (4, 5)), seed=4)
    def ref(x, y):
        return (x.T if ta else x) @ (y.T if tb else y)
    def op(x, y):
        return ops.matmul(x, y, ta, tb)
    check_forward(op, ref, [a, b])
    check_grad(op, [a, b])


def test_matmul_contracted_dim_mismatch():
    with pytest.raises(ValueError, match=r"For 'MatMul'.*contracted dims"):
        ops.MatMul()(Tensor(rand(2, 3)), Tensor(rand(4, 5)))


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (1, 2)])
@pytest.mark.parametrize("keep", [False, True])
def test_reduce_sum(axis, keep):
    x = rand(2, 3, 4, seed=5)
    np_axis = axis if axis is not None else None
    check_forward(lambda t: ops.reduce_sum(t, axis, keep),
                  lambda a: np.sum(a, axis=np_axis, keepdims=keep), [x])
    check_grad(lambda t: ops.reduce_sum(t, axis, keep), [x])


def test_reduce_sum_bad_axis():
    with pytest.raises(ValueError, match=r"For 'ReduceSum'.*axis.*\[-2, 2\).*5"):
        ops.reduce_sum(Tensor(rand(2, 3)), 5)
