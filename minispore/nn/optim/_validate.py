"""Argument checks of the optimizers' hyper-parameters, with MindSpore's messages: these
arguments must be Python floats (an int is a TypeError, as in MindSpore)."""

__all__ = ["check_bool", "check_float", "check_non_negative", "check_positive", "check_range"]


def check_float(name, arg_name, value):
    if not isinstance(value, float):
        raise TypeError(f"For '{name}', the type of '{arg_name}' should be 'float', but got type "
                        f"'{type(value).__name__}'.")
    return float(value)


def check_bool(name, arg_name, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{name}', the type of '{arg_name}' should be 'bool', but got type "
                        f"'{type(value).__name__}'.")
    return value


def check_non_negative(name, arg_name, value):
    value = check_float(name, arg_name, value)
    if not value >= 0:
        raise ValueError(f"For '{name}', the '{arg_name}' must be float and must >= 0, but got "
                         f"'{value}' with type 'float'.")
    return value


def check_positive(name, arg_name, value):
    value = check_float(name, arg_name, value)
    if not value > 0:
        raise ValueError(f"For '{name}', the '{arg_name}' must be float and must > 0, but got "
                         f"'{value}' with type 'float'.")
    return value


def check_range(name, arg_name, value, low, high, closed=False):
    """low < value < high, or low <= value <= high when `closed`."""
    value = check_float(name, arg_name, value)
    inside = low <= value <= high if closed else low < value < high
    if not inside:
        left, right = ("[", "]") if closed else ("(", ")")
        raise ValueError(f"For '{name}', the '{arg_name}' must be in range of {left}{low}, "
                         f"{high}{right}, but got {value} with type 'float'.")
    return value
