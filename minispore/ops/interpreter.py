"""The interpreter stack's dispatch and its base: ``Primitive.__call__`` hands each call to the
level on top of this thread's stack (common/context.py Interpreter: the graph tracer, an eager
SPMD region, an autodiff tape), or, when none is entered, to the base: the eager interpreter
(infer, run the kernel, wrap the result), or its profiled twin while an ms.Profiler records."""
import numbers
import time

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common import profiling
from minispore.common.context import BASE, context
from minispore.common.registry import REGISTRY
from minispore.common.tensor import Tensor, tensor_of
from minispore.ops.primitive import infer_inputs

_CTX = context()
_THREAD = _CTX._local
# What the eager interpreter reads from the settings at every call, re-read only when they
# change: [REGISTRY.version when read, on GPU, pynative_synchronize, host_plain (on CPU and
# not synchronizing: nothing to do after a kernel)].
_SETTINGS = REGISTRY.memo("ops.eager_settings", [-1, False, False, False])


def _settings():
    if _SETTINGS[0] != REGISTRY.version:
        gpu = _CTX.device == "cuda"
        sync = bool(_CTX.get("pynative_synchronize"))
        _SETTINGS[1:] = gpu, sync, not gpu and not sync
        _SETTINGS[0] = REGISTRY.version
    return _SETTINGS


def unobserved_host_eager():
    """Whether a primitive called now runs straight on the plain eager CPU interpreter: no
    level entered (graph tracer, shard region, tape), no profiler. Collectives then take their
    short path (comm_ops._Collective.__call__)."""
    return (_THREAD.interpreter is None and BASE[0] is BASE[1]
            and not (_SETTINGS if _SETTINGS[0] == REGISTRY.version else _settings())[1])


def plain_host_eager():
    """`unobserved_host_eager`, and no `pynative_synchronize` either: a call now would be the
    eager CPU interpreter's infer, kernel and wrap and nothing else, so an operator that knows
    its infer's answer for its inputs (the elementwise operators' dispatch cache) may run its
    kernel directly."""
    return (_THREAD.interpreter is None and BASE[0] is BASE[1]
            and (_SETTINGS if _SETTINGS[0] == REGISTRY.version else _settings())[3])


def profiled_eager_apply(prim, args):
    """`eager_apply` with the kernel's run recorded as a span in the active recorder."""
    recorder = profiling.ACTIVE[0]
    if recorder is None:
        return eager_apply(prim, args)

    def timed(*arrays):
        t0 = time.perf_counter_ns()
        result = prim.impl(*arrays)
        recorder.add(prim.name, profiling.category_of(prim), t0, time.perf_counter_ns() - t0,
                     profiling.nbytes_of(arrays))
        return result
    return eager_apply(prim, args, timed)


def eager_apply(prim, args, impl=None):
    """Run `prim` on `args` eagerly (PYNATIVE). Tensors go to the kernel as arrays; every other
    argument (axes, shapes, Python scalars the op accepts) goes through unchanged. `impl`
    (default: the primitive's) runs the kernel on the arrays."""
    out_aval = infer_inputs(prim, args)
    settings = _SETTINGS if _SETTINGS[0] == REGISTRY.version else _settings()
    gpu = settings[1]
    arrays = []
    for a in args:
        if isinstance(a, Tensor):
            arr = a._require_data()
            # On CPU a host array passes the first test alone (the common case, ~50 ns).
            if (type(arr) is not np.ndarray) != gpu and device.is_device_array(arr) != gpu:
                raise mixed_devices_error(prim, args)
            arrays.append(arr)
        else:
            arrays.append(a)
    result = prim.impl(*arrays) if impl is None else impl(*arrays)
    if settings[2]:
        # a failing kernel then raises at its own operator, not at a later one's copy
        device.synchronize()
    if type(out_aval) is tuple:
        return tuple(tensor_of(_as_array(r, gpu, prim), av.dtype)
                     for r, av in zip(result, out_aval))
    if type(result) is np.ndarray and not gpu:     # the common case, without a call
        return tensor_of(result, out_aval.dtype)
    return tensor_of(_as_array(result, gpu, prim), out_aval.dtype)


def _as_array(result, gpu, prim):
    # Numba ufuncs return numpy scalars for 0-d inputs; a Tensor always holds an array.
    if isinstance(result, np.generic):
        return device.asarray(result)
    if gpu and not device.is_device_array(result) and not prim.handle_output:
        raise RuntimeError(f"For '{prim.name}', the impl returned a host "
                           f"{type(result).__name__} while running on GPU: an impl must "
                           f"allocate through minispore.device (a minispore bug).")
    return result


def mixed_devices_error(prim, args):
    """The error for tensor inputs that are not all on the active device, naming each."""
    import inspect
    try:
        names = list(inspect.signature(prim.infer).parameters)
    except (TypeError, ValueError):
        names = []
    names += [f"input {i}" for i in range(len(names), len(args))]
    where = ", ".join(f"'{n}' on {device.device_of(a._data)}"
                      for n, a in zip(names, args) if isinstance(a, Tensor))
    active = device.active_device()
    return prim.error(f"every tensor input must be on the active device {active} "
                      f"(device_target='{active}'), but got {where}. Tensors live where they "
                      f"were created; create them after set_context(device_target='{active}') "
                      f"or copy them with Tensor.move_to('{active}').", RuntimeError)


def to_tensor(value, like=None):
    """Turn a Python/numpy scalar operand into a Tensor, taking `like`'s dtype for numbers
    (so ``x * 2.0`` stays float32, as in MindSpore)."""
    if isinstance(value, Tensor):
        return value
    if like is not None and isinstance(value, (numbers.Number, np.generic)):
        dtype = like.dtype
        # A bool with a bool tensor stays bool (MindSpore: bool_tensor & True is Bool).
        if (dtype == mstype.bool_ and not isinstance(value, (bool, np.bool_))) or \
                (dtype.is_int and isinstance(value, float)):
            dtype = mstype.float32 if isinstance(value, float) else mstype.int64
        return tensor_of(device.asarray(value, dtype.np_dtype), dtype)
    return Tensor(value)


# The base of every stack: plain, profiled while a recorder is active (common/profiling.py).
BASE[:] = eager_apply, eager_apply, profiled_eager_apply
