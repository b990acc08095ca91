"""2-D convolution CPU kernels (NCHW): direct convolution over shifted "planes", and padding.

All three kernels (any stride, dilation, group) work on planes of a block of B samples of one
group:
    planes[(c*KW + j)*SH + r, b, y', x] = xp[n0 + b, c0 + c, y'*SH + r, x*SW + j*DW]
for y' < Hq = OH + (KH-1)*DH // SH (rows past the input read as zero). With a = i*DH // SH and
r = i*DH % SH, tap (c, i, j) of output (b, y, x) is planes[(c*KW + j)*SH + r] at the flat
index q = (b*Hq + y + a)*OW + x: one run of the plane, shifted by a*OW. So each tap is a long
contiguous axpy (forward, input gradient) or dot product (filter gradient) over q that LLVM
vectorises, with several outputs and taps per pass to reuse loads (2x8 axpy, 4x4 dot). Rows
y >= OH of each sample are throw-away outputs (Hq/OH extra work: 1.14x for LeNet's conv1, 1.4x
for conv2).
Measured on LeNet (batch 256, one core) against per-sample im2col + GEMM, whose GEMMs have only
6-16 rows or inner products: conv1 2.9x faster (forward) and 3.9x (filter gradient); conv2
1.8x, 2.5x and 1.4x (input gradient). Planes gathered with a signed strided copy loop cost a
third of the gain, hence the uint64 indices there.
"""
import numpy as np
from numba import njit

# Samples per block: enough for about this many flat outputs per pass, so the per-pass setup
# is amortised while the planes stay in L1/L2 (LeNet conv2: 7 samples, conv1: 1).
_BLOCK_ELEMS = 1024


