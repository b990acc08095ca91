"""The gradient API: ms.grad, ms.value_and_grad and ops.GradOperation, over the eager tape.

Called in GRAPH_MODE outside a trace, a gradient function runs compiled, as in MindSpore (its
GradOperation wraps the function in ``jit`` in GRAPH_MODE): the tape then records while the
function is traced, so the backward is part of the graph, and GRAPH-mode cells called inside
are traced into it rather than run as opaque graphs the tape cannot see through.
"""
import functools
from contextlib import nullcontext

from minispore.common.context import GRAPH_MODE, context
from minispore.common.registry import REGISTRY
from minispore.common.tensor import Tensor
from minispore.ops.autodiff import Tape

_CTX = context()
# Node phase names (minispore/graph/ir.py), spelled here so ops need not import graph.
BACKWARD = "backward"
# How GRAPH_MODE compiles a gradient function: minispore.graph.jit plugs its `jit` into the
# registry's "graph.jit" point at import (graph sits above ops, which cannot import it).


def _compiled_in_graph_mode(run, fn):
    """`run` (a gradient function of `fn`) that, called in GRAPH_MODE outside a trace, runs
    through one jit compile (placeholders: the Cell `fn`'s set_inputs), named after `fn` in
    the compile cache and the save_graphs folders."""
    compiled = []
    run.__name__ = run.__qualname__ = _name(fn)

    @functools.wraps(run)
    def dispatch(*args):
        compile_ = REGISTRY.plugged("graph.jit")
        if _CTX.mode != GRAPH_MODE or _CTX.tracer is not None or compile_ is None:
            return run(*args)
        if not compiled:
            get_inputs = getattr(fn, "get_inputs", None)
            compiled.append(compile_(
                run, input_signature=get_inputs() if get_inputs is not None else None))
        return compiled[0](*args)

    def compile_cache_info():
        """The GRAPH-mode compilations of this gradient function (none before its first
        GRAPH-mode call): dict(compiles=, hits=, entries=)."""
        if not compiled:
            return {"compiles": 0, "hits": 0, "entries": 0}
        return compiled[0].compile_cache_info()

    dispatch.compile_cache_info = compile_cache_info
    return dispatch


def _check_positions(grad_position, weights, nargs, fn_name):
    if grad_position is None:
        if weights is None:
            raise ValueError(f"For 'grad' of '{fn_name}', 'grad_position' and 'weights' cannot "
                             f"both be None.")
        return ()
    positions = (grad_position,) if isinstance(grad_position, int) else tuple(grad_position)
    for p in positions:
        if not isinstance(p, int) or isinstance(p, bool):
            raise TypeError(f"For 'grad' of '{fn_name}', 'grad_position' must be an int or a "
                            f"tuple of ints, but got {grad_position!r}.")
        if not -nargs <= p < nargs:
            raise ValueError(f"For 'grad' of '{fn_name}', 'grad_position' {p} is out of range "
                             f"for {nargs} positional inputs.")
    return tuple(p % nargs for p in positions)


def _one_position(grad_position):
    # MindSpore treats grad_position=(k,) as k: the gradient comes back as a Tensor, not a
    # 1-tuple (ms.grad(f, (0,))(x) is a Tensor in 2.7.2).
    if isinstance(grad_position, (tuple, list)) and len(grad_position) == 1:
        return grad_position[0]
    return grad_position


def _weights_list(weights):
    if weights is None:
        return None
    if isinstance(weights, Tensor):
        return [weights]
    return list(weights)


def _leaves(out):
    """A nested tuple/list output as its leaves, depth first (LSTM's (y, (h, c)) is three
    heads, each differentiated with its own sens)."""
    flat = []
    for o in out:
        flat.extend(_leaves(o) if isinstance(o, (tuple, list)) else (o,))
    return tuple(flat)


def _run_with_tape(fn, args, positions, weights, has_aux, sens=None):
    """Run fn(*args) on a tape; return (full output, input grads, weight grads)."""
    from minispore.ops import functional as F
    fn_name = getattr(fn, "__name__", type(fn).__name__)
    for p in positions:
        if not isinstance(args[p], Tensor):
            raise TypeError(f"For 'grad' of '{fn_name}', the input at grad_position {p} must be "
                            f"a Tensor, but got {type(args[p]).__name__}.")
    with Tape() as tape:
        for p in positions:
            tape.watch(args[p])
        for w in weights or ():
            tape.watch(w)
        out = fn(*args)
    if has_aux:
        if not isinstance(out, tuple) or len(out) < 2:
            raise ValueError(f"For 'grad' of '{fn_name}' with has_aux=True, the function must "
                             f"return a tuple of at least two outputs, but got "
                             f"{type(out).__name__}.")
        heads = (out[0],)
    else:
        heads = _leaves(out) if isinstance(out, (tuple, list)) else (out,)
    tracer = _CTX.tracer
    with tracer.in_phase(BACKWARD) if tracer is not None else nullcontext():
        if sens is None:
            sens_list = [F.ones_like(h) if isinstance(h, Tensor) else None for h in heads]
        else:
            sens_list = list(_leaves(sens)) if isinstance(sens, (tuple, list)) else [sens]
        # A non-Tensor output (a Python number such as ops.Size's) does not depend on the
        # inputs' values: it contributes no gradient, as in MindSpore.
        pairs = [(h, s) for h, s in zip(heads, sens_list) if isinstance(h, Tensor)]
        heads = tuple(h for h, _ in pairs)
        cot = tape.backward(heads, [s for _, s in pairs])

        def grad_of(t):
            g = cot.get(id(t))
            return F.zeros_like(t) if g is None else g

        input_grads = tuple(grad_of(args[p]) for p in positions)
        weight_grads = tuple(grad_of(w) for w in weights) if weights is not None else None
    if tracer is not None:
        wrt = [args[p] for p in positions] + list(weights or ())
        tracer.gradient_taken(heads, wrt, input_grads + (weight_grads or ()), sens is not None)
    return out, input_grads, weight_grads


