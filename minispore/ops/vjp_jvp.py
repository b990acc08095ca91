"""ops.vjp and ops.jvp: vector-Jacobian and Jacobian-vector products of a function.

vjp runs `fn` once on a tape and returns a function that runs the tape's backward for a given
cotangent (as many times as it is called). minispore has no forward mode, so jvp computes the
Jacobian by reverse mode (ops.jacrev: one backward per output element) and contracts it with
the tangents: the numbers are MindSpore's, the cost grows with the output size.
"""
from minispore.common.tensor import Tensor
from minispore.ops.autodiff import Tape
from minispore.ops.jacobian import jacrev

__all__ = ["vjp", "jvp"]


def _heads(out, has_aux, name):
    if has_aux:
        if not isinstance(out, tuple) or len(out) < 2:
            raise ValueError(f"For '{name}', when 'has_aux' is True, origin 'fn' requires more "
                             f"than one outputs.")
        aux = out[1] if len(out) == 2 else out[1:]
        return (out[0],), out[0], aux
    return (out if isinstance(out, tuple) else (out,)), out, None


def vjp(fn, *inputs, weights=None, has_aux=False):
    """``outputs, vjp_fn = ops.vjp(fn, *inputs)``; ``vjp_fn(v)`` (v shaped like the outputs: a
    tuple of cotangents when fn returns several) returns the tuple of gradients for `inputs`
    (then those for `weights` when given). With has_aux, fn's first output is differentiated
    and the rest comes back as a third value."""
    if not isinstance(has_aux, bool):
        raise TypeError("The 'has_aux' must be bool type.")
    for i, x in enumerate(inputs):
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'vjp', every input must be a Tensor, but input {i} is a "
                            f"{type(x).__name__}.")
    weights = list(weights) if weights is not None else []
    with Tape() as tape:
        for t in list(inputs) + weights:
            tape.watch(t)
        out = fn(*inputs)
    heads, value, aux = _heads(out, has_aux, "vjp")

    def vjp_fn(*v):
        from minispore.ops import functional as F
        cotangents = list(v[0]) if len(v) == 1 and isinstance(v[0], tuple) else list(v)
        if len(cotangents) != len(heads):
            raise ValueError(f"For 'vjp', the function has {len(heads)} outputs to "
                             f"differentiate but {len(cotangents)} cotangents were given.")
        for c, h in zip(cotangents, heads):
            if tuple(c.shape) != tuple(h.shape):
                raise ValueError(f"For 'vjp', a cotangent of shape {tuple(c.shape)} was given "
                                 f"for an output of shape {tuple(h.shape)}.")
        cot = tape.backward(list(heads), cotangents)
        grads = tuple(cot[id(t)] if id(t) in cot else F.zeros_like(t)
                      for t in list(inputs) + weights)
        if weights:
            return grads[:len(inputs)], grads[len(inputs):]
        return grads

    return (value, vjp_fn, aux) if has_aux else (value, vjp_fn)


def jvp(fn, inputs, v, has_aux=False):
    """``outputs, jvp_out = ops.jvp(fn, inputs, v)``: inputs and v a Tensor or matching tuples;
    jvp_out = J(inputs) . v, shaped like the outputs (a tuple when fn returns several). With
    has_aux the first output is differentiated and the rest returned third."""
    from minispore.ops import functional as F
    single = isinstance(inputs, Tensor)
    inputs = (inputs,) if single else tuple(inputs)
    tangents = (v,) if isinstance(v, Tensor) else tuple(v)
    if len(tangents) != len(inputs):
        raise ValueError(f"For 'jvp', 'v' holds {len(tangents)} tangents for {len(inputs)} "
                         f"inputs.")
    for x, t in zip(inputs, tangents):
        if tuple(x.shape) != tuple(t.shape):
            raise ValueError(f"For 'jvp', a tangent of shape {tuple(t.shape)} was given for an "
                             f"input of shape {tuple(x.shape)}.")
    out = fn(*inputs)
    heads, value, aux = _heads(out, has_aux, "jvp")
    positions = tuple(range(len(inputs)))
    jac = jacrev(fn, positions, has_aux)(*inputs)
    if has_aux:
        jac = jac[0]
    per_head = (jac,) if len(heads) == 1 else jac
    products = []
    for head, rows in zip(heads, per_head):
        total = None
        for j, t in zip(rows, tangents):
            flat = F.reshape(j, (head.size, t.size))
            term = F.matmul(flat, F.reshape(F.cast(t, j.dtype), (t.size, 1)))
            total = term if total is None else F.add(total, term)
        products.append(F.reshape(total, tuple(head.shape)))
    result = products[0] if len(heads) == 1 else tuple(products)
    return (value, result, aux) if has_aux else (value, result)
