"""Sharded checkpoint values: the layout record of a sliced parameter's block, the run record
naming the run and strategy a file comes from, cutting a whole value to a sliced parameter's
block, and assembling whole values from per-rank blocks.

A checkpoint file stores, for each parameter the parallel pass sliced, this rank's block and a
layout record ``{dev_matrix, tensor_map, global_shape, rank, slices}`` (a tensor_map entry is an
axis, -1, or a list of axes for a dim cut over several, outermost first); parameters never
sliced are stored whole by every rank. Under pipeline parallel a rank saves only the parameters
(and optimizer state) of its own stage, and the index's ``pipeline`` record ``{stages, stage,
stage_size, rank}`` says which stage (and world rank) wrote the file; merging and loading take
each parameter from the files of the stage that holds it (the layout records' ``rank`` is then
the position inside the stage's devices). The file format and the file-level API
(save_checkpoint, merge_sharded_checkpoints, load_distributed_checkpoint) live in
minispore/train/serialization.py and sharded_checkpoints.py; this module works on values only,
so it sits in the parallel layer under train.

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
           "record_blocks", "block_for", "merge_values", "run_record", "pipeline_selection",
           "group_by_stage", "check_stage_copies"]

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


def pipeline_selection(pairs):
    """The ``(name, value)`` `pairs` this rank saves, and the index's ``pipeline`` record.

    Under pipeline parallel every rank's net holds all parameters, but only its stage's are
    trained here (the others keep their initial values): the parameters the pipeline pass
    marked as another stage's (``param.pipeline_owner``) are left out. The record is
    ``{"stages", "stage", "stage_size", "rank"}`` of this rank (rank: its world rank), None
    when no value was placed by a pipeline.

    Raises:
        ValueError: the values were placed by pipelines of different shapes (parameters of
            several pipelined compiles saved together).
    """
    kept, specs = [], {}
    for name, value in pairs:
        mark = value.pipeline_owner if isinstance(value, Parameter) else None
        if mark is not None:
            stage, spec = mark
            specs.setdefault((spec.stages, spec.stage, spec.stage_size, spec.position), name)
            if stage != spec.stage:
                continue
        kept.append((name, value))
    if not specs:
        return kept, None
    if len(specs) > 1:
        seen = "; ".join(f"{name!r} by (stages, stage, stage_size, position) {key}"
                         for key, name in specs.items())
        raise ValueError(f"For 'save_checkpoint', the parameters were placed by different "
                         f"pipelines ({seen}); save the parameters of one pipelined network "
                         f"per file.")
    stages, stage, size, position = next(iter(specs))
    return kept, {"stages": stages, "stage": stage, "stage_size": size,
                  "rank": stage * size + position}


def group_by_stage(records, what):
    """Group checkpoint sources by the pipeline stage that wrote them.

    `records`: ``[(source, the index's pipeline record or None)]``, `source` naming the file
    in errors; `what` opens error messages ("Cannot merge:"). Returns ``(groups, missing)``:
    ``groups`` maps each stage (None for files saved without pipeline) to the positions of its
    sources in `records`, stages ascending; ``missing`` maps each stage of the run that no
    source comes from to its world ranks.

    Raises:
        ValueError: some sources come from a pipeline and others not, or the records
            disagree on the number of stages or their size.
    """
    groups, shape = {}, {}
    for i, (source, record) in enumerate(records):
        if record is not None:
            shape.setdefault((record["stages"], record["stage_size"]), source)
        groups.setdefault(None if record is None else record["stage"], []).append(i)
    if None in groups and len(groups) > 1:
        plain = records[groups[None][0]][0]
        staged = next(src for src, r in records if r is not None)
        raise ValueError(f"{what} {plain!r} was saved without pipeline parallel but "
                         f"{staged!r} by a pipeline stage; give the files of one run only.")
    if len(shape) > 1:
        listing = "; ".join(f"{src!r} by a pipeline of {s} stages of {n} device(s)"
                            for (s, n), src in shape.items())
        raise ValueError(f"{what} the files were saved by different pipelines ({listing}); "
                         f"give the files of one run only.")
    missing = {}
    if shape:
        stages, size = next(iter(shape))
        missing = {k: list(range(k * size, (k + 1) * size)) for k in range(stages)
                   if k not in groups}
    return dict(sorted(groups.items(), key=lambda kv: -1 if kv[0] is None else kv[0])), missing


def describe_missing_stages(missing):
    """'stage(s) 1 (rank(s) [1])' for `missing` as group_by_stage returns it."""
    return ", ".join(f"stage {k} (rank(s) {ranks})" for k, ranks in missing.items())


def check_stage_copies(name, copies, what, rtol=1e-6, atol=1e-7):
    """`copies`: ``[(label, value)]``, the value of `name` in the files of several pipeline
    stages (a value every stage keeps in step, like the optimizer's step counter); `label`
    names the files (with their ranks). They must agree within rtol/atol (exactly for
    integers, bools and str).

    Raises:
        ValueError: two copies disagree, naming both.
    """
    first_label, first = copies[0]
    for label, value in copies[1:]:
        if isinstance(first, str) or isinstance(value, str):
            same, diff = first == value, f"{first!r:.40} vs {value!r:.40}"
        else:
            comparable = first.shape == value.shape and first.dtype == value.dtype
            same = comparable and _agree(first, value, rtol, atol)
            diff = _max_diff(first, value) if comparable else \
                f"{first.dtype}{list(first.shape)} vs {value.dtype}{list(value.shape)}"
        if not same:
            raise ValueError(f"{what} {name!r} is held by several pipeline stages, which "
                             f"disagree: {first_label} and {label} ({diff}); each parameter "
                             f"must come from the stage that trains it.")


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


def _merge_one(name, pieces, rtol, atol, world=int):
    """The whole value of `name` from `pieces`: [(source, value)] where value is a Parameter
    (possibly a block with layout, global_shape and layout_rank) or a str; `world(r)` is the
    world rank of the device at position r of the blocks' layout."""
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
    return _assemble(name, key, pieces, rtol, atol, world)


def _assemble(name, key, pieces, rtol, atol, world):
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
        holders = sorted(world(r) for r in range(layout.device_num)
                         if layout.block_index(r) in set(missing))
        raise ValueError(f"Cannot merge parameter {name!r} of global shape "
                         f"{list(global_shape)} under {layout}: no file holds its block(s) "
                         f"{missing}; they live on rank(s) {holders}, whose checkpoint files "
                         f"are missing (got ranks "
                         f"{sorted(world(holder_rank(v)) for _, v in pieces)}).")
    return out


def merge_values(sources, rtol=1e-6, atol=1e-7, pipeline=None):
    """``{name: numpy array or str}`` of whole values from ``[(source, {name: Parameter |
    str})]``, one mapping per rank (as load_checkpoint returns them; `source` names it in
    errors), in the first mapping's order.

    Blocks go where their layout puts them; blocks held by several ranks and values saved whole
    by every rank must agree within rtol/atol (exactly for integers and bools). `pipeline`
    maps a source to its index's pipeline record (None or missing: saved without pipeline):
    the sources of each stage are merged together, every stage must be there, and a value
    several stages hold (one every stage keeps in step) must agree between them.

    Raises:
        ValueError: a name is missing from some mapping of a stage, mappings disagree on a
            value's layout, global shape or dtype, replicas disagree, two mappings hold the
            same rank's blocks (or one holds several ranks'), no mapping holds some block
            (naming its ranks), a pipeline stage has no mapping (naming its ranks), or two
            stages hold disagreeing values of a name (naming both).
    """
    records = [(pipeline or {}).get(src) for src, _ in sources]
    groups, missing = group_by_stage([(src, r) for (src, _), r in zip(sources, records)],
                                     "Cannot merge:")
    if missing:
        raise ValueError(f"Cannot merge: the files come from a pipeline of "
                         f"{len(groups) + len(missing)} stages, but none from "
                         f"{describe_missing_stages(missing)}; each rank saves only its "
                         f"stage's parameters, so give a file of every stage.")
    merged, holder = {}, {}
    for stage, group in groups.items():
        record = records[group[0]]
        size = record["stage_size"] if record else 0

        def world(r, stage=stage, size=size):
            return r if stage is None else stage * size + r

        part = _merge_stage([sources[i] for i in group], rtol, atol, stage, world)
        label = _label(sources[group[0]][0], record)
        for name, value in part.items():
            if name not in merged:
                merged[name], holder[name] = value, label
                continue
            check_stage_copies(name, [(holder[name], merged[name]), (label, value)],
                               "Cannot merge:", rtol, atol)
    first = list(sources[0][1])
    return {name: merged[name] for name in first + [n for n in merged if n not in set(first)]}


def _label(source, record):
    return repr(source) if record is None else \
        f"{source!r} (rank {record['rank']}, stage {record['stage']})"


def _merge_stage(sources, rtol, atol, stage, world):
    """merge_values over the sources of one pipeline stage (`stage` None: no pipeline)."""
    names = list(sources[0][1])
    for _, values in sources[1:]:
        names.extend(n for n in values if n not in names)
    for src, values in sources:
        missing = [n for n in names if n not in values]
        if missing:
            holder = next(s for s, v in sources if missing[0] in v)
            raise ValueError(f"Cannot merge: the checkpoint file {src!r} lacks parameter(s) "
                             f"{missing} that {holder!r} holds; the files do not come from the "
                             f"same network{'' if stage is None else f' and stage {stage}'}.")
    owner = {}
    whose = "rank {}'s" if stage is None else \
        f"device {{}} of pipeline stage {stage} (world rank {{}})'s"
    for src, values in sources:
        held = {holder_rank(v) for v in values.values() if _layout_of(v) is not None}
        if len(held) > 1:
            raise ValueError(f"Cannot merge: {src!r} holds blocks of several ranks "
                             f"{sorted(world(r) for r in held)}; each rank's file must hold "
                             f"its own blocks.")
        for rank in held:
            if rank in owner:
                raise ValueError(f"Cannot merge: {src!r} and {owner[rank]!r} both hold "
                                 f"{whose.format(rank, world(rank))} blocks; give each rank's "
                                 f"file once.")
            owner[rank] = src
    return {name: _merge_one(name, [(src, values[name]) for src, values in sources], rtol,
                             atol, world)
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
