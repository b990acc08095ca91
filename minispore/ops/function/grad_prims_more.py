"""More of mindspore.ops.operations._grad_ops: the elementwise backward primitives (activation,
inverse trigonometric and loss gradients), DropoutGrad and SliceGrad, each composed of existing
operators (so they run on either device, in both modes, and are themselves differentiable);
PadV3Grad, the gradient of the reflect / edge / circular pads.
Each is the gradient of a forward operator, with MindSpore's argument order; the tests check
them against that operator's autodiff gradient."""
import numpy as np

from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function.array_compose_func import constant_pad
from minispore.ops.function.pool_compose_func import reflection_pad, replication_pad
from minispore.ops.function import math_func as M
from minispore.ops.function import nn_func as N
from minispore.ops.function.composite_func import where
from minispore.ops.operations.indexing_ops import StridedSliceGrad
from minispore.ops.vjp_jvp import vjp

__all__ = ["ACosGrad", "AsinGrad", "AtanGrad", "AcoshGrad", "AsinhGrad", "InvGrad",
           "SoftplusGrad", "EluGrad", "ReLU6Grad", "HShrinkGrad", "SoftShrinkGrad",
           "SigmoidCrossEntropyWithLogitsGrad", "KLDivLossGrad", "DropoutGrad", "SliceGrad",
           "PadV3Grad"]


def _same_shape(a, b):
    """Shapes equal where both dims are known (a dynamic dim, None or a Symbol, matches any:
    MindSpore checks those when the graph runs)."""
    return len(a) == len(b) and all(not (isinstance(m, int) and isinstance(n, int)) or m == n
                                    for m, n in zip(a, b))


def _lambd(name, lambd):
    if isinstance(lambd, bool) or not isinstance(lambd, (int, float)):
        raise TypeError(f"For '{name}', 'lambd' must be a float, but got "
                        f"{type(lambd).__name__}.")
    return float(lambd)     # MindSpore takes a negative one too (then every dy passes)


class _ElementwiseGrad:
    """A backward primitive over same-shaped tensors of one dtype: `args` names them in call
    order; `formula(*tensors)` composes the result. Float inputs unless `integers`."""

    args = ()
    integers = False

    def __init__(self):
        self.name = type(self).__name__

    def __call__(self, *xs):
        if len(xs) != len(self.args):
            raise TypeError(f"For '{self.name}', {len(self.args)} inputs "
                            f"({', '.join(self.args)}) are needed, but got {len(xs)}.")
        for arg, x in zip(self.args, xs):
            if not isinstance(x, Tensor):
                raise TypeError(f"For '{self.name}', '{arg}' must be a Tensor, but got "
                                f"{type(x).__name__}.")
            if not (x.dtype.is_float or (self.integers and x.dtype.is_int)):
                kinds = "a float or int" if self.integers else "a float"
                raise TypeError(f"For '{self.name}', '{arg}' must be {kinds} Tensor, but got "
                                f"{x.dtype}.")
        first = xs[0]
        for arg, x in zip(self.args[1:], xs[1:]):
            if not _same_shape(tuple(x.shape), tuple(first.shape)):
                raise ValueError(f"For '{self.name}', '{arg}' must have the shape of "
                                 f"'{self.args[0]}' {tuple(first.shape)}, but got "
                                 f"{tuple(x.shape)}.")
            if x.dtype != first.dtype:
                raise TypeError(f"For '{self.name}', '{arg}' ({x.dtype}) must have the dtype "
                                f"of '{self.args[0]}' ({first.dtype}).")
        return self.formula(*xs)

    def __repr__(self):
        return f"Prim[{self.name}]"


def _one_minus_square_sqrt(x):
    return M.sqrt(M.sub(1.0, M.square(x)))


class AsinGrad(_ElementwiseGrad):
    """(x, dy) -> dy / sqrt(1 - x^2): the gradient of Asin."""
    args = ("x", "dout")

    def formula(self, x, dy):
        return M.div(dy, _one_minus_square_sqrt(x))


class ACosGrad(_ElementwiseGrad):
    """(x, dy) -> -dy / sqrt(1 - x^2): the gradient of ACos."""
    args = ("x", "dout")

    def formula(self, x, dy):
        return M.neg(M.div(dy, _one_minus_square_sqrt(x)))


