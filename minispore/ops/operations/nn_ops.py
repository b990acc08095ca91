"""Neural-network operators: activations, softmax and losses, bias add, dropout, normalisation.

Convolution and pooling live in conv_ops.py. Backward rules go through small gradient
primitives (ReluGrad, SoftmaxGrad, LayerNormGrad …) so every bprop is one fused kernel.
Kernels take float32 and float64; float16 inputs are rejected with a TypeError.
"""
import numpy as np

from minispore.common import sharding_rules as rules
from minispore.common import dtype as mstype
from minispore.common.seed import rng
from minispore.ops.kernel_registry import kernel
from minispore.ops.operations._base import (check_dtype, check_same_dtype, check_tensor,
                                            contiguous, dims_equal, normalize_axis, shapes_equal)
from minispore.ops.primitive import Aval, Primitive

__all__ = ["ReLU", "ReluGrad", "Sigmoid", "SigmoidGrad", "Tanh", "TanhGrad", "GeLU", "GeLUGrad",
           "Softmax", "SoftmaxGrad", "LogSoftmax", "LogSoftmaxGrad", "BiasAdd", "BiasAddReLU",
           "BiasAddGrad", "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
           "Dropout", "LayerNorm", "LayerNormGrad"]

FLOATS = (mstype.float32, mstype.float64)


def _F():
    from minispore.ops import functional
    return functional


def _check_float(prim, name, x):
    check_tensor(prim, name, x)
    check_dtype(prim, name, x, FLOATS)


def _check_same(prim, names, a, b):
    check_same_dtype(prim, names, (a, b))
    if not shapes_equal(prim, a.shape, b.shape):
        raise prim.error(f"'{names[0]}' and '{names[1]}' must have the same shape, but got "
                         f"{tuple(a.shape)} and {tuple(b.shape)}.")


def _run(family, name, *arrays):
    """out = kernel(*contiguous arrays, out) with out shaped and typed like the first array."""
    out = np.empty(arrays[0].shape, arrays[0].dtype)
    kernel(family, name)(*[contiguous(a) for a in arrays], out)
    return out


# -- activations -------------------------------------------------------------------------
class _Activation(Primitive):
    """y = f(x) elementwise on float32/float64; `kernel_name` names the activation kernel."""
    sharding_rule = rules.elementwise
    kernel_name = None
    valid_dtypes = FLOATS

    def infer(self, x):
        check_tensor(self, "input_x", x)
        check_dtype(self, "input_x", x, self.valid_dtypes)
        return Aval(x.shape, x.dtype)

    def impl(self, x):
        return _run("activation", self.kernel_name, x)


class _ActivationGrad(Primitive):
    """The gradient primitive of an activation: two same-shape float inputs, one output."""
    sharding_rule = rules.elementwise
    # Backward-only primitive: minispore supports first-order gradients, not grad-of-grad.
    differentiable = False
    kernel_name = None
    arg_names = ("y", "dy")

    def infer(self, a, b):
        _check_float(self, self.arg_names[0], a)
        check_tensor(self, self.arg_names[1], b)
        _check_same(self, self.arg_names, a, b)
        return Aval(a.shape, a.dtype)

    def impl(self, a, b):
        return _run("activation", self.kernel_name, a, b)


class ReLU(_Activation):
    """y = max(x, 0). Also accepts int32/int64 (not differentiable there).

    >>> import numpy as np, minispore as ms
    >>> ms.ops.ReLU()(ms.Tensor(np.array([-1.0, 2.0], np.float32))).asnumpy().tolist()
    [0.0, 2.0]
    """
    kernel_name = "relu"
    valid_dtypes = FLOATS + (mstype.int32, mstype.int64)

    def bprop(self, inputs, out, dout):
        return (_relu_grad(dout, out),)


class ReluGrad(_ActivationGrad):
    """dx = dy where y > 0 else 0: ReluGrad()(dy, y), y the ReLU output."""
    kernel_name = "relu_grad"
    arg_names = ("dy", "y")


class Sigmoid(_Activation):
    """y = 1 / (1 + exp(-x)), overflow-free for large |x|."""
    kernel_name = "sigmoid"

    def bprop(self, inputs, out, dout):
        return (_sigmoid_grad(out, dout),)


class SigmoidGrad(_ActivationGrad):
    """dx = dy * y * (1 - y): SigmoidGrad()(y, dy), y the Sigmoid output."""
    kernel_name = "sigmoid_grad"


