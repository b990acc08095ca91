"""mindspore.mindrecord.FileWriter and mindspore.dataset.MindDataset over minispore's own
MindRecord layout (see mindrecord_format.py: files are not interchangeable with MindSpore's)."""
import logging
import os
import sqlite3

import numpy as np

from minispore.dataset.engine import mindrecord_format as fmt
from minispore.dataset.engine.datasets import check_columns
from minispore.dataset.engine.file_rows import Shuffle
from minispore.dataset.engine.samplers import Sampler, select_sampler
from minispore.dataset.engine.sources import RandomAccessSource

logger = logging.getLogger("minispore")

_MAX_SHARDS = 1000
_PARTIAL_BLOCK = 1_000_000      # Shuffle.PARTIAL permutes blocks of this many rows


def shard_paths(file_name, shard_num):
    """MindSpore's names: file_name itself, or file_name + '0'.. padded to one width."""
    if shard_num == 1:
        return [file_name]
    width = len(str(shard_num - 1))
    return [f"{file_name}{str(i).rjust(width, '0')}" for i in range(shard_num)]


def _write_index_db(path, schema, index_fields, columns):
    """The '.db' companion MindSpore writes beside each file: here a SQLite table of the index
    fields' values per row (scripts that remove or check `file + '.db'` keep working; minispore's
    reader does not need it)."""
    fields = index_fields or [f for f, s in schema.items() if "shape" not in s and
                              s["type"] != "bytes"]
    kinds = {"int32": "INTEGER", "int64": "INTEGER", "float32": "REAL", "float64": "REAL",
             "string": "TEXT"}
    con = sqlite3.connect(path + ".db")
    try:
        cols = "".join(f', "{f}" {kinds[schema[f]["type"]]}' for f in fields)
        con.execute(f"CREATE TABLE INDEXES (ROW_ID INTEGER PRIMARY KEY{cols})")
        rows = len(next(iter(columns.values()))) if columns else 0
        values = [[i] + [_sql(columns[f][i]) for f in fields] for i in range(rows)]
        marks = ", ".join("?" * (len(fields) + 1))
        con.executemany(f"INSERT INTO INDEXES VALUES ({marks})", values)
        con.commit()
    finally:
        con.close()


def _sql(v):
    return v.decode("utf-8") if isinstance(v, bytes) else v.item()


