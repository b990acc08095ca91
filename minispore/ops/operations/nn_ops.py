"""Neural-network operators: softmax and losses, dropout, normalisation.

Activations and bias add live in activation_ops.py, convolution and pooling in conv_ops.py. Backward rules go through small gradient
primitives (ReluGrad, SoftmaxGrad, LayerNormGrad …) so every bprop is one fused kernel.
Kernels take float32 and float64; the softmax family, the cross-entropy losses and Dropout
take float16 by running the float32 kernel (Primitive.float16_in_float32); LayerNorm refuses it.
"""
import math

import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.seed import rng
from minispore.common.tensor import Tensor
from minispore.ops import sharding as rules
from minispore.ops import sharding_nn
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (cached_op, check_dtype, check_float,
                                            check_same_dtype, check_same_shape, check_tensor,
                                            contiguous, dims_equal, normalize_axis,
                                            shapes_equal)
from minispore.ops.operations.array_ops import OnesLike, Reshape, ZerosLike
from minispore.ops.operations.math_ops import Add, Mul, ReduceSum
from minispore.ops.primitive import Aval, Primitive

__all__ = ["Softmax", "SoftmaxGrad", "LogSoftmax", "LogSoftmaxGrad",
           "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits", "Dropout",
           "LayerNorm", "LayerNormGrad"]


def _one_axis(name, axis):
    """MindSpore's Softmax accepts an int or a 1-tuple of ints."""
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            raise ValueError(f"For '{name}', 'axis' must be an int or a tuple of one int, "
                             f"but got {axis!r}.")
        axis = axis[0]
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"For '{name}', 'axis' must be an int, but got "
                        f"{type(axis).__name__}.")
    return axis


def _axis_view(x, axis):
    """x as a C-contiguous (before, axis, after) array: the layout of the softmax kernels."""
    shape = x.shape
    a = int(math.prod(shape[:axis]))
    b = int(math.prod(shape[axis + 1:]))
    return contiguous(x).reshape(a, shape[axis], b)


class _SoftmaxBase(Primitive):
    float16_in_float32 = True
    sharding_rule = rules.axis_fixed("the softmax axis would need AllReduce MAX and SUM")
    kernel_name = None

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = _one_axis(self.name, axis)
        self.add_prim_attr("axis", self.axis)

    def _axis(self, x):
        return normalize_axis(self, self.axis, x.ndim) if x.ndim else 0

    def infer(self, x, *rest):
        check_float(self, "x", x)
        for name, other in zip(("dy",), rest):
            check_tensor(self, name, other)
            check_same_shape(self, ("y", name), x, other)
        self._axis(x)
        return Aval(x.shape, x.dtype)

    def impl(self, x, *rest):
        axis = self._axis(x)
        views = [_axis_view(a, axis) for a in (x,) + rest]
        out = device.empty(views[0].shape, x.dtype)
        kernel("softmax", self.kernel_name)(*views, out)
        return out.reshape(x.shape)


class Softmax(_SoftmaxBase):
    """y = exp(x - max) / sum(exp(x - max)) along `axis` (default -1)."""
    kernel_name = "softmax"

    def bprop(self, inputs, out, dout):
        return (cached_op(SoftmaxGrad, self.axis)(out, dout),)


class SoftmaxGrad(_SoftmaxBase):
    """dx = y * (dy - sum(dy * y, axis)): SoftmaxGrad(axis)(y, dy), y the Softmax output."""
    no_bprop_reason = "a second-order gradient through this backward operator is not implemented"

    kernel_name = "softmax_grad"


class LogSoftmax(_SoftmaxBase):
    """y = x - max - log(sum(exp(x - max))) along `axis` (default -1)."""
    kernel_name = "log_softmax"

    def bprop(self, inputs, out, dout):
        return (cached_op(LogSoftmaxGrad, self.axis)(out, dout),)