class Tanh(_Activation):
    """y = tanh(x)."""
    kernel_name = "tanh"

    def bprop(self, inputs, out, dout):
        return (_tanh_grad(out, dout),)


class TanhGrad(_ActivationGrad):
    """dx = dy * (1 - y^2): TanhGrad()(y, dy), y the Tanh output."""
    kernel_name = "tanh_grad"


def _check_approximate(name, approximate):
    if approximate not in ("tanh", "none"):
        raise ValueError(f"For '{name}', 'approximate' must be 'tanh' or 'none', "
                         f"but got {approximate!r}.")


class GeLU(_Activation):
    """Gaussian error linear unit. ``GeLU()`` is MindSpore's primitive, the tanh approximation
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); ``GeLU(approximate='none')`` (used by
    ``ops.gelu``'s default) is the exact 0.5 x (1 + erf(x / sqrt 2)).
    """

    def __init__(self, approximate="tanh"):
        super().__init__()
        _check_approximate("GeLU", approximate)
        self.approximate = approximate
        self.kernel_name = "gelu_tanh" if approximate == "tanh" else "gelu_erf"
        self.add_prim_attr("approximate", approximate)

    def bprop(self, inputs, out, dout):
        return (_gelu_grads[self.approximate](dout, inputs[0]),)


class GeLUGrad(_ActivationGrad):
    """dx = dy * gelu'(x): GeLUGrad(approximate)(dy, x)."""
    arg_names = ("dy", "x")

    def __init__(self, approximate="tanh"):
        super().__init__()
        _check_approximate("GeLUGrad", approximate)
        self.kernel_name = "gelu_tanh_grad" if approximate == "tanh" else "gelu_erf_grad"
        self.add_prim_attr("approximate", approximate)


_relu_grad, _sigmoid_grad, _tanh_grad = ReluGrad(), SigmoidGrad(), TanhGrad()
_gelu_grads = {a: GeLUGrad(a) for a in ("tanh", "none")}


# -- softmax -----------------------------------------------------------------------------
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
    a = int(np.prod(shape[:axis], dtype=np.int64))
    b = int(np.prod(shape[axis + 1:], dtype=np.int64))
    return contiguous(x).reshape(a, shape[axis], b)


class _SoftmaxBase(Primitive):
    sharding_rule = rules.axis_fixed("the softmax axis would need AllReduce MAX and SUM")
    kernel_name = None

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = _one_axis(self.name, axis)
        self.add_prim_attr("axis", self.axis)

    def _axis(self, x):
        return normalize_axis(self, self.axis, x.ndim) if x.ndim else 0

    def infer(self, x, *rest):
        _check_float(self, "x", x)
        for name, other in zip(("dy",), rest):
            check_tensor(self, name, other)
            _check_same(self, ("y", name), x, other)
        self._axis(x)
        return Aval(x.shape, x.dtype)

    def impl(self, x, *rest):
        axis = self._axis(x)
        views = [_axis_view(a, axis) for a in (x,) + rest]
        out = np.empty(views[0].shape, x.dtype)
        kernel("softmax", self.kernel_name)(*views, out)
        return out.reshape(x.shape)


class Softmax(_SoftmaxBase):
    """y = exp(x - max) / sum(exp(x - max)) along `axis` (default -1)."""
    kernel_name = "softmax"

    def bprop(self, inputs, out, dout):
        return (_cached(SoftmaxGrad, self.axis)(out, dout),)


class SoftmaxGrad(_SoftmaxBase):
    """dx = y * (dy - sum(dy * y, axis)): SoftmaxGrad(axis)(y, dy), y the Softmax output."""
    # Backward-only primitive: minispore supports first-order gradients, not grad-of-grad.
    differentiable = False
    kernel_name = "softmax_grad"


class LogSoftmax(_SoftmaxBase):
    """y = x - max - log(sum(exp(x - max))) along `axis` (default -1)."""
    kernel_name = "log_softmax"

    def bprop(self, inputs, out, dout):
        return (_cached(LogSoftmaxGrad, self.axis)(out, dout),)


class LogSoftmaxGrad(_SoftmaxBase):
    """dx = dy - exp(y) * sum(dy, axis): LogSoftmaxGrad(axis)(y, dy), y the LogSoftmax output."""
    # Backward-only primitive: minispore supports first-order gradients, not grad-of-grad.
    differentiable = False
    kernel_name = "log_softmax_grad"


_instances = {}


def _cached(cls, *attrs):
    """One gradient primitive per (class, attributes), shared by every bprop that needs it."""
    key = (cls,) + attrs
    op = _instances.get(key)
    if op is None:
        op = _instances[key] = cls(*attrs)
    return op


