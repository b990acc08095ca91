"""Elementwise CPU kernels as Numba ufuncs: numpy broadcasting, out= buffers, lazy per-dtype compile.

Each kernel is a `numba.vectorize` ufunc without signatures (nothing compiles at import; each
dtype's loop compiles on first use and is cached on disk), wrapped in `ExactUfunc`. The wrapper
exists because a bare dynamic ufunc lets numpy pick the first already-compiled loop the inputs
can be *safely cast* to: once the float64 loop exists, float32 inputs silently run (and return)
float64, and int32 + int32 compiles to an int64 loop. `ExactUfunc` compiles the loop for exactly
the inputs' dtypes, with a fixed output dtype, and calls numpy with that signature.

The scalar bodies live in kernels/scalar.py, shared with the CUDA twins in
kernels/cuda/elementwise.py.
"""
import numpy as np
from numba import from_dtype, vectorize

from .. import scalar

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
        key = tuple([a.dtype for a in args])
        loop = self._loops.get(key)
        if loop is None:
            loop = self._compile(key)
        signature, result_dtype = loop
        if out is None and result_dtype is not None:
            out = np.empty(np.broadcast_shapes(*(np.shape(a) for a in args)), result_dtype)
        return self.dufunc.ufunc(*args, out=out, signature=signature)

    def loop(self, *dtypes):
        """(numpy ufunc, signature, result dtype) of a call on inputs of numpy `dtypes`, its loop
        compiled now if need be: ``ufunc(*arrays, out=out, signature=signature)`` is what
        ``self(*arrays, out=out)`` runs, for callers that cache their dispatch. The result dtype
        is None where the ufunc allocates the result itself; else (float16 computed in float32)
        the result must be an `out` buffer of that dtype."""
        loop = self._loops.get(dtypes) or self._compile(dtypes)
        return self.dufunc.ufunc, loop[0], loop[1]

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


# -- the kernels: one per body of kernels/scalar.py's ELEMENTWISE table --------------------
for _name, _out in scalar.ELEMENTWISE.items():
    globals()[_name] = ufunc(None if _out is None else np.dtype(_out))(getattr(scalar, _name))
del _name, _out
