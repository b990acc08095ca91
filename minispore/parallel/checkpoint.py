"""Sharded checkpoint values: the layout record of a sliced parameter's block, the run record
naming the run and strategy a file comes from, cutting a whole value to a sliced parameter's
block, and assembling whole values from per-rank blocks.

A checkpoint file stores, for each parameter the parallel pass sliced, this rank's block and a
layout record ``{dev_matrix, tensor_map, global_shape, rank, slices}`` (a tensor_map entry is an
axis, -1, or a list of axes for a dim cut over several, outermost first); parameters never sliced
are stored whole by every rank. The file format and the file-level API (save_checkpoint,
merge_sharded_checkpoints, load_distributed_checkpoint) live in minispore/train/serialization.py
and sharded_checkpoints.py; this module works on values only, so it sits in the parallel layer under train.

>>> merge_sliced_parameter([Parameter(np.ones(2), "t"), Parameter(np.zeros(2), "t")]).shape
(4,)
"""
import hashlib
import itertools
import json
import uuid

import numpy as np

from minispore.common.auto_parallel_context import MAX_DEVICE_NUM
from minispore.common.layout import TensorLayout
from minispore.common.parameter import Parameter

__all__ = ["merge_sliced_parameter", "holder_rank", "layout_record", "apply_layout_record",
           "record_blocks", "block_for", "merge_values", "run_record"]

# The run id of a process that never calls init(): its files are one run of their own.
_PROCESS_RUN_ID = uuid.uuid4().hex


def holder_rank(param):
    """The rank whose block the sliced `param` holds: the rank it was sliced for, else this
    process's rank."""
    rank = getattr(param, "layout_rank", None)
    if rank is not None:
        return int(rank)
    from minispore.communication import _comm
    if _comm.STATE.inited:
        return _comm.STATE.world.rank
    raise ValueError(f"Parameter {param.name!r} is sliced with {param.layout} but neither "
                     f"records the rank it was sliced for nor runs under init().")


def layout_record(value):
    """The checkpoint index's ``layout`` field for `value` (None unless a sliced Parameter)."""
    if not isinstance(value, Parameter) or value.layout is None:
        return None
    if getattr(value, "manual_split", None) is not None:
        raise NotImplementedError(
            f"Saving parameter {value.name!r}, split non-uniformly by Gather's manual_split "
            f"{value.manual_split}, in a per-rank checkpoint is not implemented in minispore: "
            f"the index records uniform blocks. Save minispore.parallel.param_slicing."
            f"gather_parameter(param) from one rank instead.")
    lay, shape = value.layout, tuple(int(d) for d in value.global_shape)
    rank = holder_rank(value)
    # A dim cut over several axes (a Layout's tuple entry) is a list of axes, outermost first.
    tensor_map = [list(m) if isinstance(m, tuple) else m for m in lay.tensor_map]
    return {"dev_matrix": list(lay.dev_matrix), "tensor_map": tensor_map,
            "global_shape": list(shape), "rank": rank,
            "slices": [[s.start, s.stop] for s in lay.local_slices(shape, rank)]}


def run_record(layout_records):
    """The checkpoint index's ``run`` field for a file whose entries have `layout_records`
    (the ``layout`` fields, None for whole values): ``{"id": ..., "strategy": ...}``.

    ``id`` is this run's: shared by every rank after init() (rank 0 draws it), else this
    process's own. ``strategy`` is a SHA-256 of every sliced parameter's record without its
    per-rank fields (device matrix, tensor map, global shape: the same on every rank of a run),
    None when nothing is sliced.
    """
    from minispore.communication import _comm
    strategy = sorted((name, {k: v for k, v in r.items() if k not in ("rank", "slices")})
                      for name, r in layout_records.items() if r is not None)
    digest = hashlib.sha256(json.dumps(strategy, sort_keys=True).encode()).hexdigest()
    return {"id": _comm.STATE.run_id if _comm.STATE.inited else _PROCESS_RUN_ID,
            "strategy": digest if strategy else None}