# -- bias add ----------------------------------------------------------------------------
_CHANNEL_LAST = {"NHWC"}


class _BiasAddBase(Primitive):
    sharding_rule = rules.bias_add
    kernel_name = None

    def __init__(self, data_format="NCHW"):
        super().__init__()
        if data_format not in ("NCHW", "NHWC", "NCDHW"):
            raise ValueError(f"For '{self.name}', 'data_format' must be 'NCHW', 'NHWC' or "
                             f"'NCDHW', but got {data_format!r}.")
        self.data_format = data_format
        self.add_prim_attr("data_format", data_format)
        self.add_prim_attr("format", data_format)

    def _channel_axis(self, ndim):
        return ndim - 1 if self.data_format in _CHANNEL_LAST else 1

    def _view(self, x):
        """x as (N, C, K): channel-first keeps its layout; channel-last becomes (N*HW, C, 1)."""
        c = self._channel_axis(x.ndim)
        x = contiguous(x)
        if c == x.ndim - 1:
            return x.reshape(-1, x.shape[c], 1)
        return x.reshape(x.shape[0], x.shape[1], -1)

    def infer(self, x, bias):
        _check_float(self, "input_x", x)
        check_tensor(self, "bias", bias)
        check_same_dtype(self, ("input_x", "bias"), (x, bias))
        if x.ndim < 2 or (self.data_format == "NCDHW" and x.ndim != 5):
            raise self.error(f"'input_x' must have rank >= 2 (5 for NCDHW), but got shape "
                             f"{tuple(x.shape)}.")
        c = x.shape[self._channel_axis(x.ndim)]
        if bias.ndim != 1 or not dims_equal(self, bias.shape[0], c):
            raise self.error(f"'bias' must be 1-D with the channel size {c} of input_x "
                             f"{tuple(x.shape)} ({self.data_format}), but got bias shape "
                             f"{tuple(bias.shape)}.")
        return Aval(x.shape, x.dtype)

    def impl(self, x, bias):
        xv = self._view(x)
        out = np.empty(xv.shape, x.dtype)
        kernel("activation", self.kernel_name)(xv, contiguous(bias), out)
        return out.reshape(x.shape)


class BiasAdd(_BiasAddBase):
    """y = x + bias broadcast along the channel dim (1 for NCHW/NCDHW, last for NHWC)."""
    kernel_name = "bias_add"

    def bprop(self, inputs, out, dout):
        return dout, _cached(BiasAddGrad, self.data_format)(dout)


class BiasAddReLU(_BiasAddBase):
    """y = max(x + bias, 0) in one kernel pass: the Dense/Conv bias followed by ReLU."""
    kernel_name = "bias_add_relu"

    def bprop(self, inputs, out, dout):
        dz = _relu_grad(dout, out)
        return dz, _cached(BiasAddGrad, self.data_format)(dz)


class BiasAddGrad(_BiasAddBase):
    """db = dy summed over every dim but the channel dim: BiasAddGrad(data_format)(dy)."""
    sharding_rule = rules.bias_add_grad
    # Backward-only primitive: minispore supports first-order gradients, not grad-of-grad.
    differentiable = False

    def infer(self, dy):
        _check_float(self, "dout", dy)
        if dy.ndim < 2:
            raise self.error(f"'dout' must have rank >= 2, but got shape {tuple(dy.shape)}.")
        return Aval((dy.shape[self._channel_axis(dy.ndim)],), dy.dtype)

    def impl(self, dy):
        v = self._view(dy)
        db = np.empty(v.shape[1], dy.dtype)
        kernel("activation", "bias_add_grad")(v, db)
        return db


