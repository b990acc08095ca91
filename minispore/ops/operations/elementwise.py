"""The bases of the elementwise operators: one input, or two with numpy broadcasting and
MindSpore's type promotion (a Cast inserted where dtypes differ, hence above array_ops)."""
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor, tensor_of
from minispore.ops import sharding as rules
from minispore.ops.interpreter import plain_host_eager, to_tensor
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (broadcast_shape, cached_op, check_dtype,
                                            check_same_dtype, check_tensor)
from minispore.ops.operations.array_ops import Cast
from minispore.ops.primitive import Aval, Primitive

_ndarray = np.ndarray
_NO_INPUT = object()      # an input not given (None is a value the checks name)


class UnaryElementwise(Primitive):
    """y = f(x) elementwise; subclasses set `kernel_name` and `valid_dtypes`, and a bprop."""
    sharding_rule = rules.elementwise

    kernel_name = None
    valid_dtypes = mstype.float_types
    family = "elementwise"

    def __init__(self):
        super().__init__()

    def infer(self, x):
        check_tensor(self, "x", x)
        check_dtype(self, "x", x, self.valid_dtypes)
        return Aval(x.shape, x.dtype)

    writes_out = True

    def impl(self, x, out=None):
        return kernel(self.family, self.kernel_name)(x, out=out)


def _category(dtype):
    """0 bool, 1 integer, 2 floating point: MindSpore 2.x's promotion order of kinds."""
    return 0 if dtype == mstype.bool_ else (2 if dtype.is_float else 1)


def promote_types(a, b):
    """The dtype two tensors of dtypes `a` and `b` meet in (MindSpore 2.x): the higher kind
    wins (bool < int < float: int32 with float16 is float16), and within a kind the wider
    type (float16 with float32 is float32; uint8 with int8 is int16)."""
    if a == b:
        return a
    ca, cb = _category(a), _category(b)
    if ca != cb:
        return a if ca > cb else b
    return mstype.to_type(np.promote_types(a.np_dtype, b.np_dtype))


class BinaryElementwise(Primitive):
    """z = f(x, y) elementwise with numpy broadcasting and MindSpore's type promotion: a Python
    scalar is weak (it takes the tensor's dtype unless its kind is higher: an int tensor plus
    1.5 is float32), two tensors meet in `promote_types` (the lower one is cast first, a Cast
    node in graphs).

    The bprop reduces each gradient over the axes its input was broadcast along.
    """
    sharding_rule = rules.elementwise

    kernel_name = None
    valid_dtypes = mstype.number_types
    out_dtype = None          # None: same as the inputs (comparisons set bool_)
    family = "elementwise"
    _plain_loops = {}         # dtype -> what a plain eager call runs (each subclass its own)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._plain_loops = {}

    def __init__(self):
        super().__init__()

    def __call__(self, x=_NO_INPUT, y=_NO_INPUT, *more):
        if y is _NO_INPUT or more:
            count = (x is not _NO_INPUT) + (y is not _NO_INPUT) + len(more)
            raise self.error(f"its inputs are (x, y), but it was called with {count} "
                             f"input(s).", TypeError)
        # The plain eager call -- two host tensors of one dtype and one shape, nothing watching
        # (no tracer or shard region, tape, profiler, GPU or pynative_synchronize: see
        # plain_host_eager) -- goes to the kernel's ufunc directly. What infer, the dtype
        # checks and the kernel lookup would say then depends only on the operator class
        # (kernel_name, valid_dtypes, out_dtype, infer and impl are class attributes here) and
        # that dtype, so it is asked once and kept (`_plain_loop`); device, mode and tracing
        # state are not in that key because the guard admits one state only (CPU, eager
        # interpreter on top; GRAPH_MODE outside a trace runs eagerly alike). Every other call,
        # and every call whose dtype infer refuses, takes the generic path, checks and errors.
        if isinstance(x, Tensor) and isinstance(y, Tensor) and x._dtype is y._dtype:
            xd = x._data
            yd = y._data
            if (type(xd) is _ndarray and type(yd) is _ndarray and xd.shape == yd.shape
                    and plain_host_eager()):
                loop = self._plain_loops.get(x._dtype) or self._plain_loop(x._dtype)
                if loop[0] is not None:
                    out = loop[0](xd, yd, signature=loop[1])
                    if type(out) is not _ndarray:       # a numpy scalar, from 0-d inputs
                        out = np.asarray(out)
                    return tensor_of(out, loop[2])
            return Primitive.__call__(self, x, y)
        return self._mixed(x, y)

    def _plain_loop(self, dtype):
        """(ufunc, signature, output ms dtype) for a plain eager call on two `dtype` tensors of
        one shape, or (None,) where such a call must take the generic path: an operator whose
        infer or impl is its own (Pow), a dtype infer refuses, a kernel that is not an exact
        ufunc or whose result needs rounding into an out buffer (float16)."""
        cls = type(self)
        loop = (None,)
        if (cls.infer is BinaryElementwise.infer and cls.impl is BinaryElementwise.impl
                and cls.kernel_name is not None and dtype in cls.valid_dtypes):
            fn = kernel(cls.family, cls.kernel_name, "cpu")
            if hasattr(fn, "loop"):
                ufunc, signature, result = fn.loop(dtype.np_dtype, dtype.np_dtype)
                if result is None:
                    loop = (ufunc, signature, cls.out_dtype or dtype)
        cls._plain_loops[dtype] = loop
        return loop

    def _mixed(self, x, y):
        """The general call: scalars made tensors, mixed dtypes promoted."""
        if not isinstance(x, Tensor):
            if not isinstance(y, Tensor):
                raise self.error(f"at least one input must be a Tensor, but got "
                                 f"{type(x).__name__} and {type(y).__name__}.", TypeError)
            x = to_tensor(x, y)
        elif not isinstance(y, Tensor):
            if not isinstance(y, (numbers.Number, np.generic)):
                raise self.error(f"the input 'y' must be a Tensor or a number, but got "
                                 f"{type(y).__name__}.", TypeError)
            y = to_tensor(y, x)
        if x.dtype != y.dtype:
            x, y = self.promote(x, y)
        return super().__call__(x, y)

    def promote(self, x, y):
        """x and y cast to the dtype they meet in."""
        dtype = promote_types(x.dtype, y.dtype)
        cast = cached_op(Cast)
        return (x if x.dtype == dtype else cast(x, dtype),
                y if y.dtype == dtype else cast(y, dtype))

    def infer(self, x, y):
        dtype, shape = x.dtype, x.shape
        # The common eager case first (same dtype and shape): 0.3 us instead of 1.3 us.
        if dtype is y.dtype and shape == y.shape and dtype in self.valid_dtypes:
            return Aval(shape, self.out_dtype or dtype)
        check_dtype(self, "x", x, self.valid_dtypes)
        check_same_dtype(self, ("x", "y"), (x, y))
        return Aval(broadcast_shape(self, shape, y.shape), self.out_dtype or dtype)

    writes_out = True

    def impl(self, x, y, out=None):
        return kernel(self.family, self.kernel_name)(x, y, out=out)
