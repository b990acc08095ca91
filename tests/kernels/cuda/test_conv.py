"""CUDA conv kernels under the simulator vs the CPU kernels: strides, dilation, groups."""
import numpy as np
import pytest
from numba import cuda

from minispore.kernels.cpu import conv as cpu
from minispore.kernels.cuda import conv as gpu
from tests.kernels.cuda.conftest import same_kernels

TOL = {np.float32: 1e-4, np.float64: 1e-12}
# (N, C, H, W, Cout, KH, KW, stride, dilation, group, pad)
CASES = [
    (2, 3, 6, 7, 4, 3, 3, (1, 1), (1, 1), 1, (1, 0)),
    (2, 4, 7, 6, 4, 2, 3, (2, 1), (1, 2), 2, (0, 1)),
]


def _case(rng, case, dtype):
    n, c, h, w, cout, kh, kw, (sh, sw), (dh, dw), group, (pt, pl) = case
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    wt = rng.standard_normal((cout, c // group, kh, kw)).astype(dtype)
    xp = np.zeros((n, c, h + 2 * pt, w + 2 * pl), dtype)
    cpu.pad2d(x, pt, pl, xp)
    oh = (xp.shape[2] - (kh - 1) * dh - 1) // sh + 1
    ow = (xp.shape[3] - (kw - 1) * dw - 1) // sw + 1
    return x, wt, xp, (n, cout, oh, ow), (group, sh, sw, dh, dw)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pad2d_matches_cpu(dtype):
    x = np.random.default_rng(0).standard_normal((2, 2, 3, 4)).astype(dtype)
    want = np.full((2, 2, 6, 5), 7, dtype)
    cpu.pad2d(x, 2, 1, want)
    got = cuda.to_device(np.full((2, 2, 6, 5), 7, dtype))   # stale values must be overwritten
    gpu.pad2d(cuda.to_device(x), 2, 1, got)
    np.testing.assert_array_equal(got.copy_to_host(), want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=["s1-pad", "s2-dil-groups"])
def test_conv2d_and_both_gradients_match_cpu(case, dtype):
    rng = np.random.default_rng(1)
    x, wt, xp, oshape, attrs = _case(rng, case, dtype)
    tol = dict(rtol=TOL[dtype], atol=TOL[dtype])

    want = np.empty(oshape, dtype)
    cpu.conv2d(xp, wt, *attrs, want)
    out = cuda.device_array(oshape, dtype)
    gpu.conv2d(cuda.to_device(xp), cuda.to_device(wt), *attrs, out)
    np.testing.assert_allclose(out.copy_to_host(), want, **tol)

    dout = rng.standard_normal(oshape).astype(dtype)
    want_dx = np.zeros(xp.shape, dtype)
    cpu.conv2d_backprop_input(dout, wt, *attrs, want_dx)
    dx = cuda.to_device(np.zeros(xp.shape, dtype))
    gpu.conv2d_backprop_input(cuda.to_device(dout), cuda.to_device(wt), *attrs, dx)
    np.testing.assert_allclose(dx.copy_to_host(), want_dx, **tol)

    want_dw = np.empty(wt.shape, dtype)
    cpu.conv2d_backprop_filter(dout, xp, *attrs, want_dw)
    dw = cuda.device_array(wt.shape, dtype)
    gpu.conv2d_backprop_filter(cuda.to_device(dout), cuda.to_device(xp), *attrs, dw)
    np.testing.assert_allclose(dw.copy_to_host(), want_dw, **tol)


def test_conv2d_matches_numpy_direct_sum():
    rng = np.random.default_rng(2)
    x, wt, xp, oshape, attrs = _case(rng, CASES[1], np.float64)
    group, sh, sw, dh, dw = attrs
    n, cout, oh, ow = oshape
    cg, og = wt.shape[1], cout // group
    ref = np.zeros(oshape)
    for o in range(cout):
        g = o // og
        for i in range(wt.shape[2]):
            for j in range(wt.shape[3]):
                win = xp[:, g * cg:(g + 1) * cg, i * dh:i * dh + (oh - 1) * sh + 1:sh,
                         j * dw:j * dw + (ow - 1) * sw + 1:sw]
                ref[:, o] += np.einsum("nchw,c->nhw", win, wt[o, :, i, j])
    out = cuda.device_array(oshape, np.float64)
    gpu.conv2d(cuda.to_device(xp), cuda.to_device(wt), *attrs, out)
    np.testing.assert_allclose(out.copy_to_host(), ref, rtol=1e-12, atol=1e-12)


def test_backprop_input_adds_to_existing_gradient():
    rng = np.random.default_rng(3)
    x, wt, xp, oshape, attrs = _case(rng, CASES[0], np.float64)
    dout = rng.standard_normal(oshape)
    base = rng.standard_normal(xp.shape)
    want = base.copy()
    cpu.conv2d_backprop_input(dout, wt, *attrs, want)
    dx = cuda.to_device(base)
    gpu.conv2d_backprop_input(cuda.to_device(dout), cuda.to_device(wt), *attrs, dx)
    np.testing.assert_allclose(dx.copy_to_host(), want, rtol=1e-12, atol=1e-12)


def _is_operator_kernel(obj):
    # im2col/col2im are the CPU kernels' per-sample helpers, not operator kernels.
    return hasattr(obj, "py_func") and obj.__name__ not in ("im2col", "col2im")


def test_same_names_and_signatures_as_cpu():
    same_kernels(cpu, gpu, _is_operator_kernel)
