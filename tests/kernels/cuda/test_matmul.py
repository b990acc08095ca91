"""CUDA GEMM kernels under the simulator vs the CPU kernels: tile-crossing sizes, both flags."""
import functools

import numpy as np
import pytest
from numba import cuda

from minispore.kernels.cpu import matmul as cpu
from minispore.kernels.cuda import matmul as gpu
from tests.kernels.cuda.conftest import same_kernels

DTYPES = [np.float32, np.float64]
# Loose enough for float32 sums over K <= 40, tight enough to catch a dropped or doubled term.
TOL = {np.float32: 1e-4, np.float64: 1e-12}


def _operand(rng, rows, cols, transpose, dtype):
    x = rng.standard_normal((rows, cols)).astype(dtype)
    return np.ascontiguousarray(x.T) if transpose else x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
def test_matmul_matches_cpu_across_tile_edges(dtype, ta, tb):
    rng = np.random.default_rng(0)
    # 17 x 23 @ 23 x 19: no dimension is a multiple of the tile (BK = 8 crosses twice).
    a = _operand(rng, 17, 23, ta, dtype)
    b = _operand(rng, 23, 19, tb, dtype)
    out = gpu.matmul(cuda.to_device(a), cuda.to_device(b), ta, tb)
    host = out.copy_to_host()
    want = cpu.matmul(a, b, ta, tb)
    assert host.dtype == dtype and host.shape == (17, 19)
    np.testing.assert_allclose(host, want, rtol=TOL[dtype], atol=TOL[dtype])
    ref = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64)
    np.testing.assert_allclose(host, ref, rtol=TOL[dtype], atol=TOL[dtype])


def test_matmul_spans_several_blocks_in_m_and_n():
    rng = np.random.default_rng(1)
    # 70 > BM = 64 rows and 66 > BN columns: four blocks, the last ones mostly out of range.
    a = rng.standard_normal((70, 5)).astype(np.float32)
    b = rng.standard_normal((5, 66)).astype(np.float32)
    out = gpu.matmul(cuda.to_device(a), cuda.to_device(b), False, False).copy_to_host()
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("tile", ["LARGE", "SMALL"])
def test_real_gpu_tile_variants(dtype, tile):
    # pick_tile gives the simulator its own small tile; the tiles a GPU runs are tested here.
    rng = np.random.default_rng(2)
    a = rng.standard_normal((1, 17, 23)).astype(dtype)
    b = rng.standard_normal((1, 19, 23)).astype(dtype)
    c = cuda.device_array((1, 17, 19), dtype=dtype)
    gpu.gemm3(cuda.to_device(a), cuda.to_device(b), c, False, True, tile=getattr(gpu, tile))
    np.testing.assert_allclose(c.copy_to_host()[0], a[0] @ b[0].T,
                               rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ta,tb", [(False, False), (True, True)])
def test_batch_matmul_matches_cpu(dtype, ta, tb):
    rng = np.random.default_rng(3)
    a = np.stack([_operand(rng, 9, 11, ta, dtype) for _ in range(3)])
    b = np.stack([_operand(rng, 11, 10, tb, dtype) for _ in range(3)])
    want = np.empty((3, 9, 10), dtype)
    cpu.batch_matmul(a, b, ta, tb, want)
    out = cuda.device_array((3, 9, 10), dtype=dtype)
    gpu.batch_matmul(cuda.to_device(a), cuda.to_device(b), ta, tb, out)
    np.testing.assert_allclose(out.copy_to_host(), want, rtol=TOL[dtype], atol=TOL[dtype])


def test_broadcast_operand_and_accumulate():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 6, 7))          # broadcast over a batch of 4: a[z % 2]
    b = rng.standard_normal((4, 7, 5))
    c0 = rng.standard_normal((4, 6, 5))
    c = cuda.to_device(c0)
    gpu.gemm3(cuda.to_device(a), cuda.to_device(b), c, False, False, accumulate=True)
    want = c0 + np.stack([a[z % 2] @ b[z] for z in range(4)])
    np.testing.assert_allclose(c.copy_to_host(), want, rtol=1e-12, atol=1e-12)


def test_same_names_and_signatures_as_cpu():
    assert set(same_kernels(cpu, gpu, lambda o: isinstance(o, functools.partial))) == {
        "matmul", "matmul_into", "batch_matmul"}


@pytest.mark.parametrize("ta,tb", [(False, True), (True, False)])
def test_batch_matmul_broadcast_operands_match_cpu(ta, tb):
    # out batch 6 from a batch of 2 (a[z % 2]) and of 3 (b[z % 3]): BatchMatMul's contract.
    rng = np.random.default_rng(5)
    a = np.stack([_operand(rng, 5, 4, ta, np.float64) for _ in range(2)])
    b = np.stack([_operand(rng, 4, 3, tb, np.float64) for _ in range(3)])
    want = np.empty((6, 5, 3))
    cpu.batch_matmul(a, b, ta, tb, want)
    out = cuda.device_array((6, 5, 3), dtype=np.float64)
    gpu.batch_matmul(cuda.to_device(a), cuda.to_device(b), ta, tb, out)
    np.testing.assert_allclose(out.copy_to_host(), want, rtol=1e-12, atol=1e-12)