class LogSoftmaxGrad(_SoftmaxBase):
    """dx = dy - exp(y) * sum(dy, axis): LogSoftmaxGrad(axis)(y, dy), y the LogSoftmax output."""
    no_bprop_reason = "a second-order gradient through this backward operator is not implemented"

    kernel_name = "log_softmax_grad"


class SoftmaxCrossEntropyWithLogits(Primitive):
    """Dense-label softmax cross-entropy: ``(loss, backprop) = Op()(logits, labels)``.

    logits, labels: (N, C), same float dtype. loss[n] = -sum_c labels * log_softmax(logits);
    backprop = softmax(logits) - labels (MindSpore's output), computed with the loss in one
    max-subtracted kernel. The bprop takes the loss's true gradient, softmax * sum_c labels -
    labels = backprop + (backprop + labels) * (sum_c labels - 1), which is `backprop` itself for
    labels summing to 1 per row; MindSpore's bprop uses `backprop` for any labels (a deliberate
    difference: CONFORMANCE.md). Labels get no gradient (MindSpore returns zeros for them).
    """
    float16_in_float32 = True
    sharding_rule = rules.softmax_cross_entropy

    def __init__(self, _labels_sum_to_one=False):
        # minispore's own callers that build one-hot labels (nn's sparse loss) pass True: the
        # bprop then uses `backprop` as it is, without the correction's four nodes.
        super().__init__()
        self.labels_sum_to_one = bool(_labels_sum_to_one)
        if self.labels_sum_to_one:
            self.add_prim_attr("labels_sum_to_one", True)

    def infer(self, logits, labels):
        check_float(self, "logits", logits)
        check_tensor(self, "labels", labels)
        check_same_dtype(self, ("logits", "labels"), (logits, labels))
        if logits.ndim != 2 or not shapes_equal(self, labels.shape, logits.shape):
            raise self.error(f"'logits' and 'labels' must be 2-D with the same shape, but got "
                             f"{tuple(logits.shape)} and {tuple(labels.shape)}.")
        return Aval(logits.shape[:1], logits.dtype), Aval(logits.shape, logits.dtype)

    writes_out = True

    def impl(self, logits, labels, out=None):
        loss, dlogits = out if out is not None else (
            device.empty(logits.shape[0], logits.dtype), device.empty(logits.shape, logits.dtype))
        kernel("softmax", "softmax_cross_entropy")(contiguous(logits),
                                                   contiguous(labels), loss, dlogits)
        return loss, dlogits

    def bprop(self, inputs, out, dout):
        _, labels = inputs
        grad = backprop = out[1]
        if not self.labels_sum_to_one:
            excess = cached_op(Add)(cached_op(ReduceSum, True)(labels, (1,)), -1.0)
            grad = cached_op(Add)(backprop,
                                  cached_op(Mul)(cached_op(Add)(backprop, labels), excess))
        dloss = cached_op(Reshape)(dout[0], (backprop.shape[0], 1))
        return cached_op(Mul)(grad, dloss), None


