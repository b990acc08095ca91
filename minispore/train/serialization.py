"""Checkpoint files: save_checkpoint / load_checkpoint / load_param_into_net in minispore's own
format (no pickle: loading never executes anything from the file).

File layout (all integers little-endian)::

    magic      8 bytes   b"MSPCKPT\\x00"
    version    u32       FORMAT_VERSION
    index_len  u64       length of the JSON index in bytes
    index      JSON      {"entries": [{name, kind, dtype, ms_dtype, shape, offset, nbytes,
                                       layout, sha256}...], "data_len": N,
                          "run": {id, strategy},
                          "pipeline": {stages, stage, stage_size, rank}}
    padding    to a 64-byte boundary
    data       N bytes   raw little-endian buffers, each starting on a 64-byte boundary
    digest     32 bytes  SHA-256 of everything above

``offset`` is relative to the start of the data block. ``layout`` is None for a whole tensor;
for one rank's block of a parameter sliced by the parallel pass it is ``{dev_matrix,
tensor_map, global_shape, rank, slices}`` (TensorLayout's fields, the logical shape, the rank
whose block this is and the ``[start, stop)`` of the block in every dim), so each rank's file
says on its own where its blocks lie. ``run`` names the run that wrote the file (an id shared
by all ranks of one init()) and the strategy its blocks were cut by (a hash, None when nothing
is sliced). Under pipeline parallel a rank saves only its own stage's parameters and optimizer
state (the others, never trained on it, are left out), and ``pipeline`` records that stage and
the rank's world rank (absent without pipeline). The API over a run's per-rank files
(``merge_sharded_checkpoints``, ``load_distributed_checkpoint``) is in
minispore/train/sharded_checkpoints.py; ``load_param_into_net``
cuts whole values to the blocks of a net whose parameters are sliced
(minispore/parallel/checkpoint.py). String values of ``append_dict`` are stored in the index
(kind "str"). Each tensor entry also carries the SHA-256 of its own buffer (``sha256``), so a
block read on its own is verified. After the digest, every field of the index is checked
before a buffer is read (minispore/train/checkpoint_index.py). Writes go to a temporary file
in the target directory, are fsync'ed and then renamed over the target, so a crash mid-write
leaves the previous file intact (and the next save into that directory removes the temporary
file it left, save_tmp.py).
"""
import atexit
import hashlib
import logging
import json
import os
import struct
import sys
import threading

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.registry import REGISTRY
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.parallel.checkpoint import (apply_layout_record, block_for, layout_record,
                                          pipeline_selection, run_record)
from minispore.train import save_tmp
from minispore.train.checkpoint_index import (CheckpointError, StrEntry, checked_index,
                                              entry_error, parse_index)
from minispore.train.export import export  # noqa: F401 (mindspore.train.serialization.export)

MAGIC = b"MSPCKPT\x00"
FORMAT_VERSION = 1
_ALIGN = 64
_HEADER = struct.Struct("<8sIQ")
_DIGEST_LEN = 32
_CHUNK = 1 << 24

logger = logging.getLogger("minispore")

_async_lock = threading.Lock()
# absolute file name -> Thread still writing it; -> exception of its failed async save
_async_writers = REGISTRY.owned("train.async_checkpoint_writers", dict)
_async_failures = REGISTRY.owned("train.async_checkpoint_failures", dict)


def _pad(n):
    return (-n) % _ALIGN


def _check_ckpt_name(ckpt_file_name, func):
    if not isinstance(ckpt_file_name, str):
        raise TypeError(f"For '{func}', the argument 'ckpt_file_name' must be a str, but got "
                        f"{type(ckpt_file_name).__name__}.")
    if not ckpt_file_name.endswith(".ckpt"):
        ckpt_file_name += ".ckpt"
    return os.path.abspath(ckpt_file_name)


def _as_array(value, name):
    if isinstance(value, Tensor):
        arr = value.asnumpy()
    elif isinstance(value, (bool, int, float, np.ndarray, np.generic)):
        arr = Tensor(value).asnumpy()
    else:
        raise TypeError(f"For 'save_checkpoint', the value of {name!r} must be a Parameter, "
                        f"Tensor, int, float, bool or str, but got {type(value).__name__}.")
    return arr


