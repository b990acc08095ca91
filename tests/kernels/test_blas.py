"""kernels/cpu/blas.py: GEMM through numpy's OpenBLAS from Numba, against float64 numpy.

The operand layouts BLAS takes as they are (C rows, transposed C, row-strided slices) and the
ones it must copy (column-strided, negative strides) all give the product; degenerate sizes
(K = 0 zero-fills, M or N = 0) do not call BLAS wrongly; the addresses are numpy's library.
"""
import ctypes

import numpy as np
import pytest
import threadpoolctl

from minispore.kernels.cpu import blas
from minispore.kernels.cpu import matmul as mm

RNG = np.random.default_rng(7)


def operand(shape, dtype):
    return RNG.standard_normal(shape).astype(dtype)


def views(x):
    """x itself and views of the same values in other layouts."""
    return {"C": x, "F": np.asfortranarray(x), "transposed C": np.ascontiguousarray(x.T).T,
            "row-strided": np.repeat(x, 2, axis=0)[::2],
            "column-strided": np.repeat(x, 2, axis=1)[:, ::2],
            "reversed rows": np.ascontiguousarray(x[::-1])[::-1]}


def tol(dtype):
    return dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_layout_gives_the_product(dtype):
    a, b = operand((7, 5), dtype), operand((5, 6), dtype)
    want = a.astype(np.float64) @ b.astype(np.float64)
    for name_a, va in views(a).items():
        for name_b, vb in views(b).items():
            out = np.full((7, 6), np.nan, dtype)
            blas.gemm_into(blas.GEMM, va, vb, out)
            np.testing.assert_allclose(out, want, **tol(dtype), err_msg=f"{name_a} @ {name_b}")


@pytest.mark.parametrize("m,k,n", [(1, 4, 3), (4, 1, 3), (4, 3, 1), (1, 1, 1), (32, 784, 512)])
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul_flags_and_thin_shapes(m, k, n, ta, tb):
    a, b = operand((m, k), np.float64), operand((k, n), np.float64)
    got = mm.matmul(np.ascontiguousarray(a.T) if ta else a,
                    np.ascontiguousarray(b.T) if tb else b, ta, tb)
    np.testing.assert_allclose(got, a @ b, rtol=1e-12, atol=1e-12)


def test_empty_dimensions():
    out = np.full((3, 4), np.nan, np.float32)
    blas.gemm_into(blas.GEMM, np.ones((3, 0), np.float32), np.ones((0, 4), np.float32), out)
    np.testing.assert_array_equal(out, np.zeros((3, 4)))
    assert mm.matmul(np.ones((0, 2)), np.ones((2, 5)), False, False).shape == (0, 5)
    assert mm.matmul(np.ones((3, 2)), np.ones((2, 0)), False, False).shape == (3, 0)


def test_a_strided_output_is_refused():
    with pytest.raises(ValueError, match="C-contiguous"):
        blas.gemm_into(blas.GEMM, np.ones((2, 3)), np.ones((3, 4)), np.empty((4, 2)).T)


def test_batch_matmul_repeats_operands_over_the_batch():
    a, b = operand((2, 3, 4), np.float64), operand((3, 5, 4), np.float64)
    out = np.empty((6, 3, 5))
    mm.batch_matmul(a, b, False, True, out)
    want = np.stack([a[z % 2] @ b[z % 3].T for z in range(6)])
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)


def test_mixed_or_integer_dtypes_are_refused_at_compile_time():
    from numba.core.errors import TypingError
    with pytest.raises(TypingError, match="float32 or float64"):
        blas.gemm_into(blas.GEMM, np.ones((2, 2), np.int64), np.ones((2, 2), np.int64),
                       np.empty((2, 2), np.int64))


def test_the_addresses_are_numpys_openblas():
    """One BLAS pool serves numpy and the kernels (blas.py: two pools taking turns spin)."""
    numpy_libs = [i["filepath"] for i in threadpoolctl.threadpool_info()
                  if i["user_api"] == "blas" and "numpy.libs" in i["filepath"]]
    assert len(numpy_libs) == 1, numpy_libs
    lib = ctypes.CDLL(numpy_libs[0])
    symbols = [name for name in ("scipy_cblas_sgemm64_", "cblas_sgemm64_") if hasattr(lib, name)]
    address = ctypes.cast(getattr(lib, symbols[0]), ctypes.c_void_p).value
    assert blas.GEMM[0] == address
