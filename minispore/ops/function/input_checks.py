"""Argument checks shared by composed functional ops, in MindSpore's wording."""
from minispore.common.tensor import Tensor


def check_tensor_dtype(name, arg, x, dtypes):
    """x is a Tensor of one of `dtypes`; TypeError naming the op, the argument and the dtypes
    otherwise."""
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got {type(x).__name__}.")
    if x.dtype not in dtypes:
        raise TypeError(f"For primitive[{name}], the input argument[{arg}] must be a type of "
                        f"{{{', '.join(f'Tensor[{d}]' for d in dtypes)}}}, but got "
                        f"Tensor[{x.dtype}].")
