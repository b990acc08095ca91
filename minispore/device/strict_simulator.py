"""Numba's CUDA simulator made as strict as a GPU where the difference hides defects.

The simulator's device arrays wrap numpy arrays, so they quietly do what a real
`DeviceNDArray` refuses: reshape or ravel a strided array (numba-cuda on hardware raises
`NotImplementedError: operation requires copying`), transpose more than two dims, do numpy
arithmetic, or take a host numpy array as a kernel argument (on hardware: a silent copy to the
device and back on every launch); and its new arrays are numpy's, often zero-filled, where
cudaMalloc's hold garbage, so a read of a buffer nobody wrote passes by luck.

`install()` poisons new device arrays (NaN, out-of-range integers) so such a read fails every
time, and patches the simulator's classes so each of the others raises as on hardware (the
view checks reuse numba-cuda's own `dummyarray`, the code a real device array runs); it also
gives host code the tuple `shape` of a real array.

`observe_launches(fn)` lets tests see every kernel launch (the kernel and its arguments): the
CUDA compile test uses it to check that each launch's argument types are in the table of
signatures it compiles with the real compiler.

Only minispore/device/cuda.py (when device_target='GPU' runs on the simulator) and the CUDA
test suites call `install()`; nothing here runs on a real GPU.
"""
import functools
import threading

import numpy as np

_OBSERVERS = []


def observe_launches(fn):
    """Call `fn(kernel, args)` before every kernel launch (a test hook); returns a function
    that removes the observer."""
    _OBSERVERS.append(fn)
    return lambda: _OBSERVERS.remove(fn)


