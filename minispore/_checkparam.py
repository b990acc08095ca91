"""MindSpore's argument validator (``from mindspore import _checkparam as validator``), which
Python front ends (PrimitiveWithInfer subclasses) and MindSpore's own tests call: each check
returns the value when it passes and raises MindSpore's error type, naming the primitive, the
argument, the value and what is valid, when it does not."""
import numbers

# Interval kinds of check_float_range / check_int_range / check_number_range.
INC_NEITHER, INC_LEFT, INC_RIGHT, INC_BOTH = "INC_NEITHER", "INC_LEFT", "INC_RIGHT", "INC_BOTH"
# Relations of check / check_int / check_number.
EQ, NE, LT, LE, GT, GE = "==", "!=", "<", "<=", ">", ">="

_RANGE = {INC_NEITHER: ("(", ")", lambda lo, v, hi: lo < v < hi),
          INC_LEFT: ("[", ")", lambda lo, v, hi: lo <= v < hi),
          INC_RIGHT: ("(", "]", lambda lo, v, hi: lo < v <= hi),
          INC_BOTH: ("[", "]", lambda lo, v, hi: lo <= v <= hi)}
_REL = {EQ: lambda a, b: a == b, NE: lambda a, b: a != b, LT: lambda a, b: a < b,
        LE: lambda a, b: a <= b, GT: lambda a, b: a > b, GE: lambda a, b: a >= b}


def _prefix(prim_name):
    return f"For '{prim_name}', the" if prim_name else "The"


def _type_name(t):
    return getattr(t, "__name__", None) or str(t)


def check_value_type(arg_name, arg_value, valid_types, prim_name=None):
    """arg_value is an instance of one of valid_types (a bool is not an int unless bool is
    listed, as in MindSpore)."""
    valid_types = tuple(valid_types) if isinstance(valid_types, (list, tuple)) else (valid_types,)
    ok = isinstance(arg_value, valid_types) and not (
        isinstance(arg_value, bool) and bool not in valid_types)
    if not ok:
        names = [_type_name(t) for t in valid_types]
        raise TypeError(f"{_prefix(prim_name)} '{arg_name}' must be of type {names}, but got "
                        f"'{arg_value}' with type '{type(arg_value).__name__}'.")
    return arg_value


def check_bool(arg_value, arg_name=None, prim_name=None):
    if not isinstance(arg_value, bool):
        raise TypeError(f"{_prefix(prim_name)} '{arg_name}' must be a bool, but got "
                        f"{type(arg_value).__name__}.")
    return arg_value


def _check_number(arg_value, arg_name, prim_name, kind):
    if isinstance(arg_value, bool) or not isinstance(arg_value, kind):
        what = "an int" if kind is numbers.Integral else "a float" if kind is float else "a number"
        raise TypeError(f"{_prefix(prim_name)} '{arg_name}' must be {what}, but got "
                        f"{type(arg_value).__name__}.")
    return arg_value


def check_is_int(arg_value, arg_name=None, prim_name=None):
    return _check_number(arg_value, arg_name, prim_name, numbers.Integral)


def check_is_float(arg_value, arg_name=None, prim_name=None):
    return _check_number(arg_value, arg_name, prim_name, float)


def check_number(arg_name, arg_value, value, rel, prim_name=None):
    """arg_value <rel> value."""
    _check_number(arg_value, arg_name, prim_name, numbers.Real)
    if not _REL[rel](arg_value, value):
        raise ValueError(f"{_prefix(prim_name)} '{arg_name}' must be {rel} {value}, but got "
                         f"{arg_value}.")
    return arg_value


def check_int(arg_value, value, rel, arg_name=None, prim_name=None):
    check_is_int(arg_value, arg_name, prim_name)
    return check_number(arg_name, arg_value, value, rel, prim_name)


def check_equal_int(arg_value, value, arg_name=None, prim_name=None):
    return check_int(arg_value, value, EQ, arg_name, prim_name)


def check_positive_int(arg_value, arg_name=None, prim_name=None):
    return check_int(arg_value, 0, GT, arg_name, prim_name)


def check_non_negative_int(arg_value, arg_name=None, prim_name=None):
    return check_int(arg_value, 0, GE, arg_name, prim_name)


