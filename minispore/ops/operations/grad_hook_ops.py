"""Identity primitives: InsertGradientOf (the gradient passes through a user function),
Reusing (MindSpore's marker for a reused cell's inputs, an identity here: minispore compiles
each call site's graph on its own) and Depend (MindSpore's ordering edge)."""
from minispore.ops.operations.array_ops import Identity

__all__ = ["InsertGradientOf", "Reusing", "Depend"]


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


class Depend(Identity):
    """``Depend()(value, expr)``: `value` itself, once `expr` has been computed. MindSpore
    needs the edge to order a side effect (an Assign) before a read in its graphs; minispore
    runs and traces side effects in program order, so `expr` is already done and `value`
    comes back as it is (its gradient untouched, `expr` gets none)."""

    def __call__(self, value, expr):
        return value
