"""Argument checks shared by the vision transforms, raising MindSpore's error types."""
INT32_MAX = 2 ** 31 - 1


def type_check(op, name, value, types):
    """TypeError unless `value` is one of `types` (bool is no int unless bool is listed)."""
    if (int in types and bool not in types and isinstance(value, bool)) or \
            not isinstance(value, types):
        raise TypeError(f"{op}: argument {name} with value {value!r} is not of type "
                        f"{[t.__name__ for t in types]}, but got {type(value).__name__}.")


def range_check(op, name, value, lo, hi, lo_open=False):
    """ValueError unless lo <= value <= hi (lo < value when lo_open)."""
    if value < lo or value > hi or (lo_open and value == lo):
        left = "(" if lo_open else "["
        raise ValueError(f"{op}: input {name} is not within the required interval of "
                         f"{left}{lo}, {hi}], got {value}.")


def int_in(op, name, value, lo, hi=INT32_MAX):
    type_check(op, name, value, (int,))
    range_check(op, name, value, lo, hi)
    return value


def number_in(op, name, value, lo, hi, lo_open=False):
    type_check(op, name, value, (int, float))
    range_check(op, name, value, lo, hi, lo_open)
    return float(value)


def prob(op, value):
    return number_in(op, "prob", value, 0.0, 1.0)


def size_pair(op, size, name="size", hi=16777216):
    """An int or a (h, w) pair of ints in [1, hi], as (h, w)."""
    type_check(op, name, size, (int, list, tuple))
    if isinstance(size, int):
        int_in(op, name, size, 1, hi)
        return size, size
    if len(size) != 2:
        raise TypeError(f"{op}: {name} should be a single integer or a list/tuple (h, w) of "
                        f"length 2, got {size!r}.")
    for v in size:
        int_in(op, name, v, 1, hi)
    return tuple(size)


def fill_rgb(op, fill_value, name="fill_value"):
    """An int in [0, 255] or a 3-tuple of them, as a 3-tuple."""
    type_check(op, name, fill_value, (int, tuple))
    if isinstance(fill_value, int):
        int_in(op, name, fill_value, 0, 255)
        return (fill_value,) * 3
    if len(fill_value) != 3:
        raise TypeError(f"{op}: {name} should be a single integer or a 3-tuple, got "
                        f"{fill_value!r}.")
    for v in fill_value:
        int_in(op, name, v, 0, 255)
    return fill_value
