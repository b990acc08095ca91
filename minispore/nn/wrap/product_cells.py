"""nn.Jvp and nn.Vjp (Jacobian-vector and vector-Jacobian products of a function, as Cells),
nn.ParameterUpdate (a Cell whose call assigns its input to a Parameter) and nn.GetNextSingleOp
(a Cell whose call is one GetNext of a data queue).

Vjp is GradOperation(get_all=True, sens_param=True) of `fn`, the vector as the sensitivity,
as MindSpore builds it. Jvp is MindSpore's double-backward construction: the vjp u -> J^T u
is linear in u, so the gradient of <J^T u, v> with respect to u is J v, whatever u is (ones).
Both run in PYNATIVE and GRAPH mode, as the GradOperation they are built from does."""
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.ops import functional as F
from minispore.ops.grad import GradOperation
from minispore.ops.operations.data_queue_ops import GetNext

__all__ = ["Jvp", "Vjp", "ParameterUpdate", "GetNextSingleOp"]


def _check_fn(name, fn):
    if not callable(fn):
        raise TypeError(f"For '{name}', 'fn' must be a Cell or a function, but got "
                        f"{type(fn).__name__}.")


def _ones_like(out):
    return tuple(F.ones_like(o) for o in out) if isinstance(out, tuple) else F.ones_like(out)


class _Product(Cell):
    """Holds `fn` and the GradOperation(get_all=True, sens_param=True) both products use."""

    def __init__(self, fn):
        super().__init__()
        _check_fn(type(self).__name__, fn)
        self.fn = fn
        self.grad = GradOperation(get_all=True, sens_param=True)


class Vjp(_Product):
    """``Vjp(fn)(*inputs, v)`` -> (fn(*inputs), v . J): the gradients of fn's outputs weighted
    by `v` (a tuple when fn returns several), one Tensor for a single input, else a tuple."""

    def construct(self, *args):
        inputs, v = args[:-1], args[-1]
        output = self.fn(*inputs)
        grads = self.grad(self.fn)(*inputs, v)
        return output, grads[0] if len(inputs) == 1 else grads


class Jvp(_Product):
    """``Jvp(fn)(*inputs, v)`` -> (fn(*inputs), J . v): `v` holds one tangent per input (a
    Tensor for a single input, else a tuple); the product is shaped like fn's outputs."""

    def construct(self, *args):
        inputs, v = args[:-1], args[-1]
        tangents = (v,) if len(inputs) == 1 else tuple(v)
        if len(tangents) != len(inputs):
            raise ValueError(f"For 'Jvp', 'v' holds {len(tangents)} tangents for "
                             f"{len(inputs)} inputs.")
        output = self.fn(*inputs)
        vjp = self.grad(self.fn)
        several = isinstance(output, tuple)

        def vjp_of_u(*us):
            return vjp(*inputs, us if several else us[0])

        # d/du <J^T u, v> = J v: the sensitivity of vjp_of_u's outputs is v
        us = _ones_like(output) if several else (_ones_like(output),)
        products = self.grad(vjp_of_u)(*us, tangents)
        return output, products if several else products[0]


class ParameterUpdate(Cell):
    """``ParameterUpdate(param)(x)`` assigns x to `param` and returns x (MindSpore's way to
    set a Parameter from a Cell call, e.g. in a graph that is exported)."""

    def __init__(self, param):
        super().__init__(auto_prefix=False)
        if not isinstance(param, Parameter):
            raise TypeError(f"For 'ParameterUpdate', 'param' must be 'Parameter', but got "
                            f"{type(param)}.")
        self._param = param

    def construct(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'ParameterUpdate', the input must be a Tensor, but got "
                            f"{type(x).__name__}.")
        F.assign(self._param, x)
        return x


class GetNextSingleOp(Cell):
    """``GetNextSingleOp(dataset_types, dataset_shapes, queue_name)()``: the next batch of the
    data queue `queue_name` (ops.GetNext with one output per type)."""

    def __init__(self, dataset_types, dataset_shapes, queue_name):
        super().__init__()
        self.get_next = GetNext(dataset_types, dataset_shapes, len(dataset_types), queue_name)

    def construct(self):
        return self.get_next()
