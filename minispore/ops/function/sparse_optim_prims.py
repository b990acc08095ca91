"""MindSpore's row-sparse optimizer primitives (FusedSparseAdam, FusedSparseLazyAdam,
FusedSparseFtrl, SparseApplyFtrl, FusedSparseProximalAdagrad, SparseApplyAdagrad,
SparseApplyAdagradV2, SparseApplyRMSProp) and the dense ApplyAdagradV2 and ApplyAdamWithAmsgrad,
composed of existing operators.

A sparse update takes `grad` rows (n, *var.shape[1:]) for the rows `indices` (n,) of `var`.
Each call scatters the gradient rows into a dense (N, ...) gradient (UnsortedSegmentSum),
computes the dense update formula on every row, keeps it only on the rows named (Select) and
assigns the Parameters in place (Assign): static shapes throughout, so one composition serves
PYNATIVE and GRAPH mode on either device. Repeated indices follow MindSpore 2.7.2's CPU
kernels: the Fused* ops and SparseApplyAdagrad sum a row's gradients into one update;
SparseApplyFtrl, SparseApplyAdagradV2 and SparseApplyRMSProp apply them one after another in
index order (one "round" per occurrence). An index outside [0, N) updates nothing, as
MindSpore 2.7.2's CPU kernels ignore it (checked: SparseApplyAdagrad with index 5 of 3 rows
leaves var as it was). Not differentiable (MindSpore has no bprop).
"""
import math
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.operations.optim_ops import Adam

__all__ = ["FusedSparseAdam", "FusedSparseLazyAdam", "FusedSparseFtrl", "SparseApplyFtrl",
           "FusedSparseProximalAdagrad", "SparseApplyAdagrad", "SparseApplyAdagradV2",
           "SparseApplyRMSProp", "ApplyAdagradV2", "ApplyAdamWithAmsgrad"]

_INDEX_TYPES = (mstype.int32, mstype.int64)


def _float_attr(name, arg, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{name}', the '{arg}' must be a float, but got "
                        f"{type(value).__name__}.")
    return float(value)


def _bool_attr(name, arg, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{name}', the '{arg}' must be a bool, but got "
                        f"{type(value).__name__}.")
    return value


class _Update:
    """The checks and the write-back shared by every update here: `state` names the
    Parameters (var first) that must share var's shape and float16/float32 dtype; `scalars`
    the call-time numbers (a Python number or a 1-element Tensor)."""

    state = ()
    scalars = ()
    floats = (mstype.float16, mstype.float32)

    def __init__(self):
        self.name = type(self).__name__

    def __repr__(self):
        return f"Prim[{self.name}]"

    def _error(self, message, exc=ValueError):
        return exc(f"For '{self.name}', {message}")

    def _check_state(self, states):
        var = states[0]
        for arg, x in zip(self.state, states):
            if not isinstance(x, Tensor):
                raise self._error(f"the '{arg}' must be a Tensor, but got {type(x).__name__}.",
                                  TypeError)
        if var.dtype not in self.floats:
            raise self._error(f"the '{self.state[0]}' dtype must be one of "
                              f"{[str(t) for t in self.floats]}, but got {var.dtype}.",
                              TypeError)
        for arg, x in zip(self.state[1:], states[1:]):
            if tuple(x.shape) != tuple(var.shape):
                raise self._error(f"the shape of '{arg}' {tuple(x.shape)} must equal the "
                                  f"shape of '{self.state[0]}' {tuple(var.shape)}.")
            if x.dtype != var.dtype:
                raise self._error(f"the dtype of '{arg}' {x.dtype} must equal the dtype of "
                                  f"'{self.state[0]}' {var.dtype}.", TypeError)

    def _check_scalars(self, values):
        for arg, x in zip(self.scalars, values):
            if isinstance(x, Tensor):
                if int(np.prod(x.shape)) != 1:
                    raise self._error(f"the '{arg}' must be a number or a 1-element Tensor, "
                                      f"but got shape {tuple(x.shape)}.")
            elif isinstance(x, bool) or not isinstance(x, numbers.Real):
                raise self._error(f"the '{arg}' must be a number or a Tensor, but got "
                                  f"{type(x).__name__}.", TypeError)

    def _check_grad(self, var, grad, indices):
        if not isinstance(grad, Tensor):
            raise self._error(f"the 'grad' must be a Tensor, but got {type(grad).__name__}.",
                              TypeError)
        if grad.dtype != var.dtype:
            raise self._error(f"the dtype of 'grad' {grad.dtype} must equal the dtype of "
                              f"'{self.state[0]}' {var.dtype}.", TypeError)
        if indices is None:
            if tuple(grad.shape) != tuple(var.shape):
                raise self._error(f"the shape of 'grad' {tuple(grad.shape)} must equal the "
                                  f"shape of '{self.state[0]}' {tuple(var.shape)}.")
            return
        if not isinstance(indices, Tensor):
            raise self._error(f"the 'indices' must be a Tensor, but got "
                              f"{type(indices).__name__}.", TypeError)
        if indices.dtype not in _INDEX_TYPES:
            raise self._error(f"the 'indices' dtype must be int32 or int64, but got "
                              f"{indices.dtype}.", TypeError)
        if indices.ndim != 1:
            raise self._error(f"the rank of 'indices' must be 1, but got {indices.ndim}.")
        if grad.ndim < 1:
            raise self._error("the rank of 'grad' must be at least 1, but got 0.")
        if grad.shape[0] != indices.shape[0]:
            raise self._error(f"the grad_shape[0] {grad.shape[0]} must equal the "
                              f"indices_shape[0] {indices.shape[0]}.")
        if tuple(grad.shape[1:]) != tuple(var.shape[1:]):
            raise self._error(f"the grad_shape[1:] {tuple(grad.shape[1:])} must equal the "
                              f"var_shape[1:] {tuple(var.shape[1:])}.")

    def _write(self, states, new):
        return tuple(A.assign(p, n) for p, n in zip(states, new))