@functools.lru_cache(maxsize=None)
def _dummyarray():
    """numba-cuda's dummyarray module: the host-side model of a device array's layout that
    real reshape, ravel and indexing run. numba.cuda.cudadrv refuses to import under the
    simulator, so the (pure Python) module is loaded from its file."""
    import importlib.util
    import os

    import numba.cuda
    path = os.path.join(os.path.dirname(numba.cuda.__file__), "cudadrv", "dummyarray.py")
    spec = importlib.util.spec_from_file_location("_minispore_cuda_dummyarray", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _dummy(a):
    return _dummyarray().Array.from_desc(0, tuple(a.shape), tuple(a.strides), a.dtype.itemsize)


def _poisoned(arr):
    """Fill new simulated device memory with values no kernel should ever read: NaN for
    floats, 0x7F bytes for integers (an index far out of range), True for bools. cudaMalloc
    hands out whatever the memory held; numpy's np.empty is often zeros, which hides a read
    of a buffer nobody wrote until the allocator happens to reuse dirty memory."""
    if arr.dtype.kind in "fc":
        arr.fill(np.nan)
    elif arr.dtype.kind == "b":
        arr.fill(True)
    else:
        arr.reshape(-1).view(np.uint8).fill(0x7F)   # reshape: a 0-d array has no byte view
    return arr


def _share_shared_arrays_safely():
    """The simulator's `cuda.shared.array` finds a block's array by the calling line with a
    get-then-set on a dict, no lock: two threads of a block reaching the line first at once
    each make an array, one is lost, and its thread reduces into a private buffer and reads
    back uninitialised memory. With the short GIL switch interval the GPU tests use, that
    gave about one wrong (garbage: 8.8e27, 4.2e26) loss in ten 2-rank runs of tests/gpu and
    the rare LeNet mismatch. A lock makes the first call atomic; the array is poisoned like
    any new device memory (real shared memory starts uninitialised)."""
    import sys

    from numba.cuda.simulator import kernelapi

    plain = kernelapi.FakeCUDAShared.array
    lock = threading.Lock()

    def array(self, shape, dtype, alignment=None):
        if shape == 0 or alignment is not None:
            return plain(self, shape, dtype, alignment)   # dynamic shared memory: no lookup
        if isinstance(dtype, kernelapi.types.Type):
            dtype = kernelapi.numpy_support.as_dtype(dtype)
        caller = sys._getframe(1)
        key = (caller.f_code.co_filename, caller.f_lineno)   # the simulator's own key
        with lock:
            found = self._allocations.get(key)
            if found is None:
                found = self._allocations[key] = _poisoned(np.empty(shape, dtype))
        return found

    kernelapi.FakeCUDAShared.array = array


def install():
    """Patch the simulator once (idempotent); see the module docstring."""
    from numba.cuda.simulator import kernel as sim_kernel
    from numba.cuda.simulator.cudadrv import devicearray as sim_devicearray
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray, FakeShape

    if getattr(FakeCUDAArray, "_minispore_strict", False):
        return

    def in_kernel():
        return isinstance(threading.current_thread(), sim_kernel.BlockThread)

    def shape(self):
        # Kernel threads keep FakeShape (it refuses negative indices, as kernel code must);
        # host code gets a tuple, as from a real array.
        if in_kernel():
            return FakeShape(self._ary.shape)
        return self._ary.shape

    def reshape(self, *newshape, **kws):
        # numba-cuda's DeviceNDArray.reshape, step for step: a same-shape request returns a
        # view only when it compares equal to the shape tuple (a list never does), anything
        # else must come out of dummyarray as the array's one contiguous extent.
        if len(newshape) == 1 and isinstance(newshape[0], (tuple, list)):
            newshape = newshape[0]
        if newshape != self._ary.shape:
            dummy = _dummy(self._ary)
            _, extents = dummy.reshape(*newshape, **kws)
            if extents != [dummy.extent]:
                raise NotImplementedError("operation requires copying")
        return FakeCUDAArray(self._ary.reshape(tuple(newshape), **kws), stream=self.stream)

    def ravel(self, order="C", stream=0):
        dummy = _dummy(self._ary)
        _, extents = dummy.ravel(order=order)   # raises for a strided array, as real ravel
        if extents != [dummy.extent]:
            raise NotImplementedError("operation requires copying")
        return FakeCUDAArray(self._ary.ravel(order=order), stream=self.stream)

    def transpose(self, axes=None):
        if axes and tuple(axes) == tuple(range(self._ary.ndim)):
            return self
        if self._ary.ndim != 2:
            raise NotImplementedError("transposing a non-2D DeviceNDArray isn't supported")
        return FakeCUDAArray(np.ascontiguousarray(self._ary.T), stream=self.stream)

    getitem, setitem = FakeCUDAArray.__getitem__, FakeCUDAArray.__setitem__

    def strict_getitem(self, item):
        if not in_kernel():
            # A real array indexes through this model, which refuses what is not a basic
            # index (a list, an array) where numpy would copy.
            _dummy(self._ary)[item]
        return getitem(self, item)

    def strict_setitem(self, item, value):
        if not in_kernel():
            _dummy(self._ary)[item]
        return setitem(self, item, value)

    def no_arithmetic(name):
        def refuse(self, *args):
            raise TypeError(f"unsupported operand for a device array ({name}): a real "
                            f"DeviceNDArray has no numpy arithmetic; use a kernel")
        return refuse

    FakeCUDAArray.shape = property(shape)
    FakeCUDAArray.reshape = reshape
    FakeCUDAArray.ravel = ravel
    FakeCUDAArray.transpose = transpose
    FakeCUDAArray.__getitem__ = strict_getitem
    FakeCUDAArray.__setitem__ = strict_setitem
    for op in ("__add__", "__sub__", "__mul__", "__floordiv__", "__truediv__", "__mod__",
               "__pow__", "__lt__", "__le__", "__gt__", "__ge__"):
        setattr(FakeCUDAArray, op, no_arithmetic(op))

    launch = sim_kernel.FakeCUDAKernel.__call__

    def strict_launch(self, *args):
        if not (self._device or sim_kernel._kernel_context):
            for i, a in enumerate(args):
                if isinstance(a, np.ndarray) and a.ndim > 0:
                    raise TypeError(
                        f"kernel {self.fn.__qualname__} got a host numpy array as argument "
                        f"{i} (shape {a.shape}, {a.dtype}): on a GPU that is a silent copy to "
                        f"the device and back on every launch. Pass device arrays.")
            for observe in list(_OBSERVERS):
                observe(self, args)
        return launch(self, *args)

    sim_kernel.FakeCUDAKernel.__call__ = strict_launch
    _share_shared_arrays_safely()

    import numba.cuda
    from numba.cuda import simulator
    plain_device_array = sim_devicearray.device_array

    def device_array(*args, **kwargs):
        out = plain_device_array(*args, **kwargs)
        _poisoned(out._ary)
        return out

    def device_array_like(ary, stream=0):
        return device_array(ary.shape, dtype=ary.dtype, stream=stream)

    for home in (numba.cuda, simulator, sim_devicearray):
        home.device_array = device_array
        home.device_array_like = device_array_like
    FakeCUDAArray._minispore_strict = True