def apply_layout_record(param, record):
    """Mark the loaded block `param` with the layout, logical shape and rank of `record`.

    Raises:
        ValueError, KeyError, TypeError: the record is malformed or does not describe a block
            of param's shape.
    """
    layout = TensorLayout(record["dev_matrix"], record["tensor_map"])
    if layout.device_num > MAX_DEVICE_NUM:
        # A crafted record could otherwise make merging enumerate billions of blocks.
        raise ValueError(f"dev_matrix {list(layout.dev_matrix)} spans {layout.device_num} "
                         f"devices, more than the {MAX_DEVICE_NUM} a run may have")
    global_shape = tuple(int(d) for d in record["global_shape"])
    rank = int(record["rank"])
    if not 0 <= rank < layout.device_num:
        raise ValueError(f"rank {rank} is outside the {layout.device_num} devices of "
                         f"dev_matrix {layout.dev_matrix}")
    if layout.local_shape(global_shape) != tuple(param.shape):
        raise ValueError(f"a block of shape {list(param.shape)} cannot be rank {rank}'s "
                         f"block of global shape {list(global_shape)} under {layout}")
    slices = [[s.start, s.stop] for s in layout.local_slices(global_shape, rank)]
    if [[int(i) for i in s] for s in record["slices"]] != slices:
        raise ValueError(f"slices {record['slices']} disagree with rank {rank}'s block "
                         f"{slices} under {layout}")
    param.layout, param.global_shape, param.layout_rank = layout, global_shape, rank


def record_blocks(record):
    """``{block: [ranks holding it]}`` of every block of the layout a layout record describes,
    each block as its ``((start, stop), ...)`` per dim: what the other ranks' files hold.

    >>> record_blocks({"dev_matrix": [2, 2], "tensor_map": [1, -1], "global_shape": [4, 3]})
    {((0, 2), (0, 3)): [0, 1], ((2, 4), (0, 3)): [2, 3]}
    """
    layout = TensorLayout(record["dev_matrix"], record["tensor_map"])
    shape = tuple(int(d) for d in record["global_shape"])
    blocks = {}
    for rank in range(layout.device_num):
        block = tuple((s.start, s.stop) for s in layout.local_slices(shape, rank))
        blocks.setdefault(block, []).append(rank)
    return blocks


def _layout_of(value):
    """(layout, global shape) of a block, None for a value without a layout."""
    if getattr(value, "layout", None) is None:
        return None
    return value.layout, tuple(value.global_shape)


def is_whole(value):
    """A value that is the whole logical tensor (no layout, or a block that covers it all)."""
    key = _layout_of(value)
    return key is None or tuple(value.shape) == key[1]


def describe(value):
    key = _layout_of(value)
    if key is None:
        return f"shape {list(value.shape)}"
    return (f"block shape {list(value.shape)} of global shape {list(key[1])} under {key[0]} "
            f"(rank {holder_rank(value)}'s block)")


def block_for(param, new, ckpt_name, where):
    """The value to load into `param` from the checkpoint value `new` (numpy array):

    - `param` whole: `new` whole (same shape; the caller checks), or an error for a block;
    - `param` sliced: `new` whole is cut to param's block by param's layout; a block of `new`
      with the same layout and block index loads as is; anything else is an error.

    Raises:
        RuntimeError: naming the parameter, both shapes and the layouts (`where` says which
            file `new` came from).
    """
    if param.layout is None:
        if not is_whole(new):
            raise RuntimeError(f"For 'load_param_into_net', {param.name!r} in the argument "
                               f"'net' is whole (shape {list(param.shape)}) but {ckpt_name!r} "
                               f"in 'parameter_dict'{where} is one rank's slice: "
                               f"{describe(new)}. Load the per-rank files with "
                               f"load_distributed_checkpoint, or merge them "
                               f"(tools/merge_checkpoints.py) first.")
        return new.asnumpy()
    layout, global_shape = param.layout, tuple(param.global_shape)
    rank = holder_rank(param)
    if is_whole(new) and tuple(new.shape) == global_shape:
        return new.asnumpy()[layout.local_slices(global_shape, rank)]
    if (_layout_of(new) == (layout, global_shape)
            and layout.block_index(holder_rank(new)) == layout.block_index(rank)):
        return new.asnumpy()
    raise RuntimeError(f"For 'load_param_into_net', {param.name!r} in the argument 'net' is "
                       f"sliced: rank {rank} holds its block of shape {list(param.shape)} of "
                       f"global shape {list(global_shape)} under {layout}. {ckpt_name!r} in "
                       f"'parameter_dict'{where} has {describe(new)}, which is neither the "
                       f"whole value nor this rank's block; load the per-rank files with "
                       f"load_distributed_checkpoint, or merge them "
                       f"(tools/merge_checkpoints.py) and load the merged file.")


