"""BatchNorm and BatchNormGrad: forward vs float64 numpy (training and inference), backward vs
finite differences, the in-place moving-statistics update, errors, eager-vs-GRAPH parity."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand


def _axes(x):
    return (0,) + tuple(range(2, x.ndim))


def _bcast(v, x):
    return v.reshape((1, -1) + (1,) * (x.ndim - 2))


def _bn_train_ref(x, g, b, m, v, eps=1e-5):
    mu, var = x.mean(_axes(x)), x.var(_axes(x))
    rstd = 1 / np.sqrt(var + eps)
    y = (x - _bcast(mu, x)) * _bcast(rstd, x) * _bcast(g, x) + _bcast(b, x)
    return y, mu, var, mu, rstd


def _bn_infer_ref(x, g, b, m, v, eps=1e-5):
    rstd = 1 / np.sqrt(v + eps)
    return (x - _bcast(m, x)) * _bcast(rstd, x) * _bcast(g, x) + _bcast(b, x), m, v, m, rstd


def _inputs(shape, seed=0):
    c = shape[1]
    return [rand(*shape, seed=seed) * 2 + 0.5, rand(c, seed=seed + 1, low=0.5, high=1.5),
            rand(c, seed=seed + 2), rand(c, seed=seed + 3),
            rand(c, seed=seed + 4, low=0.5, high=1.5)]


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (3, 2, 3, 4)])
def test_batch_norm_training_forward_matches_numpy(shape):
    check_forward(ops.BatchNorm(is_training=True), _bn_train_ref, _inputs(shape), rtol=1e-4,
                  atol=1e-5)


@pytest.mark.parametrize("shape", [(6, 3), (3, 2, 3, 4)])
def test_batch_norm_inference_forward_matches_numpy(shape):
    check_forward(ops.BatchNorm(), _bn_infer_ref, _inputs(shape, 7), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_grad_matches_finite_differences(training):
    check_grad(ops.BatchNorm(is_training=training), _inputs((3, 2, 2, 3), 11),
               positions=(0, 1, 2), out_index=0, rtol=1e-5, atol=1e-7)


def test_batch_norm_updates_parameters_in_place_with_unbiased_variance():
    x, g, b, m, v = _inputs((4, 3, 2, 2), 3)
    mean, var = Parameter(Tensor(m), name="mean"), Parameter(Tensor(v), name="var")
    ops.BatchNorm(is_training=True, momentum=0.1)(Tensor(x), Tensor(g), Tensor(b), mean, var)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(mean.asnumpy(), 0.9 * m + 0.1 * x64.mean((0, 2, 3)), rtol=1e-5)
    np.testing.assert_allclose(var.asnumpy(), 0.9 * v + 0.1 * x64.var((0, 2, 3), ddof=1),
                               rtol=1e-5)
    before = mean.asnumpy().copy()
    ops.BatchNorm()(Tensor(x), Tensor(g), Tensor(b), mean, var)   # inference: no update
    np.testing.assert_array_equal(mean.asnumpy(), before)


def test_batch_norm_functional():
    x, g, b, m, v = _inputs((4, 3), 5)
    out = ops.batch_norm(Tensor(x), Tensor(m), Tensor(v), Tensor(g), Tensor(b))
    np.testing.assert_allclose(out.asnumpy(), _bn_infer_ref(*(a.astype(np.float64) for a in
                                                              (x, g, b, m, v)))[0],
                               rtol=1e-5, atol=1e-6)


def test_batch_norm_graph_equals_eager():
    x, g, b, m, v = _inputs((4, 3, 2, 2), 9)
    op = ops.BatchNorm(is_training=True)

    def step(x, g, b):
        y = op(x, g, b, Tensor(m), Tensor(v))[0]
        return (y * y * x).sum()

    eager = ms.value_and_grad(step, grad_position=(0, 1, 2))(Tensor(x), Tensor(g), Tensor(b))
    graph = ms.jit(ms.value_and_grad(step, grad_position=(0, 1, 2)))(Tensor(x), Tensor(g),
                                                                      Tensor(b))
    np.testing.assert_allclose(graph[0].asnumpy(), eager[0].asnumpy(), rtol=1e-6)
    for ge, gg in zip(eager[1], graph[1]):
        np.testing.assert_allclose(gg.asnumpy(), ge.asnumpy(), rtol=1e-5, atol=1e-6)


def test_batch_norm_errors():
    x, g, b, m, v = (Tensor(a) for a in _inputs((4, 3, 2, 2)))
    with pytest.raises(ValueError, match=r"For 'BatchNorm'.*'scale' must have shape \(3,\).*"
                                         r"\(2,\)"):
        ops.BatchNorm()(x, Tensor(rand(2)), b, m, v)
    with pytest.raises(TypeError, match=r"For 'BatchNorm'.*'input_x'"):
        ops.BatchNorm()(Tensor(np.ones((4, 3), np.int32)), g, b, m, v)
    with pytest.raises(TypeError, match=r"For 'BatchNorm'.*same dtype"):
        ops.BatchNorm()(x, Tensor(rand(3).astype(np.float64)), b, m, v)
    with pytest.raises(ValueError, match=r"For 'BatchNorm'.*2-D to 5-D.*\(3,\)"):
        ops.BatchNorm()(Tensor(rand(3)), g, b, m, v)
    with pytest.raises(ValueError, match=r"For 'BatchNorm'.*more than one value per channel"):
        ops.BatchNorm(is_training=True)(Tensor(rand(1, 3)), g, b, m, v)
    with pytest.raises(ValueError, match=r"For 'BatchNorm', 'momentum' must be .*\[0, 1\].*1.5"):
        ops.BatchNorm(momentum=1.5)
    with pytest.raises(ValueError, match=r"For 'BatchNorm', 'epsilon'"):
        ops.BatchNorm(epsilon=0.0)
    with pytest.raises(TypeError, match=r"For 'BatchNorm', 'is_training' must be a bool"):
        ops.BatchNorm(is_training=1)
    with pytest.raises(NotImplementedError, match=r"For 'BatchNorm', data_format 'NHWC'"):
        ops.BatchNorm(data_format="NHWC")


def test_batch_norm_grad_shape_errors():
    x, g, _, m, _ = (Tensor(a) for a in _inputs((4, 3, 2, 2)))
    with pytest.raises(ValueError, match=r"For 'BatchNormGrad'.*same shape"):
        ops.BatchNormGrad(True)(Tensor(rand(4, 3, 2, 1)), x, g, m, m)
