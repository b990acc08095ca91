"""MindRecord files as minispore writes and reads them: MindSpore's exception classes, the
schema rules of FileWriter.add_schema / write_raw_data, and the on-disk layout.

The layout is minispore's own: MindSpore's MindRecord is a page-structured format of its C++
shard writer, so files written here are NOT readable by MindSpore, nor MindSpore's by minispore
(the magic bytes say which is which). A file is

    16 bytes  magic b"MINISPORE-MR\\0v1\\0"
     8 bytes  little-endian uint64 H, the length of the header
     H bytes  UTF-8 JSON header: schema, desc, index fields, row count, this file's place in its
              shard set (shard_id, the base names of all the set's files) and, per column, where
              its sections start (byte offsets from the file start, each 64-byte aligned)
    sections  fixed columns (numeric scalars, arrays of a fully known shape): one (rows, *shape)
              little-endian array; ragged columns (string, bytes, arrays with -1 dims): the
              concatenated values, int64 offsets (rows + 1) and, for arrays, int64 shapes
              (rows, ndim)

Readers memory-map the file, so a dataset larger than memory reads row by row.
"""
import json
import os
import re

import numpy as np

MAGIC = b"MINISPORE-MR\x00v1\x00"
_ALIGN = 64
NUMERIC = ("int32", "int64", "float32", "float64")
SCALAR_TYPES = NUMERIC + ("string", "bytes")
# type(value).__name__ -> the schema types it may fill (MindSpore's VALUE_TYPE_MAP)
_VALUE_TYPES = {"int": ("int32", "int64"), "float": ("float32", "float64"), "str": ("string",),
                "bytes": ("bytes",), "int32": ("int32",), "int64": ("int64",),
                "float32": ("float32",), "float64": ("float64",), "ndarray": NUMERIC}
