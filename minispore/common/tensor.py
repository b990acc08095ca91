"""Tensor: an array on a device with an ms dtype; its data, shape and device live here.

Its operators and array methods (``+``, ``@``, ``[]``, ``sum``, ``reshape`` …) dispatch to
primitives, which sit above this layer: minispore/ops/tensor_methods.py installs them onto the
class when minispore.ops is imported (as jax.numpy installs Array's), so common never imports ops.
"""
import numbers

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.init_array import init_array
from minispore.common.symbol import Symbol
from minispore.common.tensor_repr import tensor_value_text


def _default_dtype_for(data):
    """MindSpore's defaults: Python floats become float32, ints int64, bools bool; numpy
    scalars keep their dtype (np.float64 subclasses float, so check them first)."""
    if isinstance(data, np.generic):
        return mstype.to_type(data.dtype)
    if isinstance(data, bool):
        return mstype.bool_
    if isinstance(data, numbers.Integral):
        return mstype.int64
    if isinstance(data, numbers.Real):
        return mstype.float32
    if isinstance(data, (list, tuple)):
        arr = _as_array(data)
        if arr.dtype == np.float64:
            return mstype.float32
        return mstype.to_type(arr.dtype)
    return None


def _as_array(data):
    try:
        return np.asarray(data)
    except ValueError:
        # A ragged list: MindSpore 2.7.2 reports it as a TypeError, as any unsupported element.
        raise TypeError(f"For Tensor, the input_data is {data!r} that contain unsupported "
                        f"element.") from None


# The shape MindSpore gives a placeholder of unknown rank
DYNAMIC_RANK = (-2,)