class AtanGrad(_ElementwiseGrad):
    """(x, dy) -> dy / (1 + x^2): the gradient of Atan."""
    args = ("x", "dout")

    def formula(self, x, dy):
        return M.div(dy, M.add(M.square(x), 1.0))


class AsinhGrad(_ElementwiseGrad):
    """(y, dy) -> dy / cosh(y), y = asinh(x) the forward's output."""
    args = ("y", "dy")

    def formula(self, y, dy):
        return M.div(dy, M.cosh(y))


class AcoshGrad(_ElementwiseGrad):
    """(y, dy) -> dy / sinh(y), y = acosh(x) the forward's output."""
    args = ("y", "dy")

    def formula(self, y, dy):
        return M.div(dy, M.sinh(y))


class InvGrad(_ElementwiseGrad):
    """(y, dy) -> -dy * y^2, y = 1 / x the forward's output (Inv's gradient); ints too."""
    args = ("y", "dy")
    integers = True

    def formula(self, y, dy):
        return M.neg(M.mul(dy, M.square(y)))


class SoftplusGrad(_ElementwiseGrad):
    """(dy, x) -> dy * sigmoid(x): the gradient of Softplus."""
    args = ("gradients", "features")

    def formula(self, dy, x):
        return M.mul(dy, N.sigmoid(x))


class EluGrad(_ElementwiseGrad):
    """(dy, y) -> dy where y > 0, else dy * (y + 1): Elu's gradient (alpha 1) from its output
    y (elu(x) + 1 = exp(x) below 0)."""
    args = ("dy", "y")

    def formula(self, dy, y):
        return where(M.greater(y, 0.0), dy, M.mul(dy, M.add(y, 1.0)))


class ReLU6Grad(_ElementwiseGrad):
    """(dy, x) -> dy where 0 < x <= 6, else 0: the gradient of ReLU6 (MindSpore's kernel
    passes the gradient at x == 6)."""
    args = ("y_grad", "x")

    def formula(self, dy, x):
        inside = M.logical_and(M.greater(x, 0.0), M.less_equal(x, 6.0))
        return where(inside, dy, A.zeros_like(dy))


class _ShrinkGrad(_ElementwiseGrad):
    """(dy, x) -> dy where |x| > lambd, else 0: the gradient of HShrink and of SoftShrink (both
    have slope 1 outside [-lambd, lambd] and 0 inside)."""
    args = ("input_grad", "input_x")

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = _lambd(self.name, lambd)

    def formula(self, dy, x):
        return where(M.greater(M.abs(x), self.lambd), dy, A.zeros_like(dy))


class HShrinkGrad(_ShrinkGrad):
    __doc__ = _ShrinkGrad.__doc__


class SoftShrinkGrad(_ShrinkGrad):
    __doc__ = _ShrinkGrad.__doc__


class SigmoidCrossEntropyWithLogitsGrad(_ElementwiseGrad):
    """(logits, labels, dout) -> (sigmoid(logits) - labels) * dout: the gradient to the logits
    of SigmoidCrossEntropyWithLogits."""
    args = ("logits", "label", "dout")

    def formula(self, logits, labels, dout):
        return M.mul(M.sub(N.sigmoid(logits), labels), dout)


_KL_REDUCTIONS = ("none", "mean", "batchmean", "sum")


class KLDivLossGrad:
    """(dy, x, target) -> -target * dy where target > 0, else 0: the gradient to x of KLDivLoss
    (target * (log target - x), 0 where target <= 0). With reduction 'mean' dy is a scalar
    divided by x's size, 'batchmean' by its first dim, 'sum' taken as it is; 'none' gives dy
    of x's shape."""

    def __init__(self, reduction="mean"):
        if reduction not in _KL_REDUCTIONS:
            raise ValueError(f"For 'KLDivLossGrad', 'reduction' must be in {list(_KL_REDUCTIONS)}"
                             f", but got '{reduction}'.")
        self.reduction = reduction

    def __call__(self, dy, x, target):
        for arg, t in (("dy", dy), ("x", x), ("target", target)):
            if not isinstance(t, Tensor) or not t.dtype.is_float:
                got = t.dtype if isinstance(t, Tensor) else type(t).__name__
                raise TypeError(f"For 'KLDivLossGrad', '{arg}' must be a float Tensor, but got "
                                f"{got}.")
        if tuple(target.shape) != tuple(x.shape):
            raise ValueError(f"For 'KLDivLossGrad', 'target' must have the shape of 'x' "
                             f"{tuple(x.shape)}, but got {tuple(target.shape)}.")
        if self.reduction == "none":
            if tuple(dy.shape) != tuple(x.shape):
                raise ValueError(f"For 'KLDivLossGrad', with reduction 'none' 'dy' must have "
                                 f"the shape of 'x' {tuple(x.shape)}, but got "
                                 f"{tuple(dy.shape)}.")
        elif dy.size != 1:
            raise ValueError(f"For 'KLDivLossGrad', with reduction '{self.reduction}' 'dy' must "
                             f"hold one value, but got shape {tuple(dy.shape)}.")
        else:
            dy = A.reshape(dy, ())
            count = {"mean": x.size, "batchmean": x.shape[0] if x.ndim else 1}
            if self.reduction in count:
                dy = M.div(dy, float(count[self.reduction]))
        grad = M.neg(M.mul(target, dy))
        return where(M.greater(target, 0.0), grad, A.zeros_like(grad))

    def __repr__(self):
        return "Prim[KLDivLossGrad]"


