"""Loading a sharded checkpoint into a net under another plan or world size, each rank
reading only the blocks it needs (``load_distributed_checkpoint``).

The per-rank files of a parallel run say in their index where every block lies (the layout
record's ``global_shape`` and ``slices``; minispore/parallel/checkpoint.py). For each parameter
of the net this rank needs one region of the logical tensor: its own block when the
parameter is already sliced (the net was compiled, or its plan described, first), the whole
tensor otherwise (the compile then slices it as usual). The loader reads the files' indexes,
then only the entries whose slices meet that region -- one replica of each source block --
and copies the overlaps into place. Entries saved whole are read from one file. A region
the files do not cover is an error naming the parameter and what is missing.

Reading entry by entry cannot check the whole-file digest, so each entry's own SHA-256 (in
the index since this loader exists) is checked instead; files written before carry none and
are read unverified (``load_checkpoint`` still verifies them whole).
"""
import hashlib
import json
import os
import struct

import numpy as np

from minispore.parallel.checkpoint import holder_rank

__all__ = ["load_resharded", "last_load_stats"]

_HEADER = struct.Struct("<8sIQ")
_ALIGN = 64
_last = {}


def last_load_stats():
    """{'bytes_read': data bytes this process read, 'bytes_in_files': data bytes of the files,
    'entries_read': entries read} of the last ``load_distributed_checkpoint``."""
    return dict(_last)


class _File:
    """One checkpoint file: its index (read at once) and entries read on demand."""

    def __init__(self, path, magic, version, error):
        self.path = path
        with open(path, "rb") as f:
            head = f.read(_HEADER.size)
            if len(head) < _HEADER.size or head[:8] != magic:
                raise error(f"Failed to read the checkpoint file {path!r}: it is not a "
                            f"minispore checkpoint (bad magic header) or is empty.")
            _, file_version, index_len = _HEADER.unpack(head)
            if file_version != version:
                raise error(f"Failed to read the checkpoint file {path!r}: format version "
                            f"{file_version} is not supported.")
            try:
                self.index = json.loads(f.read(index_len).decode("utf-8"))
                self.entries = {e["name"]: e for e in self.index["entries"]}
                self.data_len = int(self.index["data_len"])
            except (ValueError, KeyError, TypeError) as exc:
                raise error(f"Failed to read the checkpoint file {path!r}: the index is "
                            f"corrupted ({exc}).") from None
        end = _HEADER.size + index_len
        self.data_start = end + (-end) % _ALIGN
        self.error = error

    def read(self, entry):
        """The entry's array (its digest checked when the index has one)."""
        dtype = np.dtype(entry["dtype"])
        shape = tuple(int(d) for d in entry["shape"])
        offset, nbytes = int(entry["offset"]), int(entry["nbytes"])
        if offset < 0 or offset + nbytes > self.data_len or \
                nbytes != dtype.itemsize * int(np.prod(shape)):
            raise self.error(f"Failed to read parameter {entry['name']!r} from the checkpoint "
                             f"file {self.path!r}: its buffer lies outside the data block.")
        with open(self.path, "rb") as f:
            f.seek(self.data_start + offset)
            raw = f.read(nbytes)
        digest = entry.get("sha256")
        if len(raw) != nbytes or (digest and hashlib.sha256(raw).hexdigest() != digest):
            raise self.error(f"Failed to read parameter {entry['name']!r} from the checkpoint "
                             f"file {self.path!r}: the file is truncated or corrupted.")
        _last["bytes_read"] += nbytes
        _last["entries_read"] += 1
        return np.frombuffer(raw, dtype=dtype).reshape(shape)


def _region(param):
    """(logical shape, the slices of it this rank needs) for `param`."""
    if param.layout is None:
        shape = tuple(param.shape)
        return shape, tuple(slice(0, d) for d in shape)
    shape = tuple(param.global_shape)
    return shape, param.layout.local_slices(shape, holder_rank(param))


def _overlap(a, b):
    out = []
    for x, y in zip(a, b):
        lo, hi = max(x.start, y.start), min(x.stop, y.stop)
        if lo >= hi:
            return None
        out.append(slice(lo, hi))
    return tuple(out)


def _assemble(param, name, pieces):
    """This rank's region of `name` from `pieces` [(file, entry)] (see the module docstring)."""
    shape, region = _region(param)
    whole = [(f, e) for f, e in pieces if e.get("layout") is None]
    if whole:
        f, e = whole[0]
        value = f.read(e)
        if value.shape != shape:
            raise RuntimeError(f"For 'load_distributed_checkpoint', {name!r} has logical shape "
                               f"{list(shape)} in the net but {list(value.shape)} in "
                               f"{f.path!r}.")
        return value[region]
    out = np.empty(tuple(s.stop - s.start for s in region), np.dtype(pieces[0][1]["dtype"]))
    covered = np.zeros(out.shape, bool)
    seen = set()
    for f, e in pieces:
        record = e["layout"]
        if tuple(record["global_shape"]) != shape:
            raise RuntimeError(f"For 'load_distributed_checkpoint', {name!r} has logical shape "
                               f"{list(shape)} in the net but {record['global_shape']} in "
                               f"{f.path!r}.")
        block = tuple(slice(int(a), int(b)) for a, b in record["slices"])
        key = tuple((s.start, s.stop) for s in block)
        meet = _overlap(block, region)
        if key in seen or meet is None:
            continue            # a replica already read, or a block this rank does not need
        seen.add(key)
        value = f.read(e)
        src = tuple(slice(m.start - b.start, m.stop - b.start) for m, b in zip(meet, block))
        dst = tuple(slice(m.start - r.start, m.stop - r.start) for m, r in zip(meet, region))
        out[dst] = value[src]
        covered[dst] = True
    if not covered.all():
        missing = np.argwhere(~covered)[0] + [r.start for r in region]
        raise RuntimeError(f"For 'load_distributed_checkpoint', the files do not cover "
                           f"{name!r}: element {missing.tolist()} of its logical shape "
                           f"{list(shape)} is in no file's block (got "
                           f"{sorted({f.path for f, _ in pieces})}).")
    return out


def load_resharded(network, paths, strict_load, magic, version, error):
    """Load the per-rank files `paths` into `network`; returns the names of the net's
    parameters the files do not hold."""
    _last.update(bytes_read=0, entries_read=0, bytes_in_files=0)
    files = [_File(os.path.abspath(p), magic, version, error) for p in paths]
    _last["bytes_in_files"] = sum(f.data_len for f in files)
    not_loaded = []
    for key, param in network.parameters_and_names():
        name = getattr(param, "name", None) or key
        pieces = [(f, f.entries[name]) for f in files
                  if name in f.entries and f.entries[name].get("kind") == "tensor"]
        if not pieces:
            not_loaded.append(name)
            continue
        value = _assemble(param, name, pieces)
        if value.dtype != param.dtype.np_dtype and strict_load:
            raise RuntimeError(f"For 'load_distributed_checkpoint', {name!r} has dtype "
                               f"{param.dtype} in the net but {value.dtype} in the files "
                               f"(strict_load=True forbids casting).")
        param.set_data(value.astype(param.dtype.np_dtype))
    return not_loaded
