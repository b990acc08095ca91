"""Random-operator CPU kernels that consume uniform draws made by the caller (seeded globally):
dropout, normal (Box-Muller), laplace, bernoulli and multinomial."""
import math

from numba import njit

from .. import sampling

_multinomial_draw = njit(cache=True)(sampling.multinomial_draw)


@njit(cache=True)
def dropout(x, u, keep_prob, out, mask):
    """mask[i] = 1 if u[i] < keep_prob else 0;  out[i] = x[i] * mask[i] / keep_prob.

    Preconditions: x, out, mask C-contiguous, same shape and dtype; u C-contiguous uniform
    [0, 1) draws of the same size; keep_prob a scalar of x's dtype in (0, 1].
    """
    xf = x.reshape(x.size)
    uf = u.reshape(u.size)
    of = out.reshape(out.size)
    mf = mask.reshape(mask.size)
    zero = x.dtype.type(0)
    one = x.dtype.type(1)
    scale = one / keep_prob
    for i in range(xf.size):
        if uf[i] < keep_prob:
            mf[i] = one
            of[i] = xf[i] * scale
        else:
            mf[i] = zero
            of[i] = zero


@njit(cache=True)
def normal(u1, u2, out):
    """out[i] = sqrt(-2 log(1 - u1[i])) cos(2 pi u2[i]) (Box-Muller, one output per pair).

    Preconditions: u1, u2 C-contiguous float64 uniform [0, 1) draws of out's size; out
    C-contiguous float."""
    of = out.reshape(out.size)
    a = u1.reshape(u1.size)
    b = u2.reshape(u2.size)
    for i in range(of.size):
        of[i] = math.sqrt(-2.0 * math.log(1.0 - a[i])) * math.cos(2.0 * math.pi * b[i])


@njit(cache=True)
def laplace(u, out):
    """out[i] = -sign(v) log(1 - 2 |v|), v = 0.5 - u[i] (the inverse CDF of Laplace(0, 1)).

    Preconditions: u C-contiguous float64 uniform [0, 1) draws of out's size."""
    of = out.reshape(out.size)
    uf = u.reshape(u.size)
    for i in range(of.size):
        v = 0.5 - uf[i]
        magnitude = -math.log(1.0 - 2.0 * abs(v))
        of[i] = magnitude if v > 0.0 else -magnitude


@njit(cache=True)
def bernoulli(u, p, out):
    """out[i] = 1 if u[i] < p[i] else 0.

    Preconditions: u, p, out C-contiguous of one size (p broadcast by the caller)."""
    of = out.reshape(out.size)
    uf = u.reshape(u.size)
    pf = p.reshape(p.size)
    for i in range(of.size):
        of[i] = 1 if uf[i] < pf[i] else 0


@njit(cache=True)
def multinomial(probs, u, out):
    """out[r, s] = the first category c of row r with cumsum(probs[r])[c] > u[r, s] * total
    (sampling with replacement from the unnormalised weights of each row; kernels/sampling.py).

    Preconditions: probs (rows, categories) float64 >= 0 with a positive sum per row; u
    (rows, samples) float64 uniform [0, 1); out (rows, samples) integer; all C-contiguous."""
    for r in range(u.shape[0]):
        for s in range(u.shape[1]):
            _multinomial_draw(probs, u, out, r, s)


_uniform_int_draw = njit(cache=True)(sampling.uniform_int_draw)
_poisson_draw = njit(cache=True)(sampling.poisson_draw)
_gamma_attempt = njit(cache=True)(sampling.gamma_attempt)


@njit(cache=True)
def uniform_int(u, low, span, out):
    """out[i] = low + floor(u[i] * span), below low + span (kernels/sampling.py).

    Preconditions: u C-contiguous float64 uniform [0, 1) draws of out's size; low, span int64
    with span >= 1; out C-contiguous integer."""
    of = out.reshape(out.size)
    uf = u.reshape(u.size)
    for i in range(of.size):
        of[i] = _uniform_int_draw(uf[i], low, span)


@njit(cache=True)
def poisson(rate, u, out):
    """out[i] = the Poisson(rate[i]) count whose CDF first reaches u[i] (kernels/sampling.py).

    Preconditions: rate float64 (broadcast by the caller) and u float64 uniform [0, 1) draws,
    both of out's size; out C-contiguous, any real dtype; all C-contiguous."""
    of = out.reshape(out.size)
    rf = rate.reshape(rate.size)
    uf = u.reshape(u.size)
    for i in range(of.size):
        of[i] = _poisson_draw(rf[i], uf[i])


@njit(cache=True)
def gamma_round(alpha, u, out, done):
    """One round of Marsaglia-Tsang attempts: for each i not yet done, attempt a Gamma(alpha[i])
    draw with u[:, i] (kernels/sampling.py) and, when accepted, write it and mark i done.

    Preconditions: alpha float64 of out's size; u (4, out.size) float64 uniform [0, 1);
    out float; done uint8 (1 = drawn); all C-contiguous."""
    of = out.reshape(out.size)
    af = alpha.reshape(alpha.size)
    df = done.reshape(done.size)
    for i in range(of.size):
        if df[i] == 0:
            draw = _gamma_attempt(af[i], u[0, i], u[1, i], u[2, i], u[3, i])
            if not draw == -1.0:
                of[i] = draw
                df[i] = 1
