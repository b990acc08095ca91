"""Elementwise CPU kernels as Numba ufuncs: numpy broadcasting, out= buffers, lazy per-dtype compile.

Each kernel is a `numba.vectorize` ufunc without signatures (nothing compiles at import; each
dtype's loop compiles on first use and is cached on disk), wrapped in `ExactUfunc`. The wrapper
exists because a bare dynamic ufunc lets numpy pick the first already-compiled loop the inputs
can be *safely cast* to: once the float64 loop exists, float32 inputs silently run (and return)
float64, and int32 + int32 compiles to an int64 loop. `ExactUfunc` compiles the loop for exactly
the inputs' dtypes, with a fixed output dtype, and calls numpy with that signature.

Scalar bodies keep the input dtype: constants are built with `type(x)(c)`, since a Python float
literal would promote float32 math to float64. numba's math.exp/log/sqrt keep float32 for float32.
"""
import math

import numpy as np
from numba import from_dtype, vectorize

# numba has no float16 arithmetic on CPU: float16 inputs run the float32 loop, then round back.
_COMPUTE = {np.dtype(np.float16): np.dtype(np.float32)}


class ExactUfunc:
    """A numba dynamic ufunc called with a loop compiled for exactly its inputs' dtypes.

    Output dtype: `out_dtype` when given (bool for predicates), else the dtype of the last
    input (kernels put the tensor whose dtype the result takes last, e.g. select(c, x, y)).
    Inputs must be numpy arrays or numpy scalars. `out=` buffers are honoured.
    """

    def __init__(self, dufunc, out_dtype=None):
        self.dufunc = dufunc
        self.out_dtype = None if out_dtype is None else np.dtype(out_dtype)
        self._loops = {}
        self.__name__ = dufunc.__name__
        self.__doc__ = dufunc.__doc__

    def __call__(self, *args, out=None):
        key = tuple(a.dtype for a in args)
        loop = self._loops.get(key)
        if loop is None:
            loop = self._compile(key)
        signature, result_dtype = loop
        if out is None and result_dtype is not None:
            out = np.empty(np.broadcast_shapes(*(np.shape(a) for a in args)), result_dtype)
        return self.dufunc.ufunc(*args, out=out, signature=signature)

    def _compile(self, key):
        compute = tuple(_COMPUTE.get(d, d) for d in key)
        wanted = self.out_dtype or key[-1]
        out = _COMPUTE.get(wanted, wanted)
        types = "".join(d.char for d in compute) + "->" + out.char
        if types not in self.dufunc.types:
            self.dufunc._compile_for_argtys(tuple(from_dtype(d) for d in compute), from_dtype(out))
        # A half-precision result must be rounded back into a caller-visible float16 buffer.
        loop = (compute + (out,), wanted if wanted != out else None)
        self._loops[key] = loop
        return loop


def ufunc(out_dtype=None):
    """Decorator: the scalar function as a cached, lazily compiled, dtype-exact ufunc."""
    def wrap(fn):
        return ExactUfunc(vectorize(cache=True)(fn), out_dtype)
    return wrap


# -- arithmetic ---------------------------------------------------------------------------------
@ufunc()
def add(x, y):
    return x + y


@ufunc()
def sub(x, y):
    return x - y


@ufunc()
def mul(x, y):
    return x * y


@ufunc()
def realdiv(x, y):
    return x / y


@ufunc()
def neg(x):
    return -x


@ufunc()
def maximum(x, y):
    """The larger of x, y; a NaN in either wins (numpy.maximum semantics)."""
    return x if (x >= y or x != x) else y


@ufunc()
def minimum(x, y):
    """The smaller of x, y; a NaN in either wins (numpy.minimum semantics)."""
    return x if (x <= y or x != x) else y


@ufunc()
def maximum_grad(x, y, dout):
    """d maximum(x, y) / dx * dout: dout where x wins (or is NaN), half of it on ties.
    The y-gradient is maximum_grad(y, x, dout)."""
    if x > y or x != x:
        return dout
    if x == y:
        return dout * type(dout)(0.5)
    return type(dout)(0)


@ufunc()
def minimum_grad(x, y, dout):
    """d minimum(x, y) / dx * dout: dout where x wins (or is NaN), half of it on ties."""
    if x < y or x != x:
        return dout
    if x == y:
        return dout * type(dout)(0.5)
    return type(dout)(0)


@ufunc()
def pow(x, y):  # noqa: A001 - the operator's name
    return x ** y


@ufunc()
def pow_grad_x(x, y, dout):
    """dout * y * x ** (y - 1)."""
    return dout * y * x ** (y - type(y)(1))


@ufunc()
def pow_grad_y(x, out, dout):
    """dout * x**y * log(x), taken as 0 at x == 0 (where x**y is flat in y for y > 0)."""
    if x == 0:
        return type(dout)(0)
    return dout * out * math.log(x)


@ufunc()
def exp(x):
    return math.exp(x)


@ufunc()
def log(x):
    return math.log(x)


@ufunc()
def sqrt(x):
    return math.sqrt(x)


@ufunc()
def rsqrt(x):
    return type(x)(1) / math.sqrt(x)


@ufunc()
def square(x):
    return x * x


@ufunc()
def abs(x):  # noqa: A001 - the operator's name
    return -x if x < 0 else x


@ufunc()
def sqrt_grad(out, dout):
    """dout / (2 sqrt(x)), from out = sqrt(x)."""
    return dout / (out + out)


@ufunc()
def rsqrt_grad(out, dout):
    """dout * -x**(-3/2) / 2 = dout * -out**3 / 2, from out = rsqrt(x)."""
    return dout * (out * out * out) * type(out)(-0.5)


@ufunc()
def square_grad(x, dout):
    """dout * 2x."""
    return dout * (x + x)


@ufunc()
def abs_grad(x, dout):
    """dout * sign(x) (0 at x == 0)."""
    if x > 0:
        return dout
    if x < 0:
        return -dout
    return type(dout)(0)


# -- predicates and selection -------------------------------------------------------------------
@ufunc(np.bool_)
def equal(x, y):
    return x == y


@ufunc(np.bool_)
def not_equal(x, y):
    return x != y


@ufunc(np.bool_)
def less(x, y):
    return x < y


@ufunc(np.bool_)
def less_equal(x, y):
    return x <= y


@ufunc(np.bool_)
def greater(x, y):
    return x > y


@ufunc(np.bool_)
def greater_equal(x, y):
    return x >= y


@ufunc()
def select(cond, x, y):
    return x if cond else y
