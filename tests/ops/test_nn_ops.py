"""NN operators (activations, softmax, losses, bias add, dropout, layer norm): forward vs float64
numpy, backward vs finite differences, bad input."""
import math

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand

_erf = np.vectorize(math.erf)


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def _gelu_erf(x):
    return 0.5 * x * (1 + _erf(x / np.sqrt(2)))


ACTIVATIONS = {
    "relu": (ops.relu, lambda x: np.maximum(x, 0)),
    "sigmoid": (ops.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    "tanh": (ops.tanh, np.tanh),
    "gelu_erf": (ops.gelu, _gelu_erf),
    "gelu_tanh": (lambda x: ops.gelu(x, approximate="tanh"), _gelu_tanh),
    "GeLU_primitive": (ops.GeLU(), _gelu_tanh),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 5)])
def test_activation_forward_and_grad(name, shape):
    op, ref = ACTIVATIONS[name]
    x = rand(*shape, seed=1, low=-3, high=3)
    x[np.abs(x) < 1e-2] = 0.5          # keep ReLU's kink out of the finite differences
    out = check_forward(op, ref, [x])
    assert out.dtype == ms.float32
    check_grad(op, [x])


def test_activation_float64_stays_float64():
    assert ops.gelu(Tensor(rand(3, dtype=np.float64))).dtype == ms.float64


def test_sigmoid_extreme_inputs_do_not_overflow():
    x = np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0], np.float32)
    out = ops.sigmoid(Tensor(x)).asnumpy()
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out, [0, 1.9287e-22, 0.5, 1, 1], rtol=1e-4)


def test_activation_rejects_int_input():
    with pytest.raises(TypeError, match=r"For 'Sigmoid'.*Float32.*Int32"):
        ops.sigmoid(Tensor(np.array([1, 2], np.int32)))


def test_gelu_bad_approximate():
    with pytest.raises(ValueError, match=r"'approximate' must be 'tanh' or 'none'.*'erf'"):
        ops.gelu(Tensor(rand(3)), approximate="erf")


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


@pytest.mark.parametrize("axis", [-1, 0, 1, (2,)])
@pytest.mark.parametrize("op,ref", [(ops.softmax, _softmax), (ops.log_softmax, _log_softmax)])
def test_softmax_family_forward_and_grad(op, ref, axis):
    x = rand(2, 3, 4, seed=2, low=-2, high=2)
    np_axis = axis[0] if isinstance(axis, tuple) else axis
    check_forward(lambda t: op(t, axis), lambda a: ref(a, np_axis), [x])
    check_grad(lambda t: op(t, axis), [x])


def test_softmax_is_stable_for_large_logits():
    x = np.array([[1000.0, 1001.0, 1002.0]], np.float32)
    np.testing.assert_allclose(ops.softmax(Tensor(x)).asnumpy(),
                               _softmax(x.astype(np.float64), -1), rtol=1e-5)
    assert np.all(np.isfinite(ops.log_softmax(Tensor(x)).asnumpy()))


def test_softmax_bad_axis():
    with pytest.raises(ValueError, match=r"For 'Softmax'.*\[-2, 2\).*2"):
        ops.softmax(Tensor(rand(2, 3)), 2)
    with pytest.raises(ValueError, match="tuple of one int"):
        ops.Softmax(axis=(0, 1))


def _bias_ref(x, b, axis):
    shape = [1] * x.ndim
    shape[axis] = b.shape[0]
    return x + b.reshape(shape)


@pytest.mark.parametrize("shape,fmt,axis", [((2, 3, 4, 5), "NCHW", 1), ((4, 3), "NCHW", 1),
                                            ((2, 4, 5, 3), "NHWC", 3)])
def test_bias_add_forward_and_grad(shape, fmt, axis):
    x = rand(*shape, seed=3)
    b = rand(shape[axis], seed=4)
    op = ops.BiasAdd(data_format=fmt)
    check_forward(op, lambda a, c: _bias_ref(a, c, axis), [x, b])
    check_grad(op, [x, b])


