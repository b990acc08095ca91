"""CSVDataset and TextFileDataset against MindSpore 2.7.2's outputs for the same files (recorded
here as literals): typing, headers, quoting, shuffle=False order, sharding, errors."""
import numpy as np
import pytest

import minispore.dataset as ds


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, newline="")
    return str(path)


@pytest.fixture
def three_files(tmp_path):
    """f0: 3 rows (0..2), f1: 5 rows (100..104), f2: 2 rows (200, 201); columns a, b."""
    return [write(tmp_path, f"f{i}.csv", "".join(f"{i * 100 + j},{j}\n" for j in range(n)))
            for i, n in enumerate([3, 5, 2])]


def column(data, name="a"):
    return [r[name].tolist() for r in data.create_dict_iterator(output_numpy=True, num_epochs=1)]


def csv3(files, **kw):
    return ds.CSVDataset(files, column_defaults=[0, 0], column_names=["a", "b"], **kw)


def test_csv_column_defaults_type_the_columns(tmp_path):
    path = write(tmp_path, "a.csv", "1,2.5,hello,x\n3,4.0,world,y\n")
    data = ds.CSVDataset(path, column_defaults=[0, 0.0, ""], column_names=list("abcd"),
                         shuffle=False)
    rows = list(data.create_dict_iterator(output_numpy=True))
    assert [(r["a"].dtype, r["b"].dtype) for r in rows] == [(np.int32, np.float32)] * 2
    assert [(r["a"].item(), r["b"].item(), str(r["c"]), str(r["d"])) for r in rows] == \
        [(1, 2.5, "hello", "x"), (3, 4.0, "world", "y")]
    assert rows[0]["c"].dtype == np.dtype("<U5") and rows[0]["c"].shape == ()
    assert data.output_types() == [np.int32, np.float32, np.dtype("<U5"), np.dtype("<U1")]


def test_csv_without_defaults_is_all_strings(tmp_path):
    path = write(tmp_path, "a.csv", "1,2.5\n")
    row = next(ds.CSVDataset(path, column_names=["a", "b"], shuffle=False)
               .create_dict_iterator(output_numpy=True))
    assert (row["a"].tolist(), row["a"].dtype, row["b"].tolist()) == ("1", np.dtype("<U1"), "2.5")


def test_csv_header_names_columns_and_is_skipped_in_every_file(tmp_path):
    files = [write(tmp_path, "h1.csv", "x,y\n1,2\n3,4\n"), write(tmp_path, "h2.csv", "x,y\n5,6\n")]
    data = ds.CSVDataset(files[::-1], shuffle=False, num_parallel_workers=2)
    assert data.get_col_names() == ["x", "y"] and data.get_dataset_size() == 3
    assert column(data, "x") == ["1", "5", "3"]          # files sorted, then interleaved
    data = ds.CSVDataset(str(tmp_path / "h*.csv"), shuffle=False, num_parallel_workers=1)
    assert column(data, "y") == ["2", "4", "6"]


def test_csv_quotes_crlf_blank_lines_and_delimiter(tmp_path):
    q = write(tmp_path, "q.csv", '1,"a,b",3.5\n,"say ""hi""",\n"a\nb",,8\n')
    data = ds.CSVDataset(q, column_names=["a", "b", "c"], shuffle=False)
    assert [column(data, c) for c in "abc"] == [["1", "", "a\nb"], ["a,b", 'say "hi"', ""],
                                                ["3.5", "", "8"]]
    crlf = write(tmp_path, "crlf.csv", "a,b\r\n1,2\r\n\r\n3,4")
    assert column(ds.CSVDataset(crlf, shuffle=False)) == ["1", "3"]
    semi = write(tmp_path, "semi.csv", "1;2\n\n\n3;4\n")
    data = ds.CSVDataset(semi, field_delim=";", column_names=["a", "b"], column_defaults=[0, 0],
                         shuffle=False)
    assert column(data, "b") == [2, 4]


def test_csv_numbers_parse_like_stoi_and_stof(tmp_path):
    # MindSpore reads the number at the start of the field: "2.5" as an int is 2, "1e3" is 1
    path = write(tmp_path, "n.csv", "1e3,-4, 1,2.5\n")
    data = ds.CSVDataset(path, column_names=list("abcd"), column_defaults=[0.0, 0, 0, 0],
                         shuffle=False)
    row = next(data.create_dict_iterator(output_numpy=True))
    assert [row[c].item() for c in "abcd"] == [1000.0, -4, 1, 2]
    data = ds.CSVDataset(path, column_names=list("abcd"), column_defaults=[0], shuffle=False)
    assert next(data.create_dict_iterator(output_numpy=True))["a"].item() == 1


