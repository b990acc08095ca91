"""The checkpoint file's JSON index, parsed and checked field by field before any buffer is read,
so that a crafted index fails with a CheckpointError naming the file, the entry and what is
wrong, never with a RecursionError, a KeyError or a numpy message.

The index is ``{"entries": [...], "data_len": N, "run": {...}}``, plus ``"pipeline": {...}`` in
a pipeline stage's file (the layout of the whole file is in minispore/train/serialization.py). A
tensor entry names a byte range of the data block; every range is checked against ``data_len``
and against its dtype and shape with exact integer arithmetic (a shape whose element count
overflows int64 cannot pass as a small one).
"""
import json
import math
import sys
from collections import namedtuple

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.auto_parallel_context import MAX_DEVICE_NUM

# The dtypes minispore saves, by the little-endian numpy string the index stores.
_DTYPES = {np.dtype(t.np_dtype).newbyteorder("<").str: t for t in
           (mstype.float16, mstype.float32, mstype.float64, mstype.int8, mstype.int16,
            mstype.int32, mstype.int64, mstype.uint8, mstype.uint16, mstype.uint32,
            mstype.uint64, mstype.bool_)}
_MAX_NDIM = 64                 # numpy's limit on the number of dimensions
_KINDS = ("tensor", "str")

TensorEntry = namedtuple("TensorEntry", "name dtype shape offset nbytes layout sha256")
StrEntry = namedtuple("StrEntry", "name value")
Index = namedtuple("Index", "entries data_len run pipeline")


class CheckpointError(ValueError):
    """A checkpoint file that cannot be read: wrong magic, truncated, corrupted or malformed."""


def file_error(path, why):
    return CheckpointError(f"Failed to read the checkpoint file {path!r}: {why}.")


def entry_error(path, name, why):
    return CheckpointError(f"Failed to read parameter {name!r} from the checkpoint file "
                           f"{path!r}: {why}.")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def parse_index(raw, path):
    """The JSON object in `raw` (the index bytes of `path`) with a valid ``data_len``: enough
    to check the file's length and digest before ``checked_index`` looks at the entries (so
    a corrupted file is reported as corrupted, not as a strange field)."""
    try:
        index = json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise file_error(path, "the index nests too deeply to be a checkpoint index") from None
    except ValueError as exc:           # invalid UTF-8 or JSON, over-long integer literals
        raise file_error(path, f"the index is corrupted ({exc})") from None
    if not isinstance(index, dict):
        raise file_error(path, f"the index is a JSON {type(index).__name__}, not an object")
    data_len = index.get("data_len")
    if not _is_int(data_len) or data_len < 0:
        raise file_error(path, f"the index's 'data_len' is {data_len!r}; it must be a "
                               f"non-negative int")
    return index


def checked_index(index, path):
    """The Index of the parsed `index` of `path`, every entry, the run and the pipeline record
    checked."""
    entries = index.get("entries")
    if not isinstance(entries, list):
        raise file_error(path, f"the index's 'entries' is {_kind_of(entries)}; it must be a "
                               f"list of entries")
    data_len = index["data_len"]
    return Index(_checked_entries(entries, data_len, path), data_len,
                 _checked_run(index.get("run"), path),
                 _checked_pipeline(index.get("pipeline"), path))


def _kind_of(value):
    return "missing" if value is None else f"of type {type(value).__name__}"


def _checked_entries(entries, data_len, path):
    checked, position = [], {}
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise file_error(path, f"entry {i} of the index is a {type(entry).__name__}, not "
                                   f"an object")
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise file_error(path, f"entry {i} of the index has no name (its 'name' is "
                                   f"{name!r}; it must be a non-empty str)")
        if name in position:
            raise file_error(path, f"the name {name!r} appears twice in the index (entries "
                                   f"{position[name]} and {i})")
        position[name] = i
        checked.append(_checked_entry(entry, name, data_len, path))
    return checked


