"""MindSpore's in-place ops (ops.assign_add, ops.assign_sub, ops.AssignAdd, ops.AssignSub): the
value computed out of place, then written into the variable the way Tensor.__setitem__ writes
(the active tapes and tracer told; a Parameter through Assign). Kept apart from functional.py
because it reaches autodiff, which itself imports functional."""
from minispore.ops.autodiff import replace_in_place
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_prims import _composite

__all__ = ["assign_add", "assign_sub", "AssignAdd", "AssignSub"]


def _write(variable, value, name):
    replace_in_place(variable, A.cast(value, variable.dtype), name)
    return variable


def assign_add(variable, value):
    """variable += value in place; returns variable."""
    return _write(variable, M.add(variable, value), "assign_add")


def assign_sub(variable, value):
    """variable -= value in place; returns variable."""
    return _write(variable, M.sub(variable, value), "assign_sub")


AssignAdd = _composite("AssignAdd", assign_add)
AssignSub = _composite("AssignSub", assign_sub)
