"""Normalisation CUDA kernels: layer norm and batch norm, fused forward and fused backward.

Row statistics: one block per row of the (M, K) view (launch.rows, blocks striding over rows),
its threads striding over k with private float64 partials that a shared-memory tree
(launch.tree_sum) combines, as the CPU kernels accumulate in float64. The parameter gradients
sum over rows instead, so a second kernel gives each column k one thread looping over m
(a warp reads consecutive k: coalesced), float64 accumulators, no atomics.
"""
import math

from numba import cuda, float64

from . import launch

# A plain global, not `launch.REDUCE_THREADS` in the kernel: numba-cuda types a module
# attribute as a run-time int64, and shared arrays need a compile-time size.
_THREADS = launch.REDUCE_THREADS


@cuda.jit
def _layer_norm_kernel(x, gamma, beta, eps, y, mean, var):
    """for row m (block-stride): two tree sums (mean, then the centred variance), then y."""
    M, K = x.shape
    buf = cuda.shared.array(_THREADS, float64)
    tid = cuda.threadIdx.x
    for m in range(cuda.blockIdx.x, M, cuda.gridDim.x):
        s = 0.0
        for k in range(tid, K, cuda.blockDim.x):
            s += x[m, k]
        buf[tid] = s
        launch.tree_sum(buf, tid)
        mu = buf[0] / K
        cuda.syncthreads()  # every thread has read buf[0] before the variance partials overwrite it
        v = 0.0
        for k in range(tid, K, cuda.blockDim.x):
            d = x[m, k] - mu
            v += d * d
        buf[tid] = v
        launch.tree_sum(buf, tid)
        v = buf[0] / K
        if tid == 0:
            mean[m] = mu
            var[m] = v
        cuda.syncthreads()  # every thread has read buf[0] before the next row overwrites it
        # The statistics rounded to x's dtype, as the CPU kernel uses them.
        mu_t = x.dtype.type(mu)
        r_t = x.dtype.type(1.0 / math.sqrt(v + eps))
        for k in range(tid, K, cuda.blockDim.x):
            y[m, k] = (x[m, k] - mu_t) * r_t * gamma[k] + beta[k]


@cuda.jit
def _layer_norm_dx_kernel(x, dy, gamma, mean, var, eps, dx, rstd):
    """for row m (block-stride): tree sums of g = dy*gamma and g*xhat, then dx; rstd[m] is
    kept for the parameter-gradient kernel (one square root per row, not per element)."""
    M, K = x.shape
    b1 = cuda.shared.array(_THREADS, float64)
    b2 = cuda.shared.array(_THREADS, float64)
    tid = cuda.threadIdx.x
    for m in range(cuda.blockIdx.x, M, cuda.gridDim.x):
        mu = mean[m]
        r = x.dtype.type(1.0 / math.sqrt(var[m] + eps))
        if tid == 0:
            rstd[m] = r
        s1 = 0.0
        s2 = 0.0
        for k in range(tid, K, cuda.blockDim.x):
            g = dy[m, k] * gamma[k]
            s1 += g
            s2 += g * ((x[m, k] - mu) * r)
        b1[tid] = s1
        b2[tid] = s2
        launch.tree_sum(b1, tid)
        launch.tree_sum(b2, tid)
        c1 = b1[0] / K
        c2 = b2[0] / K
        cuda.syncthreads()  # every thread has read b1[0], b2[0] before the next row's partials
        for k in range(tid, K, cuda.blockDim.x):
            xh = (x[m, k] - mu) * r
            dx[m, k] = r * (dy[m, k] * gamma[k] - c1 - xh * c2)


@cuda.jit
def _layer_norm_param_grad_kernel(x, dy, mean, rstd, dgamma, dbeta):
    """for column k (grid-stride): dgamma[k] = sum_m dy * xhat, dbeta[k] = sum_m dy."""
    M, K = x.shape
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for k in range(start, K, stride):
        ag = 0.0
        ab = 0.0
        for m in range(M):
            d = dy[m, k]
            ag += d * ((x[m, k] - mean[m]) * rstd[m])
            ab += d
        dgamma[k] = ag
        dbeta[k] = ab


