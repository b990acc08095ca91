"""CPU conv kernels at the array level vs float64 numpy references: the plane blocking (several
blocks, a partial last one), odd channel and tap counts, strides with row phases, dilation,
groups, and the float64 accumulator of the filter gradient."""
import numpy as np
import pytest

from minispore.kernels.cpu import conv as C


def _windows(xp, kh, kw, sh, sw, dh, dw, oh, ow):
    """win[n, c, i, j, y, x] = xp[n, c, y*sh + i*dh, x*sw + j*dw]."""
    n, c = xp.shape[:2]
    win = np.empty((n, c, kh, kw, oh, ow), xp.dtype)
    for i in range(kh):
        for j in range(kw):
            win[:, :, i, j] = xp[:, :, i * dh:i * dh + (oh - 1) * sh + 1:sh,
                                 j * dw:j * dw + (ow - 1) * sw + 1:sw]
    return win


def _ref_forward(xp, w, group, sh, sw, dh, dw, oh, ow):
    cout, cg, kh, kw = w.shape
    win = _windows(xp.astype(np.float64), kh, kw, sh, sw, dh, dw, oh, ow)
    og = cout // group
    return np.concatenate([np.einsum("ncijyx,ocij->noyx", win[:, g * cg:(g + 1) * cg],
                                     w[g * og:(g + 1) * og].astype(np.float64))
                           for g in range(group)], axis=1)


def _ref_filter(dout, xp, group, sh, sw, dh, dw, kh, kw):
    n, cout, oh, ow = dout.shape
    cg = xp.shape[1] // group
    og = cout // group
    win = _windows(xp.astype(np.float64), kh, kw, sh, sw, dh, dw, oh, ow)
    return np.concatenate([np.einsum("ncijyx,noyx->ocij", win[:, g * cg:(g + 1) * cg],
                                     dout[:, g * og:(g + 1) * og].astype(np.float64))
                           for g in range(group)], axis=0)


# (N, C, Hp, Wp, Cout, (kh, kw), (sh, sw), (dh, dw), group)
CASES = [
    (9, 1, 32, 32, 6, (5, 5), (1, 1), (1, 1), 1),      # LeNet conv1: one sample per block
    (17, 6, 14, 14, 16, (5, 5), (1, 1), (1, 1), 1),    # LeNet conv2: blocks of 7, then 3
    (5, 3, 9, 11, 5, (3, 2), (2, 3), (2, 1), 1),       # odd Cout, K % 4 != 0, row phases
    (4, 6, 10, 9, 9, (3, 3), (3, 1), (1, 2), 3),       # groups, stride 3 over dilation 1
    (3, 2, 12, 7, 3, (2, 3), (2, 2), (3, 1), 1),       # dilation not a multiple of stride
    (40, 2, 6, 6, 2, (1, 1), (1, 1), (1, 1), 2),       # 1x1, one channel in and out per group
]


def _case(case, dtype, seed):
    n, c, hp, wp, cout, (kh, kw), (sh, sw), (dh, dw), group = case
    oh = (hp - (kh - 1) * dh - 1) // sh + 1
    ow = (wp - (kw - 1) * dw - 1) // sw + 1
    rng = np.random.default_rng(seed)
    xp = rng.standard_normal((n, c, hp, wp)).astype(dtype)
    w = rng.standard_normal((cout, c // group, kh, kw)).astype(dtype)
    dout = rng.standard_normal((n, cout, oh, ow)).astype(dtype)
    return xp, w, dout, (group, sh, sw, dh, dw), (oh, ow)


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("case", CASES)
def test_conv2d_kernel_matches_float64_reference(case, dtype, tol):
    xp, w, _, args, (oh, ow) = _case(case, dtype, 0)
    out = np.full((xp.shape[0], w.shape[0], oh, ow), np.nan, dtype)
    C.conv2d(xp, w, *args, out)
    want = _ref_forward(xp, w, *args, oh, ow)
    np.testing.assert_allclose(out, want, rtol=tol, atol=tol * np.abs(want).max())


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("case", CASES)
def test_conv2d_backprop_filter_kernel_matches_float64_reference(case, dtype, tol):
    xp, w, dout, args, _ = _case(case, dtype, 1)
    dw = np.full(w.shape, np.nan, dtype)
    C.conv2d_backprop_filter(dout, xp, *args, dw)
    want = _ref_filter(dout, xp, *args, *w.shape[2:])
    np.testing.assert_allclose(dw, want, rtol=tol, atol=tol * np.abs(want).max())


def _ref_input(dout, w, group, sh, sw, dh, dw, xp_shape):
    n, cout, oh, ow = dout.shape
    _, cg, kh, kw = w.shape
    og = cout // group
    dxp = np.zeros(xp_shape)
    for g in range(group):
        for i in range(kh):
            for j in range(kw):
                dxp[:, g * cg:(g + 1) * cg, i * dh:i * dh + (oh - 1) * sh + 1:sh,
                    j * dw:j * dw + (ow - 1) * sw + 1:sw] += np.einsum(
                        "noyx,oc->ncyx", dout[:, g * og:(g + 1) * og].astype(np.float64),
                        w[g * og:(g + 1) * og, :, i, j].astype(np.float64))
    return dxp


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("case", CASES)
def test_conv2d_backprop_input_kernel_matches_float64_reference(case, dtype, tol):
    xp, w, dout, args, _ = _case(case, dtype, 2)
    dxp = np.zeros_like(xp)
    C.conv2d_backprop_input(dout, w, *args, dxp)
    want = _ref_input(dout, w, *args, xp.shape)
    np.testing.assert_allclose(dxp, want, rtol=tol, atol=tol * np.abs(want).max())


def test_conv2d_backprop_input_kernel_adds_to_dxp():
    xp, w, dout, args, _ = _case(CASES[1], np.float64, 4)
    dxp = np.ones_like(xp)
    C.conv2d_backprop_input(dout, w, *args, dxp)
    np.testing.assert_allclose(dxp, 1 + _ref_input(dout, w, *args, xp.shape), atol=1e-12)


def test_conv2d_backprop_filter_sums_a_large_batch_accurately():
    # 256 LeNet conv1 samples: 200k-term sums, far past float32's exact range when done naively.
    xp, w, dout, args, _ = _case((256, 1, 32, 32, 6, (5, 5), (1, 1), (1, 1), 1), np.float32, 3)
    dw = np.empty(w.shape, np.float32)
    C.conv2d_backprop_filter(dout + np.float32(1), xp + np.float32(1), *args, dw)
    want = _ref_filter(dout + np.float32(1), xp + np.float32(1), *args, 5, 5)
    np.testing.assert_allclose(dw, want, rtol=2e-6)
