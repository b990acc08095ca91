"""Random-operator CUDA kernels that consume uniform draws made by the caller (seeded globally).

The uniforms come from the host's generator (copied to the device by the caller), exactly as
for kernels/cpu/random.py, so a seeded run draws the same mask on either device.
"""
import math

from numba import cuda

from .. import sampling
from .launch import elementwise


@cuda.jit
def _dropout_kernel(x, u, keep_prob, scale, out, mask):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, x.size, stride):
        if u[i] < keep_prob:
            mask[i] = 1
            out[i] = x[i] * scale
        else:
            mask[i] = 0
            out[i] = 0


def dropout(x, u, keep_prob, out, mask):
    """mask[i] = 1 if u[i] < keep_prob else 0;  out[i] = x[i] * mask[i] / keep_prob.

    One thread per element over the flat views. Preconditions: x, out, mask C-contiguous
    device arrays, same shape and dtype; u C-contiguous uniform [0, 1) draws of the same size;
    keep_prob a scalar of x's dtype in (0, 1].
    """
    if x.size:
        # 1 / keep_prob rounded in x's dtype once, as the CPU kernel scales.
        scale = x.dtype.type(1) / x.dtype.type(keep_prob)
        blocks, threads = elementwise(x.size)
        _dropout_kernel[blocks, threads](x.reshape(x.size), u.reshape(u.size), keep_prob, scale,
                                         out.reshape(out.size), mask.reshape(mask.size))


@cuda.jit
def _normal_kernel(u1, u2, out):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = math.sqrt(-2.0 * math.log(1.0 - u1[i])) * math.cos(2.0 * math.pi * u2[i])


def normal(u1, u2, out):
    """out[i] = sqrt(-2 log(1 - u1[i])) cos(2 pi u2[i]) (Box-Muller; kernels/cpu/random.py).
    One thread per element over the flat views."""
    if out.size:
        blocks, threads = elementwise(out.size)
        _normal_kernel[blocks, threads](u1.reshape(u1.size), u2.reshape(u2.size),
                                        out.reshape(out.size))


@cuda.jit
def _laplace_kernel(u, out):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        v = 0.5 - u[i]
        magnitude = -math.log(1.0 - 2.0 * abs(v))
        out[i] = magnitude if v > 0.0 else -magnitude


def laplace(u, out):
    """out[i] = -sign(v) log(1 - 2 |v|), v = 0.5 - u[i]. One thread per element."""
    if out.size:
        blocks, threads = elementwise(out.size)
        _laplace_kernel[blocks, threads](u.reshape(u.size), out.reshape(out.size))


@cuda.jit
def _bernoulli_kernel(u, p, out):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = 1 if u[i] < p[i] else 0


def bernoulli(u, p, out):
    """out[i] = 1 if u[i] < p[i] else 0. One thread per element."""
    if out.size:
        blocks, threads = elementwise(out.size)
        _bernoulli_kernel[blocks, threads](u.reshape(u.size), p.reshape(p.size),
                                           out.reshape(out.size))


_multinomial_draw = cuda.jit(device=True)(sampling.multinomial_draw)


@cuda.jit
def _multinomial_kernel(probs, u, out):
    samples = u.shape[1]
    for k in range(cuda.grid(1), u.shape[0] * samples, cuda.gridsize(1)):
        r = k // samples
        _multinomial_draw(probs, u, out, r, k - r * samples)


def multinomial(probs, u, out):
    """out[r, s] = the first category c of row r with cumsum(probs[r])[c] > u[r, s] * total
    (kernels/cpu/random.py). One thread per (row, sample)."""
    if out.size:
        blocks, threads = elementwise(out.size)
        _multinomial_kernel[blocks, threads](probs, u, out)


_uniform_int_draw = cuda.jit(device=True)(sampling.uniform_int_draw)
_poisson_draw = cuda.jit(device=True)(sampling.poisson_draw)
_gamma_attempt = cuda.jit(device=True)(sampling.gamma_attempt)


@cuda.jit
def _uniform_int_kernel(u, low, span, out):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = _uniform_int_draw(u[i], low, span)


def uniform_int(u, low, span, out):
    """out[i] = low + floor(u[i] * span), below low + span (kernels/cpu/random.py). One
    thread per element."""
    if out.size:
        blocks, threads = elementwise(out.size)
        _uniform_int_kernel[blocks, threads](u.reshape(u.size), low, span,
                                             out.reshape(out.size))


@cuda.jit
def _poisson_kernel(rate, u, out):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = _poisson_draw(rate[i], u[i])


def poisson(rate, u, out):
    """out[i] = the Poisson(rate[i]) count whose CDF first reaches u[i] (kernels/cpu/
    random.py). One thread per element."""
    if out.size:
        blocks, threads = elementwise(out.size)
        _poisson_kernel[blocks, threads](rate.reshape(rate.size), u.reshape(u.size),
                                         out.reshape(out.size))


@cuda.jit
def _gamma_round_kernel(alpha, u, out, done):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        if done[i] == 0:
            draw = _gamma_attempt(alpha[i], u[0, i], u[1, i], u[2, i], u[3, i])
            if not draw == -1.0:
                out[i] = draw
                done[i] = 1


def gamma_round(alpha, u, out, done):
    """One round of Marsaglia-Tsang attempts for the elements not yet done (kernels/cpu/
    random.py). One thread per element."""
    if out.size:
        blocks, threads = elementwise(out.size)
        _gamma_round_kernel[blocks, threads](alpha.reshape(alpha.size), u,
                                             out.reshape(out.size), done.reshape(done.size))