def test_bias_add_relu_forward_and_grad():
    x = rand(3, 4, 2, seed=5)
    b = rand(4, seed=6)
    x[np.abs(_bias_ref(x, b, 1)) < 2e-2] += 0.1    # no element at the ReLU kink
    check_forward(ops.bias_add_relu, lambda a, c: np.maximum(_bias_ref(a, c, 1), 0), [x, b])
    check_grad(ops.bias_add_relu, [x, b])


def test_bias_add_bad_bias_shape():
    with pytest.raises(ValueError, match=r"For 'BiasAdd'.*channel size 3.*\(2, 3, 4\).*\(4,\)"):
        ops.bias_add(Tensor(rand(2, 3, 4)), Tensor(rand(4)))


def _ce_ref(logits, labels):
    loss = -(labels * _log_softmax(logits, -1)).sum(-1)
    return loss, _softmax(logits, -1) - labels


def _prob_labels(n, c, seed):
    p = rand(n, c, seed=seed, low=0.0, high=1.0)
    return p / p.sum(-1, keepdims=True)


def test_softmax_cross_entropy_forward_and_grad():
    logits = rand(4, 5, seed=7, low=-3, high=3)
    labels = _prob_labels(4, 5, 8)
    check_forward(ops.softmax_cross_entropy_with_logits, _ce_ref, [logits, labels])
    check_grad(ops.softmax_cross_entropy_with_logits, [logits, labels], positions=[0],
               out_index=0)


def test_softmax_cross_entropy_shape_mismatch():
    with pytest.raises(ValueError, match=r"SoftmaxCrossEntropyWithLogits.*\(4, 5\).*\(4, 3\)"):
        ops.softmax_cross_entropy_with_logits(Tensor(rand(4, 5)), Tensor(rand(4, 3)))


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_sparse_softmax_cross_entropy_forward_and_grad(label_dtype):
    logits = rand(5, 7, seed=9, low=-4, high=4)
    labels = np.array([0, 6, 3, 3, 1], label_dtype)
    onehot = np.eye(7)[labels]

    def ref(lg, lab):
        return -(onehot * _log_softmax(lg, -1)).sum(-1).mean()

    check_forward(ops.sparse_softmax_cross_entropy_with_logits, ref, [logits, labels])
    check_grad(ops.sparse_softmax_cross_entropy_with_logits, [logits, labels], positions=[0])
    grad_op = ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)
    check_forward(grad_op, lambda lg, lab: (_softmax(lg, -1) - onehot) / 5, [logits, labels])


def test_sparse_softmax_cross_entropy_is_stable():
    logits = np.array([[1e4, 0.0, -1e4]], np.float32)
    loss = ops.sparse_softmax_cross_entropy_with_logits(Tensor(logits),
                                                        Tensor(np.array([1], np.int32)))
    np.testing.assert_allclose(loss.asnumpy(), 1e4, rtol=1e-6)


def test_sparse_softmax_cross_entropy_bad_labels():
    logits = Tensor(rand(3, 4))
    with pytest.raises(ValueError, match=r"labels\[1\] is 4"):
        ops.sparse_softmax_cross_entropy_with_logits(logits, Tensor(np.array([0, 4, 1], np.int32)))
    with pytest.raises(TypeError, match=r"'labels'.*Int32, Int64.*Float32"):
        ops.sparse_softmax_cross_entropy_with_logits(logits, Tensor(rand(3)))
    with pytest.raises(ValueError, match=r"\(3, 4\) and \(2,\)"):
        ops.sparse_softmax_cross_entropy_with_logits(logits, Tensor(np.array([0, 1], np.int32)))


def test_dropout_mask_output_and_seed():
    x = rand(64, 64, seed=10)
    ms.set_seed(3)
    out, mask = ops.Dropout(keep_prob=0.75)(Tensor(x))
    ms.set_seed(3)
    out2, mask2 = ops.Dropout(keep_prob=0.75)(Tensor(x))
    m = mask.asnumpy()
    assert mask.dtype == ms.float32 and set(np.unique(m)) <= {0.0, 1.0}
    np.testing.assert_array_equal(m, mask2.asnumpy())
    np.testing.assert_allclose(out.asnumpy(), x * m / 0.75, rtol=1e-6)
    assert abs(m.mean() - 0.75) < 0.03
    np.testing.assert_array_equal(out.asnumpy(), out2.asnumpy())


