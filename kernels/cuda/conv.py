"""2-D convolution CUDA kernels (NCHW): batched im2col / col2im kernels + the tiled GEMM.

Column layouts (one row per (c, i, j) of a group's receptive field, K = Cg*KH*KW rows):
    sample-major  cols[n*G + g, (c*KH + i)*KW + j, y*OW + x]            (conv2d, backprop_input)
    group-major   cols[g, (c*KH + i)*KW + j, n*OH*OW + y*OW + x]        (backprop_filter)
  = xp[n, g*Cg + c, y*SH + i*DH, x*SW + j*DW], xp the input zero-padded by the caller.
The sample-major layout makes the whole batch one batched GEMM with the weights broadcast over
samples (gemm3 takes batch z of the weights as z % G); the group-major layout turns the filter
gradient's sum over samples into the GEMM's own K loop (one GEMM per group, no reduction
pass). Unlike the CPU kernels (one sample at a time, to stay in L2), the whole batch's
columns live in device memory at once: N*G*K*P words, 15 MB for LeNet at batch 256.
Elementwise kernels use one thread per output element in a grid-stride loop with the fastest
axis innermost, so consecutive threads write consecutive addresses.
"""
import functools

from numba import cuda

from .launch import elementwise
from .matmul import gemm3


@cuda.jit
def _pad2d_kernel(x, pt, pl, xp):
    N, C, H, W = x.shape
    Hp, Wp = xp.shape[2], xp.shape[3]
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, N * C * Hp * Wp, stride):
        j = e % Wp
        i = (e // Wp) % Hp
        nc = e // (Wp * Hp)
        c = nc % C
        n = nc // C
        si = i - pt
        sj = j - pl
        if 0 <= si < H and 0 <= sj < W:
            xp[n, c, i, j] = x[n, c, si, sj]
        else:
            xp[n, c, i, j] = 0


@functools.lru_cache(maxsize=None)
def _im2col_kernel(group_major):
    """Compile im2col for one column layout (a closure constant: no per-element branch)."""

    @cuda.jit
    def im2col(xp, group, kh, kw, sh, sw, dh, dw, oh, ow, cols):
        N = xp.shape[0]
        cg = xp.shape[1] // group
        K = cg * kh * kw
        P = oh * ow
        start, stride = cuda.grid(1), cuda.gridsize(1)
        for e in range(start, N * group * K * P, stride):
            # Decompose with p fastest in both layouts: consecutive threads, consecutive writes.
            p = e % P
            if group_major:
                n = (e // P) % N
                k = (e // (P * N)) % K
                g = e // (P * N * K)
            else:
                k = (e // P) % K
                zg = e // (P * K)
                g = zg % group
                n = zg // group
            j = k % kw
            i = (k // kw) % kh
            c = k // (kw * kh)
            y = p // ow
            x = p % ow
            v = xp[n, g * cg + c, y * sh + i * dh, x * sw + j * dw]
            if group_major:
                cols[g, k, n * P + p] = v
            else:
                cols[n * group + g, k, p] = v

    return im2col


@cuda.jit
def _col2im_kernel(cols, group, kh, kw, sh, sw, dh, dw, oh, ow, dxp):
    """dxp[n, ch, hp, wp] += sum of the sample-major cols entries that im2col read from it.

    Gathered per input element (each thread finds the (i, j, y, x) whose window covers it), so
    overlapping windows need no atomics and the sum order is fixed.
    """
    N, C, Hp, Wp = dxp.shape
    cg = C // group
    P = oh * ow
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, N * C * Hp * Wp, stride):
        wp = e % Wp
        hp = (e // Wp) % Hp
        ch = (e // (Wp * Hp)) % C
        n = e // (Wp * Hp * C)
        g = ch // cg
        c = ch % cg
        z = n * group + g
        s = dxp[n, ch, hp, wp]
        for i in range(kh):
            hy = hp - i * dh
            if hy >= 0 and hy % sh == 0 and hy // sh < oh:
                y = hy // sh
                for j in range(kw):
                    wx = wp - j * dw
                    if wx >= 0 and wx % sw == 0 and wx // sw < ow:
                        s += cols[z, (c * kh + i) * kw + j, y * ow + wx // sw]
        dxp[n, ch, hp, wp] = s


@cuda.jit
def _group_major_kernel(dout, group, dp):
    """dp[g, o, n*P + p] = dout[n, g*og + o, p]: the layout that makes sum_n a GEMM's K."""
    N, cout, P = dout.shape
    og = cout // group
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for e in range(start, N * cout * P, stride):
        p = e % P
        n = (e // P) % N
        go = e // (P * N)
        dp[go // og, go % og, n * P + p] = dout[n, go, p]


def _launch(kernel, total, *args):
    blocks, threads = elementwise(total)
    kernel[blocks, threads](*args)


def conv2d(xp, w, group, sh, sw, dh, dw, out):
    """out[n, o, y, x] = sum_{c,i,j} w[o, c, i, j] * xp[n, g*Cg + c, y*sh + i*dh, x*sw + j*dw]
    for o in group g.

    Launches: im2col over the whole batch (sample-major), then one batched GEMM
    (og, K) @ (K, OH*OW) per (sample, group), written in place into out.
    Preconditions: xp C-contiguous padded input (N, C, Hp, Wp); w C-contiguous
    (Cout, C/group, KH, KW); out C-contiguous (N, Cout, OH, OW) of xp's dtype.
    """
    N, cout, oh, ow = out.shape
    _, cg, kh, kw = w.shape
    og, K, P = cout // group, cg * kh * kw, oh * ow
    cols = cuda.device_array((N * group, K, P), dtype=xp.dtype)
    _launch(_im2col_kernel(False), cols.size, xp, group, kh, kw, sh, sw, dh, dw, oh, ow, cols)
    gemm3(w.reshape(group, og, K), cols, out.reshape(N * group, og, P), False, False)


def conv2d_backprop_input(dout, w, group, sh, sw, dh, dw, dxp):
    """dxp += the gradient of conv2d w.r.t. its padded input: dcols = w_g^T @ dout[n, g] for
    every (sample, group) in one batched GEMM, then col2im gathered per input element.

    Preconditions: dout C-contiguous (N, Cout, OH, OW); w C-contiguous (Cout, Cg, KH, KW);
    dxp (N, C, Hp, Wp) zeroed by the caller (or holding a partial sum to add to).
    """
    N, cout, oh, ow = dout.shape
    _, cg, kh, kw = w.shape
    og, K, P = cout // group, cg * kh * kw, oh * ow
    dcols = cuda.device_array((N * group, K, P), dtype=dout.dtype)
    gemm3(w.reshape(group, og, K), dout.reshape(N * group, og, P), dcols, True, False)
    _launch(_col2im_kernel, dxp.size, dcols, group, kh, kw, sh, sw, dh, dw, oh, ow, dxp)


def conv2d_backprop_filter(dout, xp, group, sh, sw, dh, dw, dw_out):
    """dw_out[o, c, i, j] = sum_{n,y,x} dout[n, o, y, x] * xp[n, g*Cg + c, y*sh + i*dh,
    x*sw + j*dw]: per group one GEMM (og, N*P) @ (N*P, K) over group-major columns and dout
    rearranged to (G, og, N*P), so the sum over samples is the GEMM's K loop (accumulated in
    xp's dtype, like cuDNN; the CPU kernel sums per-sample products in float64).

    Preconditions: dout C-contiguous (N, Cout, OH, OW); xp C-contiguous padded input;
    dw_out C-contiguous (Cout, Cg, KH, KW).
    """
    N, cout, oh, ow = dout.shape
    _, cg, kh, kw = dw_out.shape
    og, K, P = cout // group, cg * kh * kw, oh * ow
    cols = cuda.device_array((group, K, N * P), dtype=xp.dtype)
    _launch(_im2col_kernel(True), cols.size, xp, group, kh, kw, sh, sw, dh, dw, oh, ow, cols)
    dp = cuda.device_array((group, og, N * P), dtype=dout.dtype)
    _launch(_group_major_kernel, dp.size, dout.reshape(N, cout, P), group, dp)
    gemm3(dp, cols, dw_out.reshape(group, og, K), False, True)


def pad2d(x, pt, pl, xp):
    """xp = x zero-padded: xp[n, c, pt + i, pl + j] = x[n, c, i, j], zeros elsewhere.

    One thread per xp element. Preconditions: x, xp C-contiguous (N, C, H, W) and
    (N, C, Hp, Wp) with pt + H <= Hp and pl + W <= Wp.
    """
    _launch(_pad2d_kernel, xp.size, x, pt, pl, xp)
