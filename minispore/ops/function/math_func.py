"""Functional forms of math operators (ops.add, ops.matmul, ops.reduce_sum …)."""
from minispore.ops.operations import math_ops as M

_add, _sub, _mul, _div, _neg = M.Add(), M.Sub(), M.Mul(), M.RealDiv(), M.Neg()
_matmuls = {(a, b): M.MatMul(a, b) for a in (False, True) for b in (False, True)}
_reduce_sum = {k: M.ReduceSum(k) for k in (False, True)}


def add(x, y):
    return _add(x, y)


def sub(x, y):
    return _sub(x, y)


def mul(x, y):
    return _mul(x, y)


def div(x, y):
    return _div(x, y)


def neg(x):
    return _neg(x)


def matmul(x, y, transpose_a=False, transpose_b=False):
    return _matmuls[(transpose_a, transpose_b)](x, y)


def reduce_sum(x, axis=None, keep_dims=False):
    return _reduce_sum[bool(keep_dims)](x, () if axis is None else axis)