def test_csv_shorter_defaults_leave_string_columns(tmp_path):
    path = write(tmp_path, "bad.csv", "1,abc\n")
    row = next(ds.CSVDataset(path, column_names=["a", "b"], column_defaults=[1.5], shuffle=False)
               .create_dict_iterator(output_numpy=True))
    assert (row["a"].dtype, row["a"].item(), str(row["b"])) == (np.float32, 1.0, "abc")


@pytest.mark.parametrize("text, defaults, message", [
    ("1,2\n,3\n", [7, 0], "line 2, type does not match"),     # the default is not used
    ("2.5,x\n", [0.0, 0], "line 1, type does not match"),
    ("3000000000,1\n", [0, 0], "value out of range"),
    ("1,2\n3\n", [0, 0], "line 2"),
    ("1,2,3\n", [0, 0], "line 1"),
])
def test_csv_bad_records_raise(tmp_path, text, defaults, message):
    path = write(tmp_path, "e.csv", text)
    with pytest.raises(RuntimeError, match=message):
        ds.CSVDataset(path, column_names=["a", "b"], column_defaults=defaults)


def test_csv_shuffle_false_interleaves_files_by_worker(three_files):
    # MindSpore 2.7.2, shuffle=False: worker w reads files w, w+W, ... and rows alternate
    assert column(csv3(three_files, shuffle=False, num_parallel_workers=1)) == \
        [0, 1, 2, 100, 101, 102, 103, 104, 200, 201]
    assert column(csv3(three_files, shuffle=False, num_parallel_workers=2)) == \
        [0, 100, 1, 101, 2, 102, 200, 103, 201, 104]


def test_csv_uneven_workers_interleave(tmp_path):
    files = [write(tmp_path, f"g{i}.csv", "".join(f"{i * 100 + j}\n" for j in range(n)))
             for i, n in enumerate([5, 2, 3])]
    data = ds.CSVDataset(files, column_names=["a"], column_defaults=[0], shuffle=False,
                         num_parallel_workers=2)
    assert column(data) == [0, 100, 1, 101, 2, 3, 4, 200, 201, 202]


@pytest.mark.parametrize("shards, expected", [
    (3, [[0, 100, 1, 2], [101, 102, 103, 104], [200, 0, 201, 1]]),
    (4, [[0, 1, 2], [100, 101, 102], [103, 200, 104], [201, 0, 1]]),
    (2, [[0, 100, 1, 101, 2], [102, 200, 103, 201, 104]]),
])
def test_csv_shards_are_contiguous_row_ranges_that_wrap(three_files, shards, expected):
    got = []
    for s in range(shards):
        data = csv3(three_files, shuffle=False, num_shards=shards, shard_id=s,
                    num_parallel_workers=2)
        assert data.get_dataset_size() == len(expected[s])
        got.append(column(data))
    assert got == expected


def test_csv_num_samples_cuts_the_interleaved_order(three_files):
    data = csv3(three_files, shuffle=False, num_samples=4, num_parallel_workers=2)
    assert (data.get_dataset_size(), column(data)) == (4, [0, 100, 1, 101])
    data = csv3(three_files, shuffle=False, num_samples=4, num_shards=2, shard_id=1,
                num_parallel_workers=2)
    assert (data.get_dataset_size(), column(data)) == (4, [102, 200, 103, 201])
    assert csv3(three_files, shuffle=False, num_samples=0).get_dataset_size() == 10


def test_csv_shuffles_globally_by_default_and_seed_repeats(three_files):
    ds.config.set_seed(7)
    first = column(csv3(three_files))
    assert sorted(first) == [0, 1, 2, 100, 101, 102, 103, 104, 200, 201]
    assert column(csv3(three_files)) == first
    assert first != column(csv3(three_files, shuffle=False))
    # shuffled shards still split the rows: every shard draws the same file order
    parts = [column(csv3(three_files, num_shards=2, shard_id=s)) for s in range(2)]
    assert sorted(parts[0] + parts[1]) == sorted(first)