def check_positive_float(arg_value, arg_name=None, prim_name=None):
    check_is_float(arg_value, arg_name, prim_name)
    return check_number(arg_name, arg_value, 0, GT, prim_name)


def check_non_negative_float(arg_value, arg_name=None, prim_name=None):
    check_is_float(arg_value, arg_name, prim_name)
    return check_number(arg_name, arg_value, 0, GE, prim_name)


def check_number_range(arg_value, lower_limit, upper_limit, rel, value_type, arg_name=None,
                       prim_name=None):
    """lower_limit <= / < arg_value <= / < upper_limit as rel (INC_*) says."""
    _check_number(arg_value, arg_name, prim_name, value_type if value_type is not int
                  else numbers.Integral)
    left, right, inside = _RANGE[rel]
    if not inside(lower_limit, arg_value, upper_limit):
        raise ValueError(f"{_prefix(prim_name)} '{arg_name}' must be in range of "
                         f"{left}{lower_limit}, {upper_limit}{right}, but got {arg_value}.")
    return arg_value


def check_int_range(arg_value, lower_limit, upper_limit, rel, arg_name=None, prim_name=None):
    return check_number_range(arg_value, lower_limit, upper_limit, rel, int, arg_name, prim_name)


def check_float_range(arg_value, lower_limit, upper_limit, rel, arg_name=None, prim_name=None):
    return check_number_range(arg_value, lower_limit, upper_limit, rel, float, arg_name,
                              prim_name)


def _element_type(t):
    """A tensor's dtype as the element type (minispore's infer sees element types already)."""
    return t.element_type() if hasattr(t, "element_type") else t


def check_tensor_dtype_valid(arg_name, arg_type, valid_dtypes, prim_name=None):
    """A tensor's dtype is one of valid_dtypes. MindSpore's tests call it both as
    (name, dtype, valid, prim) and (dtype, valid, prim, True): the second form is read too."""
    if not isinstance(arg_name, str):   # (dtype, valid_dtypes, prim_name, ...)
        arg_name, arg_type, valid_dtypes, prim_name = "x", arg_name, arg_type, valid_dtypes
    elem = _element_type(arg_type)
    if elem not in valid_dtypes:
        raise TypeError(f"{_prefix(prim_name)} type of '{arg_name}' must be in "
                        f"{[str(d) for d in valid_dtypes]}, but got {elem}.")
    return elem


def check_scalar_or_tensor_types_same(args, valid_values, prim_name, allow_mix=False):
    """Every dtype of `args` ({name: dtype}) is in valid_values and they are all equal."""
    first = None
    for name, t in args.items():
        elem = _element_type(t)
        if elem not in valid_values:
            raise TypeError(f"{_prefix(prim_name)} type of '{name}' must be in "
                            f"{[str(v) for v in valid_values]}, but got {elem}.")
        if first is None:
            first = (name, elem)
        elif elem != first[1]:
            raise TypeError(f"{_prefix(prim_name)} type of '{name}' ({elem}) must be the same "
                            f"as that of '{first[0]}' ({first[1]}).")
    return first[1] if first else None


def check_tensors_dtypes_same_and_valid(args, valid_dtypes, prim_name):
    return check_scalar_or_tensor_types_same(args, valid_dtypes, prim_name)


def check_type_name(arg_name, arg_type, valid_types, prim_name):
    if arg_type not in valid_types:
        raise TypeError(f"{_prefix(prim_name)} '{arg_name}' must be in "
                        f"{[str(v) for v in valid_types]}, but got {arg_type}.")
    return arg_type


def check_string(arg_value, valid_values, arg_name=None, prim_name=None):
    if not isinstance(arg_value, str) or arg_value not in valid_values:
        raise ValueError(f"{_prefix(prim_name)} '{arg_name}' must be str and must be in "
                         f"{list(valid_values)}, but got {arg_value!r}.")
    return arg_value


def check_valid_input(arg_name, arg_value, valid_values, prim_name=None):
    """arg_value is one of valid_values (any type)."""
    if arg_value not in valid_values:
        raise ValueError(f"{_prefix(prim_name)} '{arg_name}' must be in {list(valid_values)}, "
                         f"but got {arg_value!r}.")
    return arg_value


__all__ = [n for n in dir() if n.startswith("check") or n.startswith("INC_")] + \
    ["EQ", "NE", "LT", "LE", "GT", "GE"]
