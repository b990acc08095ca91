"""Activations and losses composed of existing primitives (each with its CPU and CUDA kernels,
bprop and sharding rule), so autodiff and graph mode come with them: elu, selu, leaky_relu,
relu6, silu, mish, the hard and soft shrinks, glu, softplus; l1/mse/huber/bce/kl losses and
distances. Formulas and defaults are MindSpore 2.7's."""
import math

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function import nn_func as N
from minispore.ops.function.array_compose_func import glu_split
from minispore.ops.function.composite_func import where as _where
from minispore.ops.function.reduce_compose_func import vector_norm

__all__ = ["elu", "celu", "selu", "leaky_relu", "rrelu", "relu6", "silu", "mish", "hardswish",
           "hardsigmoid", "softsign", "hardtanh", "logsigmoid", "tanhshrink", "softshrink",
           "soft_shrink", "hardshrink", "threshold", "softmin", "glu", "softplus", "fast_gelu",
           "prelu", "l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
           "margin_ranking_loss", "hinge_embedding_loss", "gaussian_nll_loss",
           "multilabel_soft_margin_loss", "poisson_nll_loss", "cosine_embedding_loss",
           "cosine_similarity", "cdist", "l2_loss", "reduce_loss", "nll_loss", "cross_entropy"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_REDUCTIONS = ("none", "mean", "sum")


def _check_tensor(name, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got {type(x).__name__}.")


def _check_float(name, arg, x):
    _check_tensor(name, arg, x)
    if not x.dtype.is_float:
        raise TypeError(f"For '{name}', '{arg}' must be a float Tensor, but got {x.dtype}.")


def _number(name, arg, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"For '{name}', '{arg}' must be a float, but got {type(v).__name__}.")
    return float(v)


# -- activations -------------------------------------------------------------------------------
def elu(input_x, alpha=1.0):
    """x where x > 0, else alpha * (exp(x) - 1) (expm1 of min(x, 0), so the unused branch
    cannot overflow)."""
    _check_float("elu", "input_x", input_x)
    alpha = _number("elu", "alpha", alpha)
    neg = M.mul(M.expm1(M.minimum(input_x, 0.0)), alpha)
    return _where(M.greater(input_x, 0.0), input_x, neg)


def celu(x, alpha=1.0):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); alpha must not be 0."""
    _check_float("celu", "x", x)
    alpha = _number("celu", "alpha", alpha)
    if alpha == 0:
        raise ValueError("For 'celu', 'alpha' must not be 0.")
    neg = M.mul(M.expm1(M.div(M.minimum(x, 0.0), alpha)), alpha)
    return _where(M.greater(x, 0.0), x, neg)


def selu(input_x):
    """scale * elu(x, alpha) with SELU's fixed scale and alpha. An int8 or int32 x, which
    MindSpore's SeLU also takes, gives max(x, 0), as MindSpore 2.7.2 computes it (in the
    integer type: scale and alpha * scale truncate to 1, and expm1 of a negative integer, in
    (-1, 0), to 0); its other integer types are refused, as MindSpore's are."""
    _check_tensor("selu", "input_x", input_x)
    if input_x.dtype in (mstype.int8, mstype.int32):
        return M.maximum(input_x, 0)
    if input_x.dtype not in mstype.float_types:
        raise TypeError(f"For 'selu', 'input_x' must be a float, int8 or int32 Tensor, but got "
                        f"{input_x.dtype}.")
    return M.mul(elu(input_x, _SELU_ALPHA), _SELU_SCALE)


def leaky_relu(input, alpha=0.2):  # noqa: A002
    """x where x > 0, else alpha * x."""
    _check_tensor("leaky_relu", "input", input)
    return _where(M.greater(input, 0), input, M.mul(input, alpha))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3):  # noqa: A002
    """Randomized leaky ReLU: x where x > 0, a * x where x < 0 with a drawn from U[lower, upper)
    per element at every call, 0 at 0; computed as MindSpore does, (max(sign(x), 0) -
    min(sign(x), 0) * a) * x with a cast to x's dtype (an integer x keeps its positive part:
    its slopes round to 0), so its gradient is that factor (0 at x == 0).

    Raises:
        TypeError: lower or upper is not an int or a float, or input is not a Tensor.
        ValueError: lower > upper.
    """
    for arg, value in (("upper", upper), ("lower", lower)):
        if not isinstance(value, (float, int)):
            raise TypeError(f"For 'rrelu', '{arg}' must be an int or a float, but got "
                            f"{type(value)}")
    if lower > upper:
        raise ValueError(f"For 'rrelu', the value of 'upper' must be greater than or equal to "
                         f"'lower', but got upper: {upper}, lower: {lower}. ")
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'rrelu', the 'input' must be a Tensor but got {type(input)}.")
    from minispore.ops.function.random_func import uniform
    sign = M.sign(input)
    slopes = A.cast(uniform(tuple(input.shape), Tensor(lower, mstype.float32),
                            Tensor(upper, mstype.float32)), input.dtype)
    factor = M.sub(M.maximum(sign, 0), M.mul(M.minimum(sign, 0), slopes))
    return M.mul(factor, input)