class DropoutGrad:
    """(dy, mask) -> dy * mask / keep_prob: the gradient of Dropout given its mask."""

    def __init__(self, keep_prob=0.5):
        if isinstance(keep_prob, bool) or not isinstance(keep_prob, (int, float)):
            raise TypeError(f"For 'DropoutGrad', 'keep_prob' must be a float, but got "
                            f"{type(keep_prob).__name__}.")
        if not 0 < keep_prob <= 1:
            raise ValueError(f"For 'DropoutGrad', the 'keep_prob' must be in range of (0, 1], "
                             f"but got {keep_prob} with type 'float'.")
        self.keep_prob = float(keep_prob)

    def __call__(self, dy, mask):
        for arg, t in (("dy", dy), ("mask", mask)):
            if not isinstance(t, Tensor):
                raise TypeError(f"For 'DropoutGrad', '{arg}' must be a Tensor, but got "
                                f"{type(t).__name__}.")
        if tuple(mask.shape) != tuple(dy.shape):
            raise ValueError(f"For 'DropoutGrad', 'mask' must have the shape of 'dy' "
                             f"{tuple(dy.shape)}, but got {tuple(mask.shape)}.")
        return M.mul(M.mul(dy, A.cast(mask, dy.dtype)), 1.0 / self.keep_prob)

    def __repr__(self):
        return "Prim[DropoutGrad]"


class SliceGrad:
    """(dy, x, begin, size) -> zeros shaped like x with dy written at [begin, begin + size):
    the gradient of Slice (sizes explicit: MindSpore's SliceGrad refuses -1)."""

    def __call__(self, dy, x, begin, size):
        for arg, t in (("dy", dy), ("x", x)):
            if not isinstance(t, Tensor):
                raise TypeError(f"For 'SliceGrad', '{arg}' must be a Tensor, but got "
                                f"{type(t).__name__}.")
        shape = tuple(x.shape)
        begin, size = tuple(begin), tuple(size)
        if not len(begin) == len(size) == len(shape):
            raise ValueError(f"For 'SliceGrad', 'begin' {begin} and 'size' {size} must have one "
                             f"entry per dim of 'x' {shape}.")
        if any(s < 0 for s in size):
            raise ValueError(f"For 'SliceGrad', the value of size can not be negative, but got "
                             f"{size}.")
        end = tuple(b + s for b, s in zip(begin, size))
        if any(b < 0 or e > n for b, e, n in zip(begin, end, shape)):
            raise ValueError(f"For 'SliceGrad', begin {begin} + size {size} must lie inside the "
                             f"shape of 'x' {shape}.")
        want = tuple(e - b for b, e in zip(begin, end))
        if tuple(dy.shape) != want:
            raise ValueError(f"For 'SliceGrad', 'dy' must have shape {want} (the slice of 'x' "
                             f"{shape} at begin {begin}, size {size}), but got "
                             f"{tuple(dy.shape)}.")
        return StridedSliceGrad()(dy, shape, begin, end, (1,) * len(shape))

    def __repr__(self):
        return "Prim[SliceGrad]"


_PAD_MODES = ("reflect", "edge", "circular")


