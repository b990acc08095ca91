"""GEMM CUDA kernels: a tiled shared-memory GEMM with register blocking, transposes folded in.

One kernel computes c[z] (+)= op(a[z % Ba]) @ op(b[z % Bb]) for every batch index z of a
3-D c: matmul is a batch of one, batch_matmul a batch of B, and conv2d reuses it with the
weights broadcast over samples (Ba = groups) — no copies of transposed or broadcast operands.

Tiling (per block: a BM x BN tile of c; per thread: a TM x TN register tile, so each value
read from shared memory feeds TM or TN multiply-adds instead of one):
    for k0 in range(0, K, BK):                  # march along K
        As[BK][BM] <- op(a)[m0:m0+BM, k0:k0+BK]  # stored k-major: the inner loop reads rows
        Bs[BK][BN] <- op(b)[k0:k0+BK, n0:n0+BN]
        for kk in range(BK): acc[i, j] += As[kk, ty + i*TY] * Bs[kk, tx + j*TX]
Thread (ty, tx) owns rows m0 + ty + i*TY and columns n0 + tx + j*TX (strided, not a
contiguous TMxTN block): the TX threads of a half-warp then read TX consecutive Bs words
(no bank conflicts; the other half-warp reads the same words, a broadcast) and store TX
consecutive c elements (coalesced). Global loads run along the operand's contiguous axis
(consecutive threads -> consecutive addresses); an operand whose contiguous axis is K lands
in shared memory transposed, so its rows are padded by PAD words: a warp's 32 stores then
hit 32 distinct banks instead of 4.
Out-of-range elements load as zeros and stores are guarded, so any M, N, K works.
"""
import functools
import math

from numba import cuda, from_dtype

from .launch import SIMULATOR

# (BM, BN, BK, TM, TN): 16 x 16 = 256 threads per block in both. The large tile reuses each
# loaded word 8x per thread and is the one for big problems; the small one keeps enough blocks
# in flight (SM occupancy) when M x N is small.
LARGE = (128, 128, 8, 8, 8)
SMALL = (64, 64, 8, 4, 4)
# 4 x 4 = 16 threads: the simulator pays per thread (and per syncthreads), so the tiny nets
# of its tests run on this tile; tests/kernels/cuda still runs SMALL and LARGE explicitly.
SIMULATED = (16, 16, 16, 4, 4)
PAD = 4


def pick_tile(m, n):
    """The tile shape for an M x N output: LARGE once it still gives >= ~2 blocks per SM."""
    if SIMULATOR:
        return SIMULATED
    return LARGE if m * n >= 256 * 128 * 128 else SMALL


