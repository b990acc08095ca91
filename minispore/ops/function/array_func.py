"""Functional forms of array operators (ops.reshape, ops.cast, ops.zeros_like …)."""
from minispore.ops.operations import array_ops as A

_reshape, _cast, _identity = A.Reshape(), A.Cast(), A.Identity()
_zeros_like, _ones_like, _fill = A.ZerosLike(), A.OnesLike(), A.Fill()


def reshape(x, shape):
    return _reshape(x, tuple(shape))


def cast(x, dtype):
    return _cast(x, dtype)


def identity(x):
    return _identity(x)


def zeros_like(x):
    return _zeros_like(x)


def ones_like(x):
    return _ones_like(x)


def fill(dtype, shape, value):
    return _fill(dtype, shape, value)


_broadcast_to = {}


def broadcast_to(x, shape):
    shape = tuple(shape)
    op = _broadcast_to.get(shape)
    if op is None:
        op = _broadcast_to[shape] = A.BroadcastTo(shape)
    return op(x)