class SparseSoftmaxCrossEntropyWithLogits(Primitive):
    """Integer-label softmax cross-entropy, mean over the batch.

    ``Op(is_grad=False)(logits, labels)``: logits (N, C) float, labels (N,) int32/int64 in
    [0, C). Returns the mean loss (shape ()); with ``is_grad=True`` it returns the gradient of
    that mean w.r.t. logits, (softmax - one_hot) / N. The kernel always produces both (one
    max-subtracted pass), so the primitive has two outputs and the call returns the one asked
    for; the bprop scales the stored gradient. Labels outside [0, C) raise ValueError.
    """
    float16_in_float32 = True
    sharding_rule = rules.sparse_softmax_cross_entropy

    def __init__(self, is_grad=False):
        super().__init__()
        if not isinstance(is_grad, bool):
            raise TypeError(f"For 'SparseSoftmaxCrossEntropyWithLogits', 'is_grad' must be "
                            f"bool, but got {type(is_grad).__name__}.")
        self.is_grad = is_grad
        self.add_prim_attr("is_grad", is_grad)

    def __call__(self, logits, labels):
        return super().__call__(logits, labels)[1 if self.is_grad else 0]

    def infer(self, logits, labels):
        check_float(self, "logits", logits)
        check_tensor(self, "labels", labels)
        check_dtype(self, "labels", labels, (mstype.int32, mstype.int64))
        if logits.ndim != 2 or labels.ndim != 1 or not dims_equal(self, labels.shape[0],
                                                                   logits.shape[0]):
            raise self.error(f"'logits' must be (N, C) and 'labels' (N,), but got "
                             f"{tuple(logits.shape)} and {tuple(labels.shape)}.")
        return Aval((), logits.dtype), Aval(logits.shape, logits.dtype)

    fresh_outputs = True

    def impl(self, logits, labels):
        n = logits.shape[0]
        loss = device.empty(n, logits.dtype)
        dlogits = device.empty(logits.shape, logits.dtype)
        scale = logits.dtype.type(1.0 / max(n, 1))
        bad = kernel("softmax", "sparse_softmax_cross_entropy")(
            contiguous(logits), contiguous(labels), loss, dlogits, scale)
        if bad >= 0:
            raise label_out_of_range(self, labels, bad, logits.shape[1])
        return device.asarray(kernel("softmax", "mean")(loss), logits.dtype), dlogits

    def bprop(self, inputs, out, dout):
        if self.is_grad:
            raise self.error("its is_grad=True output is not differentiable.", RuntimeError)
        return cached_op(Mul)(out[1], dout[0]), None


def label_out_of_range(op, labels, row, num_classes, ignore_index=None, loss=None):
    """The error of every sparse cross-entropy path for labels[row] outside [0, num_classes)
    (`loss` names the loss whose labels they are when `op` is not the loss itself)."""
    valid = f"[0, {num_classes})"
    if ignore_index is not None:
        valid += f" or equal ignore_index={ignore_index}"
    whose = f" of '{loss}'" if loss else ""
    return op.error(f"every label{whose} must be in {valid}, but labels[{row}] is "
                    f"{labels[row]}.")


class CheckLabelRange(Primitive):
    """Class-index labels passed through unchanged (the same buffer) once every one is in
    [0, num_classes) or equals ``ignore_index``: ``CheckLabelRange(loss, ignore_index=None)(
    labels, num_classes)``, `loss` the name of the loss whose labels they are (for the error).

    The sparse losses built on OneHot (nn.SoftmaxCrossEntropyWithLogits(sparse=True),
    nn.CrossEntropyLoss) run their labels through it: the one-hot row of an out-of-range label
    is all zeros, which would give that sample a zero loss and zero gradient without a word.
    As a node of a compiled graph it checks every step's labels. Not differentiable.

    Raises:
        ValueError: a label outside the range, naming its position and value (the message of
            SparseSoftmaxCrossEntropyWithLogits).
    """
    sharding_rule = rules.elementwise

    differentiable = False

    def __init__(self, loss, ignore_index=None):
        super().__init__()
        if not isinstance(loss, str):
            raise TypeError(f"For 'CheckLabelRange', 'loss' must be a str, but got "
                            f"{type(loss).__name__}.")
        if ignore_index is not None and (not isinstance(ignore_index, int)
                                         or isinstance(ignore_index, bool)):
            raise TypeError(f"For 'CheckLabelRange', 'ignore_index' must be an int or None, "
                            f"but got {type(ignore_index).__name__}.")
        self.loss, self.ignore_index = loss, ignore_index
        self.add_prim_attr("loss", loss)
        self.add_prim_attr("ignore_index", ignore_index)

    def infer(self, labels, num_classes):
        check_tensor(self, "labels", labels)
        check_dtype(self, "labels", labels, (mstype.int32, mstype.int64))
        return Aval(labels.shape, labels.dtype)

    def impl(self, labels, num_classes):
        # 0 is a valid class, so "ignoring" it when no index is ignored lets nothing through.
        ignore = 0 if self.ignore_index is None else self.ignore_index
        bad = kernel("indexing", "first_label_out_of_range")(contiguous(labels).reshape(-1),
                                                             int(num_classes), ignore)
        if bad >= 0:
            raise label_out_of_range(self, labels.reshape(-1), bad, num_classes,
                                     self.ignore_index, self.loss)
        return labels


