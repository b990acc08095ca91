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
from minispore.ops import tensor_methods as _tensor_methods
from minispore.ops.function import sparse_func as _sparse_func

# MindSpore's ops.operations holds every primitive class (P.Acosh, P.Unique, P.Stack). The ones
# minispore composes from other operators live in ops.function, which imports ops.operations, so
# they join that namespace here rather than by an import there. (GradOperation and Primitive are
# not in MindSpore's ops.operations; Median is only in its operations.math_ops.)
for _name, _obj in list(globals().items()):
    if (isinstance(_obj, type) and _name[:1].isupper() and not hasattr(operations, _name)
            and _name not in ("GradOperation", "Primitive", "Median")):
        setattr(operations, _name, _obj)
del _name, _obj

_tensor_methods.install()
_sparse_func.install()