def _circular_pad_grad(dy, lo, hi, dim):
    """Along `dim`: dy's middle n cells, plus its left lo cells folded onto the last lo of
    them and its right hi cells onto the first hi (where a circular pad copied them from)."""
    n = dy.shape[dim] - lo - hi

    def part(begin, end, before, after):
        first, last = [0] * dy.ndim, list(dy.shape)
        first[dim], last[dim] = begin, end
        block = A.strided_slice(dy, first, last, [1] * dy.ndim)
        # constant_pad takes (before, after) pairs from the last dim backwards.
        pairs = [0, 0] * (dy.ndim - 1 - dim) + [before, after]
        return constant_pad(block, pairs, 0.0) if before or after else block

    dx = part(lo, lo + n, 0, 0)
    if lo:
        dx = M.add(dx, part(0, lo, n - lo, 0))
    if hi:
        dx = M.add(dx, part(lo + n, lo + n + hi, 0, n - hi))
    return dx


class PadV3Grad:
    """PadV3Grad(mode='reflect', paddings_contiguous=True)(dy, paddings) -> the gradient of
    PadV3's reflect / edge / circular pad of x (all dims but N and C) given the padded
    gradient dy. paddings (a tuple or a constant Tensor) holds 2 (ndim - 2) amounts, the
    last dim's (before, after) first; with paddings_contiguous False all befores come first.
    reflect and edge are the vjp of minispore's reflection / replication pads; circular
    folds the padded cells back onto the ones they copy."""

    def __init__(self, mode="reflect", paddings_contiguous=True):
        if mode not in _PAD_MODES:
            raise ValueError(f"For 'PadV3Grad', the 'mode' must be str and must be in "
                             f"'{list(_PAD_MODES)}', but got '{mode}'.")
        if not isinstance(paddings_contiguous, bool):
            raise TypeError(f"For 'PadV3Grad', 'paddings_contiguous' must be a bool, but got "
                            f"{type(paddings_contiguous).__name__}.")
        self.mode, self.paddings_contiguous = mode, paddings_contiguous

    def _pairs(self, dy, paddings):
        if isinstance(paddings, Tensor):
            if getattr(paddings, "traced", False):
                raise NotImplementedError("For 'PadV3Grad', 'paddings' must be known when the "
                                          "graph is built (a tuple or a constant Tensor).")
            paddings = paddings.asnumpy().reshape(-1).tolist()
        paddings = [int(p) for p in np.asarray(paddings).reshape(-1)]
        if len(paddings) != 2 * (dy.ndim - 2) or dy.ndim < 3:
            raise ValueError(f"For 'PadV3Grad', 'paddings' must hold 2 * (dy.ndim - 2) = "
                             f"{2 * (dy.ndim - 2)} amounts for dy of shape "
                             f"{tuple(dy.shape)}, but got {paddings}.")
        if not self.paddings_contiguous:
            half = len(paddings) // 2
            paddings = [v for pair in zip(paddings[:half], paddings[half:]) for v in pair]
        return paddings

    def __call__(self, dy, paddings):
        if not isinstance(dy, Tensor) or not dy.dtype.is_float:
            got = dy.dtype if isinstance(dy, Tensor) else type(dy).__name__
            raise TypeError(f"For 'PadV3Grad', 'dy' must be a float Tensor, but got {got}.")
        pads = self._pairs(dy, paddings)
        sizes = []
        for i in range(len(pads) // 2):
            dim, (lo, hi) = dy.ndim - 1 - i, pads[2 * i: 2 * i + 2]
            n = dy.shape[dim] - lo - hi
            limit = n - 1 if self.mode == "reflect" else n
            if min(lo, hi) < 0 or n < 1 or (self.mode != "edge" and max(lo, hi) > limit):
                raise ValueError(f"For 'PadV3Grad', paddings ({lo}, {hi}) of dim {dim} do not "
                                 f"fit a {self.mode} pad of dy's size {dy.shape[dim]}.")
            sizes.append(n)
        if self.mode == "circular":
            for i in range(len(pads) // 2):
                dy = _circular_pad_grad(dy, pads[2 * i], pads[2 * i + 1], dy.ndim - 1 - i)
            return dy
        shape = tuple(dy.shape[:2]) + tuple(reversed(sizes))
        pad = reflection_pad if self.mode == "reflect" else replication_pad
        _, pullback = vjp(lambda t: pad(t, tuple(pads)), A.zeros(shape, dy.dtype))
        return pullback(dy)[0]

    def __repr__(self):
        return "Prim[PadV3Grad]"