class _SparseUpdate(_Update):
    """Subclasses define `update(states, g, scalars) -> new states` (dense formulas on every
    row, g the dense gradient) and set `summed` (repeated rows' gradients summed into one
    update) or not (applied in index order)."""

    summed = True

    def __call__(self, *args):
        k = len(self.state)
        states, scalars = args[:k], args[k:-2]
        grad, indices = args[-2:]
        self._check_state(states)
        self._check_scalars(scalars)
        self._check_grad(states[0], grad, indices)
        new = tuple(states)
        for g, touched in self._rounds(states[0], grad, indices):
            updated = self.update(new, g, scalars)
            new = tuple(M.select(touched, u, s) for u, s in zip(updated, new))
        return self._write(states, new)

    def _rounds(self, var, grad, indices):
        """(dense gradient, mask of the rows it touches) for each round of the update."""
        rows, n = var.shape[0], indices.shape[0]
        bcast = (rows,) + (1,) * (var.ndim - 1)
        if self.summed:
            weights = [A.ones((n,), var.dtype)]
        else:
            # rank[j] = how many earlier positions name the same row: round r applies the
            # r-th occurrence of every row, so repeated rows update in index order.
            same = M.equal(A.reshape(indices, (n, 1)), A.reshape(indices, (1, n)))
            earlier = Tensor(np.tril(np.ones((n, n), np.int32), -1))
            rank = M.reduce_sum(A.cast(same, mstype.int32) * earlier, 1)
            count = n if rank.traced else int(M.reduce_max(rank).asnumpy()) + 1 if n else 0
            weights = [A.cast(M.equal(rank, r), var.dtype) for r in range(count)]
        for w in weights:
            g = A.unsorted_segment_sum(grad * A.reshape(w, (n,) + (1,) * (grad.ndim - 1)),
                                       indices, rows)
            hits = A.unsorted_segment_sum(w, indices, rows)
            yield g, A.broadcast_to(A.reshape(M.greater(hits, 0), bcast), tuple(var.shape))


def _sqrt_pow(x, neg_power):
    """x ** -lr_power, as a square root where lr_power is -0.5 (MindSpore's kernels do, and
    pow rounds differently)."""
    return M.sqrt(x) if neg_power == 0.5 else M.pow(x, neg_power)