def _collect(save_obj, append_dict):
    """([(name, value, layout)], pipeline) where value is a numpy array or a str, layout the
    index's layout field and pipeline its pipeline record; under pipeline parallel, the
    parameters of other stages are left out (minispore/parallel/checkpoint.py)."""
    items = []
    if hasattr(save_obj, "parameters_and_names"):
        for key, param in save_obj.parameters_and_names():
            items.append((getattr(param, "name", None) or key, param))
    elif isinstance(save_obj, dict):
        items.extend(save_obj.items())
    elif isinstance(save_obj, list):
        for i, entry in enumerate(save_obj):
            if not isinstance(entry, dict) or set(entry) != {"name", "data"}:
                raise TypeError(f"For 'save_checkpoint', each element of the list 'save_obj' "
                                f"must be a dict {{'name': str, 'data': Tensor}}, but element "
                                f"{i} is {entry!r:.80}.")
            items.append((entry["name"], entry["data"]))
    else:
        raise TypeError(f"For 'save_checkpoint', the argument 'save_obj' must be a Cell, a list "
                        f"of {{'name', 'data'}} dicts or a dict, but got "
                        f"{type(save_obj).__name__}.")
    if append_dict is not None:
        if not isinstance(append_dict, dict):
            raise TypeError(f"For 'save_checkpoint', the argument 'append_dict' must be a dict, "
                            f"but got {type(append_dict).__name__}.")
        items.extend(append_dict.items())
    items, pipeline = pipeline_selection(items)
    out, seen = [], set()
    for name, value in items:
        if not isinstance(name, str):
            raise TypeError(f"For 'save_checkpoint', parameter names must be str, but got "
                            f"{name!r}.")
        if name in seen:
            raise ValueError(f"For 'save_checkpoint', the name {name!r} appears twice.")
        seen.add(name)
        # Copy now: an async save must not see later in-place optimizer updates.
        out.append((name, value if isinstance(value, str) else
                    np.array(_as_array(value, name), copy=True), layout_record(value)))
    return out, pipeline


def _build_index(items, pipeline=None):
    entries, offset = [], 0
    for name, value, layout in items:
        if isinstance(value, str):
            entries.append({"name": name, "kind": "str", "value": value})
            continue
        arr_dtype = value.dtype.newbyteorder("<") if value.dtype.byteorder == ">" else value.dtype
        # each entry's own digest lets a resharding load read single blocks verified
        entries.append({"name": name, "kind": "tensor", "dtype": arr_dtype.str,
                        "ms_dtype": mstype.to_type(value.dtype).name,
                        "shape": list(value.shape), "offset": offset,
                        "nbytes": int(value.nbytes), "layout": layout,
                        "sha256": hashlib.sha256(
                            np.ascontiguousarray(value, arr_dtype).data).hexdigest()})
        offset += value.nbytes + _pad(value.nbytes)
    run = run_record({name: layout for name, _, layout in items})
    index = {"entries": entries, "data_len": offset, "run": run}
    if pipeline is not None:
        index["pipeline"] = pipeline
    return index


def _write(path, items, pipeline=None):
    _write_file(path, _build_index(items, pipeline), items)


def _write_file(path, index, items):
    index_bytes = json.dumps(index, separators=(",", ":")).encode("utf-8")
    header = _HEADER.pack(MAGIC, FORMAT_VERSION, len(index_bytes))
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    save_tmp.remove_stale(directory)
    fd, tmp = save_tmp.create(path)
    try:
        with os.fdopen(fd, "wb") as f:
            digest = hashlib.sha256()

            def put(buf):
                f.write(buf)
                digest.update(buf)

            put(header)
            put(index_bytes)
            put(b"\0" * _pad(len(header) + len(index_bytes)))
            for _, value, _ in items:
                if isinstance(value, str):
                    continue
                flat = np.ascontiguousarray(value).reshape(-1)
                if flat.dtype.byteorder == ">":
                    flat = flat.astype(flat.dtype.newbyteorder("<"))
                raw = memoryview(flat.view(np.uint8))
                for start in range(0, len(raw), _CHUNK):
                    put(raw[start:start + _CHUNK])
                put(b"\0" * _pad(flat.nbytes))
            f.write(digest.digest())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _write_in_background(path, index, items):
    """An async save's thread: a failure is kept for the caller (``_raise_async_failures``)
    instead of escaping as a thread traceback nobody acts on."""
    try:
        _write_file(path, index, items)
    except Exception as exc:
        with _async_lock:
            _async_failures[path] = exc


def _raise_async_failures():
    """Raise the failures of finished async saves not yet reported, naming their files."""
    with _async_lock:
        failures = dict(_async_failures)
        _async_failures.clear()
    if failures:
        raise RuntimeError(f"For 'save_checkpoint', the asynchronous save (async_save=True) "
                           f"of {_describe_failures(failures)} failed; the file(s) were not "
                           f"written.") from next(iter(failures.values()))


def _describe_failures(failures):
    return ", ".join(f"{path!r} ({type(exc).__name__}: {exc})" for path, exc in failures.items())