# -- dropout -----------------------------------------------------------------------------
class Dropout(Primitive):
    """Randomly zeroes elements: ``output, mask = Dropout(keep_prob=0.5)(x)``.

    Each element is kept with probability keep_prob and scaled by 1/keep_prob; mask (x's shape
    and dtype) holds 1 where kept. Draws come from the global generator (``ms.set_seed``), or
    from the operator's own generator when Seed0 or Seed1 is non-zero.
    """
    float16_in_float32 = True
    sharding_rule = rules.elementwise_with_note(
        "per-slice seeds: each rank draws the mask of its block of the single-device mask")
    replayable = False      # a graph re-run would draw another mask

    def __init__(self, keep_prob=0.5, Seed0=0, Seed1=0):
        super().__init__()
        if not isinstance(keep_prob, (int, float)) or isinstance(keep_prob, bool):
            raise TypeError(f"For 'Dropout', 'keep_prob' must be a float, but got "
                            f"{type(keep_prob).__name__}.")
        if not 0.0 < keep_prob <= 1.0:
            raise ValueError(f"For 'Dropout', 'keep_prob' must be in range (0, 1], but got "
                             f"{keep_prob}.")
        for name, v in (("Seed0", Seed0), ("Seed1", Seed1)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"For 'Dropout', '{name}' must be a non-negative int, but "
                                 f"got {v!r}.")
        self.keep_prob = float(keep_prob)
        self._rng = np.random.default_rng((Seed0, Seed1)) if (Seed0 or Seed1) else None
        self.add_prim_attr("keep_prob", self.keep_prob)
        self.add_prim_attr("Seed0", Seed0)
        self.add_prim_attr("Seed1", Seed1)

    def infer(self, x):
        check_float(self, "x", x)
        return Aval(x.shape, x.dtype), Aval(x.shape, x.dtype)

    def impl(self, x):
        # Drawn on the host from the same generator on every device, so a GPU run keeps
        # the CPU run's masks.
        u = device.asarray(self._uniforms(x.shape, x.dtype))
        out = device.empty(x.shape, x.dtype)
        mask = device.empty(x.shape, x.dtype)
        kernel("random", "dropout")(contiguous(x), u, x.dtype.type(self.keep_prob),
                                    out, mask)
        return out, mask

    def bprop(self, inputs, out, dout):
        mul = cached_op(Mul)
        return (mul(mul(dout[0], out[1]), 1.0 / self.keep_prob),)

    def generators(self):
        return (self._rng,) if self._rng is not None else ()

    _block = None   # (layout, rank) when this instance runs on one block of a sharded x

    def _uniforms(self, shape, dtype):
        """The draws for an x of `shape`; on a block of a sharded x, the block of the draws
        for the whole x, so the mask equals the single-device one (per-slice seeding)."""
        gen = self._rng or rng()
        if self._block is None:
            return gen.random(shape, dtype=dtype)
        layout, rank = self._block
        whole = tuple(n * c for n, c in zip(shape, layout.cuts()))
        block = gen.random(whole, dtype=dtype)[layout.local_slices(whole, rank)]
        return np.ascontiguousarray(block)

    def local_call(self, args, ctx):
        layout = ctx.in_layouts[0]
        if all(c == 1 for c in layout.cuts()):
            return self(*args)
        return self.with_attrs(_block=(layout, ctx.rank))(*args)