def test_csv_files_shuffle_keeps_rows_in_file_order(three_files):
    ds.config.set_seed(3)
    rows = column(csv3(three_files, shuffle=ds.Shuffle.FILES, num_parallel_workers=1))
    by_file = [[v for v in rows if v // 100 == f] for f in range(3)]
    assert by_file == [[0, 1, 2], [100, 101, 102, 103, 104], [200, 201]]
    # MindSpore's readers act on GLOBAL and FILES only; INFILE reads as shuffle=False
    assert column(csv3(three_files, shuffle=ds.Shuffle.INFILE, num_parallel_workers=1)) == \
        column(csv3(three_files, shuffle=False, num_parallel_workers=1))


def test_csv_pipeline_map_and_batch(three_files):
    data = csv3(three_files, shuffle=False, num_parallel_workers=1)
    data = data.map(lambda a: a * 2, input_columns="a").batch(4)
    batches = [b["a"].tolist() for b in data.create_dict_iterator(output_numpy=True)]
    assert batches == [[0, 2, 4, 200], [202, 204, 206, 208], [400, 402]]


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(dataset_files=5), TypeError, "dataset files"),
    (dict(dataset_files=[]), ValueError, "can not be empty"),
    (dict(dataset_files=["missing.csv"]), ValueError, "did not match any files"),
    (dict(field_delim="ab"), ValueError, "field_delim is invalid"),
    (dict(field_delim='"'), ValueError, "field_delim is invalid"),
    (dict(column_defaults=(1, 2)), TypeError, "column_defaults should be type of list"),
    (dict(column_defaults=[object()]), TypeError, "column type in column_defaults is invalid"),
    (dict(column_names=[1, 2]), TypeError, "column_names should be a list of str"),
    (dict(column_names=["a", "a"]), RuntimeError, "duplicate column names"),
    (dict(column_names=["a", "b"], column_defaults=[0, 1, 2]), RuntimeError,
     "size of column_names should be equal"),
    (dict(shuffle="x"), TypeError, "shuffle must be of boolean or enum"),
    (dict(num_shards=2), RuntimeError, "num_shards and shard_id"),
    (dict(num_shards=2, shard_id=2), ValueError, "shard_id"),
    (dict(num_samples=-1), ValueError, "num_samples"),
    (dict(cache=object()), NotImplementedError, "cache"),
])
def test_csv_argument_errors(tmp_path, kwargs, error, message):
    kwargs.setdefault("dataset_files", write(tmp_path, "h.csv", "x,y\n1,2\n"))
    with pytest.raises(error, match=message):
        ds.CSVDataset(**kwargs)


def test_csv_without_rows_raises(tmp_path):
    with pytest.raises(RuntimeError, match="no data found"):
        ds.CSVDataset(write(tmp_path, "hdr.csv", "a,b\n"))
    with pytest.raises(RuntimeError, match="no header"):
        ds.CSVDataset(write(tmp_path, "empty.csv", ""))


@pytest.fixture
def texts(tmp_path):
    return [write(tmp_path, "t1.txt", "hello world\nsecond line\n\nfourth\n"),
            write(tmp_path, "t2.txt", "b1\r\nb2"), write(tmp_path, "t3.txt", "")]


def test_textfile_lines_skip_empty_and_keep_cr(texts):
    data = ds.TextFileDataset(texts, shuffle=False, num_parallel_workers=1)
    assert data.get_col_names() == ["text"] and data.get_dataset_size() == 5
    assert column(data, "text") == ["hello world", "second line", "fourth", "b1\r", "b2"]
    row = next(data.create_dict_iterator(output_numpy=True))
    assert row["text"].dtype == np.dtype("<U11") and row["text"].shape == ()
    assert column(ds.TextFileDataset(texts[:2], shuffle=False, num_parallel_workers=2),
                  "text") == ["hello world", "b1\r", "second line", "b2", "fourth"]


def test_textfile_shards_and_num_samples(texts):
    got = [column(ds.TextFileDataset(texts[:2], shuffle=False, num_shards=2, shard_id=s,
                                      num_parallel_workers=2), "text") for s in range(2)]
    assert got == [["hello world", "second line", "fourth"], ["b1\r", "hello world", "b2"]]
    data = ds.TextFileDataset(texts[:2], shuffle=False, num_samples=2, num_parallel_workers=2)
    assert column(data, "text") == ["hello world", "b1\r"]


def test_textfile_default_shuffle_and_errors(texts):
    ds.config.set_seed(1)
    assert sorted(column(ds.TextFileDataset(texts[0]), "text")) == \
        ["fourth", "hello world", "second line"]
    with pytest.raises(RuntimeError, match="no data found"):
        ds.TextFileDataset(texts[2])
    with pytest.raises(NotImplementedError, match="cache"):
        ds.TextFileDataset(texts[0], cache=object())
    with pytest.raises(ValueError, match="did not match"):
        ds.TextFileDataset("nope*.txt")