def layer_norm(x, gamma, beta, eps, y, mean, var):
    """Per row m of the (M, K) view:
        mean[m] = sum_k x[m, k] / K,  var[m] = sum_k (x - mean)^2 / K  (biased),
        y[m, k] = (x[m, k] - mean[m]) * rstd * gamma[k] + beta[k],  rstd = 1 / sqrt(var + eps)

    One block per row (two-pass variance, float64 tree sums). Preconditions: x, y
    C-contiguous (M, K) device arrays; gamma, beta (K,); mean, var (M,); all of x's dtype;
    eps a float.
    """
    blocks, threads = launch.rows(x.shape[0])
    _layer_norm_kernel[blocks, threads](x, gamma, beta, eps, y, mean, var)


def layer_norm_grad(x, dy, gamma, mean, var, eps, dx, dgamma, dbeta):
    """Backward of layer_norm, with rstd = 1 / sqrt(var[m] + eps) rounded to x's dtype,
    xhat = (x - mean) * rstd and g = dy * gamma:
        dx[m, k]  = rstd * (g - mean_k(g) - xhat * mean_k(g * xhat))
        dgamma[k] = sum_m dy * xhat,  dbeta[k] = sum_m dy

    Two launches: one block per row for dx, one thread per column for dgamma/dbeta.
    Preconditions: x, dy, dx C-contiguous (M, K); gamma, dgamma, dbeta (K,); mean, var (M,);
    eps a float.
    """
    rstd = cuda.device_array(x.shape[0], x.dtype)   # written by the first, read by the second
    blocks, threads = launch.rows(x.shape[0])
    _layer_norm_dx_kernel[blocks, threads](x, dy, gamma, mean, var, eps, dx, rstd)
    blocks, threads = launch.elementwise(x.shape[1])
    _layer_norm_param_grad_kernel[blocks, threads](x, dy, mean, rstd, dgamma, dbeta)


# Batch norm: one block per channel c of the (N, C, S) view (launch.rows over C), its threads
# striding over the channel's N*S values i -> (n, s) = divmod(i, S), float64 tree sums.

