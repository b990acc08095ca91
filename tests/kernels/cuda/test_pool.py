"""CUDA pooling kernels under the simulator vs the CPU kernels: overlapping, padded windows."""
import numpy as np
import pytest
from numba import cuda

from minispore.kernels.cpu import pool as cpu
from minispore.kernels.cuda import pool as gpu
from tests.kernels.cuda.conftest import same_kernels

TOL = {np.float32: 1e-5, np.float64: 1e-12}
# (kh, kw, sh, sw, pt, pl) on a (2, 2, 5, 6) input: overlapping + padded, and disjoint.
WINDOWS = [(3, 3, 2, 1, 1, 1), (2, 2, 2, 2, 0, 0)]


def _oshape(x, kh, kw, sh, sw, pt, pl):
    n, c, h, w = x.shape
    return n, c, (h + 2 * pt - kh) // sh + 1, (w + 2 * pl - kw) // sw + 1


def _input(dtype):
    x = np.random.default_rng(0).standard_normal((2, 2, 5, 6)).astype(dtype)
    x[0, 0, 1, :3] = x[0, 0, 0, 0]      # ties: the first maximum in window order must win
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("win", WINDOWS, ids=["overlap-pad", "disjoint"])
def test_max_pool_forward_and_grad_match_cpu(win, dtype):
    x = _input(dtype)
    oshape = _oshape(x, *win)
    want = np.empty(oshape, dtype)
    cpu.max_pool2d(x, *win, want)
    out = cuda.device_array(oshape, dtype)
    gpu.max_pool2d(cuda.to_device(x), *win, out)
    np.testing.assert_array_equal(out.copy_to_host(), want)

    dy = np.random.default_rng(1).standard_normal(oshape).astype(dtype)
    want_dx = np.full(x.shape, np.nan, dtype)     # every element is written
    cpu.max_pool2d_grad(x, dy, *win, want_dx)
    dx = cuda.to_device(np.full(x.shape, np.nan, dtype))
    gpu.max_pool2d_grad(cuda.to_device(x), cuda.to_device(dy), *win, dx)
    np.testing.assert_allclose(dx.copy_to_host(), want_dx, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("include_pad", [False, True])
def test_avg_pool_forward_and_grad_match_cpu(include_pad, dtype):
    x = _input(dtype)
    win = WINDOWS[0]
    oshape = _oshape(x, *win)
    want = np.empty(oshape, dtype)
    cpu.avg_pool2d(x, *win, include_pad, want)
    out = cuda.device_array(oshape, dtype)
    gpu.avg_pool2d(cuda.to_device(x), *win, include_pad, out)
    got = out.copy_to_host()
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=TOL[dtype], atol=TOL[dtype])

    dy = np.random.default_rng(1).standard_normal(oshape).astype(dtype)
    want_dx = np.full(x.shape, np.nan, dtype)     # every element is written
    cpu.avg_pool2d_grad(dy, *win, include_pad, want_dx)
    dx = cuda.to_device(np.full(x.shape, np.nan, dtype))
    gpu.avg_pool2d_grad(cuda.to_device(dy), *win, include_pad, dx)
    np.testing.assert_allclose(dx.copy_to_host(), want_dx, rtol=TOL[dtype], atol=TOL[dtype])


def test_avg_pool_matches_numpy_window_mean():
    x = _input(np.float64)
    out = cuda.device_array((2, 2, 2, 3))
    gpu.avg_pool2d(cuda.to_device(x), 2, 2, 2, 2, 0, 0, False, out)
    ref = x[:, :, :4, :6].reshape(2, 2, 2, 2, 3, 2).mean(axis=(3, 5))
    np.testing.assert_allclose(out.copy_to_host(), ref, rtol=1e-12)


def test_same_names_and_signatures_as_cpu():
    same_kernels(cpu, gpu, lambda o: hasattr(o, "py_func"))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("plane_offsets,argmax_dtype", [(True, np.int32), (False, np.int64)])
def test_max_pool_argmax_and_its_scatter_match_cpu(plane_offsets, argmax_dtype, dtype):
    x = _input(dtype)
    args = (3, 2, 2, 1, 1, 0, 2, 1)     # kh, kw, sh, sw, pt, pl, dh, dw: dilated rows
    oshape = (2, 2, 2, 5)
    want, want_arg = np.empty(oshape, dtype), np.empty(oshape, argmax_dtype)
    cpu.max_pool2d_argmax(x, *args, plane_offsets, want, want_arg)
    out = cuda.device_array(oshape, dtype)
    arg = cuda.device_array(oshape, argmax_dtype)
    gpu.max_pool2d_argmax(cuda.to_device(x), *args, plane_offsets, out, arg)
    np.testing.assert_array_equal(out.copy_to_host(), want)
    np.testing.assert_array_equal(arg.copy_to_host(), want_arg)

    rows, width = (2, 60) if plane_offsets else (4, 30)
    dy = np.random.default_rng(1).standard_normal(oshape).astype(dtype).reshape(rows, -1)
    idx = want_arg.reshape(rows, -1)
    want_dx = np.full((rows, width), np.nan, dtype)     # the kernel zeroes it first
    cpu.scatter_add_rows(dy, idx, want_dx)
    dx = cuda.to_device(np.full((rows, width), np.nan, dtype))
    gpu.scatter_add_rows(cuda.to_device(dy), cuda.to_device(np.ascontiguousarray(idx)), dx)
    np.testing.assert_allclose(dx.copy_to_host(), want_dx, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_unpool_scatter_and_gather_match_cpu(index_dtype, dtype):
    rng = np.random.default_rng(2)
    src = rng.standard_normal((4, 6)).astype(dtype)
    index = np.stack([rng.integers(-1, 12, 6) for _ in range(4)]).astype(index_dtype)
    want, want_bad = np.full((4, 10), np.nan, dtype), np.zeros(1, np.int64)
    cpu.scatter_rows(src, index, want, want_bad)
    out, bad = cuda.to_device(np.full((4, 10), np.nan, dtype)), cuda.to_device(np.zeros(1,
                                                                                        np.int64))
    gpu.scatter_rows(cuda.to_device(src), cuda.to_device(index), out, bad)
    np.testing.assert_array_equal(out.copy_to_host(), want)
    assert bad.copy_to_host()[0] == want_bad[0] > 0

    inside = np.clip(index, 0, 9)
    want_g = np.empty((4, 6), dtype)
    cpu.gather_rows(want, inside, want_g)
    got_g = cuda.device_array((4, 6), dtype)
    gpu.gather_rows(cuda.to_device(want), cuda.to_device(inside), got_g)
    np.testing.assert_array_equal(got_g.copy_to_host(), want_g)
