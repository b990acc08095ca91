"""mindspore.mutable: marks an argument of a compiled function as a variable rather than a
constant.

A Tensor is an input of the graph whatever the marking; Tensors inside a tuple/list argument
are inputs too (graph/jit.py), so `net(mutable((x, y)))` compiles once for every value of x
and y. A mutable scalar, and the length of a `dynamic_len` sequence, stay compile-time
constants in minispore (its graphs take Tensors only): one compile per value, said by a
warning when such a value is made, so the difference is not silent.
"""
import logging
import numbers

from minispore.common.tensor import Tensor

__all__ = ["mutable"]

logger = logging.getLogger("minispore")


class _Bool(int):
    """A mutable bool (bool itself cannot be subclassed): an int 0/1 that prints as a bool."""
    __ms_mutable__ = True

    def __repr__(self):
        return repr(bool(self))

    __str__ = __repr__


class _Int(int):
    __ms_mutable__ = True


class _Float(float):
    __ms_mutable__ = True


class _Tuple(tuple):
    __ms_mutable__ = True


class _List(list):
    __ms_mutable__ = True


class _Dict(dict):
    __ms_mutable__ = True


def _check(value, seen):
    if isinstance(value, (bool, numbers.Integral, numbers.Real, Tensor)):
        return
    if isinstance(value, (tuple, list, dict)):
        if id(value) in seen:
            raise TypeError("For 'mutable', the 'input_data' must not refer to itself.")
        seen = seen | {id(value)}
        for v in (value.values() if isinstance(value, dict) else value):
            _check(v, seen)
        return
    raise TypeError(f"For 'mutable', the 'input_data' should be one of (bool, int, float, "
                    f"Tensor, tuple, list, dict) or their nested structures with no "
                    f"self-reference, but got {type(value).__name__}.")


def _has_scalar(value):
    if isinstance(value, (tuple, list)):
        return any(_has_scalar(v) for v in value)
    if isinstance(value, dict):
        return any(_has_scalar(v) for v in value.values())
    return not isinstance(value, Tensor)


def mutable(input_data, dynamic_len=False):
    """`input_data` (a bool, int, float, Tensor or a tuple/list/dict nesting them) marked
    mutable, as MindSpore's mutable returns it (its _Bool/_Int/_Float/_Tuple/_List/_Dict types)."""
    _check(input_data, frozenset())
    if not isinstance(dynamic_len, bool):
        raise TypeError(f"For 'mutable', the 'dynamic_len' must be a bool, but got "
                        f"{type(dynamic_len).__name__}.")
    if dynamic_len and not isinstance(input_data, (tuple, list)):
        raise TypeError(f"For 'mutable', when 'dynamic_len' is True the 'input_data' must be a "
                        f"tuple or list, but got {type(input_data).__name__}.")
    if dynamic_len or _has_scalar(input_data):
        logger.warning("mutable(%s): minispore compiles a graph per value of a mutable scalar "
                       "and per length of a dynamic_len sequence (its graphs take Tensors "
                       "only); Tensors, also inside tuples and lists, are graph inputs.",
                       type(input_data).__name__)
    if isinstance(input_data, Tensor):
        input_data.__ms_mutable__ = True
        return input_data
    if isinstance(input_data, bool):
        return _Bool(input_data)
    if isinstance(input_data, numbers.Integral):
        return _Int(input_data)
    if isinstance(input_data, numbers.Real):
        return _Float(input_data)
    if isinstance(input_data, tuple):
        return _Tuple(input_data)
    if isinstance(input_data, list):
        return _List(input_data)
    return _Dict(input_data)