# -- layer norm --------------------------------------------------------------------------
def _check_axis_attr(name, arg, value):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"For '{name}', '{arg}' must be an int, but got "
                        f"{type(value).__name__}.")


class _LayerNormBase(Primitive):
    sharding_rule = sharding_nn.layer_norm
    def __init__(self, begin_norm_axis=1, begin_params_axis=1):
        super().__init__()
        _check_axis_attr(self.name, "begin_norm_axis", begin_norm_axis)
        _check_axis_attr(self.name, "begin_params_axis", begin_params_axis)
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.add_prim_attr("begin_norm_axis", begin_norm_axis)
        self.add_prim_attr("begin_params_axis", begin_params_axis)

    def _axes(self, x):
        norm = normalize_axis(self, self.begin_norm_axis, x.ndim, "begin_norm_axis")
        params = normalize_axis(self, self.begin_params_axis, x.ndim, "begin_params_axis")
        if params < norm:
            raise self.error(f"'begin_params_axis' ({self.begin_params_axis}) must not come "
                             f"before 'begin_norm_axis' ({self.begin_norm_axis}) for input "
                             f"shape {tuple(x.shape)}.")
        return norm, params

    def _check_param(self, name, p, x, params):
        check_tensor(self, name, p)
        check_same_dtype(self, ("input_x", name), (x, p))
        if not shapes_equal(self, p.shape, x.shape[params:]):
            raise self.error(f"'{name}' must have shape {tuple(x.shape[params:])} "
                             f"(input_x.shape[{params}:]), but got {tuple(p.shape)}.")

    @staticmethod
    def _rows(x, norm):
        return contiguous(x).reshape(int(math.prod(x.shape[:norm])), -1)

    @staticmethod
    def _param_row(p, x, norm):
        """gamma/beta (x.shape[params:]) broadcast over x.shape[norm:] and flattened."""
        return contiguous(device.broadcast_to(p, x.shape[norm:])).reshape(-1)


