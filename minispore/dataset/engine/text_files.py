"""CSVDataset and TextFileDataset: rows parsed from local text files (see file_rows.py for the
order they are read in)."""
import csv
import re

import numpy as np

from minispore.dataset.engine.file_rows import (FileRowsSource, Shuffle, check_file_list,
                                                check_reader_args, find_files)

_INT32 = (-2 ** 31, 2 ** 31 - 1)
_FLOAT32_MAX = float(np.finfo(np.float32).max)
# std::stoi / std::stof read the longest number at the start of the field (after blanks) and
# ignore the rest, so "2.5" is the int 2 and "1e3x" the float 1000, as MindSpore's CsvOp reads.
_INT_PREFIX = re.compile(r"\s*[+-]?\d+")
_FLOAT_PREFIX = re.compile(r"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)",
                           re.IGNORECASE)


def _no_cache(who, cache):
    if cache is not None:
        raise NotImplementedError(f"For '{who}', 'cache' (a DatasetCache server) is not "
                                  f"implemented in minispore; leave it None.")


def _typed(field, kind, path, line):
    """A CSV field as the type of its column default (int -> int32, float -> float32)."""
    if kind is str:
        return field
    match = (_INT_PREFIX if kind is int else _FLOAT_PREFIX).match(field)
    if match is None:
        raise RuntimeError(f"Invalid csv, csv file: {path} parse failed at line {line}, type "
                           f"does not match: {field!r} is not a number, and the column's "
                           f"default is a {kind.__name__}.")
    value = kind(match.group())
    if (kind is int and not _INT32[0] <= value <= _INT32[1]) or \
            (kind is float and np.isfinite(value) and abs(value) > _FLOAT32_MAX):
        raise RuntimeError(f"Invalid csv, {path} parse failed at line {line} : value out of "
                           f"range: {field!r} does not fit "
                           f"{'int32' if kind is int else 'float32'}.")
    return value


def _column(values, kind):
    dtype = {int: np.int32, float: np.float32, str: np.str_}[kind]
    return np.array(values, dtype=dtype) if values else np.zeros(0, dtype)


def _read_records(path, delim):
    """The non-blank records of a CSV file: quotes, doubled quotes, CRLF and newlines inside
    quotes as MindSpore's reader takes them."""
    with open(path, newline="", encoding="utf-8") as f:
        return [rec for rec in csv.reader(f, delimiter=delim, quotechar='"', doublequote=True)
                if rec]