def test_dropout_grad_is_mask_over_keep_prob():
    x = Tensor(rand(8, 9, seed=11))
    ms.set_seed(5)
    box = {}

    def f(t):
        out, mask = ops.Dropout(keep_prob=0.6)(t)
        box["mask"] = mask.asnumpy()
        return out.sum()

    g = ms.grad(f)(x).asnumpy()
    np.testing.assert_allclose(g, box["mask"] / 0.6, rtol=1e-6)


def test_dropout_functional_modes():
    x = Tensor(rand(5, seed=12))
    assert ops.dropout(x, p=0.3, training=False) is x
    np.testing.assert_array_equal(ops.dropout(x, p=1.0).asnumpy(), np.zeros(5, np.float32))
    with pytest.raises(ValueError, match=r"'p' must be a float in \[0, 1\]"):
        ops.dropout(x, p=1.5)


def test_dropout_bad_keep_prob():
    with pytest.raises(ValueError, match=r"'keep_prob' must be in range \(0, 1\], but got 0"):
        ops.Dropout(keep_prob=0.0)


def _layer_norm_ref(x, g, b, norm, eps):
    axes = tuple(range(norm, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    rstd = 1 / np.sqrt(var + eps)
    # MindSpore 2.7's CPU LayerNorm returns the variance as its third output (recorded in
    # tests/conformance), not the rstd its documentation names.
    return (x - mean) * rstd * g + b, mean, var


@pytest.mark.parametrize("shape,norm,params", [((4, 6), 1, 1), ((2, 3, 4), 1, 1),
                                               ((2, 3, 4), -1, -1), ((2, 3, 4), 1, 2)])
def test_layer_norm_forward_and_grad(shape, norm, params):
    x = rand(*shape, seed=13)
    pshape = shape[params % len(shape):]
    g = rand(*pshape, seed=14, low=0.5, high=1.5)
    b = rand(*pshape, seed=15)
    op = ops.LayerNorm(norm, params, 1e-5)
    check_forward(op, lambda a, c, d: _layer_norm_ref(a, c, d, norm % len(shape), 1e-5),
                  [x, g, b], rtol=1e-4, atol=1e-5)
    check_grad(op, [x, g, b], out_index=0, rtol=1e-4, atol=1e-6)


def test_layer_norm_functional():
    x = rand(3, 5, seed=16)
    out = ops.layer_norm(Tensor(x), (5,))
    np.testing.assert_allclose(out.asnumpy(),
                               _layer_norm_ref(x.astype(np.float64), 1, 0, 1, 1e-5)[0],
                               rtol=1e-4, atol=1e-5)


def test_layer_norm_bad_gamma():
    with pytest.raises(ValueError, match=r"For 'LayerNorm'.*'gamma' must have shape \(3, 4\)"):
        ops.LayerNorm()(Tensor(rand(2, 3, 4)), Tensor(rand(4)), Tensor(rand(3, 4)))


def test_layer_norm_params_axis_before_the_norm_axis():
    """MindSpore's LayerNorm takes begin_params_axis < begin_norm_axis (gamma/beta covering
    more dims than are normalised): y = normalised(x) * gamma + beta; values recorded from
    MindSpore 2.7.2 for this seed, gradients by finite differences."""
    from minispore.ops.operations import LayerNorm
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    g, b = (rng.standard_normal((3, 4)).astype(np.float32) for _ in range(2))
    y, mean, var = LayerNorm(2, 1)(Tensor(x), Tensor(g), Tensor(b))
    np.testing.assert_allclose(y.asnumpy()[0, 0], [-0.84293, -0.23527, -0.41783, 1.75446],
                               atol=1e-5)
    assert mean.shape == (2, 3, 1) and var.shape == (2, 3, 1)
    x64 = x.astype(np.float64)
    ref = (x64 - x64.mean(-1, keepdims=True)) / np.sqrt(x64.var(-1, keepdims=True) + 1e-7) * g + b
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=1e-4, atol=1e-5)
    check_grad(lambda a, gg, bb: LayerNorm(2, 1)(a, gg, bb)[0], [x, g, b], rtol=1e-4)