def relu6(x):
    """min(max(x, 0), 6), with MindSpore's gradient: 1 for 0 < x <= 6, else 0 (a Minimum would
    split the gradient at x == 6)."""
    _check_tensor("relu6", "x", x)
    return _where(M.greater(x, 6.0), M.add(A.zeros_like(x), 6.0), N.relu(x))


def silu(input):  # noqa: A002
    """x * sigmoid(x)."""
    return M.mul(input, N.sigmoid(input))


def softplus(input, beta=1, threshold=20):  # noqa: A002
    """log(1 + exp(beta * x)) / beta, written max(z, 0) + log1p(exp(-|z|)) so it never
    overflows; x itself where beta * x > threshold."""
    _check_float("softplus", "input", input)
    z = M.mul(input, float(beta)) if beta != 1 else input
    soft = M.add(N.relu(z), M.log1p(M.exp(M.neg(M.abs(z)))))
    if beta != 1:
        soft = M.div(soft, float(beta))
    return _where(M.greater(z, float(threshold)), input, soft)


def mish(x):
    """x * tanh(softplus(x))."""
    return M.mul(x, N.tanh(softplus(x)))


def hardsigmoid(input):  # noqa: A002
    """relu6(x + 3) / 6."""
    _check_float("hardsigmoid", "input", input)
    return M.div(relu6(M.add(input, 3.0)), 6.0)


def hardswish(x):
    """x * relu6(x + 3) / 6."""
    _check_float("hardswish", "x", x)
    return M.mul(x, hardsigmoid(x))


def softsign(x):
    """x / (1 + |x|)."""
    _check_float("softsign", "x", x)
    return M.div(x, M.add(M.abs(x), 1.0))


def hardtanh(input, min_val=-1.0, max_val=1.0):  # noqa: A002
    """input clamped to [min_val, max_val]."""
    _check_tensor("hardtanh", "input", input)
    if min_val > max_val:
        raise ValueError(f"For 'hardtanh', 'min_val' ({min_val}) must not exceed 'max_val' "
                         f"({max_val}).")
    return M.minimum(M.maximum(input, float(min_val)), float(max_val))


def logsigmoid(x):
    """log(sigmoid(x)) = -softplus(-x)."""
    return M.neg(softplus(M.neg(x)))


def tanhshrink(input):  # noqa: A002
    """x - tanh(x)."""
    return M.sub(input, N.tanh(input))