class FusedSparseLazyAdam(_SparseUpdate):
    """Adam on the rows named only: for each row i of `indices` (repeated rows' gradients
    summed) m = m + (g - m)(1 - beta1); v = v + (g^2 - v)(1 - beta2);
    var -= lr * sqrt(1 - beta2_power) / (1 - beta1_power) * m / (sqrt(v) + epsilon)
    (use_nesterov: beta1 * m + (1 - beta1) * g in place of m). Other rows keep their values.

    FusedSparseLazyAdam(use_locking=False, use_nesterov=False)(var, m, v, beta1_power,
    beta2_power, lr, beta1, beta2, epsilon, grad, indices) -> (var, m, v).
    """

    state = ("var", "m", "v")
    scalars = ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon")

    def __init__(self, use_locking=False, use_nesterov=False):
        super().__init__()
        self.use_locking = _bool_attr(self.name, "use_locking", use_locking)
        self.use_nesterov = _bool_attr(self.name, "use_nesterov", use_nesterov)

    def update(self, states, g, scalars):
        var, m, v = states
        b1p, b2p, lr, b1, b2, eps = scalars
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        lr_t = lr * _sqrt(1 - b2p) / (1 - b1p)
        step = m * b1 + g * (1 - b1) if self.use_nesterov else m
        return var - lr_t * step / (M.sqrt(v) + eps), m, v


def _sqrt(x):
    return M.sqrt(x) if isinstance(x, Tensor) else math.sqrt(x)


class FusedSparseAdam(FusedSparseLazyAdam):
    """Adam over every row with the gradient rows scattered (repeated rows summed) into zeros:
    rows not named still decay m and v and move var, as MindSpore's kernel does. Runs the
    dense Adam operator on that gradient (the lazy form's attributes and checks).

    FusedSparseAdam(use_locking=False, use_nesterov=False)(var, m, v, beta1_power,
    beta2_power, lr, beta1, beta2, epsilon, grad, indices) -> (var, m, v).
    """

    def __init__(self, use_locking=False, use_nesterov=False):
        super().__init__(use_locking, use_nesterov)
        self._adam = Adam(use_locking=use_locking, use_nesterov=use_nesterov)

    def __call__(self, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
                 indices):
        scalars = (beta1_power, beta2_power, lr, beta1, beta2, epsilon)
        self._check_state((var, m, v))
        self._check_scalars(scalars)
        self._check_grad(var, grad, indices)
        dense = A.unsorted_segment_sum(grad, indices, var.shape[0])
        return self._adam(var, m, v, *scalars, dense)


class _Ftrl(_SparseUpdate):
    """FTRL-proximal per row: accum_new = accum + g^2;
    linear += g - (accum_new^-lr_power - accum^-lr_power) / lr * var;
    var = (sign(linear) * l1 - linear) / (accum_new^-lr_power / lr + 2 * l2) where
    |linear| > l1, else 0; accum = accum_new. (var, accum, linear, grad, indices)
    -> (var, accum, linear); lr, l1, l2, lr_power are attributes."""

    state = ("var", "accum", "linear")

    def __init__(self, lr, l1, l2, lr_power, use_locking=False):
        super().__init__()
        self.lr = _float_attr(self.name, "lr", lr)
        self.l1 = _float_attr(self.name, "l1", l1)
        self.l2 = _float_attr(self.name, "l2", l2)
        self.lr_power = _float_attr(self.name, "lr_power", lr_power)
        self.use_locking = _bool_attr(self.name, "use_locking", use_locking)
        if self.lr <= 0:
            raise ValueError(f"For '{self.name}', the 'lr' must be positive, but got {lr}.")
        if self.l1 < 0 or self.l2 < 0:
            raise ValueError(f"For '{self.name}', the 'l1' and 'l2' must be non-negative, but "
                             f"got {l1} and {l2}.")
        if self.lr_power > 0:
            raise ValueError(f"For '{self.name}', the 'lr_power' must be at most 0, but got "
                             f"{lr_power}.")

    def update(self, states, g, scalars):
        var, accum, linear = states
        p = -self.lr_power
        accum_new = accum + g * g
        linear = linear + g - (_sqrt_pow(accum_new, p) - _sqrt_pow(accum, p)) / self.lr * var
        quadratic = _sqrt_pow(accum_new, p) / self.lr + 2 * self.l2
        shrunk = (M.sign(linear) * self.l1 - linear) / quadratic
        var = M.select(M.greater(M.abs(linear), self.l1), shrunk, A.zeros_like(var))
        return var, accum_new, linear


