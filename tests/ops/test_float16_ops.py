"""float16 through the operators a LeNet/MLP forward and backward needs: each computes in float32
(Primitive.float16_in_float32) and stores float16.

Tolerance: the inputs are float16 values, so the float64 reference sees exactly what the op
sees; the float32 computation adds ~1e-7 relative per operation and a K-term float32 sum at most
K * 6e-8 (K <= 48 here, < 3e-6); storing the result in float16 rounds it once, to within half
a unit in the last place: 2**-11 ~ 4.9e-4 relative (and 2**-25 absolute under float16's normal
range). So rtol=1e-3 (twice the rounding bound) holds for every element, and atol=1e-3 * the
reference's largest magnitude covers elements that cancel to near zero, where a relative bound
means nothing. A kernel that accumulated in float16 would miss it on the 48-term sums: its
error grows to ~K * 4.9e-4.
"""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops

RNG = np.random.default_rng(7)


def h(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, shape).astype(np.float16)


def assert_fp16_close(out, ref):
    """`out` is a float16 Tensor within the module's fp16 tolerance of float64 `ref`."""
    assert out.dtype == ms.float16, out.dtype
    ref = np.asarray(ref, np.float64)
    got = out.asnumpy()
    assert got.dtype == np.float16 and got.shape == ref.shape
    np.testing.assert_allclose(got.astype(np.float64), ref, rtol=1e-3,
                               atol=1e-3 * max(np.abs(ref).max(), 1e-3))


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def t(a):
    return Tensor(a)


def as64(*arrays):
    return [Tensor(a.astype(np.float64)) for a in arrays]


