"""Pooling CPU kernels vs float64 Python loops: the 2x2 stride-2 fast path and the general loops
(odd sizes, remainder rows, ties, NaNs, padding, overlapping windows), with dx handed over
holding garbage since the backward kernels write every element."""
import numpy as np
import pytest

from minispore.kernels.cpu import pool

DTYPES = [np.float32, np.float64]


def _windows(h, w, kh, kw, sh, sw, pt, pl, oh, ow):
    """(y, x, cells) per output, cells = the clipped window's (i, j) in row-major order."""
    for y in range(oh):
        rows = range(max(y * sh - pt, 0), min(y * sh - pt + kh, h))
        for xo in range(ow):
            cols = range(max(xo * sw - pl, 0), min(xo * sw - pl + kw, w))
            yield y, xo, [(i, j) for i in rows for j in cols]


def _max_ref(x, dy, win, oshape):
    """Forward and backward in float64: the first cell wins unless a later one is strictly
    greater (so a NaN wins only as the first cell)."""
    out, dx = np.zeros(oshape), np.zeros(x.shape)
    for n in range(x.shape[0]):
        for c in range(x.shape[1]):
            for y, xo, cells in _windows(*x.shape[2:], *win, *oshape[2:]):
                best = cells[0]
                for cell in cells[1:]:
                    if float(x[n, c][cell]) > float(x[n, c][best]):
                        best = cell
                out[n, c, y, xo] = x[n, c][best]
                dx[n, c][best] += float(dy[n, c, y, xo])
    return out, dx


def _avg_ref(dy, win, include_pad, xshape):
    dx = np.zeros(xshape)
    kh, kw = win[:2]
    for n in range(xshape[0]):
        for c in range(xshape[1]):
            for y, xo, cells in _windows(*xshape[2:], *win, *dy.shape[2:]):
                cnt = kh * kw if include_pad else len(cells)
                for cell in cells:
                    dx[n, c][cell] += float(dy[n, c, y, xo]) / cnt
    return dx


def _oshape(xshape, kh, kw, sh, sw, pt, pl, pb=None, pr=None):
    n, c, h, w = xshape
    pb = pt if pb is None else pb
    pr = pl if pr is None else pr
    return n, c, (h + pt + pb - kh) // sh + 1, (w + pl + pr - kw) // sw + 1


def _run_max(x, win, oshape, seed=1):
    dy = np.random.default_rng(seed).standard_normal(oshape).astype(x.dtype)
    out = np.full(oshape, np.nan, x.dtype)
    pool.max_pool2d(x, *win, out)
    dx = np.full(x.shape, np.nan, x.dtype)
    pool.max_pool2d_grad(x, dy, *win, dx)
    want_out, want_dx = _max_ref(x, dy, win, oshape)
    return out, dx, want_out, want_dx


# 2x2 stride-2 shapes: even, odd H and/or W (a remainder row/column no window covers), rows
# shorter and longer than a vector, and LeNet's two pools.
FAST_SHAPES = [(1, 1, 2, 2), (2, 3, 7, 6), (3, 2, 9, 11), (2, 1, 5, 4), (1, 2, 4, 41),
               (2, 6, 28, 28), (2, 16, 10, 10)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", FAST_SHAPES)
def test_max_pool_2x2_matches_reference(shape, dtype):
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    win = (2, 2, 2, 2, 0, 0)
    out, dx, want_out, want_dx = _run_max(x, win, _oshape(shape, *win))
    np.testing.assert_array_equal(out, want_out.astype(dtype))
    np.testing.assert_array_equal(dx, want_dx.astype(dtype))


@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (1, 2, 4, 41)])
def test_max_pool_2x2_ties_go_to_first_maximum(shape):
    # Three distinct values: most windows hold ties, in every arrangement.
    x = np.random.default_rng(2).integers(0, 3, shape).astype(np.float32)
    win = (2, 2, 2, 2, 0, 0)
    out, dx, want_out, want_dx = _run_max(x, win, _oshape(shape, *win))
    np.testing.assert_array_equal(out, want_out.astype(np.float32))
    np.testing.assert_array_equal(dx, want_dx.astype(np.float32))
    assert np.count_nonzero(dx) == out.size      # one cell per window receives its gradient


@pytest.mark.parametrize("cell", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_max_pool_2x2_nan_wins_only_as_first_cell(cell):
    # Width 41: windows on the vector path and on the scalar remainder.
    x = np.random.default_rng(3).standard_normal((1, 2, 4, 41)).astype(np.float32)
    for xo in (0, 7, 19):
        x[0, 0, cell[0], 2 * xo + cell[1]] = np.nan
    x[0, 1, 2 + cell[0], 2 * 5 + cell[1]] = np.nan
    win = (2, 2, 2, 2, 0, 0)
    out, dx, want_out, want_dx = _run_max(x, win, _oshape(x.shape, *win))
    np.testing.assert_array_equal(out, want_out.astype(np.float32))
    np.testing.assert_array_equal(dx, want_dx.astype(np.float32))
    assert np.isnan(out).any() == (cell == (0, 0))


# (kh, kw, sh, sw, pt, pl, pb, pr) the fast path must not take, or must take only where valid:
# 'same' with odd sizes (the last window hangs over the bottom/right), leading padding,
# overlapping windows, stride != kernel, 3x3 disjoint.
GENERAL_WINDOWS = [(2, 2, 2, 2, 0, 0, 1, 1), (2, 2, 2, 2, 1, 1, 1, 1), (3, 3, 2, 2, 1, 1, 1, 1),
                   (2, 2, 1, 1, 0, 0, 0, 0), (3, 2, 2, 1, 0, 0, 0, 0), (3, 3, 3, 3, 0, 0, 0, 0)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("geom", GENERAL_WINDOWS)
def test_max_pool_general_matches_reference(geom, dtype):
    x = np.random.default_rng(4).integers(0, 4, (2, 3, 7, 9)).astype(dtype)   # ties
    win = geom[:6]
    out, dx, want_out, want_dx = _run_max(x, win, _oshape(x.shape, *geom))
    np.testing.assert_array_equal(out, want_out.astype(dtype))
    # Overlapping windows sum several dy into one cell, in dx's dtype.
    tol = 1e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(dx, want_dx, rtol=tol, atol=tol)


@pytest.mark.parametrize("include_pad", [False, True])
@pytest.mark.parametrize("geom", GENERAL_WINDOWS)
def test_avg_pool_grad_writes_every_element(geom, include_pad):
    xshape = (2, 3, 7, 9)
    oshape = _oshape(xshape, *geom)
    dy = np.random.default_rng(5).standard_normal(oshape)
    dx = np.full(xshape, np.nan)
    pool.avg_pool2d_grad(dy, *geom[:6], include_pad, dx)
    np.testing.assert_allclose(dx, _avg_ref(dy, geom[:6], include_pad, xshape), rtol=1e-12)