class LayerNorm(_LayerNormBase):
    """``y, mean, variance = LayerNorm(begin_norm_axis=1, begin_params_axis=1,
    epsilon=1e-7)(x, gamma, beta)``: normalise over x.shape[begin_norm_axis:],
    y = (x - mean) * rstd * gamma + beta with rstd = 1 / sqrt(variance + epsilon).

    gamma, beta: x.shape[begin_params_axis:]. mean and variance keep x's leading dims and have
    1 elsewhere. The third output is the (biased) variance, as MindSpore 2.7's CPU kernel
    returns it (its documentation says rstd; the recorded outputs in tests/conformance are the
    variance). Gradients flow from y only (mean and variance are statistics, as in MindSpore).
    """

    def __init__(self, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
        super().__init__(begin_norm_axis, begin_params_axis)
        if not isinstance(epsilon, float) or epsilon <= 0:
            raise ValueError(f"For 'LayerNorm', 'epsilon' must be a positive float, but got "
                             f"{epsilon!r}.")
        self.epsilon = epsilon
        self.add_prim_attr("epsilon", epsilon)

    def __call__(self, x, gamma, beta):
        # MindSpore also takes gamma/beta starting before the normalised dims
        # (begin_params_axis < begin_norm_axis): normalise with unit scale, then apply them.
        if self.begin_params_axis != self.begin_norm_axis and isinstance(x, Tensor):
            ndim = len(x.shape)
            norm = normalize_axis(self, self.begin_norm_axis, ndim, "begin_norm_axis")
            params = normalize_axis(self, self.begin_params_axis, ndim, "begin_params_axis")
            if params < norm:
                self._check_param("gamma", gamma, x, params)
                self._check_param("beta", beta, x, params)
                unit = cached_op(LayerNorm, norm, norm, self.epsilon)
                ones = cached_op(OnesLike)(x[(0,) * norm])
                y, mean, var = unit(x, ones, cached_op(ZerosLike)(ones))
                return cached_op(Add)(cached_op(Mul)(y, gamma), beta), mean, var
        return super().__call__(x, gamma, beta)

    def infer(self, x, gamma, beta):
        check_float(self, "input_x", x)
        norm, params = self._axes(x)
        self._check_param("gamma", gamma, x, params)
        self._check_param("beta", beta, x, params)
        stat = tuple(x.shape[:norm]) + (1,) * (x.ndim - norm)
        return Aval(x.shape, x.dtype), Aval(stat, x.dtype), Aval(stat, x.dtype)

    def impl(self, x, gamma, beta):
        norm, _ = self._axes(x)
        xr = self._rows(x, norm)
        y = device.empty(xr.shape, x.dtype)
        mean = device.empty(xr.shape[0], x.dtype)
        var = device.empty(xr.shape[0], x.dtype)
        kernel("norm", "layer_norm")(xr, self._param_row(gamma, x, norm),
                                     self._param_row(beta, x, norm), self.epsilon, y, mean, var)
        stat = tuple(x.shape[:norm]) + (1,) * (x.ndim - norm)
        return y.reshape(x.shape), mean.reshape(stat), var.reshape(stat)

    def bprop(self, inputs, out, dout):
        x, gamma, _ = inputs
        grad = cached_op(LayerNormGrad, self.begin_norm_axis, self.begin_params_axis,
                         self.epsilon)
        dx, dgamma, dbeta = grad(x, dout[0], out[2], out[1], gamma)
        lead = len(dgamma.shape) - gamma.ndim
        if lead:
            # gamma starts after the normalised block: sum the broadcast dims away.
            reduce_sum = cached_op(ReduceSum, False)
            dgamma = reduce_sum(dgamma, tuple(range(lead)))
            dbeta = reduce_sum(dbeta, tuple(range(lead)))
        return dx, dgamma, dbeta


class LayerNormGrad(_LayerNormBase):
    """``dx, dgamma, dbeta = LayerNormGrad(begin_norm_axis, begin_params_axis,
    epsilon=1e-7)(x, dy, variance, mean, gamma)``, as MindSpore's (the forward's variance and
    mean; rstd = 1 / sqrt(variance + epsilon)); dgamma and dbeta have shape
    x.shape[begin_norm_axis:] (the bprop sums them down to gamma's shape)."""
    no_bprop_reason = "a second-order gradient through this backward operator is not implemented"

    def __init__(self, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
        super().__init__(begin_norm_axis, begin_params_axis)
        self.epsilon = epsilon
        self.add_prim_attr("epsilon", epsilon)

    def infer(self, x, dy, variance, mean, gamma):
        check_float(self, "x", x)
        check_tensor(self, "dy", dy)
        check_same_shape(self, ("x", "dy"), x, dy)
        norm, params = self._axes(x)
        self._check_param("gamma", gamma, x, params)
        pshape = tuple(x.shape[norm:])
        return Aval(x.shape, x.dtype), Aval(pshape, x.dtype), Aval(pshape, x.dtype)

    def impl(self, x, dy, variance, mean, gamma):
        norm, _ = self._axes(x)
        xr = self._rows(x, norm)
        dx = device.empty(xr.shape, x.dtype)
        dgamma = device.empty(xr.shape[1], x.dtype)
        dbeta = device.empty(xr.shape[1], x.dtype)
        kernel("norm", "layer_norm_grad")(xr, self._rows(dy, norm),
                                          self._param_row(gamma, x, norm),
                                          contiguous(mean).reshape(-1),
                                          contiguous(variance).reshape(-1), self.epsilon,
                                          dx, dgamma, dbeta)
        pshape = tuple(x.shape[norm:])
        return dx.reshape(x.shape), dgamma.reshape(pshape), dbeta.reshape(pshape)
