"""ops.jacrev / ops.jacfwd: the Jacobian of `fn` w.r.t. the inputs at `grad_position`, one
reverse-mode gradient per output element (a one-hot sensitivity each).

Both give MindSpore's Jacobian and its nesting: for each output of `fn` (a tuple when it has
several), the Jacobian w.r.t. each position (a tuple when `grad_position` is one), shaped
output.shape + input.shape. minispore has no forward mode, so jacfwd computes the same Jacobian
by reverse mode: the numbers are the same, the cost is that of jacrev (one forward and backward
per output element, so meant for small outputs; no vectorisation over them).
"""
import numpy as np

from minispore.common.tensor import Tensor
from minispore.ops.grad import _check_positions, _run_with_tape

__all__ = ["jacfwd", "jacrev"]


def _check_has_aux(has_aux):
    if not isinstance(has_aux, bool):
        raise TypeError("The 'has_aux' must be bool type.")


def jacrev(fn, grad_position=0, has_aux=False):
    """``jacrev(fn, grad_position=0, has_aux=False)(*args)``: the Jacobian of fn's outputs (the
    first one alone with `has_aux`, then also returning the others) w.r.t. args[grad_position].

    >>> import numpy as np, minispore as ms
    >>> from minispore import ops
    >>> x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    >>> ops.jacrev(lambda a: a * a)(x).asnumpy().tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    """
    _check_has_aux(has_aux)
    return _jacobian(fn, grad_position, has_aux)


def jacfwd(fn, grad_position=0, has_aux=False):
    """``jacfwd(fn, grad_position=0, has_aux=False)``: MindSpore's forward-mode Jacobian; the
    same Jacobian as `jacrev`, computed by reverse mode here (module docstring)."""
    _check_has_aux(has_aux)
    return _jacobian(fn, grad_position, has_aux)


def _jacobian(fn, grad_position, has_aux):
    from minispore.ops import functional as F

    def jacobian(*args):
        positions = _check_positions(grad_position, None, len(args), _name(fn))
        out = fn(*args)
        if has_aux and (not isinstance(out, tuple) or len(out) < 2):
            raise ValueError("When 'has_aux' is True, origin 'fn' requires more than one "
                             "outputs.")
        heads = (out[0],) if has_aux else (out if isinstance(out, tuple) else (out,))
        for h in heads:
            if not isinstance(h, Tensor) or not h.dtype.is_float:
                raise TypeError(f"For 'jacrev' of '{_name(fn)}', every differentiated output "
                                f"must be a float Tensor, but got {_describe(h)}.")
        zeros = [F.zeros_like(h) for h in heads]
        jac = []
        for o, head in enumerate(heads):
            rows = [[] for _ in positions]
            for k in range(head.size):
                basis = np.zeros(head.size, head.dtype.np_dtype)
                basis[k] = 1
                one_hot = Tensor(basis.reshape(head.shape), head.dtype)
                sens = tuple(one_hot if i == o else z for i, z in enumerate(zeros))
                _, grads, _ = _run_with_tape(fn, args, positions, None, has_aux,
                                             sens if len(sens) > 1 else sens[0])
                for row, g in zip(rows, grads):
                    row.append(g)
            jac.append(tuple(
                F.reshape(F.stack(row), tuple(head.shape) + tuple(args[p].shape))
                for row, p in zip(rows, positions)))
        per_output = [j[0] if isinstance(grad_position, int) else j for j in jac]
        result = per_output[0] if len(heads) == 1 else tuple(per_output)
        return (result,) + tuple(out[1:]) if has_aux else result
    return jacobian


def _name(fn):
    return getattr(fn, "__name__", type(fn).__name__)


def _describe(value):
    if isinstance(value, Tensor):
        return f"a {value.dtype} Tensor"
    return type(value).__name__
