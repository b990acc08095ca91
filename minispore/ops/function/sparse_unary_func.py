"""ops.csr_<f> and ops.coo_<f>: an elementwise function applied to a CSRTensor's or COOTensor's
stored values, its indptr, indices and shape kept (MindSpore's sparse_unary_func).

Each pair is generated from one table row; the values are an ordinary Tensor, so the functions
run in every mode and differentiate through the values. Dtype rules are those of the dense op
(coo_sqrt of int32 values gives float32, csr_inv of int32 values an int32 reciprocal)."""
from minispore.common.sparse_tensor import COOTensor, CSRTensor
from minispore.ops.function import math_compose_func as MC
from minispore.ops.function import math_func as M
from minispore.ops.function import nn_compose_func as NC
from minispore.ops.function import nn_func as N

# name -> (dense function, what it computes)
_UNARY = {
    "abs": (M.abs, "|x|"), "acos": (M.acos, "arccos(x)"), "acosh": (MC.acosh, "arccosh(x)"),
    "asin": (M.asin, "arcsin(x)"), "asinh": (MC.asinh, "arcsinh(x)"),
    "atan": (M.atan, "arctan(x)"), "atanh": (MC.atanh, "arctanh(x)"),
    "ceil": (M.ceil, "ceil(x)"), "cos": (M.cos, "cos(x)"), "cosh": (M.cosh, "cosh(x)"),
    "exp": (M.exp, "e**x"), "expm1": (M.expm1, "e**x - 1"), "floor": (M.floor, "floor(x)"),
    "inv": (MC.inv, "1 / x"), "isfinite": (M.isfinite, "x is finite (bool)"),
    "isinf": (M.isinf, "x is +-inf (bool)"), "isnan": (M.isnan, "x is NaN (bool)"),
    "log": (M.log, "ln(x)"), "log1p": (M.log1p, "ln(1 + x)"), "neg": (M.neg, "-x"),
    "relu": (N.relu, "max(x, 0)"), "relu6": (NC.relu6, "min(max(x, 0), 6)"),
    "round": (MC.round, "x rounded half to even"), "sigmoid": (N.sigmoid, "1 / (1 + e**-x)"),
    "sin": (M.sin, "sin(x)"), "sinh": (M.sinh, "sinh(x)"), "softsign": (NC.softsign, "x / (1 + |x|)"),
    "sqrt": (M.sqrt, "sqrt(x)"), "square": (M.square, "x * x"), "tan": (M.tan, "tan(x)"),
    "tanh": (N.tanh, "tanh(x)"),
}


def _csr_function(name, fn, what):
    def csr_unary(x):
        if not isinstance(x, CSRTensor):
            raise TypeError(f"Expects CSRTensor for csr_{name}")
        return CSRTensor(x.indptr, x.indices, fn(x.values), x.shape)
    csr_unary.__name__ = csr_unary.__qualname__ = f"csr_{name}"
    csr_unary.__doc__ = (f"The CSRTensor of {what} over `x`'s stored values, with `x`'s indptr, "
                         f"indices and shape. Raises TypeError when `x` is not a CSRTensor.")
    return csr_unary


def _coo_function(name, fn, what):
    def coo_unary(x):
        if not isinstance(x, COOTensor):
            raise TypeError(f"Expects COOTensor for coo_{name}")
        return COOTensor(x.indices, fn(x.values), x.shape)
    coo_unary.__name__ = coo_unary.__qualname__ = f"coo_{name}"
    coo_unary.__doc__ = (f"The COOTensor of {what} over `x`'s stored values, with `x`'s indices "
                         f"and shape. Raises TypeError when `x` is not a COOTensor.")
    return coo_unary


__all__ = []
for _name, (_fn, _what) in _UNARY.items():
    for _make in (_csr_function, _coo_function):
        _f = _make(_name, _fn, _what)
        globals()[_f.__name__] = _f
        __all__.append(_f.__name__)
del _name, _fn, _what, _make, _f