class FileWriter:
    """Writes rows (dicts) checked against a schema into `shard_num` MindRecord files.

    file_name: the file, or with shard_num > 1 the stem of file_name0 .. file_name{k-1}.
    overwrite: replace existing files (and their '.db' companions); without it an existing file
    is a RuntimeError at the first write_raw_data / commit, as in MindSpore.
    Rows are kept in memory until commit() writes the files; each write_raw_data call spreads
    its rows over the shards in consecutive runs of n // k (the remainder goes to the shards
    holding fewest rows; MindSpore picks them at random).

    >>> w = FileWriter("/tmp/x.mindrecord", overwrite=True)     # doctest: +SKIP
    >>> w.add_schema({"label": {"type": "int32"}}, "labels")    # doctest: +SKIP
    >>> w.write_raw_data([{"label": 1}]); w.commit()            # doctest: +SKIP
    """

    def __init__(self, file_name, shard_num=1, overwrite=False):
        if not isinstance(file_name, str):
            raise fmt.ParamValueError(f"File path: {file_name} is not string.")
        if not file_name:
            raise fmt.ParamValueError("File path is empty.")
        if shard_num is None:
            raise fmt.ParamValueError("Parameter shard_num is None.")
        if not isinstance(shard_num, int) or isinstance(shard_num, bool):
            raise fmt.ParamValueError("Parameter shard_num's type is not int.")
        if not 1 <= shard_num <= _MAX_SHARDS:
            raise fmt.ParamValueError(f"Parameter shard_num's value: {shard_num} should between "
                                      f"1 and {_MAX_SHARDS}.")
        if not isinstance(overwrite, bool):
            raise fmt.ParamValueError("Parameter overwrite's type is not bool.")
        self._file_name, self._shard_num, self._overwrite = file_name, shard_num, overwrite
        self._paths = shard_paths(file_name, shard_num)
        self._schema, self._desc, self._index_fields = None, None, []
        self._rows = None          # per shard: {field: [encoded values]}
        self._opened = self._flushed = self._append = False

    @classmethod
    def open_for_append(cls, file_name):
        """A writer that adds rows to the existing shard set `file_name` belongs to."""
        if not isinstance(file_name, str):
            raise fmt.ParamValueError(f"File path: {file_name} is not string.")
        if not os.path.isfile(file_name):
            raise fmt.MRMOpenForAppendError()
        first = fmt.ShardFile(file_name)
        names = first.header["shard_names"]
        folder = os.path.dirname(file_name)
        paths = [os.path.join(folder, n) for n in names]
        self = cls.__new__(cls)
        self._file_name, self._shard_num, self._overwrite = file_name, len(paths), True
        self._paths = paths
        self._schema, self._desc = first.schema, first.header["desc"]
        self._index_fields = first.header["index_fields"]
        self._rows = []
        for p in paths:
            shard = fmt.ShardFile(p)
            idx = np.arange(shard.rows)
            self._rows.append({f: _stored_values(shard, f, idx) for f in self._schema})
        self._opened, self._flushed, self._append = True, False, True
        return self

    def add_schema(self, content, desc=None):
        """Declare the fields: {name: {"type": t}} (int32/int64/float32/float64/string/bytes) or
        {name: {"type": numeric t, "shape": [dims, -1 for any]}} for numpy arrays."""
        fmt.check_schema(content)
        if self._schema is not None:
            logger.error("The schema is added repeatedly. Please remove the redundant "
                         "'add_schema' function.")
            raise fmt.MRMAddSchemaError()
        if desc is not None and not isinstance(desc, str):
            raise TypeError(f"For 'add_schema', desc must be a str or None, got {desc!r}.")
        self._schema = {k: dict(v) for k, v in content.items()}
        self._desc = desc or ""

    def add_index(self, index_fields):
        """Index these scalar fields (recorded in each file and its '.db'); by default every
        int/float/string field is one."""
        if not index_fields or not isinstance(index_fields, list):
            raise fmt.ParamTypeError("index_fields", "list")
        schema = self._schema or {}
        for field in index_fields:
            if field in schema and ("shape" in schema[field] or
                                    schema[field]["type"] == "bytes"):
                raise fmt.MRMDefineIndexError(f"Failed to set field {field} since it's not "
                                              f"primitive type.")
            if not isinstance(field, str):
                raise fmt.ParamTypeError("index field", "str")
        for field in index_fields:
            if field not in schema:
                raise RuntimeError(f"Invalid input, 'index_fields': {field} can not found in "
                                   f"schema: {schema}. Please use 'add_index' function to add "
                                   f"proper 'index_fields'.")
        self._index_fields = list(index_fields)

    def _open(self):
        if self._opened:
            return
        if self._schema is None:
            raise RuntimeError("Invalid data, schema is not found in header, please use "
                               "'add_schema' to add a schema for new mindrecord files.")
        for path in self._paths:
            real = os.path.realpath(path)
            if os.path.exists(path) or os.path.exists(path + ".db"):
                if not self._overwrite:
                    raise RuntimeError(f"Invalid file, mindrecord files already exist. Please "
                                       f"check file path: {real}.\nIf you do not want to keep "
                                       f"the files, set the 'overwrite' parameter to True and "
                                       f"try again.")
                for old in (path, path + ".db"):
                    if os.path.exists(old):
                        os.remove(old)
            folder = os.path.dirname(real)
            if not os.path.isdir(folder):
                raise RuntimeError(f"Invalid file, the directory of '{real}' does not exist.")
        self._rows = [{f: [] for f in self._schema} for _ in self._paths]
        self._opened = True

    def write_raw_data(self, raw_data, parallel_writer=False):
        """Check `raw_data` (a list of dicts) against the schema and queue the fitting rows.

        A row that does not fit is left out with a warning naming it (MindSpore's rule);
        RuntimeError when no row fits.
        """
        if not isinstance(parallel_writer, bool):
            raise TypeError("The parameter `parallel_writer` must be bool.")
        self._open()
        if not isinstance(raw_data, list):
            raise fmt.ParamTypeError("raw_data", "list")
        if self._flushed and not self._append:
            raise RuntimeError("Not allowed to call `write_raw_data` on flushed MindRecord "
                               "files.When creating new MindRecord files, please remove "
                               "`commit` before `write_raw_data`. In other cases, when appending "
                               "to existing MindRecord files, please call `open_for_append` "
                               "first and then `write_raw_data`.")
        for row in raw_data:
            if not isinstance(row, dict):
                raise fmt.ParamTypeError("raw_data item", "dict")
        good = []
        for i, row in enumerate(raw_data):
            why = fmt.row_error(i, row, self._schema)
            if why is None:
                good.append({f: fmt.encode_value(f, s, row[f]) for f, s in self._schema.items()})
            else:
                logger.warning(why)
        if not good:
            raise RuntimeError("There is no valid data which can be written by 'write_raw_data' "
                               "to mindrecord file. Please check the abnormal input data "
                               "indicated in the warning log above.")
        start = 0
        for shard, count in enumerate(self._split(len(good))):
            for row in good[start:start + count]:
                for f, v in row.items():
                    self._rows[shard][f].append(v)
            start += count

    def _split(self, n):
        k = len(self._paths)
        counts = [n // k] * k
        held = [len(next(iter(r.values()))) for r in self._rows]
        for shard in sorted(range(k), key=lambda s: (held[s], s))[:n % k]:
            counts[shard] += 1
        return counts

    def commit(self):
        """Write the files (and their '.db' companions); a writer commits once."""
        self._open()
        names = [os.path.basename(p) for p in self._paths]
        for shard, (path, columns) in enumerate(zip(self._paths, self._rows)):
            header = {"format": "minispore-mindrecord", "version": 1, "schema": self._schema,
                      "desc": self._desc, "index_fields": self._index_fields,
                      "shard_id": shard, "shard_names": names}
            fmt.write_file(path, header, self._schema, columns)
            if os.path.exists(path + ".db"):
                os.remove(path + ".db")
            _write_index_db(path, self._schema, self._index_fields, columns)
        self._flushed = True
        if self._append:
            self._append = False


def _stored_values(shard, field, idx):
    """Column `field` of an open file as the encoded values write_file takes."""
    spec = shard.schema[field]
    if spec["type"] in ("string", "bytes"):
        return shard.raw(field, idx)
    got = shard.take(field, idx)
    if "shape" in spec:
        return list(got)
    return [np.dtype(spec["type"]).type(v) for v in got]


class _FileOrderSampler(Sampler):
    """Shuffle.FILES (the files in a fresh random order, each file's rows in order) or
    Shuffle.INFILE (the files in order, each file's rows in a fresh random order)."""

    def __init__(self, counts, mode):
        super().__init__(None)
        self._counts, self._mode = list(counts), mode

    def is_random(self):
        return True

    def indices(self, n, rng, path):
        starts = np.concatenate([[0], np.cumsum(self._counts)[:-1]]).astype(np.int64)
        files = np.arange(len(self._counts))
        if self._mode is Shuffle.FILES:
            files = rng.permutation(files)
        parts = [starts[f] + np.arange(self._counts[f], dtype=np.int64) for f in files]
        if self._mode is Shuffle.INFILE:
            parts = [rng.permutation(p) for p in parts]
        return np.concatenate(parts or [np.zeros(0, np.int64)])


class _PartialSampler(Sampler):
    """Shuffle.PARTIAL: each block of 1,000,000 rows permuted in place of itself."""

    def __init__(self, num_samples):
        super().__init__(num_samples)

    def is_random(self):
        return True

    def indices(self, n, rng, path):
        idx = np.arange(n, dtype=np.int64)
        for start in range(0, n, _PARTIAL_BLOCK):
            idx[start:start + _PARTIAL_BLOCK] = rng.permutation(idx[start:start + _PARTIAL_BLOCK])
        return self._cap(idx)


def _check_path(path):
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: {path} is not string")
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"The file {os.path.realpath(path)} does not exist or permission "
                         f"denied!")
    return path