@functools.lru_cache(maxsize=None)
def _gemm_kernel(np_dtype, transpose_a, transpose_b, accumulate, tile):
    """Compile the GEMM for one dtype, transpose pair, accumulate flag and tile shape.

    The flags are closure constants, so each variant's index arithmetic is branch-free.
    """
    BM, BN, BK, TM, TN = tile
    TY, TX = BM // TM, BN // TN
    NT = TY * TX
    dt = from_dtype(np_dtype)
    ZERO = np_dtype.type(0)   # a typed zero: an int literal would widen float32 loads
    # Operands whose contiguous axis is K are stored transposed into shared memory; only
    # those need padded rows (see the module docstring).
    A_LD = BM + PAD if not transpose_a else BM
    B_LD = BN + PAD if transpose_b else BN

    @cuda.jit
    def gemm(a, b, c):
        M, N = c.shape[1], c.shape[2]
        K = a.shape[1] if transpose_a else a.shape[2]
        z = cuda.blockIdx.z
        za = z % a.shape[0]
        zb = z % b.shape[0]
        m0 = cuda.blockIdx.y * BM
        n0 = cuda.blockIdx.x * BN
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        tid = ty * TX + tx

        As = cuda.shared.array((BK, A_LD), dt)
        Bs = cuda.shared.array((BK, B_LD), dt)
        acc = cuda.local.array((TM, TN), dt)
        ra = cuda.local.array(TM, dt)
        rb = cuda.local.array(TN, dt)
        for i in range(TM):
            for j in range(TN):
                acc[i, j] = ZERO

        for k0 in range(0, K, BK):
            # A tile (BM x BK): consecutive threads walk a's contiguous axis.
            for r in range(BM * BK // NT):
                e = tid + r * NT
                if transpose_a:            # a is (K, M): contiguous along m
                    kk = e // BM
                    mm = e % BM
                    gk = k0 + kk
                    gm = m0 + mm
                    v = a[za, gk, gm] if (gk < K and gm < M) else ZERO
                else:                      # a is (M, K): contiguous along k
                    mm = e // BK
                    kk = e % BK
                    gk = k0 + kk
                    gm = m0 + mm
                    v = a[za, gm, gk] if (gk < K and gm < M) else ZERO
                As[kk, mm] = v
            # B tile (BK x BN).
            for r in range(BK * BN // NT):
                e = tid + r * NT
                if transpose_b:            # b is (N, K): contiguous along k
                    nn = e // BK
                    kk = e % BK
                    gk = k0 + kk
                    gn = n0 + nn
                    v = b[zb, gn, gk] if (gk < K and gn < N) else ZERO
                else:                      # b is (K, N): contiguous along n
                    kk = e // BN
                    nn = e % BN
                    gk = k0 + kk
                    gn = n0 + nn
                    v = b[zb, gk, gn] if (gk < K and gn < N) else ZERO
                Bs[kk, nn] = v
            # Every thread reads tile elements that other threads stored: wait for all stores.
            cuda.syncthreads()
            for kk in range(BK):
                for i in range(TM):
                    ra[i] = As[kk, ty + i * TY]
                for j in range(TN):
                    rb[j] = Bs[kk, tx + j * TX]
                for i in range(TM):
                    for j in range(TN):
                        acc[i, j] += ra[i] * rb[j]
            # The next iteration overwrites As/Bs: wait until every thread has read this tile.
            cuda.syncthreads()

        for i in range(TM):
            gm = m0 + ty + i * TY
            if gm < M:
                for j in range(TN):
                    gn = n0 + tx + j * TX
                    if gn < N:
                        if accumulate:
                            c[z, gm, gn] += acc[i, j]
                        else:
                            c[z, gm, gn] = acc[i, j]

    return gemm


def gemm3(a, b, c, transpose_a, transpose_b, accumulate=False, tile=None):
    """c[z] (+)= op(a[z % a.shape[0]]) @ op(b[z % b.shape[0]]) for z in range(c.shape[0]).

    a, b, c: 3-D device arrays of one float dtype; c.shape[0] a multiple of both operand
    batch sizes. Grid: (ceil(N/BN), ceil(M/BM), batch) blocks of (TX, TY) threads.
    """
    batch, m, n = c.shape
    tile = tile or pick_tile(m, n)
    BM, BN, _, TM, TN = tile
    grid = (math.ceil(n / BN), math.ceil(m / BM), batch)
    block = (BN // TN, BM // TM)
    kern = _gemm_kernel(c.dtype, bool(transpose_a), bool(transpose_b), bool(accumulate), tile)
    kern[grid, block](a, b, c)


def matmul(a, b, transpose_a, transpose_b):
    """out[m, n] = sum_k A[m, k] * B[k, n] with A = a.T if transpose_a, B = b.T if transpose_b.

    Returns a new (M, N) device array (see matmul_into).
    Preconditions: 2-D, same float dtype, contracted dims equal (checked by MatMul.infer).
    """
    m = a.shape[1] if transpose_a else a.shape[0]
    n = b.shape[0] if transpose_b else b.shape[1]
    return matmul_into(a, b, transpose_a, transpose_b, cuda.device_array((m, n), dtype=a.dtype))


def matmul_into(a, b, transpose_a, transpose_b, out):
    """`matmul` written into the (M, N) device array out; one gemm3 launch on (1, ., .)
    views."""
    m, n = out.shape
    gemm3(a.reshape(1, *a.shape), b.reshape(1, *b.shape), out.reshape(1, m, n),
          transpose_a, transpose_b)
    return out


def batch_matmul(a, b, transpose_a, transpose_b, out):
    """out[z] = op(a[z % Ba]) @ op(b[z % Bb]) for z in range(out.shape[0]).

    a: (Ba, M, K) or (Ba, K, M); b: (Bb, K, N) or (Bb, N, K); out: (B, M, N), written in
    place; B a multiple of Ba and Bb (equal batches, or an operand repeated over leading
    batch dims). One launch: the batch is the grid's z dimension.
    """
    gemm3(a, b, out, transpose_a, transpose_b)


# Integer dtypes run the same GEMM: its register accumulator has the element type, so each
# multiply-add is stored back modulo 2**bits and the product wraps as MindSpore's does.
int_matmul_into = matmul_into
int_batch_matmul = batch_matmul
