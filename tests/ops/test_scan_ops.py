"""Cummax / Cummin (values, positions, gradient) and SearchSorted against numpy references, with
MindSpore 2.7.2's tie, NaN and dtype conventions (values it printed for the same inputs), in
PYNATIVE and under ms.jit."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_grad


def _cum_ref(x, axis, largest):
    """(values, positions) by a plain loop: x[r] replaces the running extreme when it is >=
    (<=) it, i.e. the last of equal values; a NaN takes over and stays."""
    x = np.moveaxis(np.asarray(x), axis, -1)
    values = np.empty_like(x)
    index = np.empty(x.shape, np.int64)
    for line in np.ndindex(x.shape[:-1]):
        best, at = x[line][0], 0
        for r, v in enumerate(x[line]):
            if v != v or (best == best and (v >= best if largest else v <= best)):
                best, at = v, r
            values[line + (r,)] = best
            index[line + (r,)] = at
    return np.moveaxis(values, -1, axis), np.moveaxis(index, -1, axis)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int32, np.int64,
                                   np.uint8, np.uint16, np.uint64])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cummax_cummin_values_and_positions(dtype, axis):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, (3, 7, 2)).astype(dtype)     # few distinct values: many ties
    for fn, prim, method, largest, idx in ((ops.cummax, ops.Cummax, "cummax", True, ms.int64),
                                           (ops.cummin, ops.Cummin, "cummin", False, ms.int32)):
        want_v, want_i = _cum_ref(x, axis, largest)
        np.testing.assert_array_equal(want_v, (np.maximum if largest else np.minimum)
                                      .accumulate(x, axis=axis))
        for values, indices in (fn(Tensor(x), axis), prim(axis)(Tensor(x)),
                                getattr(Tensor(x), method)(axis)):
            assert values.dtype == ms.common.dtype.to_type(dtype) and indices.dtype == idx
            np.testing.assert_array_equal(values.asnumpy(), want_v)
            np.testing.assert_array_equal(indices.asnumpy(), want_i)


def test_cummax_cummin_match_mindspore_printed_values():
    """MindSpore 2.7.2's output for these lines: ties take the later position, a NaN wins and
    each later NaN moves the index, Cummax gives Int64 positions and Cummin Int32."""
    x = Tensor(np.array([[3, 1, 3, 2, 3, 1], [1, 1, 2, 2, 0, 5]], np.float32))
    v, i = ops.cummax(x, 1)
    np.testing.assert_array_equal(i.asnumpy(), [[0, 0, 2, 2, 4, 4], [0, 1, 2, 3, 3, 5]])
    v, i = ops.cummin(x, 1)
    np.testing.assert_array_equal(v.asnumpy(), [[3, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0]])
    np.testing.assert_array_equal(i.asnumpy(), [[0, 1, 1, 1, 1, 5], [0, 1, 1, 1, 4, 4]])
    xn = Tensor(np.array([1, np.nan, 2, np.nan, 0], np.float32))
    for fn in (ops.cummax, ops.cummin):
        v, i = fn(xn, 0)
        np.testing.assert_array_equal(v.asnumpy(), [1, np.nan, np.nan, np.nan, np.nan])
        np.testing.assert_array_equal(i.asnumpy(), [0, 1, 1, 3, 3])


def test_cummax_float16_and_empty():
    v, i = ops.cummax(Tensor(np.array([1, 3, 2], np.float16)), 0)
    assert v.dtype == ms.float16
    np.testing.assert_array_equal(v.asnumpy(), [1, 3, 3])
    np.testing.assert_array_equal(i.asnumpy(), [0, 1, 1])
    v, i = ops.cummin(Tensor(np.zeros((0, 3), np.float32)), 1)
    assert v.shape == (0, 3) and i.shape == (0, 3)


def test_cummax_errors_name_the_operator():
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"For 'Cummax'.*'axis' must be in \[-2, 2\).*2"):
        ops.cummax(x, 2)
    with pytest.raises(TypeError, match=r"For 'Cummin', 'axis' must be an int.*float"):
        ops.cummin(x, 1.0)
    with pytest.raises(TypeError, match=r"For 'Cummax'.*but got Bool"):
        ops.cummax(Tensor(np.array([True, False])), 0)
    with pytest.raises(ValueError, match=r"For 'Cummax'.*0-d"):
        ops.Cummax(0)(Tensor(np.array(1.0, np.float32)))


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("fn", [ops.cummax, ops.cummin], ids=["cummax", "cummin"])
def test_cummax_cummin_gradient_scatters_to_the_positions(fn, axis):
    # Distinct values: finite differences do not cross a tie.
    x = np.random.default_rng(1).permutation(24).reshape(2, 3, 4).astype(np.float64) / 7
    check_grad(lambda t: fn(t, axis)[0], [x])


def test_cummax_gradient_accumulates_on_repeated_positions():
    x = Tensor(np.array([[1.0, 0.5, 2.0, 0.0]], np.float32))
    w = Tensor(np.array([[1.0, 10.0, 100.0, 1000.0]], np.float32))
    g = ms.grad(lambda t: (ops.cummax(t, 1)[0] * w).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), [[11.0, 0.0, 1100.0, 0.0]])


def test_cummax_graph_mode_forward_and_grad():
    x = np.random.default_rng(2).standard_normal((3, 5)).astype(np.float32)

    @ms.jit
    def f(t):
        return ops.cummax(t, 1), ms.grad(lambda u: ops.cummin(u, 0)[0].sum())(t)

    (v, i), g = f(Tensor(x))
    want_v, want_i = _cum_ref(x, 1, True)
    np.testing.assert_array_equal(v.asnumpy(), want_v)
    np.testing.assert_array_equal(i.asnumpy(), want_i)
    _, pos = _cum_ref(x, 0, False)
    want_g = np.zeros_like(x)
    np.add.at(want_g, (pos, np.arange(5)[None, :].repeat(3, 0)), 1.0)
    np.testing.assert_array_equal(g.asnumpy(), want_g)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int16, np.int32,
                                   np.int64])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_against_numpy(dtype, side):
    rng = np.random.default_rng(3)
    seq = np.sort(rng.integers(-20, 20, 15)).astype(dtype)
    values = rng.integers(-25, 25, (4, 6)).astype(dtype)
    want = np.searchsorted(seq, values, side=side)
    got = ops.searchsorted(Tensor(seq), Tensor(values), right=side == "right")
    assert got.dtype == ms.int64
    np.testing.assert_array_equal(got.asnumpy(), want)
    got = ops.searchsorted(Tensor(seq), Tensor(values), side=side, out_int32=True)
    assert got.dtype == ms.int32
    np.testing.assert_array_equal(got.asnumpy(), want)
    got = ops.SearchSorted(right=side == "right")(Tensor(seq), Tensor(values))
    np.testing.assert_array_equal(got.asnumpy(), want)
    got = Tensor(seq).searchsorted(Tensor(values), side=side)
    assert got.dtype == ms.int32
    np.testing.assert_array_equal(got.asnumpy(), want)


def test_searchsorted_one_sorted_row_per_row_of_values():
    rng = np.random.default_rng(4)
    seq = np.sort(rng.standard_normal((2, 3, 9)), axis=-1).astype(np.float32)
    values = rng.standard_normal((2, 3, 5)).astype(np.float32)
    for right in (False, True):
        want = np.stack([np.searchsorted(seq[i, j], values[i, j],
                                         side="right" if right else "left")
                         for i in range(2) for j in range(3)]).reshape(2, 3, 5)
        got = ops.searchsorted(Tensor(seq), Tensor(values), right=right)
        np.testing.assert_array_equal(got.asnumpy(), want)


def test_searchsorted_matches_mindspore_printed_values():
    """MindSpore 2.7.2: its recorded conformance case on unsorted rows (the std::lower_bound
    halving decides there), NaN elements count as before every value, a 0-d value, an empty
    sequence."""
    x = Tensor(np.array([[0.5, 0.2, 0.8], [0.3, 0.9, 0.1]], np.float32))
    y = Tensor(np.array([[0.4, 0.7, 0.6], [0.9, 0.1, 0.3]], np.float32))
    np.testing.assert_array_equal(ops.searchsorted(x, y).asnumpy(), [[2, 2, 2], [1, 0, 0]])
    seq = Tensor(np.array([1, 2, np.nan], np.float32))
    np.testing.assert_array_equal(
        ops.searchsorted(seq, Tensor(np.array([np.nan, 3], np.float32))).asnumpy(), [3, 3])
    got = ops.searchsorted(Tensor(np.array([1, 2, 2, 3, 5], np.float32)),
                           Tensor(np.array(2, np.float32)))
    assert got.shape == () and int(got) == 1
    got = ops.searchsorted(Tensor(np.zeros(0, np.float32)), Tensor(np.array([2], np.float32)))
    np.testing.assert_array_equal(got.asnumpy(), [0])


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_sorter_against_numpy(right):
    rng = np.random.default_rng(5)
    seq = rng.integers(-9, 9, 12).astype(np.float32)
    sorter = np.argsort(seq, kind="stable").astype(np.int64)
    values = rng.integers(-10, 10, (3, 4)).astype(np.float32)
    side = "right" if right else "left"
    want = np.searchsorted(seq, values, side=side, sorter=sorter)
    got = ops.searchsorted(Tensor(seq), Tensor(values), right=right, sorter=Tensor(sorter))
    np.testing.assert_array_equal(got.asnumpy(), want)
    got = Tensor(seq).searchsorted(Tensor(values), side=side, sorter=Tensor(sorter))
    np.testing.assert_array_equal(got.asnumpy(), want)
    rows = rng.integers(-9, 9, (2, 3, 7)).astype(np.float64)
    order = np.argsort(rows, axis=-1, kind="stable").astype(np.int64)
    vals = rng.integers(-10, 10, (2, 3, 4)).astype(np.float64)
    want = np.stack([np.searchsorted(rows[i, j], vals[i, j], side=side, sorter=order[i, j])
                     for i in range(2) for j in range(3)]).reshape(2, 3, 4)

    @ms.jit
    def f(s, v, o):
        return ops.SearchSorted(right=right)(s, v, o)

    np.testing.assert_array_equal(f(Tensor(rows), Tensor(vals), Tensor(order)).asnumpy(), want)


def test_searchsorted_errors():
    seq = Tensor(np.array([[1, 3, 5], [2, 4, 6]], np.float32))
    with pytest.raises(ValueError, match=r"For 'SearchSorted'.*1 dimensional.*\(2, 3\).*\(1, 2\)"):
        ops.searchsorted(seq, Tensor(np.array([[3, 3]], np.float32)))
    with pytest.raises(ValueError, match=r"side and right can't be set to opposites"):
        ops.searchsorted(seq, seq, side="left", right=True)
    with pytest.raises(ValueError, match=r"'side' must be 'left' or 'right'.*'middle'"):
        ops.searchsorted(seq, seq, side="middle")
    with pytest.raises(TypeError, match=r"For 'SearchSorted'.*dtype of 'sorted_sequence'.*"
                                        r"Float32.*Int64"):
        ops.searchsorted(seq, Tensor(np.array([[1], [2]], np.int64)))
    with pytest.raises(TypeError, match=r"For 'SearchSorted'.*but got Float16"):
        ops.searchsorted(Tensor(np.array([1, 2], np.float16)), Tensor(np.array([1], np.float16)))
    with pytest.raises(ValueError, match=r"For 'SearchSorted', 'sorter' must be Int64.*Int32"):
        ops.searchsorted(seq, seq, sorter=Tensor(np.array([[0, 1, 2], [0, 1, 2]], np.int32)))
    with pytest.raises(ValueError, match=r"'sorter' must have the shape.*\(2, 3\).*\(3,\)"):
        ops.searchsorted(seq, seq, sorter=Tensor(np.array([0, 1, 2], np.int64)))
    with pytest.raises(ValueError, match=r"For 'Gather'.*-1"):
        ops.searchsorted(seq, seq, sorter=Tensor(np.array([[0, 1, 3], [0, 1, 2]], np.int64)))
    with pytest.raises(TypeError, match=r"'dtype' must be mindspore.int32 or mindspore.int64"):
        ops.SearchSorted(dtype=ms.int16)


def test_searchsorted_graph_mode():
    seq = np.array([1, 2, 2, 3, 5], np.int32)
    values = np.array([[0, 2], [3, 9]], np.int32)

    @ms.jit
    def f(s, v):
        return ops.searchsorted(s, v), ops.searchsorted(s, v, right=True)

    left, right = f(Tensor(seq), Tensor(values))
    np.testing.assert_array_equal(left.asnumpy(), np.searchsorted(seq, values))
    np.testing.assert_array_equal(right.asnumpy(), np.searchsorted(seq, values, side="right"))