_INT_RANGE = {"int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1)}


class MindRecordException(Exception):
    """Base of mindspore.mindrecord's errors; str() is '[ClassName]: message' as in MindSpore."""
    BASE = "Unknown Error."

    def __init__(self, detail=None):
        super().__init__()
        self.error_msg = self.BASE if detail is None else self._format(detail)

    def _format(self, detail):
        return f"{self.BASE} Detail: {detail}"

    def __str__(self):
        return f"[{type(self).__name__}]: {self.error_msg}"


class ParamValueError(MindRecordException):
    BASE = "Invalid parameter value."

    def _format(self, detail):
        return f"Invalid parameter value. {detail}"


class ParamTypeError(MindRecordException):
    def __init__(self, param_name, expected_type):
        super().__init__()
        self.error_msg = f"Invalid parameter type. '{param_name}' expect {expected_type} type."


class MRMInvalidSchemaError(MindRecordException):
    BASE = "Schema format is error."


class MRMDefineIndexError(MindRecordException):
    BASE = "Failed to define index field."


class MRMAddSchemaError(MindRecordException):
    BASE = "Failed to add schema."


class MRMOpenError(MindRecordException):
    BASE = "MindRecord File could not open successfully."


class MRMOpenForAppendError(MindRecordException):
    BASE = "MindRecord File could not open for append."


def check_schema(content):
    """MRMInvalidSchemaError unless `content` is a schema FileWriter.add_schema accepts."""
    def bad(msg):
        raise MRMInvalidSchemaError(msg)
    if not content:
        bad("Schema content is empty.")
    if not isinstance(content, dict):
        bad("Schema content should be dict.")
    for name, spec in content.items():
        if not isinstance(name, str) or not re.match(r"^[0-9a-zA-Z_]+$", name):
            bad(f"Field '{name}' should be composed of '0-9' or 'a-z' or 'A-Z' or '_'.")
        if not spec or not isinstance(spec, dict):
            bad(f"Field '{name}' should be dict.")
        if set(spec) == {"type"}:
            if spec["type"] not in SCALAR_TYPES:
                bad(f"Field '{name}' contain illegal attribute '{spec['type']}'.")
        elif set(spec) == {"type", "shape"}:
            if spec["type"] not in NUMERIC:
                bad(f"Field '{name}' contain illegal attribute '{spec['type']}'.")
            shape = spec["shape"]
            if not isinstance(shape, list):
                bad(f"Field '{name}' contain illegal attribute '{shape}'.")
            # MindSpore's C++ header refuses these later; minispore says so at add_schema
            if not shape or not all(isinstance(d, int) and not isinstance(d, bool) and
                                    (d > 0 or d == -1) for d in shape):
                bad(f"Field '{name}' has shape {shape}: a shape is a non-empty list of positive "
                    f"ints or -1.")
        else:
            bad(f"Field '{spec}' contains illegal attributes.")


def row_error(i, row, schema):
    """Why row `i` does not fit `schema` (MindSpore's warning text), or None when it fits."""
    for field, spec in schema.items():
        if field not in row:
            return (f"for schema, {i} th data is wrong, there is not field: '{field}' in the "
                    f"raw data.")
        value, want = row[field], spec["type"]
        kind = type(value).__name__
        if kind not in _VALUE_TYPES:
            return (f"for schema, {i} th data is wrong, data type: '{kind}' for field: '{field}' "
                    f"is not matched.")
        if want not in _VALUE_TYPES[kind] or (("shape" in spec) != (kind == "ndarray")):
            # MindSpore also takes a Python number for an array field and stores garbage;
            # minispore refuses it as it refuses an array for a scalar field
            return (f"for schema, {i} th data is wrong, data type: '{want}' for field: '{field}' "
                    f"is not matched.")
        if kind == "ndarray":
            if str(value.dtype) != want:
                return (f"for schema, {i} th data is wrong, data type: '{value.dtype}' for field: "
                        f"'{field}' is not matched.")
            try:
                np.reshape(value, spec["shape"])
            except ValueError:
                return (f"for schema, {i} th data is wrong, data shape: '{value.shape}' for "
                        f"field: '{field}' is not matched.")
    return None


def encode_value(field, spec, value):
    """A checked row value as what its column stores (numpy scalar, bytes or reshaped array)."""
    want = spec["type"]
    if "shape" in spec:
        return np.reshape(value, spec["shape"])
    if want == "string":
        return value.encode("utf-8")
    if want == "bytes":
        return bytes(value)
    if want in _INT_RANGE and isinstance(value, int):
        lo, hi = _INT_RANGE[want]
        if not lo <= value <= hi:
            # MindSpore writes it and fails when the file is read; minispore refuses at once
            raise RuntimeError(f"For 'write_raw_data', field '{field}' is {want} but the value "
                               f"{value} is outside [{lo}, {hi}].")
    return np.dtype(want).type(value)


def _fixed_shape(spec):
    shape = spec.get("shape", [])
    return None if -1 in shape else tuple(shape)


def write_file(path, header, schema, columns):
    """Write one shard file. `columns`: {field: list of encoded values} (see encode_value)."""
    rows = len(next(iter(columns.values()))) if columns else 0
    body = []                  # (field, key, array) in file order

    for field, spec in schema.items():
        values, want = columns[field], spec["type"]
        fixed = _fixed_shape(spec)
        if want in NUMERIC and fixed is not None:
            arr = np.asarray(values, dtype=np.dtype(want).newbyteorder("<")).reshape(
                (rows,) + fixed)
            body.append((field, "data", arr))
            continue
        if want in NUMERIC:
            flat = [np.asarray(v).ravel() for v in values]
            le = np.dtype(want).newbyteorder("<")
            body.append((field, "data", np.concatenate(flat).astype(le) if flat
                         else np.zeros(0, le)))
            body.append((field, "shapes", np.array([v.shape for v in values], "<i8").reshape(
                rows, len(spec["shape"]))))
            sizes = [len(v) for v in flat]
        else:
            body.append((field, "data", np.frombuffer(b"".join(values), np.uint8)))
            sizes = [len(v) for v in values]
        body.append((field, "offsets", np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)])
                     .astype("<i8")))
    # the header records where the sections start, and its length moves them: lay out from a
    # guess and again from the header's real end until the sections start after it
    start = 0
    while True:
        meta = _layout(body, start)
        head = json.dumps(dict(header, rows=rows, columns=meta)).encode("utf-8")
        end = len(MAGIC) + 8 + len(head)
        if end <= start:
            break
        start = end
    # a new file replaces the old one whole: a reader's memory map of the old one stays valid
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        f.write(MAGIC)
        f.write(len(head).to_bytes(8, "little"))
        f.write(head)
        for field, key, arr in body:
            f.write(b"\0" * (meta[field][key][0] - f.tell()))
            f.write(np.ascontiguousarray(arr).tobytes())
    os.replace(tmp, path)