def _shuffle_sampler(shuffle, counts, num_samples, num_shards, shard_id):
    """The sampler a Shuffle mode (no `sampler` given) reads with."""
    if shuffle is None or shuffle is True:
        shuffle = Shuffle.ADAPTIVE
    elif shuffle is False:
        shuffle = Shuffle.FALSE
    if not isinstance(shuffle, Shuffle):
        raise TypeError("shuffle must be of boolean or enum of 'Shuffle' values like "
                        "'Shuffle.ADAPTIVE' or 'Shuffle.GLOBAL' or 'Shuffle.PARTIAL' or "
                        "'Shuffle.FILES' or 'Shuffle.INFILE'.")
    if shuffle in (Shuffle.FILES, Shuffle.INFILE):
        if num_samples:
            raise ValueError("'Shuffle.FILES' or 'Shuffle.INFILE' and 'num_samples' cannot be "
                             "specified at the same time.")
        if num_shards is not None:
            raise NotImplementedError(f"MindDataset: shuffle={shuffle} with num_shards is not "
                                      f"implemented in minispore; use Shuffle.GLOBAL or False.")
        select_sampler(None, None, False, None, None)
        return _FileOrderSampler(counts, shuffle)
    # ADAPTIVE is GLOBAL up to 100 million rows, PARTIAL past them (MindSpore's rule)
    if shuffle is Shuffle.ADAPTIVE and sum(counts) > 100_000_000:
        shuffle = Shuffle.PARTIAL
    if shuffle is Shuffle.PARTIAL and num_shards is None:
        select_sampler(num_samples, None, False, None, None)
        return _PartialSampler(num_samples)
    if shuffle is Shuffle.PARTIAL:
        raise NotImplementedError("MindDataset: Shuffle.PARTIAL with num_shards is not "
                                  "implemented in minispore; use Shuffle.GLOBAL or False.")
    return select_sampler(num_samples, None, shuffle is not Shuffle.FALSE, num_shards, shard_id)


