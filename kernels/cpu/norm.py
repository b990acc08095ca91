"""Layer-normalisation CPU kernels: fused forward (y, mean, rstd) and fused backward."""
import math

import numpy as np
from numba import njit


@njit(cache=True)
def layer_norm(x, gamma, beta, eps, y, mean, rstd):
    """Per row m of the (M, K) view:
        mean[m] = sum_k x[m, k] / K,  rstd[m] = 1 / sqrt(sum_k (x - mean)^2 / K + eps)
        y[m, k] = (x[m, k] - mean[m]) * rstd[m] * gamma[k] + beta[k]

    Loop nest: for m: two passes over k for the statistics (two-pass variance, float64
    accumulators), one to write y. Preconditions: x, y C-contiguous (M, K); gamma, beta (K,);
    mean, rstd (M,); all of x's dtype; eps a float.
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
        r = 1.0 / math.sqrt(v / K + eps)
        mean[m] = mu
        rstd[m] = r
        mu_t = x.dtype.type(mu)
        r_t = x.dtype.type(r)
        for k in range(K):
            y[m, k] = (x[m, k] - mu_t) * r_t * gamma[k] + beta[k]


@njit(cache=True)
def layer_norm_grad(x, dy, gamma, mean, rstd, dx, dgamma, dbeta):
    """Backward of layer_norm, with xhat = (x - mean) * rstd and g = dy * gamma:
        dx[m, k]  = rstd[m] * (g - mean_k(g) - xhat * mean_k(g * xhat))
        dgamma[k] = sum_m dy * xhat,  dbeta[k] = sum_m dy

    Loop nest: for m: one pass for the two row means, one to write dx and accumulate the
    parameter gradients (float64 accumulators). Preconditions: x, dy, dx C-contiguous (M, K);
    gamma, dgamma, dbeta (K,); mean, rstd (M,).
    """
    M, K = x.shape
    ag = np.zeros(K, dtype=np.float64)
    ab = np.zeros(K, dtype=np.float64)
    for m in range(M):
        mu = mean[m]
        r = rstd[m]
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