def _wait_async(path=None):
    """Join pending async writers (of `path`, or all), then raise any async save's failure."""
    with _async_lock:
        threads = [t for p, t in _async_writers.items() if path is None or p == path]
    for t in threads:
        t.join()
    _raise_async_failures()


@atexit.register
def _report_async_failures_at_exit():
    """A failed async save that no later save or wait reported makes the process exit with
    status 1 and a message naming the file; there is no caller left to raise to, and an
    exception in an atexit handler would leave the exit status 0."""
    with _async_lock:
        failures = dict(_async_failures)
    if failures:
        sys.stderr.write(f"minispore: the asynchronous save (async_save=True) of "
                         f"{_describe_failures(failures)} failed; the file(s) were not "
                         f"written. Exiting with status 1.\n")
        sys.stderr.flush()
        os._exit(1)


def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False,
                    append_dict=None, enc_key=None, enc_mode="AES-GCM", choice_func=None,
                    **kwargs):
    """Save a Cell's parameters (by ``param.name``), a list of ``{'name', 'data'}`` dicts or a
    ``{name: Tensor}`` dict to ``ckpt_file_name`` (".ckpt" is appended when missing; an existing
    file is replaced atomically). ``append_dict`` adds int/float/bool/str/Tensor entries.
    ``choice_func(name) -> bool`` keeps only the names it accepts. ``async_save`` writes in a
    background thread from a snapshot taken now (the next save first waits for it); if that
    write fails, the next save_checkpoint or load_checkpoint call (or ModelCheckpoint at the end
    of training) raises RuntimeError naming the file, with the write's error as its cause, and
    a failure nothing reported makes the process exit with status 1. The temporary files of
    writers of the same file that died mid-save (killed) are removed. Under pipeline parallel
    a rank saves only the parameters and optimizer state of its own stage (the other stages'
    are never trained on it), and the file records that stage; merge_sharded_checkpoints and
    load_distributed_checkpoint take each parameter from its stage's files.

    >>> save_checkpoint([{"name": "w", "data": Tensor(np.ones(2, np.float32))}], "/tmp/w.ckpt")
    """
    path = _check_ckpt_name(ckpt_file_name, "save_checkpoint")
    for arg, value in (("integrated_save", integrated_save), ("async_save", async_save)):
        if not isinstance(value, bool):
            raise TypeError(f"For 'save_checkpoint', the argument '{arg}' must be a bool, but "
                            f"got {type(value).__name__}.")
    if enc_key is not None:
        raise ValueError("For 'save_checkpoint', encryption (enc_key) is not supported by "
                         "minispore checkpoints.")
    items, pipeline = _collect(save_obj, append_dict)
    if choice_func is not None:
        items = [item for item in items if choice_func(item[0])]
    # All earlier async saves, not only this file's: their failures must reach this caller.
    _wait_async()
    # The index (with the run id) is built now: init() may be released before a thread runs.
    index = _build_index(items, pipeline)
    if not async_save:
        _write_file(path, index, items)
        return
    thread = threading.Thread(target=_write_in_background,
                              args=(path, index, items), name=f"ckpt-save:{path}")
    with _async_lock:
        _async_writers[path] = thread
    thread.start()


def _index_end(header, file_size, path):
    """Where the index ends, after checking the file's magic, version and that the index fits
    in the file's `file_size` bytes."""
    if len(header) < _HEADER.size or header[:8] != MAGIC:
        raise CheckpointError(f"Failed to read the checkpoint file {path!r}: it is not a "
                              f"minispore checkpoint (bad magic header) or is empty.")
    _, version, index_len = _HEADER.unpack_from(header)
    if version != FORMAT_VERSION:
        raise CheckpointError(f"Failed to read the checkpoint file {path!r}: format version "
                              f"{version} is not supported (this minispore reads version "
                              f"{FORMAT_VERSION}).")
    index_end = _HEADER.size + index_len
    if index_end > file_size:
        raise CheckpointError(f"Failed to read the checkpoint file {path!r}: the file is "
                              f"truncated ({file_size} bytes, index needs {index_end}).")
    return index_end


def _read_index(path):
    """The checked Index of `path`, reading only its header and index, not its data (whose
    digest load_checkpoint checks)."""
    return _index_and_data_start(path)[0]


def _index_and_data_start(path):
    """(the checked Index of `path`, where its data block starts), reading only the header
    and index (for loads that read single entries: minispore/train/reshard_load.py)."""
    with open(path, "rb") as f:
        header = f.read(_HEADER.size)
        index_end = _index_end(header, os.fstat(f.fileno()).st_size, path)
        index = checked_index(parse_index(f.read(index_end - _HEADER.size), path), path)
    return index, index_end + _pad(index_end)


