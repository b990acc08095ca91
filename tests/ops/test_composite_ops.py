"""The everyday operators composed of existing primitives (minispore/ops/function/
composite_func.py) and StopGradient: float64 references, finite-difference gradients, GRAPH
parity and MindSpore-style errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand


def test_stack():
    a, b = rand(2, 3, seed=1), rand(2, 3, seed=2)
    for axis in (0, 1, -1):
        check_forward(lambda x, y: ops.stack([x, y], axis),
                      lambda x, y: np.stack([x, y], axis), [a, b])
        check_grad(lambda x, y: ops.Stack(axis)([x, y]), [a, b])
    with pytest.raises(ValueError, match="every tensor must have shape"):
        ops.stack([Tensor(a), Tensor(rand(3, 2))])
    with pytest.raises(ValueError, match="'axis' must be an int in"):
        ops.stack([Tensor(a)], 3)


def test_where_and_masked_fill():
    x, y = rand(3, 4, seed=1), rand(3, 4, seed=2)
    cond = x > 0
    check_forward(lambda a, b: ops.where(Tensor(cond), a, b),
                  lambda a, b: np.where(cond, a, b), [x, y])
    check_grad(lambda a, b: ops.where(Tensor(cond), a, b), [x, y])
    check_forward(lambda a: ops.masked_fill(a, Tensor(cond), -2.0),
                  lambda a: np.where(cond, -2.0, a), [x])
    check_grad(lambda a: ops.masked_fill(a, Tensor(cond), 0.5), [x])
    with pytest.raises(TypeError, match="'condition' must be a bool Tensor"):
        ops.where(Tensor(x), Tensor(x), Tensor(y))
    with pytest.raises(TypeError, match="'mask' must be a bool Tensor"):
        ops.masked_fill(Tensor(x), Tensor(x), 1.0)


def test_clamp_and_clip():
    x = rand(4, 5, seed=3)
    check_forward(lambda a: ops.clamp(a, -0.3, 0.4), lambda a: np.clip(a, -0.3, 0.4), [x])
    check_forward(lambda a: ops.clip(a, max=0.1), lambda a: np.minimum(a, 0.1), [x])
    check_grad(lambda a: ops.clamp(a, -0.3, 0.4), [x])
    with pytest.raises(ValueError, match="at least one of 'min' and 'max'"):
        ops.clamp(Tensor(x))


def test_permute_swapaxes():
    x = rand(2, 3, 4, seed=4)
    check_forward(lambda a: ops.permute(a, (2, 0, 1)), lambda a: np.transpose(a, (2, 0, 1)), [x])
    check_forward(lambda a: ops.swapaxes(a, 0, -1), lambda a: np.swapaxes(a, 0, -1), [x])
    check_grad(lambda a: ops.swapaxes(a, 1, 2), [x])
    with pytest.raises(ValueError, match="'axis1' must be an int in"):
        ops.swapaxes(Tensor(x), 0, 3)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8])
def test_argmin(dtype):
    x = (rand(3, 5, seed=5) * 50).astype(dtype)
    assert ops.argmin(Tensor(x), 1).asnumpy().tolist() == np.argmin(x, 1).tolist()
    assert ops.argmin(Tensor(x), 0, True).shape == (1, 5)
    assert int(ops.argmin(Tensor(x)).asnumpy()) == int(np.argmin(x))


def test_stop_gradient_blocks_the_gradient():
    x = rand(3, seed=6)
    check_forward(lambda a: ops.stop_gradient(a) * 2, lambda a: a * 2, [x])
    g = ms.grad(lambda a: (ops.stop_gradient(a) * a).sum())(Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), x, rtol=1e-6)        # only the second factor


def test_arange():
    assert ops.arange(5).asnumpy().tolist() == [0, 1, 2, 3, 4] and ops.arange(5).dtype == ms.int64
    np.testing.assert_allclose(ops.arange(1, 2, 0.25).asnumpy(), [1.0, 1.25, 1.5, 1.75])
    assert ops.arange(0, 6, 2, dtype=ms.float32).dtype == ms.float32
    with pytest.raises(ValueError, match="'step' must not be 0"):
        ops.arange(0, 3, 0)
    with pytest.raises(TypeError, match="'end' must be an int or a float"):
        ops.arange(0, "3")


def test_graph_mode_equals_eager():
    x = Tensor(rand(3, 4, seed=7))

    def fn(a):
        return (ops.stack([a, ops.clamp(a, -0.2, 0.2)], 0).sum(0)
                + ops.swapaxes(ops.permute(ops.masked_fill(a, a > 0.5, 0.0), (1, 0)), 0, 1)
                + ops.where(a > 0, ops.stop_gradient(a), a))

    eager = fn(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(ms.jit(fn)(x).asnumpy(), eager, rtol=1e-6)
