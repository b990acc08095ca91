"""Elementwise CPU kernels as Numba ufuncs: numpy broadcasting, out= buffers, lazy per-dtype compile.

Each function is a `numba.vectorize` ufunc without signatures, so it compiles on first use
for the dtypes it meets (nothing compiles at import) and is cached on disk. Scalar bodies
keep the input dtype: constants are made from the input (x - x, x * 0) so float32 math
never silently promotes to float64.
"""
import math

from numba import vectorize


@vectorize(cache=True)
def add(x, y):
    return x + y


@vectorize(cache=True)
def sub(x, y):
    return x - y


@vectorize(cache=True)
def mul(x, y):
    return x * y


@vectorize(cache=True)
def realdiv(x, y):
    return x / y


@vectorize(cache=True)
def neg(x):
    return -x
