"""Operators: Primitive classes (ops.MatMul), functional forms (ops.matmul) and the grad API."""
from minispore.ops import functional  # noqa: F401
from minispore.ops import operations  # noqa: F401
from minispore.ops.functional import *  # noqa: F401,F403
from minispore.ops.function.inplace_func import *  # noqa: F401,F403
from minispore.ops.function.scatter_reduce_func import *  # noqa: F401,F403
from minispore.ops.grad import GradOperation, grad, value_and_grad  # noqa: F401
from minispore.ops.jacobian import jacfwd, jacrev  # noqa: F401
from minispore.ops.vjp_jvp import jvp, vjp  # noqa: F401
from minispore.ops.operations import *  # noqa: F401,F403
from minispore.ops.primitive import Primitive  # noqa: F401
from minispore.ops.primitive_with_infer import (PrimitiveWithCheck, PrimitiveWithInfer,  # noqa: F401
                                              constexpr, prim_attr_register)
from minispore.ops import tensor_methods as _tensor_methods
from minispore.ops.function import sparse_func as _sparse_func

# MindSpore's ops.operations holds every primitive class (P.Acosh, P.Unique, P.Stack). The ones
# minispore composes from other operators live in ops.function, which imports ops.operations, so
# they join that namespace here rather than by an import there. (GradOperation and Primitive are
# not in MindSpore's ops.operations, nor are the front-end bases; Median is only in its
# operations.math_ops.)
for _name, _obj in list(globals().items()):
    if (isinstance(_obj, type) and _name[:1].isupper() and not hasattr(operations, _name)
            and _name not in ("GradOperation", "Primitive", "Median", "PrimitiveWithCheck",
                              "PrimitiveWithInfer")):
        setattr(operations, _name, _obj)
del _name, _obj

# MindSpore's tests import the scatter family from where MindSpore defines it: the primitives
# from ops.operations.array_ops / math_ops, the functions from ops.functional and from
# ops.function (which its math_func holds as F).
from minispore.ops.function import math_func as _math_func  # noqa: E402
from minispore.ops.function import scatter_reduce_func as _scatter_reduce  # noqa: E402
from minispore.ops.operations import array_ops as _array_ops  # noqa: E402
from minispore.ops.operations import math_ops as _math_ops  # noqa: E402
from minispore.ops import function as _function  # noqa: E402
for _name in _scatter_reduce.__all__ + ["TensorScatterElements"]:
    if _name[:1].isupper():
        _home = _math_ops if _name.startswith(("Index", "Inplace")) else _array_ops
        setattr(_home, _name, globals()[_name])
    else:
        setattr(functional, _name, globals()[_name])
        setattr(_function, _name, globals()[_name])
_math_func.F = _function
del _name, _home

# The backward primitives composed of functional ops join mindspore.ops.operations._grad_ops.
from minispore.ops.function import grad_prims_more, grad_prims_nn, grad_prims_pool  # noqa: E402
from minispore.ops.operations import _grad_ops  # noqa: E402

for _module in (grad_prims_more, grad_prims_nn, grad_prims_pool):
    for _name in _module.__all__:
        setattr(_grad_ops, _name, getattr(_module, _name))
    _grad_ops.__all__ = _grad_ops.__all__ + list(_module.__all__)
del _module, _name

_tensor_methods.install()
_sparse_func.install()