class MindDataset(RandomAccessSource):
    """Rows of MindRecord files written by minispore's FileWriter (not MindSpore's: see
    mindrecord_format.py).

    dataset_files: one file of a shard set (str: every file of its set is read, in shard
    order) or a list of files (exactly those, in the list's order). columns_list: the columns
    to read, in that order (default: every field, sorted by name, as MindSpore orders them).
    shuffle: None/True (Shuffle.ADAPTIVE: global up to 100 million rows), False, or a Shuffle;
    num_shards/shard_id and sampler as for the other mappable sources (DistributedSampler's
    rule). Values come back as written: numeric scalars as 0-d arrays of the schema's type,
    arrays in the schema's shape (-1 dims as written), strings as numpy str, bytes as a (1,)
    array of dtype S<len>.

    >>> ds = MindDataset("/tmp/x.mindrecord", shuffle=False)     # doctest: +SKIP
    """

    def __init__(self, dataset_files, columns_list=None, num_parallel_workers=None, shuffle=None,
                 num_shards=None, shard_id=None, sampler=None, padded_sample=None,
                 num_padded=None, num_samples=None, cache=None):
        for arg, value in (("padded_sample", padded_sample), ("num_padded", num_padded),
                           ("cache", cache)):
            if value is not None:
                raise NotImplementedError(f"MindDataset: '{arg}' is not implemented in "
                                          f"minispore; leave it None.")
        if isinstance(dataset_files, list):
            paths = [_check_path(p) for p in dataset_files]
            if not paths:
                raise ValueError("MindDataset: dataset_files is an empty list.")
        else:
            first = _check_path(dataset_files)
            names = fmt.read_header(first)["shard_names"]
            paths = [os.path.join(os.path.dirname(first), n) for n in names]
            for p in paths:
                if not os.path.isfile(p):
                    raise RuntimeError(f"Invalid file, '{p}' of the MindRecord shard set of "
                                       f"'{first}' ({len(paths)} files) does not exist.")
        if columns_list is not None and not isinstance(columns_list, list):
            raise TypeError(f"Argument columns_list with value {columns_list} is not of type "
                            f"[<class 'list'>], but got {type(columns_list)}.")
        self._files = [fmt.ShardFile(p) for p in paths]
        schema = self._files[0].schema
        for f in self._files[1:]:
            if f.schema != schema:
                raise RuntimeError(f"Invalid file, '{f.path}' has the schema {f.schema} but "
                                   f"'{self._files[0].path}' has {schema}: MindDataset reads "
                                   f"files of one schema.")
        if columns_list is None:
            names = sorted(schema)
        else:
            names = check_columns("MindDataset", columns_list) if len(set(columns_list)) == \
                len(columns_list) else None
            if names is None:
                dup = next(c for c in columns_list if columns_list.count(c) > 1)
                raise RuntimeError(f"MindDataset: 'columns_list' : Invalid parameter, duplicate "
                                   f"column names are not allowed: {dup}")
            for name in names:
                if name not in schema:
                    raise RuntimeError(f"Invalid data, column name: {name} can not found in "
                                       f"schema. Please check the 'column_list'; the files hold "
                                       f"{sorted(schema)}.")
        counts = [f.rows for f in self._files]
        self._starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        if sampler is None:
            sampler = _shuffle_sampler(shuffle, counts, num_samples, num_shards, shard_id)
        else:
            sampler = select_sampler(num_samples, sampler, shuffle, num_shards, shard_id)
        super().__init__(names, sampler, num_parallel_workers)
        self.dataset_files, self.columns_list = dataset_files, columns_list

    def _num_rows(self):
        return int(self._starts[-1])

    def _fetch(self, idx):
        idx = np.asarray(idx, np.int64)
        which = np.searchsorted(self._starts, idx, side="right") - 1
        used = np.unique(which)
        out = []
        for name in self._names:
            parts = {int(f): self._files[f].take(name, idx[which == f] - self._starts[f])
                     for f in used}
            if len(used) == 1:
                out.append(parts[int(used[0])])
                continue
            first = next(iter(parts.values()))
            if isinstance(first, np.ndarray):
                col = np.empty((len(idx),) + first.shape[1:],
                               np.result_type(*[p.dtype for p in parts.values()]))
                for f, p in parts.items():
                    col[which == f] = p
            else:
                col = [None] * len(idx)
                for f, p in parts.items():
                    for pos, value in zip(np.nonzero(which == f)[0], p):
                        col[pos] = value
            out.append(col)
        return out