# name -> (fn of Tensors, float16 inputs, float64 numpy reference or None to use fn in float64)
CASES = {
    "matmul": (lambda x, y: ops.matmul(x, y), [h(3, 48), h(48, 5)], lambda x, y: x @ y),
    "matmul_transpose_b": (lambda x, y: ops.MatMul(transpose_b=True)(x, y),
                           [h(4, 40), h(3, 40)], lambda x, y: x @ y.T),
    "batch_matmul": (lambda x, y: ops.BatchMatMul()(x, y), [h(2, 3, 32), h(2, 32, 4)],
                     lambda x, y: x @ y),
    "bias_add": (lambda x, b: ops.bias_add(x, b), [h(2, 3, 4, 4), h(3)],
                 lambda x, b: x + b[None, :, None, None]),
    "bias_add_grad": (lambda d: ops.operations.activation_ops.BiasAddGrad()(d), [h(4, 3, 2, 2)],
                      lambda d: d.sum((0, 2, 3))),
    "relu": (ops.relu, [h(3, 5)], lambda x: np.maximum(x, 0)),
    "sigmoid": (ops.sigmoid, [h(3, 5, low=-4, high=4)], lambda x: 1 / (1 + np.exp(-x))),
    "tanh": (ops.tanh, [h(3, 5, low=-3, high=3)], np.tanh),
    "softmax": (lambda x: ops.softmax(x, -1), [h(4, 10, low=-5, high=5)], _softmax),
    "log_softmax": (lambda x: ops.log_softmax(x, -1), [h(4, 10, low=-5, high=5)],
                    lambda x: np.log(_softmax(x))),
    "reduce_sum": (lambda x: ops.reduce_sum(x, 1), [h(3, 48)], lambda x: x.sum(1)),
    "reduce_mean": (lambda x: ops.reduce_mean(x, (0, 2)), [h(4, 3, 12)], lambda x: x.mean((0, 2))),
    "softmax_ce": (lambda x, y: ops.SoftmaxCrossEntropyWithLogits()(x, y)[0],
                   [h(4, 6, low=-3, high=3), np.eye(6, dtype=np.float16)[[0, 3, 5, 1]]],
                   lambda x, y: -(y * np.log(_softmax(x))).sum(-1)),
    "sparse_softmax_ce": (lambda x: ops.SparseSoftmaxCrossEntropyWithLogits()(
                              x, Tensor(np.array([0, 3, 5, 1], np.int32))),
                          [h(4, 6, low=-3, high=3)],
                          lambda x: -np.log(_softmax(x))[np.arange(4), [0, 3, 5, 1]].mean()),
    "conv2d": (lambda x, w: ops.conv2d(x, w, pad_mode="pad", padding=1), [h(2, 3, 5, 5),
                                                                           h(4, 3, 3, 3)], None),
    "conv2d_backprop_input": (lambda d, w: ops.Conv2DBackpropInput(4, 3)(d, w, (2, 3, 5, 5)),
                              [h(2, 4, 3, 3), h(4, 3, 3, 3)], None),
    "conv2d_backprop_filter": (lambda d, x: ops.Conv2DBackpropFilter(4, 3)(d, x, (4, 3, 3, 3)),
                               [h(2, 4, 3, 3), h(2, 3, 5, 5)], None),
    "max_pool": (lambda x: ops.MaxPool(2, 2)(x), [h(2, 3, 4, 4)], None),
    "avg_pool": (lambda x: ops.AvgPool(2, 2)(x), [h(2, 3, 4, 4)], None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_float16_forward_matches_float64(name):
    fn, inputs, ref = CASES[name]
    out = fn(*[t(a) for a in inputs])
    if ref is None:     # the same operator in float64 (checked against numpy in its own tests)
        expected = fn(*as64(*inputs)).asnumpy()
    else:
        expected = ref(*[a.astype(np.float64) for a in inputs])
    assert_fp16_close(out, expected)


GRAD_CASES = {
    "mlp": (lambda x, w, b: ops.reduce_sum(ops.tanh(ops.bias_add(ops.matmul(x, w), b))
                                            * ops.sigmoid(ops.matmul(x, w))),
            [h(4, 16), h(16, 6), h(6)]),
    "relu_softmax_ce": (lambda x, w: ops.SparseSoftmaxCrossEntropyWithLogits()(
                            ops.relu(ops.matmul(x, w)), Tensor(np.array([1, 0, 2], np.int32))),
                        [h(3, 8), h(8, 4)]),
    "log_softmax_mean": (lambda x: ops.reduce_mean(ops.log_softmax(x, -1) * x), [h(3, 7)]),
    "conv_pool": (lambda x, w: ops.reduce_sum(ops.AvgPool(2, 2)(ops.MaxPool(2, 1)(
                      ops.conv2d(x, w, pad_mode="pad", padding=1))) * 0.5),
                  [h(1, 2, 5, 5), h(3, 2, 3, 3)]),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_float16_gradients_match_float64(name):
    fn, inputs = GRAD_CASES[name]
    positions = tuple(range(len(inputs)))
    grads = ms.grad(fn, positions)(*[t(a) for a in inputs])
    refs = ms.grad(fn, positions)(*as64(*inputs))
    for g, r in zip(grads, refs):
        # A chain of float16 roundings (one per op output): the bound grows with the chain,
        # a few units of 4.9e-4; 1e-2 of the largest gradient still catches a wrong rule.
        assert g.dtype == ms.float16
        r = r.asnumpy()
        np.testing.assert_allclose(g.asnumpy().astype(np.float64), r, rtol=1e-2,
                                   atol=1e-2 * max(np.abs(r).max(), 1e-3))


def test_cast_both_ways_rounds_to_nearest_half():
    x = np.array([1.0, 1.0 + 2 ** -12, 65504.0, 1e-8, -3.14159, 70000.0], np.float32)
    with np.errstate(over="ignore"):    # 70000 is past float16's 65504: inf, as intended
        expected = x.astype(np.float16)
    half = ops.cast(Tensor(x), ms.float16)
    assert half.dtype == ms.float16
    np.testing.assert_array_equal(half.asnumpy(), expected)
    back = ops.cast(half, ms.float32)
    assert back.dtype == ms.float32
    np.testing.assert_array_equal(back.asnumpy(), expected.astype(np.float32))
    g = ms.grad(lambda v: ops.reduce_sum(ops.cast(v, ms.float16) * 2.0))(Tensor(x[[0, 1, 3, 4]]))
    assert g.dtype == ms.float32
    np.testing.assert_array_equal(g.asnumpy(), np.full(4, 2.0, np.float32))


def test_float16_in_graph_mode_equals_pynative():
    x, w = h(4, 16), h(16, 3)

    class Net(ms.nn.Cell):
        def construct(self, a, b):
            return ops.softmax(ops.relu(ops.matmul(a, b)), -1)

    eager = Net()(t(x), t(w))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = Net()(t(x), t(w))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert graph.dtype == ms.float16
    np.testing.assert_array_equal(graph.asnumpy(), eager.asnumpy())


def test_layer_norm_still_refuses_float16():
    with pytest.raises(TypeError, match="LayerNorm"):
        ops.LayerNorm()(t(h(2, 4)), t(h(4)), t(h(4)))
