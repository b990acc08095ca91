"""Eager reverse-mode autodiff: a tape of (primitive, inputs, outputs) walked backwards."""
from minispore.common.context import context
from minispore.common.tensor import Tensor

_CTX = context()


class Tape:
    """Records the primitives applied to tensors that depend on the watched ones.

    A bprop may return a zero-argument function instead of a gradient Tensor; the tape calls it
    only when that input is live, so costly gradients nobody needs are never computed.

    Only ops with at least one live input are recorded, so work unrelated to the gradient
    (data preparation, metrics) costs one set lookup per input.
    """

    def __init__(self):
        self.entries = []
        self.live = set()
        self._keep = []   # holds watched tensors so their ids stay unique while the tape lives

    def watch(self, tensor):
        self.live.add(id(tensor))
        self._keep.append(tensor)

    def record(self, prim, args, outs):
        live = self.live
        for a in args:
            if isinstance(a, Tensor) and id(a) in live:
                break
        else:
            return
        self.entries.append((prim, args, outs))
        if isinstance(outs, tuple):
            for o in outs:
                live.add(id(o))
        else:
            live.add(id(outs))

    def __enter__(self):
        _CTX.tapes.append(self)
        return self

    def __exit__(self, *exc):
        _CTX.tapes.remove(self)
        return False

    def backward(self, outputs, sens, on_final=None):
        """Cotangents of every live tensor, keyed by id, from `outputs` seeded with `sens`.

        ``on_final`` maps id(tensor) -> callback(cotangent or None), called as soon as that
        tensor's cotangent can no longer change: right after the walk passes the earliest entry
        that reads it (or before the walk when none does). Data-parallel training starts each
        gradient bucket's all-reduce there, so communication overlaps the rest of the backward.
        """
        cot = {}
        for o, s in zip(outputs, sens):
            _accumulate(cot, o, s)
        due = _final_positions(self.entries, on_final) if on_final else {}
        for key in due.pop(-1, ()):
            on_final[key](cot.get(key))
        tracer = _CTX.tracer
        for index in range(len(self.entries) - 1, -1, -1):
            if tracer is None:
                self._backprop_entry(cot, *self.entries[index])
            else:   # tracing: the bprop's nodes are BACKWARD, derived from the forward node
                with tracer.deriving(self.entries[index][2]):
                    self._backprop_entry(cot, *self.entries[index])
            for key in due.get(index, ()):
                on_final[key](cot.get(key))
        return cot

    def _backprop_entry(self, cot, prim, args, outs):
        from minispore.ops import functional as F
        if isinstance(outs, tuple):
            douts = [cot.get(id(o)) for o in outs]
            if all(d is None for d in douts):
                return
            dout = tuple(F.zeros_like(o) if d is None else d for o, d in zip(outs, douts))
        else:
            dout = cot.get(id(outs))
            if dout is None:
                return
        grads = prim.bprop(args, outs, dout)
        if len(grads) != len(args):
            raise RuntimeError(f"bprop of '{prim.name}' returned {len(grads)} gradients for "
                               f"{len(args)} inputs")
        for a, g in zip(args, grads):
            if g is not None and isinstance(a, Tensor) and id(a) in self.live:
                _accumulate(cot, a, g() if callable(g) else g)


def _final_positions(entries, on_final):
    """{entry index: [ids whose earliest reader is that entry]}, unread ids under -1."""
    first = {}
    for index, (_, args, _) in enumerate(entries):
        for a in args:
            key = id(a)
            if key in on_final and key not in first:
                first[key] = index
    due = {-1: [key for key in on_final if key not in first]}
    for key, index in first.items():
        due.setdefault(index, []).append(key)
    return due


def _accumulate(cot, tensor, grad):
    key = id(tensor)
    if key in cot:
        cot[key] = cot[key] + grad
    else:
        cot[key] = grad