# numpy kind/size -> the MindRecord type Dataset.save stores it as (MindSpore 2.7.2's
# widening: bool, int8/16, uint8/16 -> int32; uint32/64 -> int64; float16 -> float32)
def _save_type(arr, column):
    dt = arr.dtype
    if dt.kind == "U":
        return "string"
    if dt.kind == "S":
        return "bytes"
    if dt.kind == "b" or (dt.kind in "iu" and dt.itemsize < 4) or (dt.kind == "i" and
                                                                   dt.itemsize == 4):
        return "int32"
    if dt.kind in "iu":
        return "int64"
    if dt.kind == "f":
        return "float64" if dt.itemsize == 8 else "float32"
    raise TypeError(f"For 'Dataset.save', column '{column}' holds {dt} values, which a "
                    f"MindRecord file cannot store.")


def save_dataset(dataset, file_name, num_files=1, file_type="mindrecord"):
    """Write every row of one epoch of `dataset` to MindRecord (Dataset.save).

    The schema comes from the first row: 0-d numbers and strings as scalar fields, arrays as
    fields of shape [-1, *the first row's trailing dims] (so a batched pipeline's short last
    batch fits), types widened as MindSpore widens them (see _save_type).
    """
    if file_type != "mindrecord":
        raise ValueError(f"{file_type} dataset format is not supported.")
    names = dataset.get_col_names()
    writer = FileWriter(file_name, num_files)
    schema, rows = None, []
    for row in dataset.create_tuple_iterator(output_numpy=True, num_epochs=1):
        arrays = [np.asarray(v) for v in row]
        if schema is None:
            schema = {}
            for name, arr in zip(names, arrays):
                kind = _save_type(arr, name)
                if arr.ndim == 0 or kind in ("string", "bytes"):
                    if arr.ndim != 0 and arr.size != 1:
                        raise NotImplementedError(f"For 'Dataset.save', column '{name}' holds "
                                                  f"arrays of strings, which minispore's "
                                                  f"MindRecord cannot store.")
                    schema[name] = {"type": kind}
                else:
                    schema[name] = {"type": kind, "shape": [-1] + list(arr.shape[1:])}
            writer.add_schema(schema, "saved by Dataset.save")
        record = {}
        for name, arr in zip(names, arrays):
            spec = schema[name]
            if spec["type"] == "string":
                record[name] = str(arr.reshape(()).item())
            elif spec["type"] == "bytes":
                record[name] = bytes(arr.reshape(()).item())
            elif "shape" in spec:
                record[name] = np.ascontiguousarray(arr, dtype=spec["type"])
                if arr.ndim != len(spec["shape"]) or arr.shape[1:] != tuple(spec["shape"][1:]):
                    raise RuntimeError(f"For 'Dataset.save', column '{name}' changes shape: "
                                       f"the first row has {spec['shape'][1:]} after its first "
                                       f"dim, a later one {list(arr.shape)}.")
            else:
                record[name] = np.dtype(spec["type"]).type(arr.item())
        rows.append(record)
        if len(rows) == 1024:
            writer.write_raw_data(rows)
            rows = []
    if schema is None:
        raise RuntimeError("For 'Dataset.save', the dataset has no rows, so there is no schema "
                           "to write.")
    if rows:
        writer.write_raw_data(rows)
    writer.commit()
