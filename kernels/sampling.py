"""Per-draw bodies of the random kernels, shared by kernels/cpu/random.py (njit) and
kernels/cuda/random.py (device functions), written once like the bodies in lines.py so CPU
and GPU draw the same category from the same uniform. Plain Python that calls no other
function of ours: numba compiles each for either target as it is.
"""
import math


def multinomial_draw(probs, u, out, r, s):
    """out[r, s] = the first category c of row r whose cumulative weight exceeds
    u[r, s] * (the row's total), never a category of zero weight (the last one of positive
    weight where rounding leaves the search without a pick)."""
    categories = probs.shape[1]
    total = 0.0
    last = 0
    for c in range(categories):
        total += probs[r, c]
        if probs[r, c] > 0.0:
            last = c
    target = u[r, s] * total
    acc = 0.0
    pick = last
    for c in range(categories):
        acc += probs[r, c]
        if acc > target and probs[r, c] > 0.0:
            pick = c
            break
    out[r, s] = pick


def uniform_int_draw(u, low, span):
    """low + floor(u * span) for a uniform u in [0, 1) and span = high - low >= 1, clamped
    below low + span where u * span rounds up to span."""
    k = int(u * span)
    if k >= span:
        k = span - 1
    return low + k


def poisson_draw(rate, u):
    """The Poisson(rate) count whose CDF first reaches u (inversion: one uniform per draw, so
    a seeded run draws the same counts on CPU and GPU). The search starts at the mode m, whose
    CDF is summed down from pmf(m) = exp(m log rate - rate - lgamma(m + 1)) until the terms
    vanish, and walks from there: about sqrt(rate) steps, and no underflow of exp(-rate) for
    a large rate. rate <= 0 or NaN gives 0 (MindSpore 2.7.2's answer for rate <= 0)."""
    if not rate > 0.0:
        return 0.0
    m = math.floor(rate)
    pm = math.exp(m * math.log(rate) - rate - math.lgamma(m + 1.0))
    # F(m): pmf(k - 1) = pmf(k) * k / rate, summed until negligible
    cdf = pm
    p = pm
    k = m
    while k > 0.0 and p > cdf * 1e-17:
        p = p * k / rate
        cdf += p
        k -= 1.0
    k = m
    p = pm
    if u < cdf:
        # walk down while the CDF of k - 1 still reaches u
        while k > 0.0 and u < cdf - p:
            cdf -= p
            p = p * k / rate
            k -= 1.0
        return k
    # walk up; the tail's mass below the rounding of cdf ends the walk
    while u >= cdf and p > 0.0:
        k += 1.0
        p = p * rate / k
        cdf += p
    return k


def gamma_attempt(alpha, u1, u2, u3, u4):
    """One attempt of Marsaglia and Tsang's Gamma(alpha, 1) sampler on four uniforms in
    [0, 1): a Box-Muller normal from u1, u2, acceptance by u3, and for alpha < 1 the boost
    Gamma(alpha) = Gamma(alpha + 1) * u4 ** (1 / alpha). Returns the draw, or -1.0 when the
    attempt is rejected (the caller retries with fresh uniforms). alpha == 0 gives 0 and
    alpha < 0 or NaN gives NaN (MindSpore 2.7.2's answers)."""
    if alpha == 0.0:
        return 0.0
    if not alpha > 0.0:
        return math.nan
    a = alpha if alpha >= 1.0 else alpha + 1.0
    d = a - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    x = math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)
    t = 1.0 + c * x
    if t <= 0.0:
        return -1.0
    v = t * t * t
    if math.log(1.0 - u3) >= 0.5 * x * x + d - d * v + d * math.log(v):
        return -1.0
    draw = d * v
    if alpha < 1.0:
        draw = draw * (1.0 - u4) ** (1.0 / alpha)
    return draw
