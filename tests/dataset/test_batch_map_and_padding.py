"""Dataset.batch's per_batch_map / input_columns / output_columns and padded_batch's pad_info
act as in MindSpore (dataset/engine/datasets.py, validators.py check_batch / check_pad_info);
a keyword batch does not have raises naming it."""
import logging

import numpy as np
import pytest

import minispore.dataset as ds


def rows(data):
    return list(data.create_tuple_iterator(output_numpy=True, num_epochs=1))


def numbers(n=6):
    return ds.NumpySlicesDataset({"x": np.arange(n), "y": np.arange(n) * 10}, shuffle=False)


def test_per_batch_map_gets_row_lists_and_batch_info():
    seen = []

    def scale(xs, info):
        seen.append((len(xs), info.get_batch_num(), info.get_epoch_num()))
        return ([x * (info.get_batch_num() + 1) for x in xs],)

    got = rows(numbers().batch(4, per_batch_map=scale, input_columns=["x"]))
    assert [r[0].tolist() for r in got] == [[0, 1, 2, 3], [8, 10]]
    assert [r[1].tolist() for r in got] == [[0, 10, 20, 30], [40, 50]]
    assert seen == [(4, 0, 0), (2, 1, 0)]


def test_per_batch_map_output_columns_replace_the_inputs():
    def split(x, y, info):
        return [a + b for a, b in zip(x, y)], [a - b for a, b in zip(x, y)], x

    data = numbers(4).batch(2, per_batch_map=split, input_columns=["x", "y"],
                            output_columns=["sum", "diff", "x2"])
    assert data.get_col_names() == ["sum", "diff", "x2"]
    got = rows(data)
    assert got[1][0].tolist() == [22, 33] and got[1][1].tolist() == [-18, -27]
    assert got[1][2].tolist() == [2, 3]


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(input_columns=["x"]), ValueError, "input_columns can be specified only when "
                                            "per_batch_map is set"),
    (dict(per_batch_map=lambda x, y, info: (x, y), input_columns=["x"]), ValueError,
     r"takes 3 arguments, but it must take one per input column \(1\)"),
    (dict(per_batch_map=lambda x, info: (x,), input_columns=["x"], pad_info={}), ValueError,
     "pad_info and per_batch_map can't both be set"),
    (dict(column_order=["x"]), TypeError, "keyword argument 'column_order' is not supported"),
    (dict(python_multiprocessing=1), TypeError, "python_multiprocessing must be a bool"),
])
def test_batch_keyword_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        numbers().batch(2, **kwargs)


def test_per_batch_map_returning_a_wrong_column_count_names_output_columns():
    data = numbers().batch(2, per_batch_map=lambda x, info: (x, x), input_columns="x")
    with pytest.raises(RuntimeError, match=r"returned 2 columns, but output_columns \['x'\]"):
        rows(data)


def ragged():
    return ds.GeneratorDataset(
        lambda: ((np.arange(1, i + 1), np.full((i, 2), i)) for i in range(1, 4)), ["a", "b"])


def test_padded_batch_pads_to_the_shape_or_the_largest_row():
    got = rows(ragged().padded_batch(3, pad_info={"a": ([4], -1)}))
    assert got[0][0].tolist() == [[1, -1, -1, -1], [1, 2, -1, -1], [1, 2, 3, -1]]
    # 'b' is not named: padded to the largest row with 0
    assert got[0][1].shape == (3, 3, 2) and got[0][1][0].tolist() == [[1, 1], [0, 0], [0, 0]]
    got = rows(ragged().padded_batch(2, pad_info={"a": (None, 9)}))
    assert got[0][0].tolist() == [[1, 9], [1, 2]] and got[1][0].tolist() == [[1, 2, 3]]
    # MindSpore 1.x spelt it batch(pad_info=...)
    got = rows(ragged().batch(3, pad_info={}))
    assert got[0][0].tolist() == [[1, 0, 0], [1, 2, 0], [1, 2, 3]]


def test_padded_batch_errors():
    with pytest.raises(TypeError, match=r"pad_info\['a'\] must be a tuple"):
        ragged().padded_batch(2, pad_info={"a": [3]})
    with pytest.raises(ValueError, match="column 'c' does not exist"):
        ragged().padded_batch(2, pad_info={"c": (None, 0)})
    with pytest.raises(RuntimeError, match=r"larger than the pad_shape \[2\]; padding never "
                                           r"cuts"):
        rows(ragged().padded_batch(3, pad_info={"a": ([2], 0)}))


def test_batch_worker_keywords_warn_that_they_have_no_effect(caplog):
    with caplog.at_level(logging.WARNING, logger="minispore"):
        data = numbers().batch(2, python_multiprocessing=True, max_rowsize=8)
    assert "python_multiprocessing=True has no effect in minispore" in caplog.text
    assert "max_rowsize=8 has no effect in minispore" in caplog.text
    assert [r[0].tolist() for r in rows(data)] == [[0, 1], [2, 3], [4, 5]]


def test_generator_column_types_are_checked_as_mindspore_checks_them():
    import minispore as ms

    def gen():
        for i in range(3):
            yield np.array([i], np.float64), np.array(i, np.int32)

    data = ds.GeneratorDataset(gen, ["x", "y"], column_types=[ms.float64, ms.int32])
    assert [r[0].dtype for r in rows(data)] == [np.float64] * 3
    wrong = ds.GeneratorDataset(gen, ["x", "y"], column_types=[ms.float32, None])
    with pytest.raises(RuntimeError, match="should be same with specified column_types, but "
                                           "column 'x' is float64 and its column type is "
                                           "Float32"):
        rows(wrong)
    with pytest.raises(TypeError, match="column_types must be a list of 2 dtypes"):
        ds.GeneratorDataset(gen, ["x", "y"], column_types=[np.float64, ms.int32])


def test_map_keywords_warn_refuse_or_raise_instead_of_being_swallowed(caplog, tmp_path):
    with caplog.at_level(logging.WARNING, logger="minispore"):
        data = numbers().map(lambda x: x + 1, "x", python_multiprocessing=True, offload=False)
    assert "For 'map', python_multiprocessing=True has no effect in minispore" in caplog.text
    assert "For 'map', offload=False has no effect in minispore" in caplog.text
    assert [r[0].tolist() for r in rows(data.batch(3))] == [[1, 2, 3], [4, 5, 6]]
    with pytest.raises(NotImplementedError, match=r"'callbacks' \(dataset callbacks\) is not "
                                                  r"implemented"):
        numbers().map(lambda x: x, "x", callbacks=[object()])
    with pytest.raises(NotImplementedError, match="'cache' .* is not implemented"):
        numbers().map(lambda x: x, "x", cache=object())
    with pytest.raises(TypeError, match="keyword argument 'column_order' is not supported"):
        numbers().map(lambda x: x, "x", column_order=["x"])
    with pytest.raises(NotImplementedError, match="For 'MnistDataset', 'cache'"):
        ds.MnistDataset(str(tmp_path), cache=object())
