"""2-D convolution CPU kernels (NCHW): im2col / col2im with unsigned indices + BLAS GEMM.

Layout of the column matrix, shared by all three kernels (one group at a time):
    cols[(c * KH + i) * KW + j, (n * OH + y) * OW + x] = xp[n, c0 + c, y*SH + i*DH, x*SW + j*DW]
where xp is the input already zero-padded by the caller, so no index is ever negative and
every hot loop runs on uint64 (numba then emits no wraparound checks). One GEMM per group
covers the whole batch: (Cout_g, K) @ (K, N*OH*OW).
"""
import numpy as np
from numba import njit


@njit(cache=True)
def im2col(xp, c0, cg, kh, kw, sh, sw, dh, dw, oh, ow, cols):
    """Fill `cols` (cg*kh*kw, N*oh*ow) from channels [c0, c0+cg) of the padded input xp.

    Loop nest: for c, i, j (row): for n: for y: for x (x innermost; strided read of xp,
    contiguous write). Preconditions: xp C-contiguous (N, C, Hp, Wp) with
    (oh-1)*sh + (kh-1)*dh < Hp and likewise for w; cols C-contiguous.
    """
    N = np.uint64(xp.shape[0])
    ucg, ukh, ukw = np.uint64(cg), np.uint64(kh), np.uint64(kw)
    ush, usw, udh, udw = np.uint64(sh), np.uint64(sw), np.uint64(dh), np.uint64(dw)
    uoh, uow, uc0 = np.uint64(oh), np.uint64(ow), np.uint64(c0)
    for c in range(ucg):
        for i in range(ukh):
            for j in range(ukw):
                row = (c * ukh + i) * ukw + j
                for n in range(N):
                    for y in range(uoh):
                        src = xp[n, uc0 + c, y * ush + i * udh]
                        base = (n * uoh + y) * uow
                        off = j * udw
                        for x in range(uow):
                            cols[row, base + x] = src[x * usw + off]


@njit(cache=True)
def col2im(cols, c0, cg, kh, kw, sh, sw, dh, dw, oh, ow, dxp):
    """The adjoint of im2col: dxp[n, c0 + c, y*sh + i*dh, x*sw + j*dw] += cols[row, col].

    Same loop nest and preconditions as im2col; dxp must be zeroed (or hold the partial sum
    to add to) by the caller.
    """
    N = np.uint64(dxp.shape[0])
    ucg, ukh, ukw = np.uint64(cg), np.uint64(kh), np.uint64(kw)
    ush, usw, udh, udw = np.uint64(sh), np.uint64(sw), np.uint64(dh), np.uint64(dw)
    uoh, uow, uc0 = np.uint64(oh), np.uint64(ow), np.uint64(c0)
    for c in range(ucg):
        for i in range(ukh):
            for j in range(ukw):
                row = (c * ukh + i) * ukw + j
                for n in range(N):
                    for y in range(uoh):
                        dst = dxp[n, uc0 + c, y * ush + i * udh]
                        base = (n * uoh + y) * uow
                        off = j * udw
                        for x in range(uow):
                            dst[x * usw + off] += cols[row, base + x]


@njit(cache=True)
def conv2d(xp, w, group, sh, sw, dh, dw, out):
    """out[n, o, y, x] = sum_{c,i,j} w[o, c, i, j] * xp[n, g*Cg + c, y*sh + i*dh, x*sw + j*dw]
    for o in group g.

    Per group: im2col, one BLAS GEMM (Cout_g, K) @ (K, N*OH*OW), scatter into out.
    Preconditions: xp C-contiguous padded input (N, C, Hp, Wp); w C-contiguous
    (Cout, C/group, KH, KW); out (N, Cout, OH, OW) of xp's dtype.
    """
    N, cout, oh, ow = out.shape
    _, cg, kh, kw = w.shape
    og = cout // group
    K = cg * kh * kw
    P = oh * ow
    cols = np.empty((K, N * P), dtype=xp.dtype)
    wm = w.reshape(cout, K)
    for g in range(group):
        im2col(xp, g * cg, cg, kh, kw, sh, sw, dh, dw, oh, ow, cols)
        res = np.dot(wm[g * og:(g + 1) * og], cols)
        for o in range(og):
            for n in range(N):
                dst = out[n, g * og + o].reshape(P)
                src = res[o, n * P:(n + 1) * P]
                for p in range(P):
                    dst[p] = src[p]


