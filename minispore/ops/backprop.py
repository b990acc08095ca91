"""The one backward walker: recorded entries visited last to first, each primitive's bprop
called on its outputs' cotangents, gradients summed per input; the eager tape
(ops/autodiff.py) and graph autodiff (graph/autodiff.py) both walk with it."""


def backprop(entries, seeds, live, view=None, around=None, on_final=None):
    """Cotangents keyed by id, from `seeds` ((key, cotangent) pairs, summed per key) carried
    back through `entries`, the forward's records in the order they ran.

    An entry is ``(prim, args, out)`` whose tensors are their own keys (the tape's), or
    ``view(entry)`` gives ``(prim, args, out, arg_keys, out_keys)``: what the bprop receives
    and the objects whose ids key the cotangents (graph autodiff: TracedTensors for the bprop,
    the nodes' Values as keys). ``out`` and ``out_keys`` are tuples for an operator with
    several outputs.

    Last entry first: one whose outputs have no cotangent is skipped, unless its primitive
    sets ``backward_always`` (one end of a communication pair, whose peer waits for it);
    outputs without a cotangent get zeros. ``prim.bprop(args, out, dout)`` returns one
    gradient per arg (None for none); a gradient reaches only the args whose key is in `live`,
    and a deferred one (a zero-argument callable) is computed only there, so costly gradients
    nobody needs are never computed. ``around(entry)``, when given, is the context an entry's
    backward runs in (the tracer's phase, provenance and scope for the nodes it traces).

    ``on_final`` maps id(key) -> callback(cotangent or None), called as soon as that cotangent
    can no longer change: right after the walk passes the earliest entry that reads the key
    (or before the walk when none does). Data-parallel training starts each gradient bucket's
    all-reduce there, so communication overlaps the rest of the backward.
    """
    from minispore.ops.functional import zeros_like
    cot = {}
    for key, grad in seeds:
        key = id(key)
        cot[key] = cot[key] + grad if key in cot else grad
    due = _final_positions(entries, view, on_final) if on_final else None
    if due:
        for key in due.pop(-1, ()):
            on_final[key](cot.get(key))
    for index in range(len(entries) - 1, -1, -1):
        entry = entries[index]
        if view is None:
            prim, args, out = entry
            arg_keys, out_keys = args, out
        else:
            prim, args, out, arg_keys, out_keys = view(entry)
        if isinstance(out_keys, tuple):
            dout = tuple([cot.get(id(k)) for k in out_keys])
            reached = any(d is not None for d in dout)
        else:
            dout = cot.get(id(out_keys))
            reached = dout is not None
        if reached or getattr(prim, "backward_always", False):
            if around is None:
                _backprop_entry(prim, args, out, dout, arg_keys, cot, live, zeros_like)
            else:
                with around(entry):
                    _backprop_entry(prim, args, out, dout, arg_keys, cot, live, zeros_like)
        if due:
            for key in due.get(index, ()):
                on_final[key](cot.get(key))
    return cot


def _backprop_entry(prim, args, out, dout, arg_keys, cot, live, zeros_like):
    if isinstance(out, tuple):
        dout = tuple([zeros_like(o) if d is None else d for o, d in zip(out, dout)])
    elif dout is None:
        dout = zeros_like(out)
    grads = prim.bprop(args, out, dout)
    if len(grads) != len(args):
        raise RuntimeError(f"bprop of '{prim.name}' returned {len(grads)} gradients for "
                           f"{len(args)} inputs")
    for k, g in zip(arg_keys, grads):
        if g is not None:
            key = id(k)
            if key in live:
                if callable(g):
                    g = g()
                cot[key] = cot[key] + g if key in cot else g


def _final_positions(entries, view, on_final):
    """{entry index: [ids whose earliest reader is that entry]}, unread ids under -1."""
    first = {}
    for index, entry in enumerate(entries):
        for k in (entry[1] if view is None else view(entry)[3]):
            key = id(k)
            if key in on_final and key not in first:
                first[key] = index
    due = {-1: [key for key in on_final if key not in first]}
    for key, index in first.items():
        due.setdefault(index, []).append(key)
    return due
