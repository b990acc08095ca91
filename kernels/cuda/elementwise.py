"""Elementwise CUDA kernels with numpy broadcasting: the device twins of kernels/cpu/elementwise.

Each public name is a `DeviceUfunc` called like the CPU ufunc: `add(x, y, out=None)` takes
C-contiguous device arrays (or numpy scalars, copied to the device), broadcasts them as numpy
does, writes into `out` (allocated when None) and returns it. Output dtype: `out_dtype` when
given (bool for predicates), else the dtype of the last input, as on the CPU. Compute happens
in the inputs' dtype (float32 stays float32: constants are built with `type(x)(c)`). float16
is not handled here: the framework routes half tensors through kernels/cuda/half.py.

Broadcasting is explicit index arithmetic: each operand gets an element stride per output dim
(0 where it is broadcast); adjacent dims that every operand walks contiguously are merged on the
host, so same-shape operands and scalars run with one dim (one div/mod per element).
"""
import numpy as np
from numba import cuda

from .. import scalar
from . import launch


def _kernel1(op):
    @cuda.jit
    def kernel(x, out, nd, shape, sx):
        """for i (grid-stride over out): out[i] = op(x[offset_x(i)]), offsets from the
        unravelled i and per-dim strides (0 on broadcast dims)."""
        for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
            rem = i
            ox = 0
            for d in range(nd - 1, -1, -1):
                c = rem % shape[d]
                rem //= shape[d]
                ox += c * sx[d]
            out[i] = op(x[ox])
    return kernel


def _kernel2(op):
    @cuda.jit
    def kernel(x, y, out, nd, shape, sx, sy):
        """As _kernel1 with two operands."""
        for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
            rem = i
            ox = 0
            oy = 0
            for d in range(nd - 1, -1, -1):
                c = rem % shape[d]
                rem //= shape[d]
                ox += c * sx[d]
                oy += c * sy[d]
            out[i] = op(x[ox], y[oy])
    return kernel


def _kernel3(op):
    @cuda.jit
    def kernel(x, y, z, out, nd, shape, sx, sy, sz):
        """As _kernel1 with three operands."""
        for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
            rem = i
            ox = 0
            oy = 0
            oz = 0
            for d in range(nd - 1, -1, -1):
                c = rem % shape[d]
                rem //= shape[d]
                ox += c * sx[d]
                oy += c * sy[d]
                oz += c * sz[d]
            out[i] = op(x[ox], y[oy], z[oz])
    return kernel


_FACTORIES = {1: _kernel1, 2: _kernel2, 3: _kernel3}


def _as_device(a):
    if launch.is_device_array(a):
        if not a.is_c_contiguous():
            raise ValueError(f"expected C-contiguous device arrays, got strides {a.strides}")
        return a
    if isinstance(a, np.generic) or (isinstance(a, np.ndarray) and a.ndim == 0):
        return cuda.to_device(np.asarray(a))
    raise TypeError(f"expected numba device arrays or numpy scalars, got {type(a).__name__}")


def broadcast_strides(out_shape, shapes):
    """(dims, strides per operand) after broadcasting `shapes` to `out_shape` (element strides
    of C-contiguous operands, 0 on broadcast dims) and merging dims every operand walks
    contiguously; size-1 dims are dropped."""
    nd = len(out_shape)
    strides = []
    for shape in shapes:
        full = (1,) * (nd - len(shape)) + tuple(shape)
        st = [0] * nd
        step = 1
        for d in range(nd - 1, -1, -1):
            st[d] = step if full[d] == out_shape[d] and full[d] != 1 else 0
            step *= full[d]
        strides.append(st)
    dims = []
    merged = [[] for _ in shapes]
    for d in range(nd):
        if out_shape[d] == 1:
            continue
        if dims and all(m[-1] == st[d] * out_shape[d] for m, st in zip(merged, strides)):
            # The previous (outer) dim steps exactly over this one for every operand.
            dims[-1] *= out_shape[d]
            for m, st in zip(merged, strides):
                m[-1] = st[d]
            continue
        dims.append(out_shape[d])
        for m, st in zip(merged, strides):
            m.append(st[d])
    return dims, merged


class DeviceUfunc:
    """A scalar device function applied elementwise with broadcasting (see the module doc)."""

    def __init__(self, fn, out_dtype=None):
        self.nin = fn.__code__.co_argcount
        self.out_dtype = None if out_dtype is None else np.dtype(out_dtype)
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self._kernel = _FACTORIES[self.nin](cuda.jit(device=True)(fn))

    def __call__(self, *args, out=None):
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__} takes {self.nin} arrays, got {len(args)}")
        args = [_as_device(a) for a in args]
        shape = np.broadcast_shapes(*(tuple(a.shape) for a in args))
        dtype = self.out_dtype or args[-1].dtype
        if out is None:
            out = cuda.device_array(shape, dtype=dtype)
        elif tuple(out.shape) != shape:
            raise ValueError(f"{self.__name__}: out has shape {tuple(out.shape)}, the "
                             f"broadcast inputs {shape}")
        if out.size == 0:
            return out
        dims, strides = broadcast_strides(shape, [tuple(a.shape) for a in args])
        meta = [launch.device_ints(s) for s in strides]
        blocks, threads = launch.elementwise(out.size)
        self._kernel[blocks, threads](*(launch.flat(a) for a in args), launch.flat(out),
                                      len(dims), launch.device_ints(dims), *meta)
        return out


def ufunc(out_dtype=None):
    """Decorator: the scalar function as a broadcasting device ufunc."""
    def wrap(fn):
        return DeviceUfunc(fn, out_dtype)
    return wrap


# -- the kernels: one per body of kernels/scalar.py's ELEMENTWISE table --------------------
for _name, _out in scalar.ELEMENTWISE.items():
    globals()[_name] = ufunc(None if _out is None else np.dtype(_out))(getattr(scalar, _name))
del _name, _out
