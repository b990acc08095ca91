"""transforms.RandomApply / RandomChoice / RandomOrder (per-row draws from the pipeline's seed),
Mask with Relational and Unique: MindSpore 2.7.2's outputs and errors."""
import numpy as np
import pytest

import minispore as ms
import minispore.dataset as ds
import minispore.dataset.transforms as T
from minispore.dataset.transforms import Relational

ARR = np.array([1, 2, 3, 2, 5], np.int32)


def test_mask_equals_mindspore():
    assert T.Mask(Relational.EQ, 2)(ARR).tolist() == [False, True, False, True, False]
    out = T.Mask(Relational.GT, 2, ms.int32)(ARR)
    assert out.dtype == np.int32 and out.tolist() == [0, 0, 1, 0, 1]
    assert T.Mask(Relational.LE, 2.5)(ARR.astype(np.float32)).tolist() == [True, True, False,
                                                                           True, False]


def test_unique_equals_mindspore():
    values, index, count = T.Unique()(np.array([[5, 1], [5, 3]], np.int32))
    assert (values.tolist(), index.tolist(), count.tolist()) == ([5, 1, 3], [0, 1, 0, 2],
                                                                 [2, 1, 1])
    assert index.dtype == np.int32 and count.dtype == np.int32


def _dtypes(op, seed):
    ds.config.set_seed(seed)
    data = ds.NumpySlicesDataset({"x": np.arange(400, dtype=np.float32).reshape(200, 2)},
                                 shuffle=False).map(op, input_columns="x")
    return [r[0].dtype for r in data.create_tuple_iterator(output_numpy=True)]


def test_random_apply_applies_with_probability_prob_per_row_and_repeats_under_a_seed():
    op = T.RandomApply([T.TypeCast(ms.int32)], prob=0.3)
    kinds = _dtypes(op, 7)
    share = sum(k == np.int32 for k in kinds) / len(kinds)
    assert abs(share - 0.3) < 5 * np.sqrt(0.3 * 0.7 / 200)
    assert kinds == _dtypes(op, 7)


def test_random_choice_and_order():
    picks = _dtypes(T.RandomChoice([T.TypeCast(ms.int32), T.TypeCast(ms.float64)]), 3)
    assert set(picks) == {np.dtype(np.int32), np.dtype(np.float64)}
    # Fill then cast, or cast then fill: both give int 3s from a float row.
    ds.config.set_seed(1)
    out = T.RandomOrder([T.TypeCast(ms.int32), T.Fill(3)])(np.ones(2, np.float32))
    assert out.tolist() == [3, 3]


@pytest.mark.parametrize("make,err,words", [
    (lambda: T.RandomApply([], 0.5), ValueError, "can not be empty"),
    (lambda: T.RandomApply([T.TypeCast(ms.int32)], 1.5), ValueError, "interval of"),
    (lambda: T.RandomChoice([]), ValueError, "can not be empty"),
    (lambda: T.Mask("EQ", 2), TypeError, "not of type"),
    (lambda: T.Mask(Relational.EQ, "a")(ARR), TypeError, "cannot be compared"),
    (lambda: T.Unique()(ARR), RuntimeError, "at least 2-D"),
])
def test_errors(make, err, words):
    with pytest.raises(err, match=words):
        make()
