"""Device-neutral arrays: allocation, transfer and layout copies on the active device.

The layer between kernels/ and minispore/common: it imports only numpy (and, lazily, its CUDA
backend), so Tensor can stand on it. On CPU an array is a numpy array; with
``set_context(device_target='GPU')`` it is a Numba CUDA device array, made and copied by
minispore/device/cuda.py (imported only then, so importing minispore never imports
numba.cuda). Operator impls allocate through `empty`, `zeros`, `full` and `asarray` and never
ask which device is active.

Which device is active is a context setting, and the context lives above this layer:
`set_target_source` is the registration point minispore/common/context.py fills at its import
with a function returning its device_target ('CPU' until then).

Device arrays the framework holds are always C-contiguous: where numpy returns a free view
(`transpose`, `broadcast_to`), the device form is a contiguous copy made by the strided-copy
kernel, which is what the kernels need anyway.
"""
import numpy as np

CPU, GPU = "CPU", "GPU"


def _cpu():
    return CPU


_target = _cpu


def set_target_source(target):
    """Registration point: `target()` returns the active device, 'CPU' or 'GPU'.
    minispore/common/context.py registers its device_target here when it is imported."""
    global _target
    _target = target


def _cuda():
    from minispore.device import cuda
    return cuda


def on_gpu():
    """Whether the active device (set_context's device_target) is the GPU."""
    return _target() == GPU


def is_device_array(a):
    """Whether `a` is a Numba CUDA device array (real or simulated)."""
    return type(a) is not np.ndarray and bool(getattr(a, "__cuda_ndarray__", False))


def device_of(a):
    """'GPU' for a device array, 'CPU' for anything else (numpy arrays, scalars)."""
    return GPU if is_device_array(a) else CPU


def active_device():
    """'GPU' or 'CPU': where new arrays are made."""
    return GPU if on_gpu() else CPU


def empty(shape, dtype):
    """An uninitialised C-contiguous array on the active device."""
    if on_gpu():
        return _cuda().empty(shape, dtype)
    return np.empty(shape, dtype)


def full(shape, value, dtype):
    """An array of `shape` on the active device with every element `value`."""
    if on_gpu():
        return _cuda().full(shape, value, dtype)
    return np.full(shape, value, dtype)


def zeros(shape, dtype):
    return full(shape, 0, dtype)


def asarray(data, dtype=None):
    """`data` (array, number, list or device array) as a C-contiguous array on the active
    device, converted to `dtype` when given; no copy when it already is one."""
    if on_gpu():
        return _cuda().asarray(data, dtype)
    if is_device_array(data):
        data = data.copy_to_host()
    return np.asarray(data, dtype=dtype, order="C")


def to_host(a):
    """The contents as a numpy array (the array itself when it already is one)."""
    if is_device_array(a):
        return a.copy_to_host()
    return np.asarray(a)


def to_device(a, device):
    """A copy of `a` on `device` ('CPU' or 'GPU'); `a` itself when it is already there."""
    if device == GPU:
        return a if is_device_array(a) else _cuda().to_device(np.asarray(a, order="C"))
    if device == CPU:
        return to_host(a)
    raise ValueError(f"device must be 'CPU' or 'GPU', but got {device!r}.")


def empty_like(a):
    """An uninitialised array of a's shape and dtype on a's device."""
    return _cuda().empty(a.shape, a.dtype) if is_device_array(a) else np.empty_like(a)


def is_simulated():
    """Whether device arrays are Numba's CUDA simulator's (host memory under the hood)."""
    from numba.core import config
    return bool(config.ENABLE_CUDASIM)


def synchronize():
    """Wait for every kernel launched on the GPU (before another library reads its memory)."""
    if on_gpu():
        _cuda().synchronize()


def like(a, host):
    """The host array `host` on the device of `a` (collectives stage device buffers
    through host memory and hand the result back where the input lives)."""
    return _cuda().to_device(host) if is_device_array(a) else host


def scalar_array(result):
    """A kernel's result as an array on the active device: Numba ufuncs return numpy scalars
    for 0-d inputs, and a Tensor always holds an array."""
    if isinstance(result, np.generic):
        return asarray(result)
    return result


def contiguous(x, dtype=None):
    """x as a C-contiguous array (of `dtype` if given) on its own device, without copying
    when it already is one. Unlike np.ascontiguousarray, 0-d stays 0-d."""
    if is_device_array(x):
        return _cuda().contiguous(x, dtype)
    return np.asarray(x, dtype=dtype, order="C")


def astype(x, dtype):
    """x converted to `dtype` on its own device (a copy)."""
    if is_device_array(x):
        return _cuda().contiguous(x, np.dtype(dtype), copy=True)
    return x.astype(dtype)


def transpose(x, perm):
    """x with its axes permuted: a numpy view on the host, a contiguous copy on the device."""
    if is_device_array(x):
        return _cuda().transpose(x, perm)
    return np.transpose(x, perm)


def broadcast_to(x, shape):
    """x broadcast to `shape`: a read-only view on the host, a contiguous copy on the device."""
    if is_device_array(x):
        return _cuda().broadcast_to(x, shape)
    return np.broadcast_to(x, shape)


def is_contiguous(x):
    if is_device_array(x):
        return x.is_c_contiguous()
    return x.flags.c_contiguous


def first(x):
    """The first element of an array (a 1-element learning rate, a one-hot value) as a numpy
    scalar; a device array copies that one element to the host."""
    return x.reshape(-1)[0]