def _read_verified(path):
    """Return (Index, data memoryview) after checking magic, version, length, digest and every
    field of the index (minispore/train/checkpoint_index.py)."""
    with open(path, "rb") as f:
        blob = f.read()
    index_end = _index_end(blob[:_HEADER.size], len(blob), path)
    index = parse_index(blob[_HEADER.size:index_end], path)
    data_start = index_end + _pad(index_end)
    expected = data_start + index["data_len"] + _DIGEST_LEN
    if len(blob) != expected:
        raise CheckpointError(f"Failed to read the checkpoint file {path!r}: the file is "
                              f"{'truncated' if len(blob) < expected else 'too long'} "
                              f"({len(blob)} bytes, expected {expected}).")
    view = memoryview(blob)
    if hashlib.sha256(view[:-_DIGEST_LEN]).digest() != bytes(view[-_DIGEST_LEN:]):
        raise CheckpointError(f"Failed to read the checkpoint file {path!r}: the checksum does "
                              f"not match; the file is corrupted.")
    return checked_index(index, path), view[data_start:data_start + index["data_len"]]


def _check_prefix(value, arg):
    if value is None:
        return ()
    prefixes = (value,) if isinstance(value, str) else value
    if not isinstance(prefixes, (list, tuple)) or not all(
            isinstance(p, str) and p for p in prefixes):
        raise TypeError(f"For 'load_checkpoint', the argument '{arg}' must be a non-empty str or "
                        f"a list/tuple of them, but got {value!r}.")
    return tuple(prefixes)


def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None,
                    dec_key=None, dec_mode="AES-GCM", specify_prefix=None, choice_func=None,
                    **kwargs):
    """Read a checkpoint into ``{name: Parameter}`` (str entries stay str). Names starting with
    a ``filter_prefix`` are skipped; with ``specify_prefix`` only matching names are kept;
    ``choice_func(name) -> bool`` filters further. With ``net``, the result is also loaded into
    it via ``load_param_into_net(net, ..., strict_load)``.

    Raises ValueError for a missing file and CheckpointError (a ValueError) for a file with a
    wrong magic, a truncated or corrupted file; the message names the file.
    """
    if not isinstance(ckpt_file_name, str):
        raise TypeError(f"For 'load_checkpoint', the argument 'ckpt_file_name' must be a str, "
                        f"but got {type(ckpt_file_name).__name__}.")
    path = os.path.abspath(ckpt_file_name)
    if not path.endswith(".ckpt"):
        raise ValueError(f"For 'load_checkpoint', the checkpoint file should end with '.ckpt', "
                         f"but got {ckpt_file_name!r}.")
    _wait_async(path)
    if not os.path.isfile(path):
        raise ValueError(f"For 'load_checkpoint', the checkpoint file {path!r} does not exist.")
    if dec_key is not None:
        raise ValueError("For 'load_checkpoint', decryption (dec_key) is not supported by "
                         "minispore checkpoints.")
    filters = _check_prefix(filter_prefix, "filter_prefix")
    specify = _check_prefix(specify_prefix, "specify_prefix")
    index, data = _read_verified(path)
    result = {}
    for entry in index.entries:
        name = entry.name
        if filters and name.startswith(filters):
            continue
        if specify and not name.startswith(specify):
            continue
        if choice_func is not None and not choice_func(name):
            continue
        if isinstance(entry, StrEntry):
            result[name] = entry.value
            continue
        buffer = data[entry.offset:entry.offset + entry.nbytes]
        param = Parameter(np.frombuffer(buffer, dtype=entry.dtype).reshape(entry.shape),
                          name=name)
        param._ckpt_file = path
        if entry.layout is not None:
            _set_block_layout(param, entry.layout, path)
        result[name] = param
    if net is not None:
        load_param_into_net(net, result, strict_load)
    return result


def _set_block_layout(param, record, path):
    try:
        apply_layout_record(param, record)
    except (ValueError, KeyError, TypeError, ArithmeticError) as exc:   # int(inf) overflows
        raise entry_error(path, param.name, f"its layout is corrupted ({exc})") from None


def _convertible(have, got, strict_load):
    """MindSpore converts a checkpoint's dtype `got` to a parameter's `have` between float
    dtypes (or between int dtypes) unless strict."""
    if strict_load:
        return False
    return (have.is_float and got.is_float) or (have.is_int and got.is_int)


