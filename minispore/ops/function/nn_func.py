"""Functional forms of neural-network operators (ops.relu, ops.softmax, ops.conv2d …)."""
from minispore.ops.function.array_func import fill
from minispore.ops.operations import activation_ops as Act
from minispore.ops.operations import conv_ops as C
from minispore.ops.operations import nn_ops as N
from minispore.ops.operations._base import cached_op
from minispore.ops.operations.norm_ops import BatchNorm
from minispore.ops.operations.pool_argmax_ops import MaxPoolWithArgmaxV2

__all__ = ["relu", "sigmoid", "tanh", "gelu", "softmax", "log_softmax", "bias_add",
           "bias_add_relu", "softmax_cross_entropy_with_logits",
           "sparse_softmax_cross_entropy_with_logits", "conv2d", "max_pool2d", "avg_pool2d",
           "dropout", "layer_norm", "batch_norm"]

_relu, _sigmoid, _tanh = Act.ReLU(), Act.Sigmoid(), Act.Tanh()
_bias_add, _bias_add_relu = Act.BiasAdd(), Act.BiasAddReLU()
_softmax_ce = N.SoftmaxCrossEntropyWithLogits()
_sparse_ce = N.SparseSoftmaxCrossEntropyWithLogits()
def relu(input):
    return _relu(input)


def sigmoid(input):
    return _sigmoid(input)


def tanh(input):
    return _tanh(input)


def gelu(input_x, approximate="none"):
    """GeLU; approximate='none' (default) is the exact erf form, 'tanh' the approximation."""
    return cached_op(Act.GeLU, approximate)(input_x)


def softmax(input, axis=-1):
    return cached_op(N.Softmax, axis)(input)


def log_softmax(logits, axis=-1):
    return cached_op(N.LogSoftmax, axis)(logits)


def bias_add(input_x, bias):
    return _bias_add(input_x, bias)


def bias_add_relu(input_x, bias):
    """relu(bias_add(input_x, bias)) in one kernel pass (nn.Dense/Conv2d with activation='relu')."""
    return _bias_add_relu(input_x, bias)


def softmax_cross_entropy_with_logits(logits, labels, labels_sum_to_one=False):
    """(loss (N,), backprop (N, C)) for dense labels, like the primitive; `labels_sum_to_one`
    (one-hot labels) spares the bprop its correction for labels that do not."""
    if labels_sum_to_one:
        return cached_op(N.SoftmaxCrossEntropyWithLogits, True)(logits, labels)
    return _softmax_ce(logits, labels)


def sparse_softmax_cross_entropy_with_logits(logits, labels):
    """Mean cross-entropy over the batch for int32/int64 class labels."""
    return _sparse_ce(logits, labels)


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """2-D convolution (NCHW); padding is an int or (top, bottom, left, right) with
    pad_mode='pad'; bias (out_channels,) is added per channel."""
    if isinstance(padding, list):
        padding = tuple(padding)
    op = cached_op(C.Conv2D, weight.shape[0], tuple(weight.shape[2:]), pad_mode=pad_mode, pad=padding,
             stride=stride, dilation=dilation, group=groups)
    out = op(input, weight)
    return out if bias is None else _bias_add(out, bias)


def _torch_pool_pad(name, padding):
    if isinstance(padding, int) and not isinstance(padding, bool):
        padding = (padding, padding)
    if not isinstance(padding, (tuple, list)) or len(padding) != 2:
        raise TypeError(f"For '{name}', 'padding' must be an int or a tuple of two ints, but "
                        f"got {padding!r}.")
    ph, pw = padding
    return ("pad" if ph or pw else "valid"), (ph, ph, pw, pw)


def _unsupported(name, **flags):
    for arg, (value, default) in flags.items():
        if value != default:
            raise ValueError(f"For '{name}', '{arg}' other than {default!r} is not supported "
                             f"by minispore, but got {value!r}.")


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
               ceil_mode=False):
    """Max pooling over NCHW x; stride defaults to kernel_size, padding is implicit -inf.
    With return_indices, also the Int64 position h * W + w of each maximum in its (H, W)
    plane; dilation, ceil_mode and return_indices go through MaxPoolWithArgmaxV2, as in
    MindSpore."""
    if return_indices or ceil_mode or dilation not in (1, (1, 1)):
        pads = padding if isinstance(padding, (int, tuple, list)) else None
        if pads is None or isinstance(pads, bool):
            raise TypeError(f"For 'max_pool2d', 'padding' must be an int or a pair of ints, "
                            f"but got {padding!r}.")
        out, argmax = cached_op(MaxPoolWithArgmaxV2, kernel_size, stride, tuple(pads)
                                if isinstance(pads, list) else pads, dilation, ceil_mode)(x)
        return (out, argmax) if return_indices else out
    mode, pad = _torch_pool_pad("max_pool2d", padding)
    return cached_op(C.MaxPool, kernel_size, kernel_size if stride is None else stride, mode,
               pad=pad if mode == "pad" else 0)(x)


def avg_pool2d(input, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Average pooling over NCHW input; padded cells count in the divisor when
    count_include_pad."""
    _unsupported("avg_pool2d", ceil_mode=(ceil_mode, False),
                 divisor_override=(divisor_override, None))
    mode, pad = _torch_pool_pad("avg_pool2d", padding)
    return cached_op(C.AvgPool, kernel_size, stride, mode, pad=pad if mode == "pad" else 0,
               count_include_pad=bool(count_include_pad) and mode == "pad")(input)


def dropout(input, p=0.5, training=True, seed=None):
    """Zero each element with probability p and scale the rest by 1/(1-p) (identity when not
    training). Draws come from the global seed (ms.set_seed); `seed` is accepted for
    signature compatibility."""
    if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0.0 <= p <= 1.0:
        raise ValueError(f"For 'dropout', 'p' must be a float in [0, 1], but got {p!r}.")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    return cached_op(N.Dropout, 1.0 - float(p))(input)[0]


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Layer normalisation over the trailing `normalized_shape` dims; weight/bias default to
    ones/zeros of that shape."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise ValueError(f"For 'layer_norm', 'normalized_shape' {shape} must match the trailing "
                         f"dims of input {tuple(input.shape)}.")
    if weight is None:
        weight = fill(input.dtype, shape, 1)
    if bias is None:
        bias = fill(input.dtype, shape, 0)
    axis = input.ndim - len(shape)
    return cached_op(N.LayerNorm, axis, axis, float(eps))(input, weight, bias)[0]


def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1,
               eps=1e-5):
    """Batch normalisation over every dim of input_x (N, C, ...) but C; in training the batch
    statistics normalise and, when running_mean/running_var are Parameters, update them in
    place (running = (1 - momentum) * running + momentum * batch). See ops.BatchNorm."""
    op = cached_op(BatchNorm, training, float(eps), momentum)
    return op(input_x, weight, bias, running_mean, running_var)[0]
