"""Per-draw bodies of the random kernels, shared by kernels/cpu/random.py (njit) and
kernels/cuda/random.py (device functions), written once like the bodies in lines.py so CPU
and GPU draw the same category from the same uniform. Plain Python that calls no other
function of ours: numba compiles each for either target as it is.
"""


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
