"""Concatenate, Duplicate, Fill, PadEnd and Slice: values and errors as MindSpore 2.7 gives them
(each expected value below was produced by MindSpore on the same input)."""
import numpy as np
import pytest

import minispore.dataset as ds
import minispore.dataset.transforms as T

A = np.array([0, 2, 1, 5, 7], np.int64)
M = np.arange(9).reshape(3, 3)


def test_concatenate_values_and_dtype_rule():
    out = T.Concatenate(0, np.array([7, 8]), np.array([9]))(A[:3])
    assert out.dtype == np.int64 and out.tolist() == [7, 8, 0, 2, 1, 9]
    assert T.Concatenate(-1, None, np.array([9]))(A[:3]).tolist() == [0, 2, 1, 9]
    assert T.Concatenate(0, np.array(["a"]))(np.array(["x", "y"])).tolist() == ["a", "x", "y"]
    assert T.Concatenate()(A).tolist() == A.tolist()
    with pytest.raises(RuntimeError, match="datatype"):
        T.Concatenate(0, np.array([7], np.int32))(A)
    with pytest.raises(RuntimeError, match="only 1D input"):
        T.Concatenate()(M)
    with pytest.raises(ValueError, match="1D concatenation"):
        T.Concatenate(1)
    with pytest.raises(TypeError, match="prepend"):
        T.Concatenate(0, [1])
    with pytest.raises(TypeError, match="axis"):
        T.Concatenate(True)
    with pytest.raises(ValueError, match="prepend 1D"):
        T.Concatenate(0, np.ones((1, 1)))


def test_duplicate_gives_two_independent_copies():
    a, b = T.Duplicate()(A)
    assert a.tolist() == b.tolist() == A.tolist() and a is not b and not np.shares_memory(a, b)
    with pytest.raises(RuntimeError, match="one column"):
        T.Duplicate()(A, A)


def test_fill_casts_like_cpp():
    assert T.Fill(3)(A).tolist() == [3] * 5
    assert T.Fill(3.7)(A).tolist() == [3] * 5
    assert T.Fill(-1)(np.array([1, 2], np.uint8)).tolist() == [255, 255]
    assert T.Fill(300)(np.array([1, 2], np.uint8)).tolist() == [44, 44]
    out = T.Fill(3)(np.array([0.5, 1.5], np.float32))
    assert out.dtype == np.float32 and out.tolist() == [3.0, 3.0]
    assert T.Fill(2)(np.array([True, False])).tolist() == [True, True]
    assert T.Fill("ab")(np.array(["x", "y"])).tolist() == ["ab", "ab"]
    assert T.Fill(4)(np.array(5)).tolist() == 4
    with pytest.raises(RuntimeError):
        T.Fill("a")(A)
    with pytest.raises(RuntimeError):
        T.Fill(1)(np.array(["x"]))
    for bad in (None, np.int64(3), [1]):
        with pytest.raises(TypeError, match="fill_value"):
            T.Fill(bad)


def test_pad_end_pads_and_truncates():
    assert T.PadEnd([2])(A).tolist() == [0, 2]
    assert T.PadEnd([7], 9)(A).tolist() == [0, 2, 1, 5, 7, 9, 9]
    assert T.PadEnd([7], 9.5)(A).tolist() == [0, 2, 1, 5, 7, 9, 9]
    out = T.PadEnd([3, 1], 7)(np.ones((2, 2), np.int32))
    assert out.dtype == np.int32 and out.tolist() == [[1], [1], [7]]
    assert T.PadEnd([4])(np.array(["x", "y"])).tolist() == ["x", "y", "", ""]
    assert T.PadEnd([4], "z")(np.array(["x", "y"])).tolist() == ["x", "y", "z", "z"]
    assert T.PadEnd([3], 300)(np.array([1], np.uint8)).tolist() == [1, 44, 44]
    assert T.PadEnd([3])(np.array(1)).tolist() == 1
    with pytest.raises(RuntimeError, match="rank"):
        T.PadEnd([5, 3])(A)
    with pytest.raises(RuntimeError, match="numeric and string"):
        T.PadEnd([3], "a")(A)
    with pytest.raises(RuntimeError):
        T.PadEnd([None])(A)
    with pytest.raises(ValueError):
        T.PadEnd([0])
    with pytest.raises(TypeError):
        T.PadEnd((5,))
    with pytest.raises(TypeError):
        T.PadEnd([5.0])
    with pytest.raises(TypeError):
        T.PadEnd([True])


@pytest.mark.parametrize("spec, expected", [
    ((1,), [2]), ((-1,), [7]), (([2, 0, -1],), [1, 0, 7]), ((slice(0, 3, 2),), [0, 1]),
    ((slice(3, 0, -1),), [5, 1, 2]), ((slice(3, -6, -1),), [5, 1, 2]),
    ((slice(-1, 0, -1),), [7, 5, 1, 2]), ((slice(-3, -1),), [1, 5]), ((slice(None, -2),), [0, 2, 1]),
    ((slice(-10, 10),), [0, 2, 1, 5, 7]), ((slice(None, -10),), []), ((slice(-2, -10, -2),), [5, 2]),
    ((Ellipsis,), [0, 2, 1, 5, 7]), ((None,), [0, 2, 1, 5, 7]), ((True,), [0, 2, 1, 5, 7]),
    ((), [0, 2, 1, 5, 7])])
def test_slice_1d_matches_mindspore(spec, expected):
    out = T.Slice(*spec)(A)
    assert out.dtype == np.int64 and out.tolist() == expected


def test_slice_nd_and_errors():
    assert T.Slice(1, [0, 2])(M).tolist() == [[3, 5]]
    assert T.Slice(1)(M).tolist() == [[3, 4, 5]]
    assert T.Slice(Ellipsis, 1)(M).tolist() == [[1], [4], [7]]
    assert T.Slice(slice(0, 2), slice(1, 3))(M).tolist() == [[1, 2], [4, 5]]
    # MindSpore refuses a slice without a stop, a step without a start, and a step of 0.
    for bad in (slice(-3, None), slice(None, None, 2), slice(None, 1, -1), slice(1, 3, 0)):
        with pytest.raises(RuntimeError, match="Wrong slice"):
            T.Slice(bad)(A)
    for bad in (slice(10, 0, -1), 5, [1, 9], [-9]):
        with pytest.raises(RuntimeError):
            T.Slice(bad)(A)
    with pytest.raises(RuntimeError):
        T.Slice(1, 1)(A)
    with pytest.raises(RuntimeError, match="empty"):
        T.Slice([])(A)
    for bad in ("a", 1.0, [1.0], [[1]], [True]):
        with pytest.raises(TypeError):
            T.Slice(bad)


def test_ops_in_a_map_pipeline():
    data = ds.NumpySlicesDataset({"x": np.array([[1, 2, 3], [4, 5, 6]], np.int64)},
                                 shuffle=False)
    data = data.map([T.Slice(slice(0, 2)), T.PadEnd([4], -1), T.Duplicate()], ["x"], ["a", "b"])
    data = data.map(T.Fill(0), ["b"])
    rows = list(data.create_tuple_iterator(output_numpy=True))
    assert [r[0].tolist() for r in rows] == [[1, 2, -1, -1], [4, 5, -1, -1]]
    assert [r[1].tolist() for r in rows] == [[0, 0, 0, 0]] * 2