@njit(cache=True)
def _plane_geometry(N, oh, ow, kh, sh, dh):
    """(Hq, S, B, pitch): plane rows per sample, plane elements per sample, samples per block,
    and the elements between planes (B*S rounded up to 64 bytes of float32: aligned rows made
    LeNet's conv2 5-10% faster)."""
    hq = oh + (kh - 1) * dh // sh
    s = hq * ow
    b = max(1, min(N, _BLOCK_ELEMS // s))
    return hq, s, b, (b * s + 15) // 16 * 16


@njit(cache=True)
def _tap_offsets(cg, kh, kw, sh, dh, plane, ow, ntaps):
    """offs[(c*KH + i)*KW + j]: where tap (c, i, j) starts in the gathered planes (each `plane`
    elements apart); the padding entries past cg*kh*kw are 0."""
    offs = np.zeros(ntaps, dtype=np.int64)
    for c in range(cg):
        for i in range(kh):
            for j in range(kw):
                offs[(c * kh + i) * kw + j] = (((c * kw + j) * sh + (i * dh) % sh) * plane
                                               + (i * dh) // sh * ow)
    return offs


@njit(cache=True)
def _gather_planes(xp, n0, nb, c0, cg, kw, sh, sw, dw, hq, ow, pitch, planes):
    """Fill the planes (module docstring) of samples [n0, n0+nb), channels [c0, c0+cg).

    Loop nest: for c, j, r: for b, y': for x (x innermost, uint64: a strided gather).
    Preconditions: xp C-contiguous padded input; planes holds cg*kw*sh planes `pitch` apart.
    """
    hp = xp.shape[2]
    usw, uow = np.uint64(sw), np.uint64(ow)
    for c in range(cg):
        for j in range(kw):
            uj = np.uint64(j * dw)
            for r in range(sh):
                start = ((c * kw + j) * sh + r) * pitch
                for b in range(nb):
                    for y in range(hq):
                        row = y * sh + r
                        dst = planes[start + (b * hq + y) * ow:start + (b * hq + y + 1) * ow]
                        if row < hp:
                            src = xp[n0 + b, c0 + c, row]
                            for x in range(uow):
                                dst[x] = src[x * usw + uj]
                        else:
                            dst[:] = 0


@njit(cache=True, fastmath={'contract'})
def _axpy_2x8(acc, o, planes, offs, k, w, L):
    """acc[r, q] += sum_t w[o + r, k + t] * planes[offs[k + t] + q] for r < 2, t < 8, q < L
    (eight taps per pass rather than four: 3-9% faster on LeNet even with conv1's 25 taps
    padded to 32)."""
    ul = np.uint64(L)
    u0, u1 = np.uint64(offs[k]), np.uint64(offs[k + 1])
    u2, u3 = np.uint64(offs[k + 2]), np.uint64(offs[k + 3])
    u4, u5 = np.uint64(offs[k + 4]), np.uint64(offs[k + 5])
    u6, u7 = np.uint64(offs[k + 6]), np.uint64(offs[k + 7])
    a0, a1, a2, a3 = w[o, k], w[o, k + 1], w[o, k + 2], w[o, k + 3]
    a4, a5, a6, a7 = w[o, k + 4], w[o, k + 5], w[o, k + 6], w[o, k + 7]
    b0, b1, b2, b3 = w[o + 1, k], w[o + 1, k + 1], w[o + 1, k + 2], w[o + 1, k + 3]
    b4, b5, b6, b7 = w[o + 1, k + 4], w[o + 1, k + 5], w[o + 1, k + 6], w[o + 1, k + 7]
    y0 = acc[0]
    y1 = acc[1]
    for q in range(ul):
        x0, x1, x2, x3 = planes[u0 + q], planes[u1 + q], planes[u2 + q], planes[u3 + q]
        x4, x5, x6, x7 = planes[u4 + q], planes[u5 + q], planes[u6 + q], planes[u7 + q]
        y0[q] += ((a0 * x0 + a1 * x1 + a2 * x2 + a3 * x3)
                  + (a4 * x4 + a5 * x5 + a6 * x6 + a7 * x7))
        y1[q] += ((b0 * x0 + b1 * x1 + b2 * x2 + b3 * x3)
                  + (b4 * x4 + b5 * x5 + b6 * x6 + b7 * x7))


@njit(cache=True, fastmath={'contract', 'reassoc'})
def _dot_4x4(acc, o, d, planes, offs, k, L):
    """acc[o + r, k + t] += sum_q d[o + r, q] * planes[offs[k + t] + q] for r, t < 4: sixteen
    float32 dot products over q < L (reassoc lets LLVM keep them in vector registers; four
    rows rather than two made LeNet's conv2 filter gradient 13% faster)."""
    ul = np.uint64(L)
    u0, u1 = np.uint64(offs[k]), np.uint64(offs[k + 1])
    u2, u3 = np.uint64(offs[k + 2]), np.uint64(offs[k + 3])
    d0 = d[o]
    d1 = d[o + 1]
    d2 = d[o + 2]
    d3 = d[o + 3]
    z = d.dtype.type(0)
    s00 = s01 = s02 = s03 = s10 = s11 = s12 = s13 = z
    s20 = s21 = s22 = s23 = s30 = s31 = s32 = s33 = z
    for q in range(ul):
        x0, x1, x2, x3 = planes[u0 + q], planes[u1 + q], planes[u2 + q], planes[u3 + q]
        e0, e1, e2, e3 = d0[q], d1[q], d2[q], d3[q]
        s00 += e0 * x0
        s01 += e0 * x1
        s02 += e0 * x2
        s03 += e0 * x3
        s10 += e1 * x0
        s11 += e1 * x1
        s12 += e1 * x2
        s13 += e1 * x3
        s20 += e2 * x0
        s21 += e2 * x1
        s22 += e2 * x2
        s23 += e2 * x3
        s30 += e3 * x0
        s31 += e3 * x1
        s32 += e3 * x2
        s33 += e3 * x3
    acc[o, k] += s00
    acc[o, k + 1] += s01
    acc[o, k + 2] += s02
    acc[o, k + 3] += s03
    acc[o + 1, k] += s10
    acc[o + 1, k + 1] += s11
    acc[o + 1, k + 2] += s12
    acc[o + 1, k + 3] += s13
    acc[o + 2, k] += s20
    acc[o + 2, k + 1] += s21
    acc[o + 2, k + 2] += s22
    acc[o + 2, k + 3] += s23
    acc[o + 3, k] += s30
    acc[o + 3, k + 1] += s31
    acc[o + 3, k + 2] += s32
    acc[o + 3, k + 3] += s33


@njit(cache=True)
def conv2d(xp, w, group, sh, sw, dh, dw, out):
    """out[n, o, y, x] = sum_{c,i,j} w[o, c, i, j] * xp[n, g*Cg + c, y*sh + i*dh, x*sw + j*dw]
    for o in group g.

    Loop nest: for each block of B samples: for g: _gather_planes, then for each pair of output
    channels: acc = 0; for each group of 8 taps: _axpy_2x8 over the block's flat outputs;
    copy the OH rows of each sample out of acc.
    Preconditions: xp C-contiguous padded input (N, C, Hp, Wp); w C-contiguous
    (Cout, C/group, KH, KW); out C-contiguous (N, Cout, OH, OW) of xp's dtype.
    """
    N, cout, oh, ow = out.shape
    _, cg, kh, kw = w.shape
    hq, S, B, pitch = _plane_geometry(N, oh, ow, kh, sh, dh)
    P = oh * ow
    og = cout // group
    K = cg * kh * kw
    K8 = (K + 7) // 8 * 8
    O2 = (og + 1) // 2 * 2
    offs = _tap_offsets(cg, kh, kw, sh, dh, pitch, ow, K8)
    # Weights per group padded with zeros to whole pairs of channels and groups of 8 taps.
    wz = np.zeros((group, O2, K8), dtype=w.dtype)
    wm = w.reshape(cout, K)
    for g in range(group):
        wz[g, :og, :K] = wm[g * og:(g + 1) * og]
    acc = np.empty((2, pitch), dtype=out.dtype)
    planes = np.empty(cg * kw * sh * pitch, dtype=xp.dtype)
    out3 = out.reshape(N, cout, P)
    for n0 in range(0, N, B):
        nb = min(B, N - n0)
        L = (nb - 1) * S + P
        for g in range(group):
            _gather_planes(xp, n0, nb, g * cg, cg, kw, sh, sw, dw, hq, ow, pitch, planes)
            for o0 in range(0, O2, 2):
                acc[:] = 0
                for k in range(0, K8, 8):
                    _axpy_2x8(acc, o0, planes, offs, k, wz[g], L)
                for r in range(min(2, og - o0)):
                    for b in range(nb):
                        out3[n0 + b, g * og + o0 + r] = acc[r, b * S:b * S + P]


@njit(cache=True)
def conv2d_backprop_filter(dout, xp, group, sh, sw, dh, dw, dw_out):
    """dw_out[o, c, i, j] = sum_{n,y,x} dout[n, o, y, x] * xp[n, g*Cg + c, y*sh + i*dh,
    x*sw + j*dw] for o in group g.

    Loop nest: for each block of B samples: for g: _gather_planes, lay dout out on the planes'
    flat index (zeros on the throw-away rows), then for each 4 output channels and 4 taps:
    _dot_4x4. Each block's float32 dot products are summed across blocks in a float64
    accumulator (N*P-term float32 sums would drift otherwise).
    Preconditions: dout C-contiguous (N, Cout, OH, OW); xp C-contiguous padded input;
    dw_out C-contiguous (Cout, Cg, KH, KW).
    """
    N, cout, oh, ow = dout.shape
    _, cg, kh, kw = dw_out.shape
    hq, S, B, pitch = _plane_geometry(N, oh, ow, kh, sh, dh)
    P = oh * ow
    og = cout // group
    K = cg * kh * kw
    K4 = (K + 3) // 4 * 4
    O4 = (og + 3) // 4 * 4
    offs = _tap_offsets(cg, kh, kw, sh, dh, pitch, ow, K4)
    acc = np.zeros((group, O4, K4), dtype=np.float64)
    planes = np.empty(cg * kw * sh * pitch, dtype=xp.dtype)
    # Zeros stay on the throw-away rows and padding channels: only outputs are copied in.
    dflat = np.zeros((O4, pitch), dtype=dout.dtype)
    d3 = dout.reshape(N, cout, P)
    for n0 in range(0, N, B):
        nb = min(B, N - n0)
        L = (nb - 1) * S + P
        for g in range(group):
            _gather_planes(xp, n0, nb, g * cg, cg, kw, sh, sw, dw, hq, ow, pitch, planes)
            for o in range(og):
                for b in range(nb):
                    dflat[o, b * S:b * S + P] = d3[n0 + b, g * og + o]
            for o0 in range(0, O4, 4):
                for k in range(0, K4, 4):
                    _dot_4x4(acc[g], o0, dflat, planes, offs, k, L)
    dwm = dw_out.reshape(cout, K)
    for g in range(group):
        for o in range(og):
            for k in range(K):
                dwm[g * og + o, k] = acc[g, o, k]


@njit(cache=True)
def _add_plane(src, plane, n0, nb, c0, kw, sh, sw, dw, hq, ow, S, dxp):
    """The adjoint of _gather_planes for one plane: dxp[n0 + b, c0 + c, y'*sh + r,
    x*sw + j*dw] += src[b*S + y'*ow + x] for the plane's (c, j, r), rows past the input skipped.
    """
    hp = dxp.shape[2]
    r = plane % sh
    j = plane // sh % kw
    c = plane // (sh * kw)
    usw, uow, uj = np.uint64(sw), np.uint64(ow), np.uint64(j * dw)
    for b in range(nb):
        for y in range(hq):
            row = y * sh + r
            if row >= hp:
                break
            part = src[b * S + y * ow:b * S + (y + 1) * ow]
            dst = dxp[n0 + b, c0 + c, row]
            for x in range(uow):
                dst[x * usw + uj] += part[x]


@njit(cache=True)
def conv2d_backprop_input(dout, w, group, sh, sw, dh, dw, dxp):
    """dxp[n, g*Cg + c, y*sh + i*dh, x*sw + j*dw] += sum_o w[o, c, i, j] * dout[n, o, y, x]
    (o in group g): the gradient of conv2d w.r.t. its padded input.

    Computed plane by plane, as conv2d with the roles swapped: plane (c, j, r) gets
    dplane[q] = sum_{o, i: i*dh % sh == r} w[o, c, i, j] * dflat[o, q - (i*dh // sh)*OW], where
    dflat lays dout on the planes' flat index (zeros on throw-away rows and in front), so each
    (o, i) is a shifted run again and _axpy_2x8 does the work; then each plane is added back
    into dxp (the adjoint of the gather).
    Loop nest: for each block of B samples: for g: fill dflat; for each pair of planes:
    acc = 0; for each group of 8 (o, i) taps: _axpy_2x8; _add_plane.
    Preconditions: dout C-contiguous (N, Cout, OH, OW); w C-contiguous (Cout, Cg, KH, KW);
    dxp C-contiguous, the padded input's shape, zeroed (or holding the sum to add to).
    """
    N, cout, oh, ow = dout.shape
    _, cg, kh, kw = w.shape
    hq, S, B, pitch = _plane_geometry(N, oh, ow, kh, sh, dh)
    P = oh * ow
    og = cout // group
    # Zeros in front of every dflat row, so that runs shifted back by up to (hq - oh) rows stay
    # inside it (rounded to keep rows 64-byte aligned).
    front = ((hq - oh) * ow + 15) // 16 * 16
    row = front + pitch
    T8 = (og * kh + 7) // 8 * 8
    nplanes = cg * kw * sh
    NP2 = (nplanes + 1) // 2 * 2
    offs = np.zeros(T8, dtype=np.int64)
    for o in range(og):
        for i in range(kh):
            offs[o * kh + i] = o * row + front - (i * dh) // sh * ow
    wz = np.zeros((group, NP2, T8), dtype=w.dtype)
    for g in range(group):
        for c in range(cg):
            for j in range(kw):
                for o in range(og):
                    for i in range(kh):
                        wz[g, (c * kw + j) * sh + (i * dh) % sh, o * kh + i] = \
                            w[g * og + o, c, i, j]
    dflat = np.zeros(og * row, dtype=dout.dtype)
    acc = np.empty((2, pitch), dtype=dout.dtype)
    d3 = dout.reshape(N, cout, P)
    for n0 in range(0, N, B):
        nb = min(B, N - n0)
        for g in range(group):
            for o in range(og):
                for b in range(nb):
                    start = o * row + front + b * S
                    dflat[start:start + P] = d3[n0 + b, g * og + o]
            for p0 in range(0, NP2, 2):
                acc[:] = 0
                for k in range(0, T8, 8):
                    _axpy_2x8(acc, p0, dflat, offs, k, wz[g], nb * S)
                for r in range(min(2, nplanes - p0)):
                    _add_plane(acc[r], p0 + r, n0, nb, g * cg, kw, sh, sw, dw, hq, ow, S, dxp)


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