@cuda.jit
def _batch_norm_train_kernel(x, gamma, beta, eps, y, mean, var, rstd):
    """for channel c (block-stride): tree sums of x, then of (x - mean)^2, then y."""
    N, C, S = x.shape
    cnt = N * S
    buf = cuda.shared.array(_THREADS, float64)
    tid = cuda.threadIdx.x
    for c in range(cuda.blockIdx.x, C, cuda.gridDim.x):
        s = 0.0
        for i in range(tid, cnt, cuda.blockDim.x):
            s += x[i // S, c, i % S]
        buf[tid] = s
        launch.tree_sum(buf, tid)
        mu = buf[0] / cnt
        cuda.syncthreads()  # every thread has read buf[0] before the variance partials overwrite it
        v = 0.0
        for i in range(tid, cnt, cuda.blockDim.x):
            d = x[i // S, c, i % S] - mu
            v += d * d
        buf[tid] = v
        launch.tree_sum(buf, tid)
        vb = buf[0] / cnt
        if tid == 0:
            mean[c] = mu
            var[c] = vb
            rstd[c] = 1.0 / math.sqrt(vb + eps)
        # Every thread has read buf[0] before the next channel overwrites it, and thread 0's
        # stores are visible to the block before it reads them back below.
        cuda.syncthreads()
        # The statistics as rounded to x's dtype by those stores, as the CPU kernel uses them.
        mu_t = mean[c]
        r_t = rstd[c]
        for i in range(tid, cnt, cuda.blockDim.x):
            n = i // S
            k = i % S
            y[n, c, k] = (x[n, c, k] - mu_t) * r_t * gamma[c] + beta[c]


@cuda.jit
def _batch_norm_infer_kernel(x, gamma, beta, mean, var, eps, y, rstd):
    """for every element (grid-stride): y from the given statistics; thread i < C also
    writes rstd[i]."""
    N, C, S = x.shape
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for c in range(start, C, stride):
        rstd[c] = 1.0 / math.sqrt(var[c] + eps)
    for i in range(start, N * C * S, stride):
        n = i // (C * S)
        c = (i // S) % C
        k = i % S
        # Recomputed rather than read from rstd: another thread may not have stored it yet.
        r = 1.0 / math.sqrt(var[c] + eps)
        y[n, c, k] = (x[n, c, k] - mean[c]) * r * gamma[c] + beta[c]


@cuda.jit
def _batch_norm_grad_kernel(dy, x, gamma, mean, rstd, training, dx, dgamma, dbeta):
    """for channel c (block-stride): tree sums of dy and dy * xhat, then dx."""
    N, C, S = x.shape
    cnt = N * S
    b1 = cuda.shared.array(_THREADS, float64)
    b2 = cuda.shared.array(_THREADS, float64)
    tid = cuda.threadIdx.x
    for c in range(cuda.blockIdx.x, C, cuda.gridDim.x):
        mu = mean[c]
        r = rstd[c]
        sb = 0.0
        sg = 0.0
        for i in range(tid, cnt, cuda.blockDim.x):
            d = dy[i // S, c, i % S]
            sb += d
            sg += d * ((x[i // S, c, i % S] - mu) * r)
        b1[tid] = sb
        b2[tid] = sg
        launch.tree_sum(b1, tid)
        launch.tree_sum(b2, tid)
        tb = b1[0]
        tg = b2[0]
        if tid == 0:
            dgamma[c] = tg
            dbeta[c] = tb
        cuda.syncthreads()  # every thread has read b1[0], b2[0] before the next channel's partials
        scale = gamma[c] * r
        c1 = tb / cnt if training else 0.0
        c2 = tg / cnt if training else 0.0
        for i in range(tid, cnt, cuda.blockDim.x):
            n = i // S
            k = i % S
            xh = (x[n, c, k] - mu) * r
            dx[n, c, k] = scale * (dy[n, c, k] - c1 - xh * c2)


def batch_norm_train(x, gamma, beta, eps, y, mean, var, rstd):
    """Per channel c of the (N, C, S) view, over its N*S values (the batch statistics):
        mean[c] = sum x / (N*S),  var[c] = sum (x - mean)^2 / (N*S)  (biased),
        rstd[c] = 1 / sqrt(var[c] + eps),
        y[n, c, s] = (x[n, c, s] - mean[c]) * rstd[c] * gamma[c] + beta[c]

    One block per channel (two-pass variance, float64 tree sums). Preconditions: x, y
    C-contiguous (N, C, S) device arrays with N*S >= 1; gamma, beta, mean, var, rstd (C,);
    all of x's dtype; eps a float.
    """
    blocks, threads = launch.rows(x.shape[1])
    _batch_norm_train_kernel[blocks, threads](x, gamma, beta, eps, y, mean, var, rstd)


def batch_norm_infer(x, gamma, beta, mean, var, eps, y, rstd):
    """Normalise with given statistics (the moving mean and variance), per channel c:
        rstd[c] = 1 / sqrt(var[c] + eps),
        y[n, c, s] = (x[n, c, s] - mean[c]) * rstd[c] * gamma[c] + beta[c]

    One grid-stride elementwise launch. Preconditions: x, y C-contiguous (N, C, S); gamma,
    beta, mean, var, rstd (C,); all of x's dtype.
    """
    blocks, threads = launch.elementwise(max(x.size, x.shape[1]))
    _batch_norm_infer_kernel[blocks, threads](x, gamma, beta, mean, var, eps, y, rstd)


def batch_norm_grad(dy, x, gamma, mean, rstd, training, dx, dgamma, dbeta):
    """Backward of batch_norm_train (training) or batch_norm_infer (not training), per
    channel c, with xhat = (x - mean[c]) * rstd[c] and M = N*S:
        dbeta[c] = sum dy,  dgamma[c] = sum dy * xhat
        dx = gamma[c] * rstd[c] * (dy - dbeta[c] / M - xhat * dgamma[c] / M)   (training)
        dx = gamma[c] * rstd[c] * dy                                            (otherwise)

    One block per channel. Preconditions: dy, x, dx C-contiguous (N, C, S); gamma, mean, rstd,
    dgamma, dbeta (C,).
    """
    blocks, threads = launch.rows(x.shape[1])
    _batch_norm_grad_kernel[blocks, threads](dy, x, gamma, mean, rstd, bool(training), dx,
                                             dgamma, dbeta)
