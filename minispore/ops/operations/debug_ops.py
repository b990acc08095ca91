"""Debugging and checking operators: Print, which prints strings and tensors when it runs (every
step of a compiled graph, not once at trace time); CheckNumerics, which refuses NaN and inf;
and CheckAllGreater, the value check a kernel of MindSpore's makes (mvlgamma's domain). The
checks too run on every run's values in a compiled graph."""
import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.context import context
from minispore.common.tensor import Tensor
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import is_tensor
from minispore.ops.operations.array_ops import movable
from minispore.ops.primitive import Aval, Primitive

__all__ = ["Print", "CheckNumerics"]   # CheckAllGreater: minispore's own, for functional ops

_PRINTABLE = (Tensor, bool, int, float, str, np.generic)


class Print(Primitive):
    """Print the inputs (strings as they are, tensors as ``Tensor(shape=[...], dtype=...,
    value=...)``), one per line: ``ops.Print()('loss', loss)`` or ``ops.print_(...)``.

    It prints to stdout, or appends to the file ``set_context(print_file_path=...)`` named (as
    text; MindSpore writes a binary file for ``parse_print``). In PYNATIVE_MODE it prints at
    the call; in a compiled graph it is a side-effect node that
    prints each time the graph runs, with the values of that run. Returns a 0-d int32 tensor
    (MindSpore: an invalid value, to be ignored). Not differentiable.

    Raises:
        TypeError: an input that is not a Tensor, bool, int, float, str, tuple or list.
    """
    sharding_rule = rules.replicate_only("it prints whole tensors")

    differentiable = False
    side_effect = True      # prints: graphs keep it and run it every step

    def __call__(self, *inputs):
        return super().__call__(*_flatten(inputs))

    def infer(self, *inputs):
        for i, x in enumerate(inputs):
            if not isinstance(x, _PRINTABLE) and not hasattr(x, "shape"):
                raise self.error(f"input {i} must be a Tensor, bool, int, float, str, tuple or "
                                 f"list, but got {type(x).__name__}.", TypeError)
        return Aval((), mstype.int32)

    def impl(self, *inputs):
        lines = []
        for x in inputs:
            if isinstance(x, str):
                lines.append(x)
            else:
                lines.append(repr(Tensor(np.asarray(device.to_host(x)))))
        path = context().get("print_file_path")
        if path:
            with open(path, "a") as f:
                f.write("\n".join(lines) + "\n")
        else:
            print("\n".join(lines), flush=True)
        out = device.empty((), np.int32)
        kernel("array", "fill")(movable(out), np.int32(0))
        return out


def _flatten(inputs):
    out = []
    for x in inputs:
        if isinstance(x, (tuple, list)):
            out.extend(_flatten(x))
        else:
            out.append(x)
    return out


class CheckAllGreater(Primitive):
    """x passed through unchanged once every element exceeds `bound`; else ValueError(`message`)
    (MindSpore's kernels test ``x <= bound``: NaN passes). Eager calls check at once; as a node
    of a compiled graph it checks the values of every run (a check made while tracing would see
    no values). Its gradient passes dout through."""
    sharding_rule = rules.elementwise

    def __init__(self, bound, message):
        super().__init__()
        self.bound, self.message = float(bound), message
        self.add_prim_attr("bound", self.bound)

    def infer(self, x):
        return Aval(x.shape, x.dtype)

    def impl(self, x):
        if x.size:
            smallest = device.empty((1, 1), x.dtype)
            kernel("reduce", "min_middle")(device.contiguous(x).reshape(1, x.size, 1), smallest)
            if float(device.first(smallest)) <= self.bound:
                raise ValueError(self.message)
        return x

    def bprop(self, inputs, out, dout):
        return (dout,)


class CheckNumerics(Primitive):
    """x unchanged when every element is finite; else RuntimeError ": Tensor had NaN values"
    or ": Tensor had Inf values", for the first non-finite element in row-major order
    (MindSpore 2.7.2's messages). Float16, Float32 or Float64. Its gradient passes dout
    through."""
    sharding_rule = rules.elementwise
    # Numba has no float16 on the CPU: a float16 x is checked as float32 (the same values).
    float16_in_float32 = True

    def infer(self, x):
        if not is_tensor(x) or x.dtype not in mstype.float_types:
            got = f"Tensor[{x.dtype}]" if is_tensor(x) else type(x).__name__
            raise TypeError(f"For primitive[CheckNumerics], the input argument[x] must be a "
                            f"type of {{Tensor[Float16], Tensor[Float32], Tensor[Float64]}}, "
                            f"but got {got}.")
        return Aval(x.shape, x.dtype)

    def impl(self, x):
        flat = device.contiguous(x).reshape(x.size)
        first = kernel("indexing", "first_nonfinite")(flat) if x.size else -1
        if first >= 0:
            value = float(device.first(flat[first:first + 1]))
            raise RuntimeError(f": Tensor had {'NaN' if value != value else 'Inf'} values")
        return x

    def bprop(self, inputs, out, dout):
        return (dout,)