class Tensor:
    """An n-dimensional array with an ms dtype.

    ``Tensor(input_data, dtype=None)`` wraps numpy arrays, lists and scalars (float scalars and
    lists default to float32, like MindSpore). ``Tensor(shape=[None, 3], dtype=ms.float32)``
    is a data-less placeholder for ``Cell.set_inputs``; its dims may be ints, None or Symbol.
    ``Tensor(dtype=ms.float32)`` is one of any rank (shape (-2,)).

    >>> Tensor(np.ones((2, 2), np.float32)).shape
    (2, 2)
    """

    # No __array_priority__: as with MindSpore's Tensor, an ndarray or NumPy scalar on the left
    # of an operator (ndarray + Tensor, np.float32(2) * Tensor, ndarray == Tensor) reads the
    # Tensor through __array__ and gives a NumPy result (MindSpore 2.7.2's behaviour).
    # True for a tensor standing for a value of a graph being traced (graph/tracer.py
    # TracedTensor): its values are not known, only its shape and dtype.
    traced = False

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, const_arg=False,
                 internal=False):
        if internal:   # input_data an array taken as it is (Parameter; plain tensors: tensor_of)
            self._data = input_data
            self._dtype = dtype
            self._placeholder_dims = None
            return
        self._placeholder_dims = None
        if dtype is not None:
            dtype = mstype.to_type(dtype)
        if input_data is None:
            if shape is None and dtype is None:
                # MindSpore 2.7.2 reports Tensor(None) as a wrong input type.
                raise TypeError("For 'Tensor', the type of 'input_data' should be one of "
                                "'['Tensor', 'ndarray', 'list', 'tuple', 'float', 'int', "
                                "'bool', 'complex']', but got type 'NoneType'.")
            if shape is None or tuple(shape) == DYNAMIC_RANK:
                # Tensor(dtype=...): a placeholder of any rank (MindSpore's shape (-2,))
                self._dtype, self._data = dtype, None
                self._placeholder_dims = DYNAMIC_RANK
                return
            if isinstance(shape, int):
                shape = (shape,)
            dims = tuple(shape)
            for d in dims:
                if not (d is None or isinstance(d, Symbol) or (isinstance(d, int) and d >= -1)):
                    raise TypeError(f"For 'Tensor', each dim of 'shape' must be an int >= -1, "
                                    f"None or Symbol, but got {d!r} in {list(dims)}.")
            self._dtype = dtype or mstype.float32
            if isinstance(init, Tensor):    # initializer()'s rule: the Tensor itself
                if tuple(init.shape) != dims:
                    raise ValueError(f"For 'initializer', the shape of the 'init' Tensor "
                                     f"{tuple(init.shape)} is not equal to 'shape' {dims}.")
                self._data = init._data
            elif init is not None:
                self._data = init_array(init, dims, self._dtype)
            elif any(d is None or isinstance(d, Symbol) or d == -1 for d in dims):
                self._data = None
                self._placeholder_dims = tuple(None if d == -1 else d for d in dims)
            else:
                self._data = device.zeros(dims, self._dtype.np_dtype)
            return
        if shape is not None:
            raise ValueError("For 'Tensor', 'shape' must not be given together with 'input_data'.")
        if isinstance(input_data, Tensor):
            data = input_data._data
            if device.is_device_array(data):
                data = data.copy_to_host()
            dtype = dtype or input_data._dtype
        else:
            dtype = dtype or _default_dtype_for(input_data)
            data = input_data
        arr = _as_array(data)
        if arr.dtype == object:
            raise TypeError(f"For 'Tensor', input_data must be a number, bool, list, tuple or "
                            f"numpy array of numbers, but got {type(input_data).__name__}.")
        if dtype is None:
            dtype = mstype.to_type(arr.dtype)
        self._dtype = dtype
        # On GPU (set_context(device_target='GPU')) the data goes to the device now.
        self._data = device.asarray(np.array(arr, dtype=dtype.np_dtype, copy=True))

    @staticmethod
    def from_numpy(array):
        """A Tensor over `array`'s own memory on the CPU (MindSpore's Tensor.from_numpy), so a
        write to either shows in the other. A non-contiguous array is copied first (MindSpore
        copies it too), and on the GPU the data is copied to the device."""
        if not isinstance(array, np.ndarray):
            raise TypeError("Expected a NumPy array.")
        return tensor_of(device.asarray(np.ascontiguousarray(array)), mstype.to_type(array.dtype))

    # -- basic properties ----------------------------------------------------------------
    @property
    def shape(self):
        if self._placeholder_dims is not None:
            return tuple(d if isinstance(d, int) else -1 for d in self._placeholder_dims)
        return self._data.shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape))

    @property
    def itemsize(self):
        return self._dtype.np_dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.itemsize

    @property
    def is_dynamic_rank(self):
        """A placeholder of any rank: ``Tensor(dtype=...)``, shape (-2,)."""
        return self._placeholder_dims == DYNAMIC_RANK

    @property
    def is_placeholder(self):
        return self._placeholder_dims is not None

    @property
    def placeholder_dims(self):
        """The raw dims of a placeholder (int, None or Symbol); None for a tensor with data."""
        return self._placeholder_dims

    def _require_data(self):
        if self._data is None:
            raise RuntimeError(f"This Tensor is a placeholder of shape {list(self.shape)} "
                               f"(dtype {self._dtype}) and has no data; placeholders are only "
                               f"for Cell.set_inputs.")
        return self._data

    def asnumpy(self):
        """The data as a numpy array (a copy for device tensors, the buffer itself on CPU)."""
        return device.to_host(self._require_data())

    def numpy(self):
        return self.asnumpy()

    def item(self):
        arr = self.asnumpy()
        if arr.size != 1:
            raise ValueError(f"For 'Tensor.item', the tensor must have exactly one element, "
                             f"but its shape is {arr.shape}.")
        return arr.reshape(()).item()

    def tolist(self):
        return self.asnumpy().tolist()

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d Tensor")
        return self.shape[0]

    def __bool__(self):
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if not self._dtype.is_int:
            raise TypeError(f"Only integer tensors can be used as an index, got {self._dtype}.")
        return int(self.item())

    def __array__(self, dtype=None, copy=None):
        arr = self.asnumpy()
        return arr if dtype is None else arr.astype(dtype)

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __hash__(self):
        return id(self)

    def __repr__(self):
        if self._data is None:
            return f"Tensor(shape={list(self.shape)}, dtype={self._dtype}, value=None)"
        sep = "\n" if self.ndim > 1 else " "
        return (f"Tensor(shape={list(self.shape)}, dtype={self._dtype}, "
                f"value={sep}{tensor_value_text(self.asnumpy())})")

    def __str__(self):
        # MindSpore prints a tensor as numpy prints its data: `print(t)` shows `[0 1 2 3]`.
        if self._data is None:
            return repr(self)
        return str(self.asnumpy())

    def init_data(self):
        """MindSpore initialises lazily; our initializer materialises at once, so this is self."""
        return self

    def set_dtype(self, dtype):
        self._dtype = mstype.to_type(dtype)
        self._data = device.astype(self._data, self._dtype.np_dtype)
        return self

    def move_to(self, to, blocking=True):
        """A copy of this tensor on device `to` ('CPU' or 'GPU'; this tensor itself when it
        is already there). `blocking` is accepted for MindSpore compatibility: copies are
        synchronous."""
        if to not in (device.CPU, device.GPU):
            raise ValueError(f"For 'Tensor.move_to', 'to' must be 'CPU' or 'GPU', but got "
                             f"{to!r}.")
        data = self._require_data()
        if device.device_of(data) == to:
            return self
        if to == device.GPU:
            from minispore.device import cuda
            cuda.require()
        return tensor_of(device.to_device(data, to), self._dtype)


def tensor_of(data, dtype, _new=object.__new__, _tensor=Tensor):
    """The Tensor ``Tensor(data, dtype, internal=True)`` builds -- `data` an array on the active
    device, taken as it is, `dtype` its ms dtype -- at half the cost (no keyword parsing): the
    interpreters wrap every eager result with it."""
    t = _new(_tensor)
    t._data = data
    t._dtype = dtype
    t._placeholder_dims = None
    return t