def _pack(grad_position, input_grads, weight_grads):
    if weight_grads is None:
        return input_grads[0] if isinstance(grad_position, int) else input_grads
    if grad_position is None:
        return weight_grads
    pos = input_grads[0] if isinstance(grad_position, int) else input_grads
    return pos, weight_grads


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False):
    """Return a function computing ``(fn(*args), gradients)``.

    Gradients are taken w.r.t. the inputs at ``grad_position`` (int, tuple or None) and the
    Parameters in ``weights``; with both, the result is ``(input_grads, weight_grads)``.
    With ``has_aux=True`` only the first output is differentiated.

    >>> import minispore as ms, numpy as np
    >>> f = ms.value_and_grad(lambda x: (x * x).sum())
    >>> v, g = f(ms.Tensor(np.array([1.0, 2.0], np.float32)))
    >>> g.asnumpy().tolist()
    [2.0, 4.0]
    """
    weights = _weights_list(weights)
    grad_position = _one_position(grad_position)

    def wrapper(*args):
        positions = _check_positions(grad_position, weights, len(args), _name(fn))
        out, ig, wg = _run_with_tape(fn, args, positions, weights, has_aux)
        return out, _pack(grad_position, ig, wg)

    return _compiled_in_graph_mode(wrapper, fn)


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """Return a function computing the gradients of ``fn`` (see value_and_grad).

    With ``has_aux=True`` it returns ``(gradients, aux_outputs)``.
    """
    weights = _weights_list(weights)
    grad_position = _one_position(grad_position)

    def wrapper(*args):
        positions = _check_positions(grad_position, weights, len(args), _name(fn))
        out, ig, wg = _run_with_tape(fn, args, positions, weights, has_aux)
        grads = _pack(grad_position, ig, wg)
        if return_ids:
            grads = _with_ids(grad_position, positions, weights, grads)
        if has_aux:
            return grads, tuple(out[1:])     # a tuple even for one aux output, as MindSpore
        return grads

    return _compiled_in_graph_mode(wrapper, fn)


def _with_ids(grad_position, positions, weights, grads):
    if weights is None:
        if isinstance(grad_position, int):
            return (positions[0], grads)
        return tuple(zip(positions, grads))
    named = tuple((w.name, g) for w, g in zip(weights, grads if grad_position is None else grads[1]))
    if grad_position is None:
        return named
    pos = grads[0]
    pos = (positions[0], pos) if isinstance(grad_position, int) else tuple(zip(positions, pos))
    return pos, named


def _name(fn):
    return getattr(fn, "__name__", type(fn).__name__)


class GradOperation:
    """MindSpore's higher-order grad: ``GradOperation(get_all, get_by_list, sens_param)(fn[, weights])``.

    - default: gradient w.r.t. the first input;
    - ``get_all``: a tuple with the gradient of every input;
    - ``get_by_list``: gradients of ``weights``; with get_all too, ``(input_grads, weight_grads)``;
    - ``sens_param``: the last call argument is the output sensitivity instead of ones.
    """

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        for name, v in (("get_all", get_all), ("get_by_list", get_by_list),
                        ("sens_param", sens_param)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'GradOperation', '{name}' must be bool, "
                                f"but got {type(v).__name__}.")
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param

    def __call__(self, fn, weights=None):
        if self.get_by_list and weights is None:
            raise TypeError("For 'GradOperation' with get_by_list=True, 'weights' (a list of "
                            "Parameters) must be given.")
        weights = _weights_list(weights) if self.get_by_list else None

        def wrapper(*args):
            sens = None
            if self.sens_param:
                if not args:
                    raise ValueError("For 'GradOperation' with sens_param=True, the last input "
                                     "must be the sensitivity, but no input was given.")
                args, sens = args[:-1], args[-1]
            tensor_positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
            if self.get_all:
                positions = tensor_positions
            elif self.get_by_list:
                positions = ()
            else:
                positions = tensor_positions[:1]
            _, ig, wg = _run_with_tape(fn, args, positions, weights, False, sens)
            if self.get_by_list:
                return (ig, wg) if self.get_all else wg
            return ig if self.get_all else ig[0]

        return _compiled_in_graph_mode(wrapper, fn)
