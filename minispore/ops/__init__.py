"""Operators: Primitive classes (ops.MatMul), functional forms (ops.matmul) and the grad API."""
from minispore.ops import functional  # noqa: F401
from minispore.ops import operations  # noqa: F401
from minispore.ops.functional import *  # noqa: F401,F403
from minispore.ops.function.inplace_func import *  # noqa: F401,F403
from minispore.ops.grad import GradOperation, grad, value_and_grad  # noqa: F401
from minispore.ops.jacobian import jacfwd, jacrev  # noqa: F401
from minispore.ops.vjp_jvp import jvp, vjp  # noqa: F401
from minispore.ops.operations import *  # noqa: F401,F403
from minispore.ops.primitive import Primitive  # noqa: F401
from minispore.ops import tensor_methods as _tensor_methods
from minispore.ops.function import sparse_func as _sparse_func

_tensor_methods.install()
_sparse_func.install()
