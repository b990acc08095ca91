"""2-D convolution CPU kernels (NCHW): per-sample im2col / col2im with unsigned indices + BLAS.

Layout of one sample's column matrix, shared by all three kernels (one group at a time):
    cols[(c * KH + i) * KW + j, y * OW + x] = xp[n, c0 + c, y*SH + i*DH, x*SW + j*DW]
where xp is the input already zero-padded by the caller, so no index is ever negative and
every hot loop runs on uint64 (numba then emits no wraparound checks).
Working one sample at a time keeps cols (K x OH*OW: 60-80 KB for LeNet) in L2, and lets the
GEMM write straight into out[n] viewed as (Cout, OH*OW): no batch-wide column matrix in DRAM
and no scatter of the GEMM result. Measured on LeNet batch 256: the batch-wide version spent
most of its time moving a 20 MB column matrix for GEMMs with only 6-16 rows.
"""
import numpy as np
from numba import njit


@njit(cache=True)
def im2col(xp, n, c0, cg, kh, kw, sh, sw, dh, dw, oh, ow, cols):
    """Fill `cols` (cg*kh*kw, oh*ow) from sample n, channels [c0, c0+cg) of the padded input.

    Loop nest: for c, i, j (row): for y: for x (x innermost; strided read, contiguous write).
    Preconditions: xp C-contiguous (N, C, Hp, Wp) with (oh-1)*sh + (kh-1)*dh < Hp and likewise
    for w; cols C-contiguous.
    """
    ucg, ukh, ukw = np.uint64(cg), np.uint64(kh), np.uint64(kw)
    ush, usw, udh, udw = np.uint64(sh), np.uint64(sw), np.uint64(dh), np.uint64(dw)
    uoh, uow, uc0, un = np.uint64(oh), np.uint64(ow), np.uint64(c0), np.uint64(n)
    for c in range(ucg):
        for i in range(ukh):
            for j in range(ukw):
                row = cols[(c * ukh + i) * ukw + j]
                off = j * udw
                for y in range(uoh):
                    src = xp[un, uc0 + c, y * ush + i * udh]
                    base = y * uow
                    for x in range(uow):
                        row[base + x] = src[x * usw + off]


@njit(cache=True)
def col2im(cols, n, c0, cg, kh, kw, sh, sw, dh, dw, oh, ow, dxp):
    """The adjoint of im2col: dxp[n, c0 + c, y*sh + i*dh, x*sw + j*dw] += cols[row, y*ow + x].

    Same loop nest and preconditions as im2col; dxp must be zeroed (or hold the partial sum
    to add to) by the caller.
    """
    ucg, ukh, ukw = np.uint64(cg), np.uint64(kh), np.uint64(kw)
    ush, usw, udh, udw = np.uint64(sh), np.uint64(sw), np.uint64(dh), np.uint64(dw)
    uoh, uow, uc0, un = np.uint64(oh), np.uint64(ow), np.uint64(c0), np.uint64(n)
    for c in range(ucg):
        for i in range(ukh):
            for j in range(ukw):
                row = cols[(c * ukh + i) * ukw + j]
                off = j * udw
                for y in range(uoh):
                    dst = dxp[un, uc0 + c, y * ush + i * udh]
                    base = y * uow
                    for x in range(uow):
                        dst[x * usw + off] += row[base + x]


@njit(cache=True)
def conv2d(xp, w, group, sh, sw, dh, dw, out):
    """out[n, o, y, x] = sum_{c,i,j} w[o, c, i, j] * xp[n, g*Cg + c, y*sh + i*dh, x*sw + j*dw]
    for o in group g.

    Loop nest: for n: for g: im2col(sample n) then one BLAS GEMM
    (Cout_g, K) @ (K, OH*OW) written in place into out[n, group g].
    Preconditions: xp C-contiguous padded input (N, C, Hp, Wp); w C-contiguous
    (Cout, C/group, KH, KW); out C-contiguous (N, Cout, OH, OW) of xp's dtype.
    """
    N, cout, oh, ow = out.shape
    _, cg, kh, kw = w.shape
    og = cout // group
    K = cg * kh * kw
    P = oh * ow
    cols = np.empty((K, P), dtype=xp.dtype)
    wm = w.reshape(cout, K)
    out3 = out.reshape(N, cout, P)
    for n in range(N):
        for g in range(group):
            im2col(xp, n, g * cg, cg, kh, kw, sh, sw, dh, dw, oh, ow, cols)
            np.dot(wm[g * og:(g + 1) * og], cols, out3[n, g * og:(g + 1) * og])


@njit(cache=True)
def conv2d_backprop_input(dout, w, group, sh, sw, dh, dw, dxp):
    """dxp = the gradient of conv2d w.r.t. its padded input: for each sample and group,
    col2im(w_g^T @ dout[n, group g]), accumulated into dxp (zeroed by the caller, padded shape).

    Preconditions: dout C-contiguous (N, Cout, OH, OW); w C-contiguous (Cout, Cg, KH, KW).
    """
    N, cout, oh, ow = dout.shape
    _, cg, kh, kw = w.shape
    og = cout // group
    K = cg * kh * kw
    P = oh * ow
    wm = w.reshape(cout, K)
    d3 = dout.reshape(N, cout, P)
    dcols = np.empty((K, P), dtype=dout.dtype)
    for g in range(group):
        wt = np.ascontiguousarray(wm[g * og:(g + 1) * og].T)
        for n in range(N):
            np.dot(wt, d3[n, g * og:(g + 1) * og], dcols)
            col2im(dcols, n, g * cg, cg, kh, kw, sh, sw, dh, dw, oh, ow, dxp)


@njit(cache=True)
def conv2d_backprop_filter(dout, xp, group, sh, sw, dh, dw, dw_out):
    """dw_out[o, c, i, j] = sum_{n,y,x} dout[n, o, y, x] * xp[n, g*Cg + c, y*sh + i*dh,
    x*sw + j*dw]: for each sample and group, dout[n, group g] (Cout_g, P) @ im2col(n)^T summed
    over n in a float64 accumulator (N products of float32 GEMMs would drift otherwise).

    Preconditions: dout C-contiguous (N, Cout, OH, OW); xp C-contiguous padded input;
    dw_out C-contiguous (Cout, Cg, KH, KW).
    """
    N, cout, oh, ow = dout.shape
    _, cg, kh, kw = dw_out.shape
    og = cout // group
    K = cg * kh * kw
    P = oh * ow
    cols = np.empty((K, P), dtype=xp.dtype)
    part = np.empty((og, K), dtype=xp.dtype)
    acc = np.zeros((cout, K), dtype=np.float64)
    d3 = dout.reshape(N, cout, P)
    for n in range(N):
        for g in range(group):
            im2col(xp, n, g * cg, cg, kh, kw, sh, sw, dh, dw, oh, ow, cols)
            np.dot(d3[n, g * og:(g + 1) * og], cols.T, part)
            acc[g * og:(g + 1) * og] += part
    dwm = dw_out.reshape(cout, K)
    for o in range(cout):
        for k in range(K):
            dwm[o, k] = acc[o, k]


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
