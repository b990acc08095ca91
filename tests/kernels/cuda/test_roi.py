"""PSROIPooling CUDA kernels against the CPU kernels: the forward (rois read flat) and the
gradient (rois as (batch, 5, rois_n), overlapping bins added atomically)."""
import numpy as np
import pytest

from minispore.kernels.cpu import roi as cpu
from minispore.kernels.cuda import roi as gpu

from .conftest import dev, empty, host, same_kernels

NAMES = same_kernels(cpu, gpu, lambda obj: hasattr(obj, "py_func"))
ROIS = np.array([[0, 1.0, 7.9, 100.2, 120.6], [1, 0, 0, 170, 140], [1, 0.0, 60.5, 52.0, 61.0],
                 [0, 30.0, 20.0, 10.0, 5.0]], np.float32).reshape(2, 5, 2)


def test_every_cpu_kernel_has_a_cuda_namesake():
    assert {"ps_roi_pool", "ps_roi_pool_grad"} == set(NAMES)


def test_forward(rng):
    x = rng.standard_normal((2, 18, 9, 11)).astype(np.float32)
    flat = ROIS.reshape(-1)
    want = np.empty((4, 2, 3, 3), np.float32)
    cpu.ps_roi_pool(x, flat, np.float32(1 / 16), 3, want)
    got = empty((4, 2, 3, 3), np.float32)
    gpu.ps_roi_pool(*dev(x, flat), np.float32(1 / 16), 3, got)
    np.testing.assert_allclose(host(got), want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("rois_n", [1, 2])
def test_gradient(rng, rois_n):
    rois = ROIS if rois_n == 2 else ROIS[:, :, :1].copy()
    dy = rng.standard_normal((2 * rois_n, 2, 3, 3)).astype(np.float32)
    want = np.zeros((2, 18, 9, 11), np.float32)
    cpu.ps_roi_pool_grad(dy, rois, np.float32(1 / 16), 3, want)
    got = dev(np.zeros((2, 18, 9, 11), np.float32))
    gpu.ps_roi_pool_grad(*dev(dy, rois), np.float32(1 / 16), 3, got)
    np.testing.assert_allclose(host(got), want, rtol=1e-6, atol=1e-7)
    assert np.count_nonzero(want)