def _match_by_prefix(missing, unused):
    """Pair net names with checkpoint names that differ only by a leading prefix
    (a checkpoint of `TrainOneStepCell` holds 'network.backbone.fc.weight' for 'fc.weight')."""
    pairs = {}
    for name in missing:
        cands = [c for c in unused if c.endswith("." + name) or name.endswith("." + c)]
        if len(cands) == 1:
            pairs[name] = cands[0]
    return pairs


def load_param_into_net(net, parameter_dict, strict_load=False, remove_redundancy=False):
    """Copy ``parameter_dict`` values into ``net``'s parameters of the same name.

    Returns ``(param_not_load, ckpt_not_load)``: the net's parameter names that got no value and
    the checkpoint names that were not used; as in MindSpore, a non-empty ``param_not_load`` is
    also logged as a warning listing the names. Without ``strict_load``, names that differ only
    by a leading cell prefix are matched, and float<->float / int<->int dtype differences are
    cast (with a warning).
    A shape or (non-convertible) dtype mismatch raises RuntimeError naming the parameter and
    the checkpoint file. Every value is checked before any parameter changes, so a load that
    raises leaves `net` exactly as it was.
    """
    if not hasattr(net, "parameters_and_names"):
        raise TypeError(f"For 'load_param_into_net', the argument 'net' must be a Cell, but got "
                        f"{type(net).__name__}.")
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"For 'load_param_into_net', the argument 'parameter_dict' must be a "
                        f"dict, but got {type(parameter_dict).__name__}.")
    if not isinstance(strict_load, bool):
        raise TypeError(f"For 'load_param_into_net', the argument 'strict_load' must be a bool, "
                        f"but got {type(strict_load).__name__}.")
    for key, value in parameter_dict.items():
        if not isinstance(key, str) or not isinstance(value, (Tensor, str)):
            raise TypeError(f"For 'load_param_into_net', each item of 'parameter_dict' must map "
                            f"a str to a Parameter, but got {key!r}: {type(value).__name__}.")
    net_params = {}
    for key, param in net.parameters_and_names():
        net_params.setdefault(getattr(param, "name", None) or key, param)
    ckpt_names = [k for k, v in parameter_dict.items() if isinstance(v, Tensor)]
    pairs = {n: n for n in net_params if n in parameter_dict
             and isinstance(parameter_dict[n], Tensor)}
    if not strict_load:
        used = set(pairs.values())
        pairs.update(_match_by_prefix([n for n in net_params if n not in pairs],
                                      [c for c in ckpt_names if c not in used]))
    values = [(net_params[name], _checked_value(net_params[name], parameter_dict[ckpt_name],
                                                ckpt_name, strict_load))
              for name, ckpt_name in pairs.items()]
    for param, value in values:
        param.set_data(value)
    used = set(pairs.values())
    param_not_load = [n for n in net_params if n not in pairs]
    ckpt_not_load = [c for c in parameter_dict if c not in used]
    if param_not_load:
        logger.warning("For 'load_param_into_net', %d parameter(s) of 'net' are not loaded "
                       "because 'parameter_dict' does not hold them; check that the network "
                       "is built as it was when the checkpoint was saved. Not loaded: %s",
                       len(param_not_load), param_not_load)
    return param_not_load, ckpt_not_load


def _checked_value(param, new, ckpt_name, strict_load):
    """The value `param` takes from `new` (its block, cast to its dtype), or RuntimeError."""
    source = getattr(new, "_ckpt_file", None)
    where = f" (from checkpoint file {source!r})" if source else ""
    value = block_for(param, new, ckpt_name, where)
    if tuple(param.shape) != value.shape:
        raise RuntimeError(f"For 'load_param_into_net', {param.name!r} in the argument 'net' "
                           f"should have the same shape as {ckpt_name!r} in the argument "
                           f"'parameter_dict'{where}. But got its shape {list(param.shape)} in "
                           f"'net' and shape {list(new.shape)} in 'parameter_dict'.")
    if param.dtype != new.dtype and not _convertible(param.dtype, new.dtype, strict_load):
        raise RuntimeError(f"For 'load_param_into_net', {param.name!r} in the argument 'net' "
                           f"has dtype {param.dtype} but {ckpt_name!r} in 'parameter_dict'"
                           f"{where} has dtype {new.dtype}"
                           f"{' (strict_load=True forbids casting)' if strict_load else ''}.")
    if param.dtype != new.dtype:
        logger.warning("For 'load_param_into_net', %r in 'parameter_dict'%s has dtype %s but "
                       "%r in 'net' has dtype %s; the value is cast to %s.", ckpt_name, where,
                       new.dtype, param.name, param.dtype, param.dtype)
    return value.astype(param.dtype.np_dtype)
