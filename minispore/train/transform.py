"""``ms.transform_checkpoints``: re-cut the per-rank checkpoint files of a parallel run for
another strategy or device count, offline, in one process (no MPI).

The source files carry their own layout records, so ``src_strategy_file`` is only checked
against them; the destination layouts come from ``dst_strategy_file``, a strategy checkpoint
(minispore/parallel/strategy/ckpt.py, the JSON that ``strategy_ckpt_config={"save_file": ...}``
writes), whose ``parameters`` give each sliced parameter's device matrix and tensor map. Files
are read from ``src_checkpoints_dir/rank_*/*.ckpt`` and written to
``dst_checkpoints_dir/rank_<r>/<ckpt_prefix><r>.ckpt`` as MindSpore lays them out; each
destination file holds rank r's blocks with their layout records, and parameters the strategy
does not slice whole.
"""
import glob
import os

from minispore.common.parameter import Parameter
from minispore.parallel.param_slicing import slice_parameter
from minispore.parallel.strategy.ckpt import parameter_layouts, read_strategy_file
from minispore.train.serialization import save_checkpoint
from minispore.train.sharded_checkpoints import merge_sharded_checkpoints

__all__ = ["transform_checkpoints"]


def _strategy(path, arg):
    try:
        data = read_strategy_file(path)
    except ValueError as e:
        raise ValueError(f"For 'transform_checkpoints', '{arg}': {e}") from None
    return data["device_num"], parameter_layouts(data)


def transform_checkpoints(src_checkpoints_dir, dst_checkpoints_dir, ckpt_prefix,
                          src_strategy_file=None, dst_strategy_file=None, process_num=1,
                          output_format="ckpt"):
    """Write `dst_checkpoints_dir/rank_<r>/<ckpt_prefix><r>.ckpt` for every rank r of the
    destination strategy (one whole-value file, rank_0, when `dst_strategy_file` is None).

    Raises:
        ValueError: no source files, a source file set that does not cover every block, a
            strategy file that is not minispore's format, or one whose parameter shapes
            differ from the checkpoint's.
        NotImplementedError: output_format other than "ckpt" (safetensors).
    """
    if output_format != "ckpt":
        raise NotImplementedError(f"For 'transform_checkpoints', output_format="
                                  f"{output_format!r} is not implemented; use 'ckpt'.")
    if not isinstance(process_num, int) or process_num < 1:
        raise ValueError(f"For 'transform_checkpoints', 'process_num' must be a positive "
                         f"int, but got {process_num!r}.")
    files = sorted(glob.glob(os.path.join(src_checkpoints_dir, "rank_*", "*.ckpt")))
    if not files:
        raise ValueError(f"For 'transform_checkpoints', no checkpoint files were found under "
                         f"{src_checkpoints_dir!r} (expected rank_*/*.ckpt).")
    whole = merge_sharded_checkpoints(files)
    if src_strategy_file is not None:
        _, src_layouts = _strategy(src_strategy_file, "src_strategy_file")
        _check_shapes(src_layouts, whole, "src_strategy_file")
    device_num, layouts = 1, {}
    if dst_strategy_file is not None:
        device_num, layouts = _strategy(dst_strategy_file, "dst_strategy_file")
        _check_shapes(layouts, whole, "dst_strategy_file")
    written = []
    for rank in range(device_num):
        items = {}
        for name, value in whole.items():
            if isinstance(value, str) or name not in layouts:
                items[name] = value
                continue
            block = Parameter(value.asnumpy().copy(), name=name)
            slice_parameter(block, layouts[name][0], rank)
            items[name] = block
        path = os.path.join(dst_checkpoints_dir, f"rank_{rank}", f"{ckpt_prefix}{rank}.ckpt")
        save_checkpoint(items, path)
        written.append(path)
    return written


def _check_shapes(layouts, whole, arg):
    for name, (_, shape) in layouts.items():
        if name in whole and not isinstance(whole[name], str) and \
                tuple(whole[name].shape) != shape:
            raise ValueError(f"For 'transform_checkpoints', {arg} gives parameter {name!r} "
                             f"the global shape {shape}, but the checkpoint holds "
                             f"{tuple(whole[name].shape)}.")
