"""CUDA softmax family and fused cross-entropy against the CPU kernels of the same name."""
import numpy as np
import pytest

from minispore.kernels.cpu import softmax as cpu
from minispore.kernels.cuda import softmax as gpu

from .conftest import DTYPES, dev, empty, host, same_kernels, tol


def test_every_cpu_kernel_has_a_cuda_namesake():
    assert set(same_kernels(cpu, gpu, lambda obj: hasattr(obj, "py_func"))) == {
        "softmax", "log_softmax", "softmax_grad", "log_softmax_grad", "softmax_cross_entropy",
        "sparse_softmax_cross_entropy", "mean"}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 45, 3), (5, 10, 1)], ids=["middle-axis", "last-axis"])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_forward_and_grad(name, shape, dtype, rng):
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    x[0, 0, 0] = 60   # would overflow exp without the max shift in float32
    want = np.empty_like(x)
    getattr(cpu, name)(x, want)
    got = empty(shape, dtype)
    getattr(gpu, name)(dev(x), got)
    np.testing.assert_allclose(host(got), want, **tol(dtype))
    dy = rng.standard_normal(shape).astype(dtype)
    want_dx = np.empty_like(x)
    getattr(cpu, name + "_grad")(want, dy, want_dx)
    got_dx = empty(shape, dtype)
    getattr(gpu, name + "_grad")(*dev(want, dy), got_dx)
    np.testing.assert_allclose(host(got_dx), want_dx, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_dense_cross_entropy_loss_and_dlogits(dtype, rng):
    logits = (rng.standard_normal((5, 37)) * 3).astype(dtype)
    labels = rng.random((5, 37)).astype(dtype)
    labels /= labels.sum(axis=1, keepdims=True)
    want_loss, want_d = np.empty(5, dtype), np.empty_like(logits)
    cpu.softmax_cross_entropy(logits, labels, want_loss, want_d)
    loss, d = empty(5, dtype), empty(logits.shape, dtype)
    gpu.softmax_cross_entropy(*dev(logits, labels), loss, d)
    np.testing.assert_allclose(host(loss), want_loss, **tol(dtype))
    np.testing.assert_allclose(host(d), want_d, **tol(dtype))
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    np.testing.assert_allclose(host(d), p - labels, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", DTYPES)
def test_sparse_cross_entropy_and_mean(dtype, label_dtype, rng):
    logits = (rng.standard_normal((6, 40)) * 3).astype(dtype)
    labels = rng.integers(0, 40, 6).astype(label_dtype)
    scale = dtype(1 / 6)
    want_loss, want_d = np.empty(6, dtype), np.empty_like(logits)
    assert cpu.sparse_softmax_cross_entropy(logits, labels, want_loss, want_d, scale) == -1
    loss, d = empty(6, dtype), empty(logits.shape, dtype)
    assert gpu.sparse_softmax_cross_entropy(*dev(logits, labels), loss, d, scale) == -1
    np.testing.assert_allclose(host(loss), want_loss, **tol(dtype))
    np.testing.assert_allclose(host(d), want_d, **tol(dtype))
    assert gpu.mean(loss) == pytest.approx(cpu.mean(want_loss), rel=1e-6)


@pytest.mark.parametrize("bad", [[0, 3, 40, 1, -1, 2], [0, 1, 2, 3, 4, -5]])
def test_sparse_cross_entropy_reports_the_first_bad_row_like_the_cpu(bad, rng):
    logits = rng.standard_normal((6, 40)).astype(np.float32)
    labels = np.array(bad, np.int32)
    cpu_row = cpu.sparse_softmax_cross_entropy(logits, labels, np.empty(6, np.float32),
                                               np.empty_like(logits), np.float32(1))
    gpu_row = gpu.sparse_softmax_cross_entropy(*dev(logits, labels), empty(6, np.float32),
                                               empty(logits.shape, np.float32), np.float32(1))
    assert gpu_row == cpu_row == next(i for i, v in enumerate(bad) if not 0 <= v < 40)