class FusedSparseFtrl(_Ftrl):
    __doc__ = _Ftrl.__doc__ + " Repeated rows' gradients are summed into one update."


class SparseApplyFtrl(_Ftrl):
    __doc__ = _Ftrl.__doc__ + " Repeated rows update one after another in index order."
    summed = False


class FusedSparseProximalAdagrad(_SparseUpdate):
    """Proximal Adagrad on the rows named (repeated rows' gradients summed): accum += g^2;
    with r = lr / sqrt(accum): prox = var - r * g;
    var = sign(prox) / (1 + r * l2) * max(|prox| - r * l1, 0).

    FusedSparseProximalAdagrad(use_locking=False)(var, accum, lr, l1, l2, grad, indices)
    -> (var, accum).
    """

    state = ("var", "accum")
    scalars = ("lr", "l1", "l2")

    def __init__(self, use_locking=False):
        super().__init__()
        self.use_locking = _bool_attr(self.name, "use_locking", use_locking)

    def update(self, states, g, scalars):
        var, accum = states
        lr, l1, l2 = scalars
        accum = accum + g * g
        r = lr / M.sqrt(accum)
        prox = var - r * g
        return M.sign(prox) / (1 + r * l2) * M.maximum(M.abs(prox) - r * l1,
                                                      A.zeros_like(var)), accum


class SparseApplyAdagrad(_SparseUpdate):
    """Adagrad on the rows named (repeated rows' gradients summed): with a = accum + g^2,
    var -= lr * g / sqrt(a); accum = a when update_slots (else accum and the rate use the
    old accum).

    SparseApplyAdagrad(lr, update_slots=True, use_locking=False)(var, accum, grad, indices)
    -> (var, accum).
    """

    state = ("var", "accum")

    def __init__(self, lr, update_slots=True, use_locking=False):
        super().__init__()
        self.lr = _float_attr(self.name, "lr", lr)
        self.update_slots = _bool_attr(self.name, "update_slots", update_slots)
        self.use_locking = _bool_attr(self.name, "use_locking", use_locking)

    def update(self, states, g, scalars):
        var, accum = states
        if self.update_slots:
            accum = accum + g * g
        return var - self.lr * g / M.sqrt(accum), accum


class SparseApplyAdagradV2(SparseApplyAdagrad):
    """Adagrad with epsilon on the rows named, repeated rows one after another in index
    order: accum += g^2 (when update_slots); var -= lr * g / sqrt(accum + epsilon) (MindSpore
    2.7.2's CPU kernel adds epsilon under the root).

    SparseApplyAdagradV2(lr, epsilon, use_locking=False, update_slots=True)(var, accum,
    grad, indices) -> (var, accum).
    """

    summed = False

    def __init__(self, lr, epsilon, use_locking=False, update_slots=True):
        super().__init__(lr, update_slots, use_locking)
        self.epsilon = _float_attr(self.name, "epsilon", epsilon)

    def update(self, states, g, scalars):
        var, accum = states
        if self.update_slots:
            accum = accum + g * g
        return var - self.lr * g / M.sqrt(accum + self.epsilon), accum


