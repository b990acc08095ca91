"""GEMM from Numba kernels through numpy's own OpenBLAS (cblas_sgemm / cblas_dgemm by address).

Why not ``np.dot`` inside @njit: Numba binds that to scipy's bundled OpenBLAS (0.3.30 here),
numpy's wheel bundles a newer one (0.3.31), and on the tutorial nets' shapes numpy's is faster:
the eight GEMMs of an MLP 784-512-512-10 training step, one thread, 1130 -> 959 us at batch 32
and 7080 -> 6800 us at 256 (tools/bench.py `bench_gemm_libraries`). One
library also means one BLAS thread pool: two OpenBLAS pools taking turns spin against each
other on 2 cores (the same eight GEMMs on 2 threads took 5.6 ms instead of 3.5 ms when
alternated with numpy's).

The function's address is an argument, never a compile-time constant: the on-disk cache then
stays valid in a process where the library loads elsewhere. `GEMM` holds the (sgemm, dgemm)
addresses. numpy wheels from PyPI bundle this OpenBLAS (numpy >= 2: scipy-openblas64; 1.2x:
openblas64_); a numpy built against another BLAS raises ImportError here, naming what it lacks.
"""
import ctypes
import glob
import os

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core.errors import TypingError
from numba.extending import intrinsic

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112


def _numpy_openblas_gemm():
    """(address of cblas_sgemm, of cblas_dgemm) in numpy's bundled 64-bit-int OpenBLAS."""
    libs = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    paths = sorted(glob.glob(os.path.join(libs, "lib*openblas64_*.so*")))
    for path in paths:
        lib = ctypes.CDLL(path)    # numpy loaded it already: the same handle, the same pool
        for prefix in ("scipy_cblas_", "cblas_"):
            try:
                return tuple(ctypes.cast(getattr(lib, f"{prefix}{t}gemm64_"), ctypes.c_void_p)
                             .value for t in "sd")
            except AttributeError:
                continue
    raise ImportError(
        f"minispore's CPU MatMul calls the 64-bit-int OpenBLAS bundled with numpy wheels from "
        f"PyPI (cblas_sgemm64_ in {libs}/lib*openblas64_*.so), but this numpy "
        f"{np.__version__} has none ({paths or 'no such library'}): install numpy from PyPI "
        f"(pip install --force-reinstall numpy).")


GEMM = _numpy_openblas_gemm()


@intrinsic
def _cblas_gemm(typingctx, addresses, trans_a, trans_b, m, n, k, a, lda, b, ldb, c):
    """C (m, n, row-major, ldc = n) = op(A) @ op(B) by the cblas ?gemm at addresses[0]
    (float32) or addresses[1] (float64); A, B, C are arrays whose data pointers BLAS reads."""
    if not (a.dtype == b.dtype == c.dtype and c.dtype in (types.float32, types.float64)):
        raise TypingError(f"cblas gemm takes float32 or float64 arrays of one dtype, got "
                          f"{a.dtype}, {b.dtype}, {c.dtype}")
    double = c.dtype == types.float64
    sig = types.void(addresses, types.int32, types.int32, types.int64, types.int64,
                     types.int64, a, types.int64, b, types.int64, c)

    def codegen(context, builder, signature, args):
        addrs, ta, tb, m_, n_, k_, a_, lda_, b_, ldb_, c_ = args
        flt = ir.DoubleType() if double else ir.FloatType()
        i32, i64, ptr = ir.IntType(32), ir.IntType(64), flt.as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [i32, i32, i32, i64, i64, i64, flt, ptr, i64,
                                               ptr, i64, flt, ptr, i64])
        address = builder.extract_value(addrs, 1 if double else 0)
        fn = builder.inttoptr(address, fnty.as_pointer())

        def data(ty, value):
            return context.make_array(ty)(context, builder, value).data

        sa, sb, sc = signature.args[6], signature.args[8], signature.args[10]
        builder.call(fn, [ir.Constant(i32, _ROW_MAJOR), ta, tb, m_, n_, k_, ir.Constant(flt, 1.0),
                          data(sa, a_), lda_, data(sb, b_), ldb_, ir.Constant(flt, 0.0),
                          data(sc, c_), n_])
        return context.get_dummy_value()
    return sig, codegen


@njit(cache=True)
def _as_blas_operand(x, rows, cols):
    """(cblas transpose flag, leading dimension, array) for a logical (rows, cols) operand x:
    rows laid out with unit column stride (no transpose), or columns with unit row stride
    (a transposed C array: transpose), else a C-contiguous copy."""
    item = x.itemsize
    s0, s1 = x.strides[0] // item, x.strides[1] // item
    if (s1 == 1 or cols == 1) and (s0 >= max(1, cols) or rows == 1):
        return _NO_TRANS, max(s0, cols, 1), x
    if (s0 == 1 or rows == 1) and (s1 >= max(1, rows) or cols == 1):
        return _TRANS, max(s1, rows, 1), x
    return _NO_TRANS, max(cols, 1), np.ascontiguousarray(x)


@njit(cache=True)
def gemm_into(addresses, a, b, out):
    """out (M, N), C-contiguous = a (M, K) @ b (K, N), where a and b are any 2-D views whose
    rows or columns are unit-stride (transposes and row slices go to BLAS as they are)."""
    m, k = a.shape
    n = b.shape[1]
    if not out.flags.c_contiguous:
        raise ValueError("gemm_into: out must be C-contiguous (BLAS writes its rows n apart)")
    if m == 0 or n == 0:
        return out
    if k == 0:
        out[:] = 0
        return out
    ta, lda, a_ = _as_blas_operand(a, m, k)
    tb, ldb, b_ = _as_blas_operand(b, k, n)
    _cblas_gemm(addresses, np.int32(ta), np.int32(tb), m, n, k, a_, lda, b_, ldb, out)
    return out
