"""Normalisation CPU kernels: layer norm and batch norm, fused forward and fused backward."""
import math

import numpy as np
from numba import njit


@njit(cache=True)
def layer_norm(x, gamma, beta, eps, y, mean, var):
    """Per row m of the (M, K) view:
        mean[m] = sum_k x[m, k] / K,  var[m] = sum_k (x - mean)^2 / K  (biased),
        y[m, k] = (x[m, k] - mean[m]) * rstd * gamma[k] + beta[k],  rstd = 1 / sqrt(var + eps)

    Loop nest: for m: two passes over k for the statistics (two-pass variance, float64
    accumulators), one to write y. Preconditions: x, y C-contiguous (M, K); gamma, beta (K,);
    mean, var (M,); all of x's dtype; eps a float.
    """
    M, K = x.shape
    for m in range(M):
        s = 0.0
        for k in range(K):
            s += x[m, k]
        mu = s / K
        v = 0.0
        for k in range(K):
            d = x[m, k] - mu
            v += d * d
        mean[m] = mu
        var[m] = v / K
        mu_t = x.dtype.type(mu)
        r_t = x.dtype.type(1.0 / math.sqrt(v / K + eps))
        for k in range(K):
            y[m, k] = (x[m, k] - mu_t) * r_t * gamma[k] + beta[k]


@njit(cache=True)
def layer_norm_grad(x, dy, gamma, mean, var, eps, dx, dgamma, dbeta):
    """Backward of layer_norm, with rstd = 1 / sqrt(var[m] + eps) (rounded to x's dtype, as
    the forward uses it), xhat = (x - mean) * rstd and g = dy * gamma:
        dx[m, k]  = rstd * (g - mean_k(g) - xhat * mean_k(g * xhat))
        dgamma[k] = sum_m dy * xhat,  dbeta[k] = sum_m dy

    Loop nest: for m: one pass for the two row means, one to write dx and accumulate the
    parameter gradients (float64 accumulators). Preconditions: x, dy, dx C-contiguous (M, K);
    gamma, dgamma, dbeta (K,); mean, var (M,); eps a float.
    """
    M, K = x.shape
    ag = np.zeros(K, dtype=np.float64)
    ab = np.zeros(K, dtype=np.float64)
    for m in range(M):
        mu = mean[m]
        r = x.dtype.type(1.0 / math.sqrt(var[m] + eps))
        s1 = 0.0
        s2 = 0.0
        for k in range(K):
            xh = (x[m, k] - mu) * r
            g = dy[m, k] * gamma[k]
            s1 += g
            s2 += g * xh
        c1 = x.dtype.type(s1 / K)
        c2 = x.dtype.type(s2 / K)
        for k in range(K):
            xh = (x[m, k] - mu) * r
            d = dy[m, k]
            dx[m, k] = r * (d * gamma[k] - c1 - xh * c2)
            ag[k] += d * xh
            ab[k] += d
    for k in range(K):
        dgamma[k] = ag[k]
        dbeta[k] = ab[k]


@njit(cache=True)
def batch_norm_train(x, gamma, beta, eps, y, mean, var, rstd):
    """Per channel c of the (N, C, S) view, over its N*S values (the batch statistics):
        mean[c] = sum x / (N*S),  var[c] = sum (x - mean)^2 / (N*S)  (biased),
        rstd[c] = 1 / sqrt(var[c] + eps),
        y[n, c, s] = (x[n, c, s] - mean[c]) * rstd[c] * gamma[c] + beta[c]

    Loop nest: for c: two passes over (n, s) for the statistics (two-pass variance, float64
    accumulators), one to write y. Preconditions: x, y C-contiguous (N, C, S) with N*S >= 1;
    gamma, beta, mean, var, rstd (C,); all of x's dtype; eps a float.
    """
    N, C, S = x.shape
    cnt = N * S
    for c in range(C):
        s = 0.0
        for n in range(N):
            for k in range(S):
                s += x[n, c, k]
        mu = s / cnt
        v = 0.0
        for n in range(N):
            for k in range(S):
                d = x[n, c, k] - mu
                v += d * d
        v /= cnt
        r = 1.0 / math.sqrt(v + eps)
        mean[c] = mu
        var[c] = v
        rstd[c] = r
        mu_t = x.dtype.type(mu)
        r_t = x.dtype.type(r)
        for n in range(N):
            for k in range(S):
                y[n, c, k] = (x[n, c, k] - mu_t) * r_t * gamma[c] + beta[c]


@njit(cache=True)
def batch_norm_infer(x, gamma, beta, mean, var, eps, y, rstd):
    """Normalise with given statistics (the moving mean and variance), per channel c:
        rstd[c] = 1 / sqrt(var[c] + eps),
        y[n, c, s] = (x[n, c, s] - mean[c]) * rstd[c] * gamma[c] + beta[c]

    Loop nest: for c: for (n, s). Preconditions: x, y C-contiguous (N, C, S); gamma, beta,
    mean, var, rstd (C,); all of x's dtype.
    """
    N, C, S = x.shape
    for c in range(C):
        r = x.dtype.type(1.0 / math.sqrt(var[c] + eps))
        rstd[c] = r
        mu = mean[c]
        for n in range(N):
            for k in range(S):
                y[n, c, k] = (x[n, c, k] - mu) * r * gamma[c] + beta[c]


@njit(cache=True)
def batch_norm_grad(dy, x, gamma, mean, rstd, training, dx, dgamma, dbeta):
    """Backward of batch_norm_train (training) or batch_norm_infer (not training), per
    channel c, with xhat = (x - mean[c]) * rstd[c] and M = N*S:
        dbeta[c] = sum dy,  dgamma[c] = sum dy * xhat
        dx = gamma[c] * rstd[c] * (dy - dbeta[c] / M - xhat * dgamma[c] / M)   (training:
             mean and rstd are functions of x)
        dx = gamma[c] * rstd[c] * dy                                            (otherwise)

    Loop nest: for c: one pass for the two sums (float64 accumulators), one to write dx.
    Preconditions: dy, x, dx C-contiguous (N, C, S); gamma, mean, rstd, dgamma, dbeta (C,).
    """
    N, C, S = x.shape
    cnt = N * S
    for c in range(C):
        mu = mean[c]
        r = rstd[c]
        sb = 0.0
        sg = 0.0
        for n in range(N):
            for k in range(S):
                d = dy[n, c, k]
                sb += d
                sg += d * ((x[n, c, k] - mu) * r)
        dgamma[c] = sg
        dbeta[c] = sb
        scale = gamma[c] * r
        if training:
            c1 = x.dtype.type(sb / cnt)
            c2 = x.dtype.type(sg / cnt)
            for n in range(N):
                for k in range(S):
                    xh = (x[n, c, k] - mu) * r
                    dx[n, c, k] = scale * (dy[n, c, k] - c1 - xh * c2)
        else:
            for n in range(N):
                for k in range(S):
                    dx[n, c, k] = scale * dy[n, c, k]
