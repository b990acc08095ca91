"""Sharded checkpoints: merge the per-rank files of a parallel run (each block placed by the
layout its index records) into whole tensors, and load per-rank files into a network.

Each rank's ``save_checkpoint`` file holds, for every sliced parameter, that rank's block and
its layout (minispore/train/serialization.py); parameters that were never sliced are stored
whole on every rank. Merging runs in one process without MPI: every block is put where its
layout says, blocks held by several ranks (replicas) and whole tensors saved by every rank
must agree, and the files must cover every block of every parameter.

>>> merge_sharded_checkpoints([f"ckpt/rank_{r}/net.ckpt" for r in range(8)],
...                           "ckpt/merged.ckpt")                          # doctest: +SKIP
"""
import itertools

import numpy as np

from minispore.common.layout import TensorLayout
from minispore.common.parameter import Parameter
from minispore.train.serialization import (CheckpointError, holder_rank, load_checkpoint,
                                           load_param_into_net, save_checkpoint)

__all__ = ["merge_sharded_checkpoints", "merge_sliced_parameter", "load_distributed_checkpoint"]


def _agree(a, b, rtol, atol):
    if a.dtype.kind in "fc":
        return np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    return np.array_equal(a, b)


def _max_diff(a, b):
    if a.dtype.kind in "fc":
        return f"max |difference| {float(np.nanmax(np.abs(a.astype(np.float64) - b))):.3g}"
    return f"{int(np.count_nonzero(a != b))} differing elements"


def _layout_of(value):
    """(layout, global shape) of a sliced value, None for a whole one."""
    if getattr(value, "layout", None) is None:
        return None
    return value.layout, tuple(value.global_shape)


def _describe(key, shape):
    if key is None:
        return f"a whole tensor of shape {list(shape)}"
    return f"blocks of global shape {list(key[1])} under {key[0]}"


def _merge_one(name, pieces, rtol, atol):
    """The whole value of parameter `name` from `pieces`: [(source, value)] where value is a
    Parameter (possibly a block with layout, global_shape and layout_rank) or a str."""
    first_src, first = pieces[0]
    if isinstance(first, str) or any(isinstance(v, str) for _, v in pieces):
        kinds = {src: type(v).__name__ for src, v in pieces}
        if not all(isinstance(v, str) for _, v in pieces):
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
                             f"layouts: {first_src!r} holds {_describe(key, first.shape)}, "
                             f"{src!r} holds {_describe(_layout_of(value), value.shape)}.")
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


def _merge_dicts(sources, rtol, atol):
    """{name: numpy array or str} from [(source, {name: Parameter | str})]."""
    names = list(sources[0][1])
    for src, params in sources:
        extra = [n for n in params if n not in names]
        names.extend(extra)
    for src, params in sources:
        missing = [n for n in names if n not in params]
        if missing:
            holder = next(s for s, p in sources if missing[0] in p)
            raise ValueError(f"Cannot merge: the checkpoint file {src!r} lacks parameter(s) "
                             f"{missing} that {holder!r} holds; the files do not come from the "
                             f"same network.")
    ranks = {}
    for src, params in sources:
        held = {holder_rank(v) for v in params.values() if _layout_of(v) is not None}
        if len(held) > 1:
            raise CheckpointError(f"The checkpoint file {src!r} holds blocks of several ranks "
                                  f"{sorted(held)}; each rank's file must hold its own blocks.")
        for rank in held:
            if rank in ranks:
                raise ValueError(f"Cannot merge: {src!r} and {ranks[rank]!r} both hold rank "
                                 f"{rank}'s blocks; give each rank's file once.")
            ranks[rank] = src
    return {name: _merge_one(name, [(src, params[name]) for src, params in sources], rtol, atol)
            for name in names}


def _check_files(ckpt_files, func):
    if isinstance(ckpt_files, str) or not isinstance(ckpt_files, (list, tuple)) or \
            not all(isinstance(f, str) for f in ckpt_files):
        raise TypeError(f"For '{func}', the checkpoint files must be a list of str, but got "
                        f"{ckpt_files!r:.120}.")
    if not ckpt_files:
        raise ValueError(f"For '{func}', the list of checkpoint files is empty.")


def merge_sharded_checkpoints(ckpt_files, out_file=None, rtol=1e-6, atol=1e-7):
    """Merge the per-rank checkpoint files of a parallel run into whole tensors.

    Args:
        ckpt_files (list[str]): one file per rank (any order; ranks whose blocks are replicas
            of another's may be left out).
        out_file (str): where to write the single-device checkpoint; None writes nothing.
        rtol, atol: how closely replicated copies (blocks held by several ranks, tensors saved
            whole by every rank) must agree (exact for integer and bool tensors).

    Returns:
        dict: ``{name: Parameter}`` of whole values (str entries stay str), in the first
        file's order.

    Raises:
        CheckpointError: a file is missing, corrupt, or its layout metadata is inconsistent.
        ValueError: a parameter is missing from some file, the files disagree on a
            parameter's layout, global shape or dtype, replicas disagree, a rank's file is given
            twice, or the files do not cover every block (naming the ranks that hold it).
    """
    _check_files(ckpt_files, "merge_sharded_checkpoints")
    sources = [(path, load_checkpoint(path)) for path in ckpt_files]
    merged = _merge_dicts(sources, rtol, atol)
    result = {n: v if isinstance(v, str) else Parameter(v, name=n) for n, v in merged.items()}
    if out_file is not None:
        save_checkpoint(result, out_file)
    return result


def merge_sliced_parameter(sliced_parameters, strategy=None):
    """Merge the slices of one parameter, ordered by rank id, into a whole Parameter.

    Slices loaded from sharded checkpoints carry their layout and are placed by it. Otherwise
    ``strategy`` maps the parameter's name to the TensorLayout it was sliced with (slice i is
    rank i's block); with ``strategy=None`` the slices are concatenated along axis 0.

    Raises:
        TypeError: `sliced_parameters` is not a non-empty list of Parameters, or `strategy`
            is not a dict.
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


def load_distributed_checkpoint(network, checkpoint_filenames, predict_strategy=None,
                                train_strategy_filename=None, strict_load=False, dec_key=None,
                                dec_mode="AES-GCM"):
    """Load the per-rank checkpoint files of a parallel run into `network`: the files are
    merged (as ``merge_sharded_checkpoints``) and loaded with ``load_param_into_net``, which
    cuts each value to this rank's block where the network's parameters are already sliced.

    The layouts come from the files and the network's parameters, so ``predict_strategy`` and
    ``train_strategy_filename`` must be None.
    """
    _check_files(checkpoint_filenames, "load_distributed_checkpoint")
    for arg, value in (("predict_strategy", predict_strategy),
                       ("train_strategy_filename", train_strategy_filename),
                       ("dec_key", dec_key)):
        if value is not None:
            raise ValueError(f"For 'load_distributed_checkpoint', '{arg}' is not supported: "
                             f"minispore checkpoints record their layouts; pass None.")
    merged = merge_sharded_checkpoints(list(checkpoint_filenames))
    load_param_into_net(network, merged, strict_load)