# -- losses ------------------------------------------------------------------------------
class SoftmaxCrossEntropyWithLogits(Primitive):
    """Dense-label softmax cross-entropy: ``(loss, backprop) = Op()(logits, labels)``.

    logits, labels: (N, C), same float dtype. loss[n] = -sum_c labels * log_softmax(logits);
    backprop = softmax(logits) * sum_c labels - labels (softmax - labels for probability
    labels), computed with the loss in one max-subtracted kernel. The bprop reuses `backprop`;
    labels get no gradient (MindSpore returns zeros for them).
    """
    sharding_rule = rules.softmax_cross_entropy

    def infer(self, logits, labels):
        _check_float(self, "logits", logits)
        check_tensor(self, "labels", labels)
        check_same_dtype(self, ("logits", "labels"), (logits, labels))
        if logits.ndim != 2 or not shapes_equal(self, labels.shape, logits.shape):
            raise self.error(f"'logits' and 'labels' must be 2-D with the same shape, but got "
                             f"{tuple(logits.shape)} and {tuple(labels.shape)}.")
        return Aval(logits.shape[:1], logits.dtype), Aval(logits.shape, logits.dtype)

    def impl(self, logits, labels):
        loss = np.empty(logits.shape[0], logits.dtype)
        dlogits = np.empty(logits.shape, logits.dtype)
        kernel("softmax", "softmax_cross_entropy")(contiguous(logits),
                                                   contiguous(labels), loss, dlogits)
        return loss, dlogits

    def bprop(self, inputs, out, dout):
        F = _F()
        dloss = F.reshape(dout[0], (out[1].shape[0], 1))
        return F.mul(out[1], dloss), None


class SparseSoftmaxCrossEntropyWithLogits(Primitive):
    """Integer-label softmax cross-entropy, mean over the batch.

    ``Op(is_grad=False)(logits, labels)``: logits (N, C) float, labels (N,) int32/int64 in
    [0, C). Returns the mean loss (shape ()); with ``is_grad=True`` it returns the gradient of
    that mean w.r.t. logits, (softmax - one_hot) / N. The kernel always produces both (one
    max-subtracted pass), so the primitive has two outputs and the call returns the one asked
    for; the bprop scales the stored gradient. Labels outside [0, C) raise ValueError.
    """
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
        _check_float(self, "logits", logits)
        check_tensor(self, "labels", labels)
        check_dtype(self, "labels", labels, (mstype.int32, mstype.int64))
        if logits.ndim != 2 or labels.ndim != 1 or not dims_equal(self, labels.shape[0],
                                                                   logits.shape[0]):
            raise self.error(f"'logits' must be (N, C) and 'labels' (N,), but got "
                             f"{tuple(logits.shape)} and {tuple(labels.shape)}.")
        return Aval((), logits.dtype), Aval(logits.shape, logits.dtype)

    def impl(self, logits, labels):
        n = logits.shape[0]
        loss = np.empty(n, logits.dtype)
        dlogits = np.empty(logits.shape, logits.dtype)
        scale = logits.dtype.type(1.0 / max(n, 1))
        bad = kernel("softmax", "sparse_softmax_cross_entropy")(
            contiguous(logits), contiguous(labels), loss, dlogits, scale)
        if bad >= 0:
            raise self.error(f"every label must be in [0, {logits.shape[1]}), but labels[{bad}]"
                             f" is {labels[bad]}.")
        return np.asarray(kernel("softmax", "mean")(loss), logits.dtype), dlogits

    def bprop(self, inputs, out, dout):
        if self.is_grad:
            raise self.error("its is_grad=True output is not differentiable.", RuntimeError)
        return _F().mul(out[1], dout[0]), None


# -- dropout -----------------------------------------------------------------------------
class Dropout(Primitive):
    """Randomly zeroes elements: ``output, mask = Dropout(keep_prob=0.5)(x)``.

    Each element is kept with probability keep_prob and scaled by 1/keep_prob; mask (x's shape
    and dtype) holds 1 where kept. Draws come from the global generator (``ms.set_seed``), or
    from the operator's own generator when Seed0 or Seed1 is non-zero.
    """
    sharding_rule = rules.elementwise_with_note(
        "per-slice seeds: each rank draws the mask of its block of the single-device mask")

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
        _check_float(self, "x", x)
        return Aval(x.shape, x.dtype), Aval(x.shape, x.dtype)

    def impl(self, x):
        u = (self._rng or rng()).random(x.shape, dtype=x.dtype)
        out = np.empty(x.shape, x.dtype)
        mask = np.empty(x.shape, x.dtype)
        kernel("random", "dropout")(contiguous(x), u, x.dtype.type(self.keep_prob),
                                    out, mask)
        return out, mask

    def bprop(self, inputs, out, dout):
        F = _F()
        return (F.mul(F.mul(dout[0], out[1]), 1.0 / self.keep_prob),)


# -- layer norm --------------------------------------------------------------------------
def _check_axis_attr(name, arg, value):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"For '{name}', '{arg}' must be an int, but got "
                        f"{type(value).__name__}.")