# -- merging --------------------------------------------------------------------------------

def _agree(a, b, rtol, atol):
    if a.dtype.kind in "fc":
        return np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    return np.array_equal(a, b)


def _max_diff(a, b):
    if a.dtype.kind in "fc":
        return f"max |difference| {float(np.nanmax(np.abs(a.astype(np.float64) - b))):.3g}"
    return f"{int(np.count_nonzero(a != b))} differing elements"


def _holds(key, value):
    if key is None:
        return f"a whole tensor of shape {list(value.shape)}"
    return f"blocks of global shape {list(key[1])} under {key[0]}"


def _merge_one(name, pieces, rtol, atol):
    """The whole value of `name` from `pieces`: [(source, value)] where value is a Parameter
    (possibly a block with layout, global_shape and layout_rank) or a str."""
    first_src, first = pieces[0]
    if any(isinstance(v, str) for _, v in pieces):
        if not all(isinstance(v, str) for _, v in pieces):
            kinds = {src: type(v).__name__ for src, v in pieces}
            raise ValueError(f"Cannot merge {name!r}: it is a str in some files and a tensor "
                             f"in others ({kinds}).")
        return first
    key = _layout_of(first)
    for src, value in pieces[1:]:
        if value.dtype != first.dtype:
            raise ValueError(f"Cannot merge parameter {name!r}: its dtype is {first.dtype} in "
                             f"{first_src!r} but {value.dtype} in {src!r}.")
        if _layout_of(value) != key or (key is None and value.shape != first.shape):
            raise ValueError(f"Cannot merge parameter {name!r}: the files describe different "
                             f"layouts: {first_src!r} holds {_holds(key, first)}, {src!r} "
                             f"holds {_holds(_layout_of(value), value)}.")
    if key is None:
        whole = first.asnumpy()
        for src, value in pieces[1:]:
            if not _agree(whole, value.asnumpy(), rtol, atol):
                raise ValueError(f"Cannot merge parameter {name!r}: it is saved whole by every "
                                 f"rank but {src!r} disagrees with {first_src!r} "
                                 f"({_max_diff(whole, value.asnumpy())}).")
        return whole
    return _assemble(name, key, pieces, rtol, atol)


def _assemble(name, key, pieces, rtol, atol):
    layout, global_shape = key
    out = np.empty(global_shape, dtype=pieces[0][1].asnumpy().dtype)
    placed = {}                               # block index -> (source, block)
    for src, value in pieces:
        rank = holder_rank(value)
        block = value.asnumpy()
        index = layout.block_index(rank)
        if index in placed:
            other_src, other = placed[index]
            if not _agree(other, block, rtol, atol):
                raise ValueError(f"Cannot merge parameter {name!r}: {src!r} and {other_src!r} "
                                 f"hold replicas of block {index} under {layout} that disagree "
                                 f"({_max_diff(other, block)}).")
            continue
        placed[index] = (src, block)
        out[layout.local_slices(global_shape, rank)] = block
    wanted = set(itertools.product(*(range(c) for c in layout.cuts())))
    missing = sorted(wanted - set(placed))
    if missing:
        holders = sorted(r for r in range(layout.device_num)
                         if layout.block_index(r) in set(missing))
        raise ValueError(f"Cannot merge parameter {name!r} of global shape "
                         f"{list(global_shape)} under {layout}: no file holds its block(s) "
                         f"{missing}; they live on rank(s) {holders}, whose checkpoint files "
                         f"are missing (got ranks "
                         f"{sorted(holder_rank(v) for _, v in pieces)}).")
    return out


