"""Second-order gradients: each backward operator's own bprop against central differences of
that operator (float64), grad of grad against MindSpore 2.7.2's printed values
(tests/ops/oracle_second_order_grad.py), and a gradient through an operator without one
raising NotImplementedError naming it where it used to read as zero."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from minispore.ops.operations import _math_grad_ops as G
from minispore.ops.operations.activation_ops import (BiasAddGrad, GeLUGrad, ReluGrad,
                                                     SigmoidGrad, TanhGrad)
from minispore.ops.operations.conv_ops import AvgPoolGrad
from tests.ops.harness import check_grad

RNG = np.random.default_rng(0)


def _away_from_zero(shape):
    x = RNG.uniform(0.3, 1.5, shape)
    return x * np.where(RNG.uniform(size=shape) < 0.5, -1, 1)


def _positive(shape):
    return RNG.uniform(0.4, 2.0, shape)


@pytest.mark.parametrize("name,op,arrays", [
    ("ReluGrad", ReluGrad(), [RNG.standard_normal((3, 4)), _away_from_zero((3, 4))]),
    ("SigmoidGrad", SigmoidGrad(), [RNG.uniform(0.1, 0.9, (3, 4)), RNG.standard_normal((3, 4))]),
    ("TanhGrad", TanhGrad(), [RNG.uniform(-0.9, 0.9, (3, 4)), RNG.standard_normal((3, 4))]),
    ("GeLUGrad tanh", GeLUGrad("tanh"), [RNG.standard_normal((3, 4)),
                                         RNG.standard_normal((3, 4)) * 2]),
    ("GeLUGrad none", GeLUGrad("none"), [RNG.standard_normal((3, 4)),
                                         RNG.standard_normal((3, 4)) * 2]),
    ("BiasAddGrad NCHW", BiasAddGrad(), [RNG.standard_normal((2, 3, 4, 2))]),
    ("BiasAddGrad NHWC", BiasAddGrad("NHWC"), [RNG.standard_normal((2, 4, 2, 3))]),
    ("AvgPoolGrad valid", AvgPoolGrad(3, 2), [RNG.standard_normal((2, 2, 7, 7)),
                                              RNG.standard_normal((2, 2, 3, 3)),
                                              RNG.standard_normal((2, 2, 3, 3))]),
    ("AvgPoolGrad same", AvgPoolGrad(3, 2, "same"), [RNG.standard_normal((1, 2, 6, 5)),
                                                     RNG.standard_normal((1, 2, 3, 3)),
                                                     RNG.standard_normal((1, 2, 3, 3))]),
    ("AvgPoolGrad pad counted", AvgPoolGrad(2, 1, "pad", pad=1, count_include_pad=True),
     [RNG.standard_normal((1, 1, 4, 4)), RNG.standard_normal((1, 1, 5, 5)),
      RNG.standard_normal((1, 1, 5, 5))]),
    ("SquareGrad", G.SquareGrad(), [RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))]),
    ("AbsGrad", G.AbsGrad(), [_away_from_zero((3, 4)), RNG.standard_normal((3, 4))]),
    ("SqrtGrad", G.SqrtGrad(), [_positive((3, 4)), RNG.standard_normal((3, 4))]),
    ("RsqrtGrad", G.RsqrtGrad(), [_positive((3, 4)), RNG.standard_normal((3, 4))]),
    ("MaximumGrad", G.MaximumGrad(), [RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4)),
                                      RNG.standard_normal((3, 4))]),
    ("MinimumGrad", G.MinimumGrad(), [RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4)),
                                      RNG.standard_normal((3, 4))]),
    ("PowGradX", G.PowGradX(), [_positive((3, 4)), RNG.uniform(-2, 3, (3, 4)),
                                RNG.standard_normal((3, 4))]),
    # a broadcast exponent: its gradient sums back to (4,)
    ("PowGradX broadcast", G.PowGradX(), [_positive((3, 4)), RNG.uniform(-2, 3, (4,)),
                                          RNG.standard_normal((3, 4))]),
    ("PowGradY", G.PowGradY(), [_positive((3, 4)), _positive((3, 4)),
                                RNG.standard_normal((3, 4))]),
])
def test_backward_operators_bprop_matches_finite_differences(name, op, arrays):
    check_grad(lambda *ts: op(*ts), arrays)


@pytest.mark.parametrize("plane_offsets", [False, True])
def test_max_pool_grad_with_argmax_bprop_matches_finite_differences(plane_offsets):
    x = Tensor(RNG.standard_normal((2, 3, 6, 6)))
    _, argmax = ops.MaxPoolWithArgmaxV2(2, 2)(x) if not plane_offsets else \
        ops.MaxPoolWithArgmax(2, 2)(x)
    op = ops.MaxPoolGradWithArgmax(plane_offsets)
    check_grad(lambda d: op(x, d, argmax), [RNG.standard_normal((2, 3, 3, 3))])


X = Tensor(np.array([0.5, -1.0], np.float32))
C = Tensor(np.array([1.0, 3.0], np.float32))


@pytest.mark.parametrize("name,fn,mindspore", [
    ("tanh", lambda y: ops.tanh(y).sum(), [-0.72686195, 0.63969994]),
    ("sigmoid", lambda y: ops.sigmoid(y).sum(), [-0.05755683, 0.09085773]),
    ("pow", lambda y: (y ** 3).sum(), [3.0, -6.0]),
    ("sqrt of abs", lambda y: ops.sqrt(ops.abs(y)).sum(), [-0.70710677, -0.25]),
    ("relu times x", lambda y: (ops.relu(y) * y).sum(), [2.0, 0.0]),
    ("gelu", lambda y: ops.gelu(y).sum(), [0.6161143, 0.24197069]),
    ("maximum squared", lambda y: (ops.maximum(y, 0.2) ** 2).sum(), [2.0, 0.0]),
])
def test_grad_of_grad_is_mindspores(name, fn, mindspore):
    got = ms.grad(lambda t: ms.grad(fn)(t).sum())(X)
    np.testing.assert_allclose(got.asnumpy(), mindspore, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_grad_of_grad_in_both_modes(mode):
    ms.set_context(mode=mode)
    try:
        inner = ms.jit(lambda t: ms.grad(lambda y: (ops.tanh(y) * C).sum())(t))
        got = ms.grad(lambda t: (inner(t) * C).sum())(X)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    y = np.tanh(X.asnumpy().astype(np.float64))
    np.testing.assert_allclose(got.asnumpy(), 9 * -2 * y * (1 - y * y) * [1 / 9, 1], rtol=1e-5)


def test_a_gradient_through_an_operator_without_one_raises_naming_it():
    # MindSpore raises too: softmax's second order ("The pointer[input_tensor] is null"),
    # LogSoftmaxGrad's and Qr's "bprop not defined"
    with pytest.raises(NotImplementedError, match="For 'SoftmaxGrad', minispore has no "
                                                  "gradient: a second-order gradient"):
        ms.grad(lambda t: ms.grad(lambda y: (ops.softmax(y) * C).sum())(t).sum())(X)
    with pytest.raises(NotImplementedError, match="For 'Qr', minispore has no gradient: "
                                                  "MindSpore defines no bprop"):
        ms.grad(lambda m: ops.qr(m)[1].sum())(Tensor(np.eye(2, dtype=np.float32) * 2))


def test_an_unused_second_order_path_does_not_raise():
    """The first-order gradient inside another tape runs SoftmaxGrad with live inputs; only a
    cotangent that reaches it asks for its bprop."""
    def outer(t):
        g = ms.grad(lambda y: (ops.softmax(y) * C).sum())(t)
        return (t * t).sum() + ops.stop_gradient(g).sum()
    np.testing.assert_allclose(ms.grad(outer)(X).asnumpy(), 2 * X.asnumpy())