class SparseApplyRMSProp(_SparseUpdate):
    """RMSProp on the rows named, repeated rows one after another in index order:
    ms = rho * ms + (1 - rho) * g^2 (where g != 0: MindSpore's kernel keeps ms where g is 0);
    mom = momentum * mom + lr * g / sqrt(ms + epsilon);
    var -= mom.

    SparseApplyRMSProp(rho, momentum, epsilon, use_locking=False)(var, ms, mom,
    learning_rate, grad, indices) -> (var, ms, mom).
    """

    state = ("var", "ms", "mom")
    scalars = ("learning_rate",)
    summed = False

    def __init__(self, rho, momentum, epsilon, use_locking=False):
        super().__init__()
        self.rho = _float_attr(self.name, "rho", rho)
        self.momentum = _float_attr(self.name, "momentum", momentum)
        self.epsilon = _float_attr(self.name, "epsilon", epsilon)
        self.use_locking = _bool_attr(self.name, "use_locking", use_locking)
        if not 0 <= self.rho <= 1:
            raise ValueError(f"For '{self.name}', the 'rho' must be in [0, 1], but got {rho}.")
        if self.momentum < 0 or self.epsilon <= 0:
            raise ValueError(f"For '{self.name}', the 'momentum' must be >= 0 and 'epsilon' "
                             f"> 0, but got {momentum} and {epsilon}.")

    def update(self, states, g, scalars):
        var, ms, mom = states
        (lr,) = scalars
        # MindSpore's kernel leaves ms where the gradient is exactly 0 (mom still decays).
        ms = M.select(M.equal(g, 0), ms, ms * self.rho + g * g * (1 - self.rho))
        mom = mom * self.momentum + lr * g / M.sqrt(ms + self.epsilon)
        return var - mom, ms, mom


class ApplyAdagradV2(_Update):
    """Adagrad with epsilon: accum += g^2 (when update_slots); var -= lr * g / (sqrt(accum) +
    epsilon).

    ApplyAdagradV2(epsilon, update_slots=True)(var, accum, lr, grad) -> (var, accum).
    """

    state = ("var", "accum")
    scalars = ("lr",)
    floats = (mstype.float16, mstype.float32, mstype.float64)

    def __init__(self, epsilon, update_slots=True):
        super().__init__()
        self.epsilon = _float_attr(self.name, "epsilon", epsilon)
        self.update_slots = _bool_attr(self.name, "update_slots", update_slots)

    def __call__(self, var, accum, lr, grad):
        self._check_state((var, accum))
        self._check_scalars((lr,))
        self._check_grad(var, grad, None)
        new_accum = accum + grad * grad if self.update_slots else accum
        return self._write((var, accum),
                           (var - lr * grad / (M.sqrt(new_accum) + self.epsilon), new_accum))


class ApplyAdamWithAmsgrad(_Update):
    """Adam with AMSGrad: m = beta1 * m + (1 - beta1) * g; v = beta2 * v + (1 - beta2) * g^2;
    vhat = max(vhat, v); var -= lr * sqrt(1 - beta2_power) / (1 - beta1_power) * m /
    (sqrt(vhat) + epsilon).

    ApplyAdamWithAmsgrad(beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False)(var, m, v,
    vhat, beta1_power, beta2_power, lr, grad) -> (var, m, v, vhat); beta1_power, beta2_power
    and lr are Tensors (MindSpore refuses numbers there).
    """

    state = ("var", "m", "v", "vhat")
    scalars = ("beta1_power", "beta2_power", "lr")
    floats = (mstype.float16, mstype.float32, mstype.float64)

    def __init__(self, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False):
        super().__init__()
        self.beta1 = _float_attr(self.name, "beta1", beta1)
        self.beta2 = _float_attr(self.name, "beta2", beta2)
        self.epsilon = _float_attr(self.name, "epsilon", epsilon)
        self.use_locking = _bool_attr(self.name, "use_locking", use_locking)

    def __call__(self, var, m, v, vhat, beta1_power, beta2_power, lr, grad):
        scalars = (beta1_power, beta2_power, lr)
        self._check_state((var, m, v, vhat))
        for arg, x in zip(self.scalars, scalars):
            if not isinstance(x, Tensor):
                raise self._error(f"the '{arg}' must be a Tensor, but got {type(x).__name__}.",
                                  TypeError)
        self._check_scalars(scalars)
        self._check_grad(var, grad, None)
        b1, b2 = self.beta1, self.beta2
        m_new = m * b1 + grad * (1 - b1)
        v_new = v * b2 + grad * grad * (1 - b2)
        vhat_new = M.maximum(vhat, v_new)
        lr_t = lr * M.sqrt(1 - beta2_power) / (1 - beta1_power)
        var_new = var - lr_t * m_new / (M.sqrt(vhat_new) + self.epsilon)
        return self._write((var, m, v, vhat), (var_new, m_new, v_new, vhat_new))