def merge_values(sources, rtol=1e-6, atol=1e-7):
    """``{name: numpy array or str}`` of whole values from ``[(source, {name: Parameter |
    str})]``, one mapping per rank (as load_checkpoint returns them; `source` names it in
    errors), in the first mapping's order.

    Blocks go where their layout puts them; blocks held by several ranks and values saved whole
    by every rank must agree within rtol/atol (exactly for integers and bools).

    Raises:
        ValueError: a name is missing from some mapping, mappings disagree on a value's layout,
            global shape or dtype, replicas disagree, two mappings hold the same rank's blocks
            (or one holds several ranks'), or no mapping holds some block (naming its ranks).
    """
    names = list(sources[0][1])
    for _, values in sources[1:]:
        names.extend(n for n in values if n not in names)
    for src, values in sources:
        missing = [n for n in names if n not in values]
        if missing:
            holder = next(s for s, v in sources if missing[0] in v)
            raise ValueError(f"Cannot merge: the checkpoint file {src!r} lacks parameter(s) "
                             f"{missing} that {holder!r} holds; the files do not come from the "
                             f"same network.")
    owner = {}
    for src, values in sources:
        held = {holder_rank(v) for v in values.values() if _layout_of(v) is not None}
        if len(held) > 1:
            raise ValueError(f"Cannot merge: {src!r} holds blocks of several ranks "
                             f"{sorted(held)}; each rank's file must hold its own blocks.")
        for rank in held:
            if rank in owner:
                raise ValueError(f"Cannot merge: {src!r} and {owner[rank]!r} both hold rank "
                                 f"{rank}'s blocks; give each rank's file once.")
            owner[rank] = src
    return {name: _merge_one(name, [(src, values[name]) for src, values in sources], rtol, atol)
            for name in names}


def merge_sliced_parameter(sliced_parameters, strategy=None):
    """Merge the slices of one parameter, ordered by rank id, into a whole Parameter.

    Slices loaded from sharded checkpoints carry their layout and are placed by it. Otherwise
    ``strategy`` maps the parameter's name to the TensorLayout it was sliced with (slice i is
    rank i's block); with ``strategy=None`` the slices are concatenated along axis 0.

    Raises:
        TypeError: `sliced_parameters` is not a non-empty list of Parameters, or `strategy`
            is not a dict (or maps the name to something other than a TensorLayout).
        KeyError: the parameter's name is not a key of `strategy`.
        ValueError: the slices cannot be merged (names, dtypes or layouts differ, missing
            blocks, disagreeing replicas).
    """
    if not isinstance(sliced_parameters, list) or not sliced_parameters or \
            not all(isinstance(p, Parameter) for p in sliced_parameters):
        raise TypeError(f"For 'merge_sliced_parameter', 'sliced_parameters' must be a non-empty "
                        f"list of Parameter, but got {sliced_parameters!r:.120}.")
    if strategy is not None and not isinstance(strategy, dict):
        raise TypeError(f"For 'merge_sliced_parameter', 'strategy' must be a dict, but got "
                        f"{type(strategy).__name__}.")
    name = sliced_parameters[0].name
    if any(p.name != name for p in sliced_parameters):
        raise ValueError(f"For 'merge_sliced_parameter', all slices must have the same name, "
                         f"but got {[p.name for p in sliced_parameters]}.")
    carry = [p.layout is not None for p in sliced_parameters]
    if all(carry):
        pieces = sliced_parameters
    elif any(carry):
        raise ValueError(f"For 'merge_sliced_parameter', some slices of {name!r} carry a layout "
                         f"and some do not.")
    elif strategy is None:
        return Parameter(np.concatenate([p.asnumpy() for p in sliced_parameters], axis=0),
                         name=name)
    else:
        pieces = [_with_layout(p, strategy[name], rank)
                  for rank, p in enumerate(sliced_parameters)]
    merged = _merge_one(name, [(f"slice {i}", p) for i, p in enumerate(pieces)], 1e-6, 1e-7)
    return Parameter(merged, name=name)


def _with_layout(param, layout, rank):
    if not isinstance(layout, TensorLayout):
        raise TypeError(f"For 'merge_sliced_parameter', strategy[{param.name!r}] must be a "
                        f"TensorLayout, but got {type(layout).__name__}.")
    block = Parameter(param.asnumpy(), name=param.name)
    block.layout, block.layout_rank = layout, rank
    block.global_shape = tuple(n * c for n, c in zip(param.shape, layout.cuts()))
    return block
