"""Identity primitives that act on the backward pass: InsertGradientOf (the gradient passes
through a user function) and Reusing (MindSpore's marker for a reused cell's inputs, an
identity here: minispore compiles each call site's graph on its own)."""
from minispore.ops.operations.array_ops import Identity

__all__ = ["InsertGradientOf", "Reusing"]


class InsertGradientOf(Identity):
    """``InsertGradientOf(f)(x)``: x unchanged; its gradient is f(dout), computed with
    operators (so it is traced into compiled graphs too), e.g. a clip of the gradient."""

    def __init__(self, f):
        super().__init__()
        self.f = f

    def bprop(self, inputs, out, dout):
        if not callable(self.f):
            raise TypeError(f"For 'InsertGradientOf', 'f' must be callable to transform the "
                            f"gradient, but got {type(self.f).__name__}.")
        return (self.f(dout),)


class Reusing(Identity):
    """``Reusing()(x)``: x unchanged, the gradient passes through."""
