"""The CUDA backend of minispore/device: the GPU probe, device allocation and copies.

Imported only once device_target='GPU' is asked for, so importing minispore never imports
numba.cuda. Every device array made here is C-contiguous; layout changes are copies by the
strided-copy kernel of kernels/cuda/array.py.
"""
import os
import sys

import numpy as np

NO_GPU = ("device_target='GPU' needs a usable CUDA GPU, but {why}. minispore does not fall "
          "back to the CPU silently: use set_context(device_target='CPU'), run on a machine "
          "with an NVIDIA GPU, its driver and numba-cuda (pip install -e '.[cuda]'), or run the "
          "CUDA kernels on Numba's CUDA simulator (slow; for tests): set NUMBA_ENABLE_CUDASIM=1 "
          "in the environment before numba.cuda is first imported, e.g. "
          "`NUMBA_ENABLE_CUDASIM=1 python train.py`.")


def _import_cuda():
    """numba.cuda, honouring a NUMBA_ENABLE_CUDASIM set after numba itself was imported (numba
    reads it at import; numba.cuda takes the simulator from that config when first imported)."""
    from numba.core import config
    wanted = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
    if "numba.cuda" not in sys.modules:
        if wanted != bool(config.ENABLE_CUDASIM):
            config.reload_config()
        _redirect_to_numba_cuda()
    from numba import cuda
    return cuda


def _redirect_to_numba_cuda():
    """Make `numba.cuda` numba-cuda's target, as its .pth file does at interpreter start; an
    install whose .pth files never ran (pip --target + PYTHONPATH) would otherwise get numba's
    own deprecated CUDA target, which numba-cuda replaces (the H200 run got it)."""
    try:
        import _numba_cuda_redirector  # noqa: F401  (installs its import hook when imported)
    except ImportError:
        pass    # no numba-cuda installed: numba.cuda is numba's own target


def probe():
    """None when numba.cuda has a usable device (a GPU, or the simulator), else why not."""
    try:
        cuda = _import_cuda()
    except ImportError as exc:
        return f"numba.cuda does not import ({exc})"
    if cuda.is_available():
        return None
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        return ("NUMBA_ENABLE_CUDASIM is set but numba.cuda was imported before it was, so "
                "the simulator is off and no GPU was found")
    return "numba.cuda.is_available() is False (no CUDA device or driver found)"


def require(device_id=0):
    """Check that the GPU can be used (raises RuntimeError saying how otherwise) and select
    device `device_id`."""
    why = probe()
    if why is not None:
        raise RuntimeError(NO_GPU.format(why=why))
    from numba.core import config
    if config.ENABLE_CUDASIM:
        from minispore.device import strict_simulator
        strict_simulator.install()
    if device_id:
        cuda = _import_cuda()
        if device_id >= len(cuda.gpus):
            raise RuntimeError(f"device_id {device_id} is out of range: numba.cuda sees "
                               f"{len(cuda.gpus)} GPU(s).")
        cuda.select_device(device_id)


def _cuda():
    from numba import cuda
    return cuda


def synchronize():
    _cuda().synchronize()


def _array_kernels():
    from minispore.kernels.cuda import array
    return array


def _movable(a):
    # Data movement sees float16 as its bit pattern, as on the CPU.
    return a.view(np.uint16) if a.dtype == np.float16 else a


def _flat(a):
    return _movable(a).reshape(a.size)


def _c_strides(shape):
    strides = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * int(shape[k + 1])
    return strides


def _shape(shape):
    return (int(shape),) if np.isscalar(shape) else tuple(int(d) for d in shape)


def empty(shape, dtype):
    return _cuda().device_array(_shape(shape), dtype=np.dtype(dtype))


def full(shape, value, dtype):
    out = empty(shape, dtype)
    if out.size:
        out_flat = _flat(out)
        bits = np.asarray(value, dtype=out.dtype)
        if out.dtype == np.float16:
            bits = bits.view(np.uint16)
        _array_kernels().fill(out_flat, bits[()])
    return out


def to_device(host):
    """A device copy of a C-contiguous host array."""
    return _cuda().to_device(host)


def _check_contiguous(a):
    if not a.is_c_contiguous():
        raise ValueError(f"minispore keeps device arrays C-contiguous, but got one with shape "
                         f"{tuple(a.shape)} and strides {tuple(a.strides)}.")


def contiguous(a, dtype=None, copy=False):
    """The C-contiguous device array `a` converted to `dtype` (a cast kernel), or `a` itself
    when no conversion is needed and no copy asked for."""
    _check_contiguous(a)
    dtype = a.dtype if dtype is None else np.dtype(dtype)
    if dtype == a.dtype and not copy:
        return a
    if np.float16 in (a.dtype, dtype) and a.dtype != dtype:
        # The cast kernel has no float16 arithmetic: convert on the host.
        return to_device(np.ascontiguousarray(a.copy_to_host().astype(dtype)))
    out = empty(a.shape, dtype)
    if a.size:
        src = a if dtype != a.dtype else _movable(a)
        dst = out if dtype != a.dtype else _movable(out)
        _array_kernels().cast(src.reshape(a.size), dst.reshape(a.size))
    return out


def asarray(data, dtype=None):
    """`data` as a C-contiguous device array of `dtype` (no copy when it already is one)."""
    if getattr(data, "__cuda_ndarray__", False):
        return contiguous(data, dtype)
    return to_device(np.asarray(data, dtype=dtype, order="C"))


def _copy_view(x, shape, src_strides):
    """A contiguous device array of `shape` read from x's flat buffer with element strides."""
    _check_contiguous(x)
    out = empty(shape, x.dtype)
    if out.size:
        _array_kernels().strided_copy(_flat(x), 0, _flat(out), 0,
                                      np.asarray(shape, np.int64).reshape(-1),
                                      np.asarray(src_strides, np.int64).reshape(-1),
                                      np.asarray(_c_strides(shape), np.int64).reshape(-1))
    return out


def transpose(x, perm):
    perm = [int(p) % max(x.ndim, 1) for p in perm]
    xs = _c_strides(x.shape)
    return _copy_view(x, tuple(x.shape[p] for p in perm), [xs[p] for p in perm])


def broadcast_to(x, shape):
    shape = _shape(shape)
    lead = len(shape) - x.ndim
    xs = _c_strides(x.shape)
    strides = [0] * lead + [0 if x.shape[i] == 1 and shape[lead + i] != 1 else xs[i]
                            for i in range(x.ndim)]
    return _copy_view(x, shape, strides)