@njit(cache=True)
def _dout_matrix(dout, o0, og):
    """dm[o, n*P + p] = dout[n, o0 + o, p] (the GEMM layout of one group's output gradient)."""
    N, _, oh, ow = dout.shape
    P = oh * ow
    dm = np.empty((og, N * P), dtype=dout.dtype)
    for o in range(og):
        for n in range(N):
            src = dout[n, o0 + o].reshape(P)
            for p in range(P):
                dm[o, n * P + p] = src[p]
    return dm


@njit(cache=True)
def conv2d_backprop_input(dout, w, group, sh, sw, dh, dw, dxp):
    """dxp = the gradient of conv2d w.r.t. its padded input: per group
    col2im(w_g^T @ dout_g), accumulated into dxp (zeroed by the caller, padded shape).

    Preconditions: dout C-contiguous (N, Cout, OH, OW); w C-contiguous (Cout, Cg, KH, KW).
    """
    N, cout, oh, ow = dout.shape
    _, cg, kh, kw = w.shape
    og = cout // group
    K = cg * kh * kw
    wm = w.reshape(cout, K)
    for g in range(group):
        dm = _dout_matrix(dout, g * og, og)
        dcols = np.dot(np.ascontiguousarray(wm[g * og:(g + 1) * og].T), dm)
        col2im(dcols, g * cg, cg, kh, kw, sh, sw, dh, dw, oh, ow, dxp)


@njit(cache=True)
def conv2d_backprop_filter(dout, xp, group, sh, sw, dh, dw, dw_out):
    """dw_out[o, c, i, j] = sum_{n,y,x} dout[n, o, y, x] * xp[n, g*Cg + c, y*sh + i*dh,
    x*sw + j*dw]: per group dout_g (Cout_g, N*P) @ im2col(xp)^T.

    Preconditions: dout C-contiguous (N, Cout, OH, OW); xp C-contiguous padded input;
    dw_out C-contiguous (Cout, Cg, KH, KW).
    """
    N, cout, oh, ow = dout.shape
    _, cg, kh, kw = dw_out.shape
    og = cout // group
    K = cg * kh * kw
    cols = np.empty((K, N * oh * ow), dtype=xp.dtype)
    dwm = dw_out.reshape(cout, K)
    for g in range(group):
        im2col(xp, g * cg, cg, kh, kw, sh, sw, dh, dw, oh, ow, cols)
        dm = _dout_matrix(dout, g * og, og)
        dwm[g * og:(g + 1) * og] = np.dot(dm, cols.T)


@njit(cache=True)
def pad2d(x, pt, pl, xp):
    """xp = x zero-padded: xp[n, c, pt + i, pl + j] = x[n, c, i, j], zeros elsewhere.

    Loop nest: for n, c: for every padded row (rows outside x zero-filled whole).
    Preconditions: x, xp C-contiguous (N, C, H, W) and (N, C, Hp, Wp) with
    pt + H <= Hp and pl + W <= Wp.
    """
    N, C, H, W = x.shape
    Hp, Wp = xp.shape[2], xp.shape[3]
    zero = x.dtype.type(0)
    for n in range(N):
        for c in range(C):
            for i in range(Hp):
                dst = xp[n, c, i]
                if i < pt or i >= pt + H:
                    for j in range(Wp):
                        dst[j] = zero
                    continue
                src = x[n, c, i - pt]
                for j in range(pl):
                    dst[j] = zero
                for j in range(W):
                    dst[pl + j] = src[j]
                for j in range(pl + W, Wp):
                    dst[j] = zero