def softshrink(input, lambd=0.5):  # noqa: A002
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0."""
    _check_float("softshrink", "input", input)
    lambd = _number("softshrink", "lambd", lambd)
    if lambd < 0:
        raise ValueError(f"For 'softshrink', 'lambd' must be >= 0, but got {lambd}.")
    zero = A.zeros_like(input)
    return _where(M.greater(input, lambd), M.sub(input, lambd),
                  _where(M.less(input, -lambd), M.add(input, lambd), zero))


soft_shrink = softshrink


def hardshrink(input, lambd=0.5):  # noqa: A002
    """x where |x| > lambd, else 0."""
    _check_float("hardshrink", "input", input)
    lambd = _number("hardshrink", "lambd", lambd)
    return _where(M.greater(M.abs(input), lambd), input, A.zeros_like(input))


def threshold(input, thr, value):  # noqa: A002
    """x where x > thr, else value."""
    _check_tensor("threshold", "input", input)
    return _where(M.greater(input, thr), input, M.add(M.mul(input, 0), value))


def softmin(x, axis=-1):
    """softmax(-x) along axis."""
    return N.softmax(M.neg(x), axis)


def glu(x, axis=-1):
    """a * sigmoid(b), a and b the halves of x along axis."""
    _check_float("glu", "x", x)
    a, b = glu_split(x, axis)
    return M.mul(a, N.sigmoid(b))


def fast_gelu(x):
    """x * sigmoid(1.702 x) (MindSpore's FastGelu)."""
    _check_float("fast_gelu", "x", x)
    return M.mul(x, N.sigmoid(M.mul(x, 1.702)))


def prelu(x, weight):
    """x where x > 0, else weight * x; weight has one value or one per channel (dim 1; dim 0
    of a 1-D x)."""
    _check_float("prelu", "x", x)
    _check_tensor("prelu", "weight", weight)
    if weight.ndim > 1:
        raise ValueError(f"For 'prelu', 'weight' must be 0-D or 1-D, but got rank "
                         f"{weight.ndim}.")
    n = 1 if weight.ndim == 0 else weight.shape[0]
    # One weight is a 0-d factor, so a 0-d x keeps its shape (its gradient is reshaped back).
    w = A.reshape(weight, ()) if n == 1 else weight
    if n != 1:
        channel = 1 if x.ndim >= 2 else 0
        if x.ndim < 1 or x.shape[channel] != n:
            raise ValueError(f"For 'prelu', 'weight' must have 1 or x.shape[1] elements, but "
                             f"got {n} for x of shape {tuple(x.shape)}.")
        w = A.reshape(weight, (1,) * channel + (n,) + (1,) * (x.ndim - channel - 1))
    return _where(M.greater(x, 0.0), x, M.mul(x, w))


# -- losses ------------------------------------------------------------------------------------
def reduce_loss(name, loss, reduction):
    """loss reduced by 'mean' (all elements), 'sum' or 'none'."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"For '{name}', 'reduction' must be one of {list(_REDUCTIONS)}, but "
                         f"got {reduction!r}.")
    if reduction == "mean":
        return M.reduce_mean(loss)
    if reduction == "sum":
        return M.reduce_sum(loss)
    return loss


def _weighted(loss, weight):
    return loss if weight is None else M.mul(loss, weight)


def l1_loss(input, target, reduction="mean"):  # noqa: A002
    return reduce_loss("l1_loss", M.abs(M.sub(input, target)), reduction)


def mse_loss(input, target, reduction="mean"):  # noqa: A002
    return reduce_loss("mse_loss", M.square(M.sub(input, target)), reduction)


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):  # noqa: A002
    """0.5 d^2 / beta where d = |input - target| < beta, else d - 0.5 beta."""
    _check_float("smooth_l1_loss", "input", input)
    if beta <= 0:
        raise ValueError(f"For 'smooth_l1_loss', 'beta' must be > 0, but got {beta}.")
    d = M.abs(M.sub(input, target))
    loss = _where(M.less(d, beta), M.mul(M.square(d), 0.5 / beta), M.sub(d, 0.5 * beta))
    return reduce_loss("smooth_l1_loss", loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0):  # noqa: A002
    """0.5 d^2 where d = |input - target| < delta, else delta * (d - 0.5 delta)."""
    _check_float("huber_loss", "input", input)
    if delta <= 0:
        raise ValueError(f"For 'huber_loss', 'delta' must be > 0, but got {delta}.")
    d = M.abs(M.sub(input, target))
    loss = _where(M.less(d, delta), M.mul(M.square(d), 0.5),
                  M.mul(M.sub(d, 0.5 * delta), float(delta)))
    return reduce_loss("huber_loss", loss, reduction)


def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """-(y log p + (1 - y) log(1 - p)) for probabilities p = logits in [0, 1]."""
    _check_float("binary_cross_entropy", "logits", logits)
    loss = M.neg(M.add(M.mul(labels, M.log(logits)),
                       M.mul(M.sub(1.0, labels), M.log(M.sub(1.0, logits)))))
    return reduce_loss("binary_cross_entropy", _weighted(loss, weight), reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,  # noqa: A002
                                     reduction="mean"):
    """(1 - y) x + (1 + (pos_weight - 1) y) softplus(-x): the cross entropy of sigmoid(x),
    stable for any x."""
    _check_float("binary_cross_entropy_with_logits", "input", input)
    scale = 1.0 if pos_weight is None else M.add(M.mul(M.sub(pos_weight, 1.0), target), 1.0)
    loss = M.add(M.mul(M.sub(1.0, target), input), M.mul(scale, softplus(M.neg(input))))
    return reduce_loss("binary_cross_entropy_with_logits", _weighted(loss, weight), reduction)


def kl_div(logits, labels, reduction="mean", log_target=False):
    """labels * (log(labels) - logits) where labels > 0, else 0 (MindSpore's kernel: a
    negative label contributes nothing, it is not a NaN); 'batchmean' divides the sum by the
    batch size."""
    _check_float("kl_div", "logits", logits)
    if log_target:
        loss = M.mul(M.exp(labels), M.sub(labels, logits))
    else:
        positive = M.greater(labels, 0)
        # log of 1 where the label is not positive, so no NaN reaches either branch's gradient
        zero = A.zeros_like(labels)
        safe = _where(positive, labels, A.ones_like(labels))
        loss = _where(positive, M.mul(labels, M.sub(M.log(safe), logits)), zero)
    if reduction == "batchmean":
        return M.div(M.reduce_sum(loss), float(logits.shape[0]) if logits.ndim else 1.0)
    return reduce_loss("kl_div", loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    _check_float("margin_ranking_loss", "input1", input1)
    loss = N.relu(M.add(M.neg(M.mul(target, M.sub(input1, input2))), float(margin)))
    return reduce_loss("margin_ranking_loss", loss, reduction)


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """max(0, margin - x) where targets == -1, else x (MindSpore's rule: any target other
    than -1 takes x itself)."""
    _check_float("hinge_embedding_loss", "inputs", inputs)
    loss = _where(M.equal(targets, -1), N.relu(M.sub(float(margin), inputs)),
                  M.add(inputs, M.mul(targets, 0)))
    return reduce_loss("hinge_embedding_loss", loss, reduction)


def gaussian_nll_loss(x, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 (log(max(var, eps)) + (x - target)^2 / max(var, eps)) (+ 0.5 log(2 pi) if full)."""
    _check_float("gaussian_nll_loss", "x", x)
    v = M.maximum(var, float(eps))
    loss = M.mul(M.add(M.log(v), M.div(M.square(M.sub(x, target)), v)), 0.5)
    if full:
        loss = M.add(loss, 0.5 * math.log(2 * math.pi))
    return reduce_loss("gaussian_nll_loss", loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):  # noqa: A002
    """The mean over classes (last dim) of the sigmoid cross entropy, then the reduction."""
    _check_float("multilabel_soft_margin_loss", "input", input)
    loss = M.add(M.mul(M.sub(1.0, target), input), softplus(M.neg(input)))
    loss = M.reduce_mean(_weighted(loss, weight), -1)
    return reduce_loss("multilabel_soft_margin_loss", loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-8,  # noqa: A002
                     reduction="mean"):
    """exp(x) - target * x for log-rate inputs, x - target * log(x + eps) otherwise; full adds
    Stirling's term target log target - target + 0.5 log(2 pi target) where target > 1."""
    _check_float("poisson_nll_loss", "input", input)
    if log_input:
        loss = M.sub(M.exp(input), M.mul(target, input))
    else:
        loss = M.sub(input, M.mul(target, M.log(M.add(input, float(eps)))))
    if full:
        safe = M.maximum(target, 1.0)
        stirling = M.add(M.sub(M.mul(safe, M.log(safe)), safe),
                         M.mul(M.log(M.mul(safe, 2 * math.pi)), 0.5))
        loss = M.add(loss, _where(M.greater(target, 1.0), stirling, A.zeros_like(stirling)))
    return reduce_loss("poisson_nll_loss", loss, reduction)


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """sum(x1 * x2) / max(|x1| |x2|, eps) along dim."""
    _check_float("cosine_similarity", "x1", x1)
    dot = M.reduce_sum(M.mul(x1, x2), dim)
    norms = M.mul(vector_norm(x1, 2, dim), vector_norm(x2, 2, dim))
    return M.div(dot, M.maximum(norms, float(eps)))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """1 - cos where target == 1, max(0, cos - margin) where target == -1, else 0; cos along
    dim 1."""
    cos = cosine_similarity(input1, input2, 1, 1e-8)
    t = A.cast(target, cos.dtype)
    zero = A.zeros_like(cos)
    loss = _where(M.equal(t, 1.0), M.sub(1.0, cos),
                  _where(M.equal(t, -1.0), N.relu(M.sub(cos, float(margin))), zero))
    return reduce_loss("cosine_embedding_loss", loss, reduction)


def cdist(x1, x2, p=2.0):
    """The p-norm distance between each row of x1 (.., P, M) and each row of x2 (.., R, M):
    (.., P, R)."""
    _check_float("cdist", "x1", x1)
    _check_float("cdist", "x2", x2)
    d = M.sub(A.expand_dims(x1, -2), A.expand_dims(x2, -3))
    return vector_norm(d, p, -1)


def l2_loss(x):
    """sum(x^2) / 2."""
    _check_float("l2_loss", "x", x)
    return M.mul(M.reduce_sum(M.square(x)), 0.5)



def _classes_last(x):
    """(N, C, d1, ...) -> (N * d1 * ..., C)."""
    c = x.shape[1]
    if x.ndim == 2:
        return x
    perm = (0,) + tuple(range(2, x.ndim)) + (1,)
    return A.reshape(A.transpose(x, perm), (-1, c))


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean",
             label_smoothing=0.0):
    """-weight[t] * inputs[.., t, ..] for log-probabilities inputs (N, C, ...) and class
    indices target (N, ...); targets equal to ignore_index count zero and 'mean' divides by
    the summed weights of the kept ones; other indices outside [0, C) raise ValueError (a
    one-hot of one would silently be a zero loss). label_smoothing mixes in the mean over
    classes."""
    from minispore.ops.operations._base import cached_op
    from minispore.ops.operations.nn_ops import CheckLabelRange
    _check_float("nll_loss", "inputs", inputs)
    _check_tensor("nll_loss", "target", target)
    if inputs.ndim < 2 or not target.dtype.is_int:
        raise ValueError(f"For 'nll_loss', 'inputs' must be (N, C, ...) and 'target' integer "
                         f"class indices, but got {tuple(inputs.shape)} and {target.dtype}.")
    c = inputs.shape[1]
    shape = (inputs.shape[0],) + tuple(inputs.shape[2:])
    logp = _classes_last(inputs)
    labels = cached_op(CheckLabelRange, "nll_loss", ignore_index)(A.reshape(target, (-1,)), c)
    keep = A.cast(M.not_equal(labels, ignore_index), logp.dtype)
    safe = M.mul(labels, A.cast(keep, labels.dtype))
    one, zero = Tensor(1.0, logp.dtype), Tensor(0.0, logp.dtype)
    onehot = A.one_hot(safe, c, one, zero)
    class_w = A.ones((c,), logp.dtype) if weight is None else A.cast(weight, logp.dtype)
    picked = M.reduce_sum(M.mul(M.mul(onehot, class_w), logp), -1)
    loss = M.mul(M.neg(picked), keep)
    if label_smoothing > 0:
        smooth = M.mul(M.neg(M.reduce_sum(M.mul(logp, class_w), -1)), keep)
        loss = M.add(M.mul(loss, 1.0 - label_smoothing), M.mul(smooth, label_smoothing / c))
    if reduction == "none":
        return A.reshape(loss, shape)
    if reduction == "sum":
        return M.reduce_sum(loss)
    if reduction != "mean":
        raise ValueError(f"For 'nll_loss', 'reduction' must be one of {list(_REDUCTIONS)}, but "
                         f"got {reduction!r}.")
    kept_w = M.mul(M.reduce_sum(M.mul(onehot, class_w), -1), keep)
    return M.div(M.reduce_sum(loss), M.reduce_sum(kept_w))


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",  # noqa: A002
                  label_smoothing=0.0):
    """The cross entropy of logits input (N, C, ...) against class indices (N, ...) (nll_loss
    of log_softmax over dim 1) or class probabilities shaped like input: -sum_c w_c t_c
    log softmax_c, 'mean' dividing by the number of samples."""
    _check_float("cross_entropy", "input", input)
    _check_tensor("cross_entropy", "target", target)
    logp = N.log_softmax(input, 1)
    if target.dtype.is_int:
        return nll_loss(logp, target, weight, ignore_index, reduction, label_smoothing)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"For 'cross_entropy', probability targets must have the shape "
                         f"{tuple(input.shape)} of 'input', but got {tuple(target.shape)}.")
    c = input.shape[1]
    t = target
    if label_smoothing > 0:
        t = M.add(M.mul(t, 1.0 - label_smoothing), label_smoothing / c)
    w = 1.0 if weight is None else A.reshape(weight, (1, c) + (1,) * (input.ndim - 2))
    loss = M.neg(M.reduce_sum(M.mul(M.mul(t, logp), w), 1))
    if reduction == "mean":
        return M.div(M.reduce_sum(loss), float(loss.size))
    return reduce_loss("cross_entropy", loss, reduction)
