"""A parallel run's per-rank checkpoint files as one checkpoint (the file format and the
single-file API are in minispore/train/serialization.py):

- ``merge_sharded_checkpoints`` (and tools/merge_checkpoints.py) assembles them offline into
  whole tensors, in one process;
- ``load_distributed_checkpoint`` loads them into a net under any plan or world size, each rank
  reading only the blocks it needs (minispore/train/reshard_load.py).

Both refuse files written by different runs (the index's run record). Under pipeline parallel
each rank's file holds only its stage's parameters (the index's pipeline record says which
stage): both take each parameter from the files of the stage that holds it.
"""
import logging
import os

from minispore.common import dtype as mstype
from minispore.common.parameter import Parameter
from minispore.parallel.checkpoint import merge_values
from minispore.train.reshard_load import read_regions
from minispore.train.serialization import (_convertible, _index_and_data_start, _read_index,
                                           _wait_async, load_checkpoint, save_checkpoint)

__all__ = ["merge_sharded_checkpoints", "load_distributed_checkpoint"]

logger = logging.getLogger("minispore")


def _check_files(ckpt_files, func):
    if isinstance(ckpt_files, str) or not isinstance(ckpt_files, (list, tuple)) or \
            not all(isinstance(f, str) for f in ckpt_files):
        raise TypeError(f"For '{func}', the checkpoint files must be a list of str, but got "
                        f"{ckpt_files!r:.120}.")
    if not ckpt_files:
        raise ValueError(f"For '{func}', the list of checkpoint files is empty.")


def merge_sharded_checkpoints(ckpt_files, out_file=None, rtol=1e-6, atol=1e-7):
    """Merge the per-rank checkpoint files of a parallel run into whole tensors, in one
    process (no MPI).

    Args:
        ckpt_files (list[str]): one file per rank, any order; ranks whose blocks are replicas
            of a given rank's may be left out. Under pipeline parallel, the files of every
            stage (each holds only its stage's parameters).
        out_file (str): where to write the single-device checkpoint; None writes nothing.
        rtol, atol: how closely replicated copies (blocks held by several ranks, tensors saved
            whole by every rank) must agree; integer and bool tensors must be equal.

    Returns:
        dict: ``{name: Parameter}`` of whole values (str entries stay str), in the first
        file's order.

    Raises:
        ValueError: a file is missing; CheckpointError (a ValueError) for a corrupt file or
            layout record; ValueError when the files come from different runs (their run ids
            differ; the message names each run's files), a parameter is missing from some
            file of a stage, the files disagree on a layout, global shape or dtype, replicas
            disagree, a rank's file is given twice, no file holds some block (the message
            names the ranks holding it), no file comes from some pipeline stage (naming its
            ranks), or two stages hold disagreeing values of a name (naming both ranks).

    >>> merge_sharded_checkpoints([f"ckpt/rank_{r}/net.ckpt" for r in range(8)],
    ...                           "ckpt/merged.ckpt")                      # doctest: +SKIP
    """
    _check_files(ckpt_files, "merge_sharded_checkpoints")
    loaded = [(path, load_checkpoint(path)) for path in ckpt_files]
    _check_one_run(ckpt_files)
    merged = merge_values(loaded, rtol, atol,
                          pipeline={path: _read_index(path).pipeline for path in ckpt_files})
    result = {n: v if isinstance(v, str) else Parameter(v, name=n) for n, v in merged.items()}
    if out_file is not None:
        save_checkpoint(result, out_file)
    return result


def _check_one_run(ckpt_files, func="merge_sharded_checkpoints"):
    """Refuse to merge files written by different runs (their blocks would mix two trainings)."""
    runs = {path: _read_index(path).run for path in ckpt_files}
    unrecorded = [path for path, run in runs.items() if run is None]
    if len(unrecorded) == len(runs):
        logger.warning("%s: the files %s record no run id (written before minispore "
                       "recorded runs); using them without checking that they come from one "
                       "run.", func, list(runs))
        return
    by_id = {}
    for path, run in runs.items():
        by_id.setdefault(run and run["id"], []).append(path)
    if len(by_id) > 1:
        listing = "; ".join(f"run {run_id or '(none recorded)'} wrote {files}"
                            for run_id, files in by_id.items())
        what = "Cannot merge:" if func == "merge_sharded_checkpoints" else f"For '{func}',"
        raise ValueError(f"{what} the checkpoint files come from {len(by_id)} different "
                         f"runs ({listing}); give the files of one run only.")


