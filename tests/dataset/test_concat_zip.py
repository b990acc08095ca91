"""Dataset.concat / ``+`` and zip, held to what MindSpore 2.7.2 printed for the same lines
(run under .venv-ms while writing this test)."""
import numpy as np
import pytest

import minispore.dataset as ds


def _a():
    return ds.NumpySlicesDataset({"a": np.arange(3)}, shuffle=False)


def _b():
    return ds.NumpySlicesDataset({"a": np.arange(10, 12)}, shuffle=False)


def _c():
    return ds.NumpySlicesDataset({"c": np.arange(20, 24), "d": np.arange(4)}, shuffle=False)


def _rows(dataset):
    return [[v.tolist() for v in row] for row in dataset.create_tuple_iterator(output_numpy=True)]


def test_concat_runs_each_dataset_in_turn():
    assert _rows(_a().concat([_b(), _b().take(1)])) == [[0], [1], [2], [10], [11], [10]]
    joined = _a() + _b()
    assert joined.get_dataset_size() == 5
    assert _rows(joined.repeat(2)) == [[0], [1], [2], [10], [11]] * 2


def test_zip_puts_columns_side_by_side_for_the_shortest_length():
    zipped = ds.zip((_a(), _c()))
    assert zipped.get_col_names() == ["a", "c", "d"] and zipped.get_dataset_size() == 3
    assert _rows(zipped) == [[0, 20, 0], [1, 21, 1], [2, 22, 2]]
    assert _rows(_a().zip(_c())) == _rows(_a().zip((_c(),)))
    # rows in chunks of different lengths still line up
    assert _rows(ds.zip((_a().batch(2), _c().batch(2).rename(["c", "d"], ["e", "f"])))) == \
        [[[0, 1], [20, 21], [0, 1]], [[2], [22, 23], [2, 3]]]


def test_a_node_twice_in_one_pipeline_is_refused():
    a = _a()
    with pytest.raises(ValueError, match=r"not a tree \(i.e., one node has 2 consumers\)"):
        a + a
    with pytest.raises(ValueError, match=r"not a tree"):
        ds.zip((a, a.take(2)))


def test_joining_mismatched_datasets_names_what_differs():
    with pytest.raises(RuntimeError, match=r"'zip'.*unique.*\['a', 'a'\]"):
        ds.zip((_a(), _b()))
    with pytest.raises(RuntimeError, match=r"'concat'.*columns \['a'\].*\['c', 'd'\]"):
        _a() + _c()
    floats = ds.NumpySlicesDataset({"a": np.arange(3.0)}, shuffle=False)
    with pytest.raises(RuntimeError, match=r"'concat'.*float64 of rank 0.*int64 of rank 0"):
        _rows(_a() + floats)
    with pytest.raises(TypeError, match=r"datasets"):
        ds.zip(_a())
    with pytest.raises(TypeError, match=r"datasets"):
        _a().concat(3)