def _checked_entry(entry, name, data_len, path):
    kind = entry.get("kind")
    if kind not in _KINDS:
        raise entry_error(path, name, f"its kind is {kind!r}; valid kinds are {list(_KINDS)}")
    if kind == "str":
        if not isinstance(entry.get("value"), str):
            raise entry_error(path, name, f"its value is {_kind_of(entry.get('value'))}, but a "
                                          f"'str' entry holds a str")
        return StrEntry(name, entry["value"])
    dtype = _checked_dtype(entry, name, path)
    shape = _checked_shape(entry, name, dtype, path)
    offset = _checked_bytes(entry, name, math.prod(shape) * dtype.itemsize, data_len, path)
    layout = entry.get("layout")
    if layout is not None and not isinstance(layout, dict):
        raise entry_error(path, name, f"its layout is a {type(layout).__name__}, not an "
                                      f"object or null")
    digest = entry.get("sha256")        # the buffer's own digest (older files have none)
    if digest is not None and not (isinstance(digest, str) and len(digest) == 64 and
                                   all(c in "0123456789abcdef" for c in digest)):
        raise entry_error(path, name, f"its sha256 is {digest!r:.80}, not 64 hex digits")
    return TensorEntry(name, dtype, shape, offset, entry["nbytes"], layout, digest)


def _checked_shape(entry, name, dtype, path):
    shape = entry.get("shape")
    if not isinstance(shape, list) or len(shape) > _MAX_NDIM or \
            not all(_is_int(d) and d >= 0 for d in shape):
        raise entry_error(path, name, f"its shape {shape!r:.100} is not a list of at most "
                                      f"{_MAX_NDIM} non-negative ints")
    # numpy refuses arrays of more than sys.maxsize bytes even when a zero dim empties them.
    if math.prod(max(d, 1) for d in shape) * dtype.itemsize > sys.maxsize:
        raise entry_error(path, name, f"its shape {shape} is too large for an array")
    return tuple(shape)


def _checked_bytes(entry, name, needed, data_len, path):
    """The entry's offset, once its [offset, offset + nbytes) is `needed` bytes (what its shape
    and dtype take) inside the data block of `data_len` bytes."""
    for field in ("offset", "nbytes"):
        value = entry.get(field)
        if not _is_int(value) or value < 0:
            raise entry_error(path, name, f"its {field} is {value!r}; it must be a "
                                          f"non-negative int")
    offset, nbytes = entry["offset"], entry["nbytes"]
    if nbytes != needed:
        raise entry_error(path, name, f"its nbytes {nbytes} disagrees with shape "
                                      f"{entry['shape']} of {entry['dtype']}, which needs "
                                      f"{needed} bytes")
    if offset + nbytes > data_len:
        raise entry_error(path, name, f"its bytes [{offset}, {offset + nbytes}) lie outside "
                                      f"the data block of {data_len} bytes")
    return offset


def _checked_dtype(entry, name, path):
    dtype, ms_dtype = entry.get("dtype"), entry.get("ms_dtype")
    if not isinstance(dtype, str) or dtype not in _DTYPES:
        raise entry_error(path, name, f"its dtype {dtype!r:.40} is not one of "
                                      f"{sorted(_DTYPES)}")
    if _DTYPES[dtype].name != ms_dtype:
        raise entry_error(path, name, f"dtype {dtype} disagrees with ms_dtype {ms_dtype!r:.40} "
                                      f"(expected {_DTYPES[dtype].name!r})")
    return np.dtype(dtype)


def _checked_run(run, path):
    """The index's ``run`` record ({"id": str, "strategy": str or None}), None in files written
    before run records existed."""
    if run is None:
        return None
    if not isinstance(run, dict) or not isinstance(run.get("id"), str) or \
            not isinstance(run.get("strategy"), (str, type(None))):
        raise file_error(path, f"the index's 'run' record {run!r:.100} is not "
                               f"{{'id': str, 'strategy': str or null}}")
    return {"id": run["id"], "strategy": run["strategy"]}


def _checked_pipeline(record, path):
    """The index's ``pipeline`` record ({"stages", "stage", "stage_size", "rank"}: the
    pipeline stage, and the world rank in it, that saved the file), None in files saved
    without pipeline parallel."""
    if record is None:
        return None
    keys = ("stages", "stage", "stage_size", "rank")
    valid = isinstance(record, dict) and set(record) == set(keys) and \
        all(_is_int(record[k]) for k in keys)
    if valid:
        stages, stage, size, rank = (record[k] for k in keys)
        valid = 1 <= stages and 1 <= size and stages * size <= MAX_DEVICE_NUM and \
            0 <= stage < stages and stage * size <= rank < (stage + 1) * size
    if not valid:
        raise file_error(path, f"the index's 'pipeline' record {record!r:.120} is not "
                               f"{{'stages': int, 'stage': int, 'stage_size': int, 'rank': "
                               f"int}} of a rank in that stage, of at most {MAX_DEVICE_NUM} "
                               f"devices")
    return {k: record[k] for k in keys}