def _layout(body, start):
    """Section offsets for `body` when the first may start at byte `start`."""
    meta, pos = {}, start
    for field, key, arr in body:
        pos += -pos % _ALIGN
        meta.setdefault(field, {})[key] = [pos, int(arr.nbytes)]
        pos += arr.nbytes
    return meta


def read_header(path):
    """The JSON header of a minispore MindRecord file; RuntimeError for any other file."""
    try:
        with open(path, "rb") as f:
            magic = f.read(len(MAGIC))
            size = f.read(8)
            if magic != MAGIC or len(size) != 8:
                raise RuntimeError(
                    f"Invalid file, '{path}' is not a MindRecord file written by minispore "
                    f"(minispore's MindRecord layout is its own: files written by MindSpore's "
                    f"FileWriter cannot be read, write them again with "
                    f"mindspore.mindrecord.FileWriter under minispore).")
            head = f.read(int(np.frombuffer(size, "<u8")[0]))
    except OSError as e:
        raise RuntimeError(f"Invalid file, failed to open '{path}': {e}") from e
    return json.loads(head.decode("utf-8"))


class ShardFile:
    """One file opened for reading: its header and a read-only memory map of its sections."""

    def __init__(self, path):
        self.path = path
        self.header = read_header(path)
        self.rows = self.header["rows"]
        self.schema = self.header["schema"]
        self._map = np.memmap(path, np.uint8, mode="r") if os.path.getsize(path) else None

    def _view(self, field, key, dtype):
        start, nbytes = self.header["columns"][field][key]
        dtype = np.dtype(dtype)
        return np.frombuffer(self._map, dtype, nbytes // dtype.itemsize, start)

    def take(self, field, idx):
        """Rows `idx` of column `field`: an array (rows, *shape) for a fixed column, else a
        list of per-row arrays (bytes: shape (1,) of dtype S<len>, as MindSpore returns them)."""
        spec = self.schema[field]
        want = spec["type"]
        fixed = _fixed_shape(spec)
        le = np.dtype(want).newbyteorder("<") if want in NUMERIC else None
        if want in NUMERIC and fixed is not None:
            if not self.rows:
                return np.zeros((0,) + fixed, want)
            arr = self._view(field, "data", le).reshape((self.rows,) + fixed)
            return arr[idx].astype(want)
        offsets = self._view(field, "offsets", "<i8")
        if want in NUMERIC:
            data = self._view(field, "data", le)
            shapes = self._view(field, "shapes", "<i8").reshape(self.rows, len(spec["shape"]))
            return [data[offsets[i]:offsets[i + 1]].astype(want).reshape(tuple(shapes[i]))
                    for i in idx]
        raw = self.raw(field, idx)
        if want == "string":
            return np.array([r.decode("utf-8") for r in raw], dtype=np.str_) if raw \
                else np.zeros(0, np.str_)
        return [np.array([r], dtype=f"S{max(len(r), 1)}") for r in raw]

    def raw(self, field, idx):
        """Rows `idx` of a string or bytes column as the bytes stored."""
        offsets = self._view(field, "offsets", "<i8")
        data = self._view(field, "data", np.uint8)
        return [data[offsets[i]:offsets[i + 1]].tobytes() for i in idx]