class CSVDataset(FileRowsSource):
    """Rows of CSV files, one column per field.

    dataset_files: a path, a glob pattern or a list of them (read in sorted order).
    column_names: the column names; when None, the first record of the first file names them
    and the first record of every file is skipped as its header.
    column_defaults: a list whose items' types (int, float, str) type the columns: int -> int32,
    float -> float32, str (and columns past the list's end) -> numpy str. An empty field of an
    int or float column is an error (MindSpore 2.7.2 raises too; the default's value is never
    used). shuffle: Shuffle.GLOBAL (files and rows, the default; True), Shuffle.FILES, False.
    num_shards/shard_id and num_parallel_workers decide the order (see FileRowsSource).

    >>> ds = CSVDataset("data.csv", column_defaults=[0, 0.0, ""], shuffle=False)  # doctest: +SKIP
    """

    def __init__(self, dataset_files, field_delim=",", column_defaults=None, column_names=None,
                 num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None):
        check_file_list("CSVDataset", dataset_files)
        field_delim = "," if field_delim is None else field_delim
        if not isinstance(field_delim, str):
            raise TypeError(f"Argument field delim with value {field_delim!r} is not of type "
                            f"[<class 'str'>], but got {type(field_delim)}.")
        if field_delim in ('"', "\r", "\n") or len(field_delim) != 1:
            raise ValueError(f"field_delim is invalid: {field_delim!r}; it must be one "
                             f"character other than '\"', '\\r' and '\\n'.")
        if column_defaults is not None:
            if not isinstance(column_defaults, list):
                raise TypeError(f"column_defaults should be type of list, got "
                                f"{type(column_defaults).__name__}.")
            for item in column_defaults:
                if not isinstance(item, (str, int, float)):
                    raise TypeError(f"column type in column_defaults is invalid: {item!r} (each "
                                    f"item must be an int, float or str).")
        if column_names is not None and not (isinstance(column_names, list) and
                                             all(isinstance(n, str) for n in column_names)):
            raise TypeError(f"column_names should be a list of str, got {column_names!r}.")
        _no_cache("CSVDataset", cache)
        check_reader_args(num_samples, shuffle, num_shards, shard_id)
        self.dataset_files = find_files(dataset_files)
        self.field_delim = field_delim
        records = [_read_records(p, field_delim) for p in self.dataset_files]
        header = column_names is None
        if header:
            if not records[0]:
                raise RuntimeError(f"Invalid data, CSVDataset API can't read the data file "
                                   f"(interface mismatch or no data found): "
                                   f"'{self.dataset_files[0]}' has no header record to name "
                                   f"the columns; pass column_names.")
            column_names = records[0][0]
        if len(set(column_names)) != len(column_names):
            dup = next(n for n in column_names if column_names.count(n) > 1)
            raise RuntimeError(f"CSVDataset: 'column_names' : Invalid parameter, duplicate column "
                               f"names are not allowed: {dup}")
        defaults = list(column_defaults or [])
        if len(defaults) > len(column_names):
            raise RuntimeError(f"Invalid parameter, the size of column_names should be equal to "
                               f"the size of 'column_defaults', but got size of "
                               f"'column_defaults': {len(defaults)}, size of column_names: "
                               f"{len(column_names)}")
        # bool is an int here as in MindSpore's validator; the value itself is never used
        kinds = [int if isinstance(d, int) else type(d) for d in defaults]
        kinds += [str] * (len(column_names) - len(kinds))
        self.column_defaults, self.column_names = column_defaults, list(column_names)
        files = [self._parse(path, recs[1:] if header else recs, kinds, 2 if header else 1)
                 for path, recs in zip(self.dataset_files, records)]
        if not any(len(cols[0]) for cols in files):
            raise RuntimeError(f"Invalid data, CSVDataset API can't read the data file (interface "
                               f"mismatch or no data found). Check csv file path: "
                               f"{', '.join(self.dataset_files)}.")
        super().__init__("CSVDataset", column_names, files, num_samples, num_parallel_workers,
                         shuffle, num_shards, shard_id)

    def _parse(self, path, records, kinds, first_line):
        values = [[] for _ in kinds]
        for line, rec in enumerate(records, first_line):
            if len(rec) != len(kinds):
                raise RuntimeError(f"Invalid file, failed to parse csv file: {path} at line "
                                   f"{line}: the record has {len(rec)} fields but there are "
                                   f"{len(kinds)} columns {self.column_names}.")
            for col, field, kind in zip(values, rec, kinds):
                col.append(_typed(field, kind, path, line))
        return [_column(v, k) for v, k in zip(values, kinds)]


class TextFileDataset(FileRowsSource):
    """One row per non-empty line of text files: column `text` (numpy str).

    Lines split at '\\n' only, so a CRLF file's lines keep their '\\r' (as MindSpore's reader
    does); empty lines are skipped. dataset_files, shuffle, num_shards/shard_id, num_samples
    and num_parallel_workers work as in CSVDataset.

    >>> ds = TextFileDataset("corpus/*.txt", shuffle=False)    # doctest: +SKIP
    """

    def __init__(self, dataset_files, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        check_file_list("TextFileDataset", dataset_files)
        _no_cache("TextFileDataset", cache)
        check_reader_args(num_samples, shuffle, num_shards, shard_id)
        self.dataset_files = find_files(dataset_files)
        files = []
        for path in self.dataset_files:
            with open(path, "rb") as f:
                lines = [ln.decode("utf-8") for ln in f.read().split(b"\n") if ln]
            files.append([_column(lines, str)])
        if not any(len(cols[0]) for cols in files):
            raise RuntimeError(f"Invalid data, TextFileDataset API can't read the data file "
                               f"(interface mismatch or no data found). Check text file: "
                               f"{', '.join(self.dataset_files)}.")
        super().__init__("TextFileDataset", ["text"], files, num_samples, num_parallel_workers,
                         shuffle, num_shards, shard_id)