class _LayerNormBase(Primitive):
    sharding_rule = rules.layer_norm
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
        return contiguous(x).reshape(int(np.prod(x.shape[:norm], dtype=np.int64)), -1)

    @staticmethod
    def _param_row(p, x, norm):
        """gamma/beta (x.shape[params:]) broadcast over x.shape[norm:] and flattened."""
        return contiguous(np.broadcast_to(p, x.shape[norm:])).reshape(-1)


class LayerNorm(_LayerNormBase):
    """``y, mean, rstd = LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7)(x,
    gamma, beta)``: normalise over x.shape[begin_norm_axis:],
    y = (x - mean) * rstd * gamma + beta with rstd = 1 / sqrt(var + epsilon).

    gamma, beta: x.shape[begin_params_axis:]. mean and rstd keep x's leading dims and have 1
    elsewhere (MindSpore 2.x returns rstd, 1.x returned the variance). Gradients flow from y
    only (the mean and rstd outputs are statistics, as in MindSpore).
    """

    def __init__(self, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
        super().__init__(begin_norm_axis, begin_params_axis)
        if not isinstance(epsilon, float) or epsilon <= 0:
            raise ValueError(f"For 'LayerNorm', 'epsilon' must be a positive float, but got "
                             f"{epsilon!r}.")
        self.epsilon = epsilon
        self.add_prim_attr("epsilon", epsilon)

    def infer(self, x, gamma, beta):
        _check_float(self, "input_x", x)
        norm, params = self._axes(x)
        self._check_param("gamma", gamma, x, params)
        self._check_param("beta", beta, x, params)
        stat = tuple(x.shape[:norm]) + (1,) * (x.ndim - norm)
        return Aval(x.shape, x.dtype), Aval(stat, x.dtype), Aval(stat, x.dtype)

    def impl(self, x, gamma, beta):
        norm, _ = self._axes(x)
        xr = self._rows(x, norm)
        y = np.empty(xr.shape, x.dtype)
        mean = np.empty(xr.shape[0], x.dtype)
        rstd = np.empty(xr.shape[0], x.dtype)
        kernel("norm", "layer_norm")(xr, self._param_row(gamma, x, norm),
                                     self._param_row(beta, x, norm), self.epsilon, y, mean, rstd)
        stat = tuple(x.shape[:norm]) + (1,) * (x.ndim - norm)
        return y.reshape(x.shape), mean.reshape(stat), rstd.reshape(stat)

    def bprop(self, inputs, out, dout):
        x, gamma, _ = inputs
        F = _F()
        grad = _cached(LayerNormGrad, self.begin_norm_axis, self.begin_params_axis)
        dx, dgamma, dbeta = grad(x, dout[0], out[2], out[1], gamma)
        lead = len(dgamma.shape) - gamma.ndim
        if lead:
            # gamma starts after the normalised block: sum the broadcast dims away.
            dgamma = F.reduce_sum(dgamma, tuple(range(lead)))
            dbeta = F.reduce_sum(dbeta, tuple(range(lead)))
        return dx, dgamma, dbeta


class LayerNormGrad(_LayerNormBase):
    """``dx, dgamma, dbeta = LayerNormGrad(begin_norm_axis, begin_params_axis)(x, dy, rstd,
    mean, gamma)``; dgamma and dbeta have shape x.shape[begin_norm_axis:] (the bprop sums
    them down to gamma's shape)."""
    # Backward-only primitive: minispore supports first-order gradients, not grad-of-grad.
    differentiable = False

    def infer(self, x, dy, rstd, mean, gamma):
        _check_float(self, "x", x)
        check_tensor(self, "dy", dy)
        _check_same(self, ("x", "dy"), x, dy)
        norm, params = self._axes(x)
        self._check_param("gamma", gamma, x, params)
        pshape = tuple(x.shape[norm:])
        return Aval(x.shape, x.dtype), Aval(pshape, x.dtype), Aval(pshape, x.dtype)

    def impl(self, x, dy, rstd, mean, gamma):
        norm, _ = self._axes(x)
        xr = self._rows(x, norm)
        dx = np.empty(xr.shape, x.dtype)
        dgamma = np.empty(xr.shape[1], x.dtype)
        dbeta = np.empty(xr.shape[1], x.dtype)
        kernel("norm", "layer_norm_grad")(xr, self._rows(dy, norm),
                                          self._param_row(gamma, x, norm),
                                          contiguous(mean).reshape(-1),
                                          contiguous(rstd).reshape(-1),
                                          dx, dgamma, dbeta)
        pshape = tuple(x.shape[norm:])
        return dx.reshape(x.shape), dgamma.reshape(pshape), dbeta.reshape(pshape)