def load_distributed_checkpoint(network, checkpoint_filenames, predict_strategy=None,
                                train_strategy_filename=None, strict_load=False, dec_key=None,
                                dec_mode="AES-GCM"):
    """Load the per-rank checkpoint files of a parallel run into `network`, whatever plan or
    world size `network` runs under, without merging them first.

    Each file's index records where its blocks lie (save_checkpoint's layout records), and
    `network` says what this rank needs of each parameter: its own block when the parameter
    is already sliced (the net was compiled, or ``minispore.parallel.describe_plan`` ran),
    the whole value otherwise (the compile then slices it as usual). This rank reads only
    the source blocks that meet that region, one replica of each, verifying each block's
    digest (minispore/train/reshard_load.py); ``reshard_load.last_load_stats()`` then says
    how many bytes it read of how many in the files. Parameters are matched by name; dtypes
    cast (logged) as in ``load_param_into_net``; a parameter the files do not hold keeps its
    value (logged) unless `strict_load`. Every block is read and verified, and every value
    checked, before any parameter changes, so a load that raises leaves `network` exactly as
    it was. Files of a pipeline run hold each only their stage's parameters: a parameter
    comes from the files of the stage that holds it, one that several stages hold (the
    optimizer's step counter) must agree between them, and when some stage's files are not
    given, a parameter of `network` in none of the files is an error (it would keep its
    initial value).

    Args:
        network (Cell): the net to load into.
        checkpoint_filenames (list[str]): the per-rank files, any order; files holding only
            replicas of blocks other files hold may be left out.
        predict_strategy, train_strategy_filename, dec_key: must be None -- the layouts come
            from the files and `network`, and minispore checkpoints are not encrypted.
        strict_load (bool): no dtype casts, and every parameter of `network` must be in the
            files.

    Raises:
        TypeError: `checkpoint_filenames` is not a list of str.
        ValueError: the list is empty, a file is missing, an unsupported argument is given,
            the files come from different runs, or they do not cover what this rank needs of
            a parameter (naming it, the slices needed and the missing source blocks with the
            ranks that saved them), or -- for the files of a pipeline run -- they come from
            some stages only and lack parameters of `network` (naming them and the missing
            stages' ranks), or two stages disagree on a parameter (naming both ranks);
            CheckpointError (a ValueError) for a corrupt file or block.
        RuntimeError: a parameter's logical shape differs from the files', its dtype cannot
            be cast, or (strict_load) the files lack some of the net's parameters.

    >>> ms.load_distributed_checkpoint(net, [f"ckpt/rank_{r}/net.ckpt" for r in range(8)])
    ... # doctest: +SKIP
    """
    _check_files(checkpoint_filenames, "load_distributed_checkpoint")
    for arg, value in (("predict_strategy", predict_strategy),
                       ("train_strategy_filename", train_strategy_filename),
                       ("dec_key", dec_key)):
        if value is not None:
            raise ValueError(f"For 'load_distributed_checkpoint', '{arg}' is not supported: "
                             f"minispore checkpoints record their layouts; pass None.")
    for path in checkpoint_filenames:
        _wait_async(os.path.abspath(path))
        if not os.path.isfile(path):
            raise ValueError(f"For 'load_distributed_checkpoint', the checkpoint file "
                             f"{path!r} does not exist.")
    _check_one_run(list(checkpoint_filenames), "load_distributed_checkpoint")
    not_loaded, values = [], []
    for name, param, value in read_regions(network, list(checkpoint_filenames),
                                           _index_and_data_start):
        if value is None:
            not_loaded.append(name)
            continue
        got = mstype.to_type(value.dtype)
        if param.dtype != got and not _convertible(param.dtype, got, strict_load):
            raise RuntimeError(f"For 'load_distributed_checkpoint', {name!r} has dtype "
                               f"{param.dtype} in the net but {got} in the files"
                               f"{' (strict_load=True forbids casting)' if strict_load else ''}.")
        if param.dtype != got:
            logger.warning("For 'load_distributed_checkpoint', %r has dtype %s in the files but "
                           "%s in the net; the value is cast to %s.", name, got, param.dtype,
                           param.dtype)
        values.append((param, value.astype(param.dtype.np_dtype)))
    if not_loaded and strict_load:
        raise RuntimeError(f"For 'load_distributed_checkpoint', the files hold no value for "
                           f"{not_loaded} (strict_load=True).")
    for param, value in values:
        param.set_data(value)
    if not_loaded:
        logger.warning("For 'load_distributed_checkpoint', %d parameter(s) of the net are not "
                       "in the checkpoint files and keep their values: %s", len(not_loaded),
                       not_loaded)
