"""Loading a sharded checkpoint into a net under another plan or world size, each rank
reading only the blocks it needs (``load_distributed_checkpoint``).

The per-rank files of a parallel run say in their index where every block lies (the layout
record's ``global_shape`` and ``slices``; minispore/parallel/checkpoint.py). For each parameter
of the net this rank needs one region of the logical tensor: its own block when the
parameter is already sliced (the net was compiled, or its plan described, first), the whole
tensor otherwise (the compile then slices it as usual). The loader reads the files' indexes,
then only the entries whose slices meet that region -- one replica of each source block --
and copies the overlaps into place. Entries saved whole are read from one file. A region
the files do not cover is an error naming the parameter, the slices this rank needs and the
source blocks (with the ranks that saved them) missing from the files.

The files of a pipeline run hold each only their stage's parameters (the index's pipeline
record): a parameter is assembled from the files of each stage holding it -- one stage, but
for values every stage keeps in step, whose copies must agree -- and when the files of some
stage are not given, a parameter of the net that no file holds is an error naming it.

Reading entry by entry cannot check the whole-file digest, so each entry's own SHA-256 (in
the index since this loader exists) is checked instead; files written before carry none and
are read unverified (``load_checkpoint`` still verifies them whole).
"""
import hashlib
import os

import numpy as np

from minispore.common.registry import REGISTRY
from minispore.parallel.checkpoint import (check_stage_copies, describe_missing_stages,
                                          group_by_stage, holder_rank, record_blocks)
from minispore.train.checkpoint_index import TensorEntry, entry_error

__all__ = ["read_regions", "last_load_stats"]

_last = REGISTRY.owned("train.last_resharded_load", dict)    # last_load_stats()


def last_load_stats():
    """{'bytes_read': data bytes this process read, 'bytes_in_files': data bytes of the files,
    'entries_read': entries read} of the last ``load_distributed_checkpoint``."""
    return dict(_last)


class _File:
    """One checkpoint file: its checked index (read at once) and entries read on demand."""

    def __init__(self, path, read_index):
        self.path = path
        index, self.data_start = read_index(path)
        self.entries = {e.name: e for e in index.entries if isinstance(e, TensorEntry)}
        self.data_len = index.data_len
        self.pipeline = index.pipeline

    def label(self):
        """The file, with its rank and stage when a pipeline stage saved it."""
        p = self.pipeline
        return repr(self.path) if p is None else \
            f"{self.path!r} (rank {p['rank']}, stage {p['stage']})"

    def read(self, entry):
        """The entry's array (its digest checked when the index has one)."""
        with open(self.path, "rb") as f:
            f.seek(self.data_start + entry.offset)
            raw = f.read(entry.nbytes)
        if len(raw) != entry.nbytes or \
                (entry.sha256 and hashlib.sha256(raw).hexdigest() != entry.sha256):
            raise entry_error(self.path, entry.name, "the file is truncated or corrupted")
        _last["bytes_read"] += entry.nbytes
        _last["entries_read"] += 1
        return np.frombuffer(raw, dtype=entry.dtype).reshape(entry.shape)


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
    whole = [(f, e) for f, e in pieces if e.layout is None]
    if whole:
        f, e = whole[0]
        value = f.read(e)
        if value.shape != shape:
            raise RuntimeError(f"For 'load_distributed_checkpoint', {name!r} has logical shape "
                               f"{list(shape)} in the net but {list(value.shape)} in "
                               f"{f.path!r}.")
        return value[region]
    out = np.empty(tuple(s.stop - s.start for s in region), pieces[0][1].dtype)
    covered = np.zeros(out.shape, bool)
    read = set()
    for f, e in pieces:
        record = e.layout
        if tuple(record["global_shape"]) != shape:
            raise RuntimeError(f"For 'load_distributed_checkpoint', {name!r} has logical shape "
                               f"{list(shape)} in the net but {record['global_shape']} in "
                               f"{f.path!r}.")
        block = tuple(slice(int(a), int(b)) for a, b in record["slices"])
        key = tuple((s.start, s.stop) for s in block)
        meet = _overlap(block, region)
        if key in read or meet is None:
            continue            # a replica already read, or a block this rank does not need
        read.add(key)
        value = f.read(e)
        src = tuple(slice(m.start - b.start, m.stop - b.start) for m, b in zip(meet, block))
        dst = tuple(slice(m.start - r.start, m.stop - r.start) for m, r in zip(meet, region))
        out[dst] = value[src]
        covered[dst] = True
    if not covered.all():
        raise _not_covered(name, shape, region, pieces, read)
    return out


def _not_covered(name, shape, region, pieces, read):
    """The error for a region the files leave uncovered: the blocks of the saved layout that
    meet it and that no given file holds, each with the ranks that saved it."""
    missing = {block: ranks for block, ranks in record_blocks(pieces[0][1].layout).items()
               if block not in read
               and _overlap(tuple(slice(*b) for b in block), region) is not None}
    blocks = "; ".join(f"{[list(b) for b in block]} (saved by rank(s) {ranks})"
                       for block, ranks in sorted(missing.items()))
    given = sorted({int(e.layout["rank"]) for _, e in pieces})
    needed = [[s.start, s.stop] for s in region]
    return ValueError(f"For 'load_distributed_checkpoint', the files do not cover {name!r}: "
                      f"this rank needs its slices {needed} of logical shape {list(shape)}, "
                      f"which meet the source block(s) {blocks}, in none of the given files "
                      f"(they hold the blocks of rank(s) {given}).")


def read_regions(network, paths, read_index):
    """Yield ``(name, param, value)`` for each parameter of `network`: `value` is this rank's
    region of it read from the per-rank files `paths` (a numpy array in the files' dtype), or
    None when the files do not hold the parameter. ``read_index(path)`` gives (checked
    Index, data start).

    Raises:
        ValueError: the files mix pipeline stages of different pipelines (or with files
            saved without pipeline), some pipeline stage's files are missing while the files
            lack parameters of `network` (naming them), or two stages disagree on a value.
    """
    what = "For 'load_distributed_checkpoint',"
    _last.update(bytes_read=0, entries_read=0, bytes_in_files=0)
    files = [_File(os.path.abspath(p), read_index) for p in paths]
    _last["bytes_in_files"] = sum(f.data_len for f in files)
    groups, missing = group_by_stage([(f.path, f.pipeline) for f in files], what)
    params = [(getattr(param, "name", None) or key, param)
              for key, param in network.parameters_and_names()]
    if missing:
        absent = [name for name, _ in params if not any(name in f.entries for f in files)]
        if absent:
            raise ValueError(f"{what} the files come from a pipeline of "
                             f"{len(groups) + len(missing)} stages, each rank saving only its "
                             f"stage's parameters, but none from "
                             f"{describe_missing_stages(missing)}; the net's parameter(s) "
                             f"{absent} are in none of the given files. Give the files of "
                             f"every stage.")
    for name, param in params:
        values = []
        for group in groups.values():
            pieces = [(files[i], files[i].entries[name]) for i in group
                      if name in files[i].entries]
            if pieces:
                values.append((pieces[0][0].label(), _assemble(param, name, pieces)))
        if len(values) > 1:
            check_stage_copies(name, values, what)
        yield name, param, values[0][1] if values else None
