"""mindspore.mindrecord.FileWriter and Dataset.save over minispore's own MindRecord layout (see
mindrecord_format.py: files are not interchangeable with MindSpore's); mind_dataset.py reads
them back."""
import logging
import os
import sqlite3

import numpy as np

from minispore.dataset.engine import mindrecord_format as fmt

logger = logging.getLogger("minispore")

_MAX_SHARDS = 1000


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
