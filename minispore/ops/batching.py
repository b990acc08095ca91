"""The batching level of the interpreter stack: what ``ops.vmap`` runs `fn` under (JAX's
BatchTrace is the anchor).

Inside vmap, each mapped input is a `BatchedTensor`: it shows `fn` one slice's shape and dtype
and holds the whole batch (the mapped axis first) for the level. A primitive called on one
reaches `BatchLevel.apply`, which runs the operator's batching rule: the rule calls the
operator (or others) once on the whole batch, on the levels below, and the level wraps the
result as a BatchedTensor again. So `fn` runs once, each operator runs once on the batch, and
the levels below see ordinary batched calls: a tape below records them (grad of vmap), a tracer
below records them into the graph (vmap under ms.jit or GRAPH mode), another batching level
below batches them again (nested vmap). A tape or a vmap entered inside `fn` sits above and
sees BatchedTensors (vmap of grad, nested vmap).

The rules are in ops/batching_rules.py, one table from operator class to rule; an operator
whose sharding rule is elementwise batches elementwise, which is the same fact. An operator
without a rule runs once per slice and the results are stacked (MindSpore's general vmap
rule), with a warning naming it the first time.

A Parameter given to vmap as a mapped input stays known (`mapped_parameter`): Assign and the
optimizer updates write every slice's value into it, as MindSpore's model ensembling does;
a write that cannot land in one Parameter is refused by name.
"""
from minispore.common.context import Interpreter
from minispore.common.tensor import Tensor
from minispore.ops.batching_rules import loop, rule_of, write_into_parameter


class MappedValueError(RuntimeError):
    """A mapped Tensor's value was read inside vmap (`level` the level that mapped it)."""

    def __init__(self, message, level):
        super().__init__(message)
        self.level = level


class BatchedTensor(Tensor):
    """One slice's view of a batch inside vmap: the shape and dtype of a slice; the values of
    all of them, ``_batched`` (mapped axis first), belong to the level that made it."""

    def __init__(self, level, batched, parameter=None):
        self._level = level
        self._batched = batched
        self._dtype = batched.dtype
        self._data = None
        self._placeholder_dims = None
        self._parameter = parameter

    @property
    def mapped_parameter(self):
        """(Parameter, axis) when this is a Parameter given to vmap as a mapped input (or
        (the outer vmap's mapped Parameter, axis) in a nested vmap): the writes into it
        (Assign, the optimizer updates) go there, each slice into its own; None otherwise (also for a Tensor that became a BatchedTensor by an
        in-place write, which has no Parameter behind it)."""
        return self.__dict__.get("_parameter")

    @property
    def shape(self):
        return tuple(self._batched.shape[1:])

    def _require_data(self):
        raise MappedValueError(
            f"Inside vmap, a mapped Tensor (shape {list(self.shape)} per slice, dtype "
            f"{self._dtype}) holds one value per slice of the mapped axis, so there is no one "
            f"value to read (bool(), item(), asnumpy(), float(), int(), Python if/while on "
            f"it, or an operator that reads its argument's values on the host).", self._level)

    def __repr__(self):
        return (f"BatchedTensor(shape={list(self.shape)} per slice of {self._level.size}, "
                f"dtype={self._dtype})")

    __str__ = __repr__


class BatchLevel(Interpreter):
    """The level ops.vmap enters: calls that read a BatchedTensor of this level run the
    operator's batching rule; all others pass below untouched."""

    batches = True

    def __init__(self, size):
        super().__init__()
        self.size = size

    def owns(self, x):
        return type(x) is BatchedTensor and x._level is self

    def wrap(self, batched, parameter=None):
        return BatchedTensor(self, batched, parameter)

    def apply(self, prim, args):
        if not any(self._holds(a) for a in args):
            return self.apply_below(prim, args)
        rule = rule_of(prim)
        if rule is None:
            outs = loop(self, prim, args)
        elif any(isinstance(a, (tuple, list)) and self._holds(a) for a in args):
            # the rules read flat arguments (the operators' normalised call forms)
            outs = loop(self, prim, args, "a tuple argument holds a mapped Tensor")
        else:
            outs = rule(self, prim, args)
        if isinstance(outs, tuple):
            return tuple(self.wrap(o) for o in outs)
        return self.wrap(outs)

    def _holds(self, a):
        if isinstance(a, (tuple, list)):
            return any(self._holds(x) for x in a)
        return self.owns(a)

    def run(self, prim, *args):
        """`prim` on `args` (its call's own argument form) on the levels below this one."""
        return self.apply_below(prim, args)

    def replace(self, old, new):
        # an in-place write (an indexed assignment, a Scatter* update) into a mapped Parameter
        # lands in the Parameter, every slice into its own
        if self.owns(old) and old.mapped_parameter is not None:
            write_into_parameter(self, old.mapped_parameter, new)

    def check_replace(self, old, new, name):
        if self.owns(new) and not self.owns(old):
            raise RuntimeError(
                f"For '{name}' inside vmap, the value written in place differs between the "
                f"slices of the mapped axis, but the Tensor written into is not mapped (it "
                f"came from outside the mapped function): write into a mapped Tensor, or "
                f"return the new value instead.")
