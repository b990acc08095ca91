"""Normalisation layers: LayerNorm, BatchNorm1d/2d/3d, GroupNorm, InstanceNorm1d/2d/3d."""
import numbers

from minispore.common import dtype as mstype
from minispore.common.initializer import initializer
from minispore.common.initializer import Initializer
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.ops import functional as F
from minispore.nn.layer.basic import _check_bool, _check_positive_int
from minispore.ops.operations.nn_ops import LayerNorm as LayerNormOp
from minispore.ops.operations.norm_ops import BatchNorm as BatchNormOp

__all__ = ["LayerNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm",
           "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class LayerNorm(Cell):
    """y = (x - mean) / sqrt(var + epsilon) * gamma + beta over the axes from begin_norm_axis;
    gamma and beta have shape ``normalized_shape`` (named 'gamma' and 'beta', so optimizers
    skip them for weight decay)."""

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1,
                 gamma_init="ones", beta_init="zeros", epsilon=1e-7, dtype=mstype.float32):
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"For 'LayerNorm', 'normalized_shape' must be a tuple or list, but "
                            f"got {type(normalized_shape).__name__}.")
        for name, v in (("begin_norm_axis", begin_norm_axis),
                        ("begin_params_axis", begin_params_axis)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For 'LayerNorm', '{name}' must be an int, but got "
                                f"{type(v).__name__}.")
        self.normalized_shape = tuple(normalized_shape)
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = float(epsilon)
        self.gamma = Parameter(initializer(gamma_init, self.normalized_shape, dtype),
                               name="gamma")
        self.beta = Parameter(initializer(beta_init, self.normalized_shape, dtype), name="beta")
        self.layer_norm = LayerNormOp(begin_norm_axis, begin_params_axis, self.epsilon)

    def construct(self, x):
        return self.layer_norm(x, self.gamma, self.beta)[0]

    def extend_repr(self):
        return (f"normalized_shape={self.normalized_shape}, "
                f"begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}, gamma={self.gamma}, "
                f"beta={self.beta}")


class _BatchNorm(Cell):
    """Batch normalisation over every dim but the channels (dim 1), MindSpore's semantics:

    y = (x - mean) / sqrt(var + eps) * gamma + beta. With batch statistics (training, or
    ``use_batch_statistics=True``) mean and var are the batch's (biased variance), and the
    Parameters ``moving_mean`` / ``moving_variance`` are updated in place:
    moving = momentum * moving + (1 - momentum) * batch, the variance taken unbiased
    (M / (M - 1), M the values per channel). Otherwise (evaluation, or
    ``use_batch_statistics=False``) the moving statistics normalise and stay unchanged.
    ``use_batch_statistics=None`` follows ``set_train``. In GRAPH mode the update is an Assign
    node of the compiled graph, so every call updates the statistics.
    """
    _ranks = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype=mstype.float32):
        super().__init__()
        name = type(self).__name__
        self.num_features = _check_positive_int(name, "num_features", num_features)
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or eps <= 0:
            raise ValueError(f"For '{name}', 'eps' must be a positive float, but got {eps!r}.")
        if isinstance(momentum, bool) or not isinstance(momentum, (int, float)):
            raise TypeError(f"For '{name}', 'momentum' must be a float, but got "
                            f"{type(momentum).__name__}.")
        if not 0 <= momentum <= 1:
            raise ValueError(f"For '{name}', 'momentum' must be in range [0.0, 1.0], but got "
                             f"{momentum}.")
        _check_bool(name, "affine", affine)
        if use_batch_statistics is not None and not isinstance(use_batch_statistics, bool):
            raise TypeError(f"For '{name}', 'use_batch_statistics' must be a bool or None, but "
                            f"got {type(use_batch_statistics).__name__}.")
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"For '{name}', 'data_format' must be 'NCHW' or 'NHWC', but got "
                             f"{data_format!r}.")
        if data_format == "NHWC":
            raise NotImplementedError(f"For '{name}', data_format 'NHWC' is not implemented in "
                                      f"minispore; use 'NCHW'.")
        self.eps = float(eps)
        self.momentum = float(momentum)
        self.affine = affine
        self.use_batch_statistics = use_batch_statistics
        self.data_format = data_format
        shape = (num_features,)
        self.gamma = Parameter(initializer(gamma_init, shape, dtype), name="gamma",
                               requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, shape, dtype), name="beta",
                              requires_grad=affine)
        self.moving_mean = Parameter(initializer(moving_mean_init, shape, dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, shape, dtype),
                                         name="variance", requires_grad=False)
        # MindSpore's primitive takes the weight of the new batch: 1 - the layer's momentum.
        self.bn_train = BatchNormOp(True, self.eps, 1.0 - self.momentum, data_format)
        self.bn_infer = BatchNormOp(False, self.eps, 1.0 - self.momentum, data_format)

    def _check_input(self, x):
        if x.ndim not in self._ranks:
            ranks = " or ".join(f"{r}-D" for r in self._ranks)
            raise ValueError(f"For '{type(self).__name__}', the input must be a {ranks} tensor, "
                             f"but got shape {tuple(x.shape)}.")

    def construct(self, x):
        self._check_input(x)
        use_batch = self.training if self.use_batch_statistics is None \
            else self.use_batch_statistics
        op = self.bn_train if use_batch else self.bn_infer
        return op(x, self.gamma, self.beta, self.moving_mean, self.moving_variance)[0]

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, "
                f"momentum={self.momentum}, gamma={self.gamma}, beta={self.beta}, "
                f"moving_mean={self.moving_mean}, moving_variance={self.moving_variance}")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) input over N, H and W per channel (see
    _BatchNorm)."""
    _ranks = (4,)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) input per channel (see _BatchNorm)."""
    _ranks = (2, 3)


class _BatchNorm5d(_BatchNorm):
    _ranks = (5,)


class BatchNorm3d(Cell):
    """Batch normalisation of (N, C, D, H, W) input per channel over N, D, H and W (see
    _BatchNorm). As in MindSpore the statistics live in a child cell ``bn2d``, so the
    Parameters are named bn2d.gamma, bn2d.beta, bn2d.moving_mean and bn2d.moving_variance and
    checkpoints load by name either way."""

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, dtype=mstype.float32):
        super().__init__()
        self.bn2d = _BatchNorm5d(num_features, eps, momentum, affine, gamma_init, beta_init,
                                 moving_mean_init, moving_var_init, use_batch_statistics,
                                 dtype=dtype)
        self.bn2d.moving_mean.name = "bn2d.moving_mean"
        self.bn2d.moving_variance.name = "bn2d.moving_variance"

    def construct(self, x):
        if x.ndim != 5:
            raise ValueError(f"For 'BatchNorm3d', the input must be a 5-D tensor, but got shape "
                             f"{tuple(x.shape)}.")
        return self.bn2d(x)


class GroupNorm(Cell):
    """Group normalisation of (N, C, ...) input: the C channels form ``num_groups`` groups of
    C / num_groups consecutive channels, each (sample, group) normalised over its channels and
    spatial positions, y = (x - mean) / sqrt(var + eps) * gamma[c] + beta[c] (gamma, beta of
    shape (C,), learnable when ``affine``). Built on the fused LayerNorm operator over the
    (N, G, C/G * spatial) view.
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=mstype.float32):
        super().__init__()
        self.num_groups = _check_positive_int("GroupNorm", "num_groups", num_groups)
        self.num_channels = _check_positive_int("GroupNorm", "num_channels", num_channels)
        if num_channels % num_groups:
            raise ValueError(f"For 'GroupNorm', the 'num_channels' must be divided by "
                             f"'num_groups', but got 'num_channels': {num_channels}, "
                             f"'num_groups': {num_groups}.")
        if isinstance(eps, bool) or not isinstance(eps, float) or eps <= 0:
            raise ValueError(f"For 'GroupNorm', 'eps' must be a positive float, but got {eps!r}.")
        self.eps = eps
        self.affine = _check_bool("GroupNorm", "affine", affine)
        self.gamma = Parameter(initializer(gamma_init, (num_channels,), dtype), name="gamma",
                               requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, (num_channels,), dtype), name="beta",
                              requires_grad=affine)
        self.layer_norm = LayerNormOp(2, 2, eps)

    def construct(self, x):
        if x.ndim < 2 or x.shape[1] != self.num_channels:
            raise ValueError(f"For 'GroupNorm', the input must be (N, {self.num_channels}, ...), "
                             f"but got shape {tuple(x.shape)}.")
        shape = tuple(x.shape)
        grouped = F.reshape(x, (shape[0], self.num_groups, -1))
        k = grouped.shape[2]
        ones, zeros = F.ones((k,), x.dtype), F.zeros((k,), x.dtype)
        y = F.reshape(self.layer_norm(grouped, ones, zeros)[0], shape)
        per_channel = (1, self.num_channels) + (1,) * (len(shape) - 2)
        return F.add(F.mul(y, F.reshape(self.gamma, per_channel)),
                     F.reshape(self.beta, per_channel))

    def extend_repr(self):
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"


class _InstanceNorm(Cell):
    """Instance normalisation of (N, C, *spatial) input: each (sample, channel) normalised over
    its spatial positions with the biased variance, y = (x - mean) / sqrt(var + eps) * gamma[c]
    + beta[c], in training and evaluation alike. MindSpore's InstanceNorm runs on GPU only (its
    CPU build refuses the kernel); this is the GPU kernel's meaning: float16 input is normalised
    in float32 and cast back, and moving_mean / moving_variance are never updated (the cuDNN
    call updates workspace copies of them). Built on the fused LayerNorm operator over the
    (N, C, prod(spatial)) view, so gradients come from its bprop."""

    _RANK = None

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=mstype.float32):
        super().__init__()
        name = type(self).__name__
        for arg, value, kind in (("num_features", num_features, int), ("eps", eps, float),
                                 ("momentum", momentum, float), ("affine", affine, bool)):
            if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
                raise TypeError(f"For '{name}', the type of '{arg}' should be "
                                f"'{kind.__name__}', but got type '{type(value).__name__}'.")
        for arg, value in (("gamma_init", gamma_init), ("beta_init", beta_init)):
            if not isinstance(value, (Tensor, numbers.Number, str, Initializer)):
                raise TypeError(f"For '{name}', the type of '{arg}' must be in [Tensor, "
                                f"numbers.Number, str, Initializer], but got type "
                                f"{type(value).__name__}.")
            if isinstance(value, Tensor) and value.dtype != mstype.float32:
                raise TypeError(f"For '{name}', the type of '{arg}' must be float32, but got "
                                f"{value.dtype}.")
        if num_features < 1:
            raise ValueError(f"For '{name}', the 'num_features' must be at least 1, but got "
                             f"{num_features}.")
        if momentum < 0 or momentum > 1:
            raise ValueError(f"For '{name}', the 'momentum' must be a number in range [0, 1], "
                             f"but got {momentum}.")
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.moving_mean = Parameter(initializer("zeros", num_features, dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(initializer("ones", num_features, dtype),
                                         name="variance", requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, num_features, dtype), name="gamma",
                               requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, num_features, dtype), name="beta",
                              requires_grad=affine)
        if not 0 < eps <= 1:
            raise ValueError(f"For 'InstanceNorm', the 'epsilon' must be in range of (0, 1], "
                             f"but got {eps} with type 'float'.")
        self.layer_norm = LayerNormOp(2, 2, eps)

    def construct(self, x):
        name = type(self).__name__
        if x.ndim != self._RANK:
            raise ValueError(f"For '{name}', the in_shape must have {self._RANK} dims, but got "
                             f"{x.ndim}.")
        if x.dtype not in (mstype.float16, mstype.float32):
            raise TypeError(f"For primitive[InstanceNorm], the input argument[input_x] must be a "
                            f"type of {{Tensor[Float16], Tensor[Float32]}}, but got "
                            f"Tensor[{x.dtype}].")
        for arg, p in (("beta", self.beta), ("gamma", self.gamma)):
            if p.dtype != mstype.float32:
                raise TypeError(f"For primitive[InstanceNorm], the input argument[{arg}] must "
                                f"be a type of {{Tensor[Float32]}}, but got "
                                f"Ref[Tensor[{p.dtype}]].")
        shape = tuple(x.shape)
        if shape[1] != self.num_features:
            raise ValueError(f"For primitive[InstanceNorm], the gamma shape must be equal to "
                             f"(C, ) which is {shape[1]} , but got {self.num_features}.")
        flat = F.reshape(F.cast(x, mstype.float32), (shape[0], shape[1], -1))
        k = flat.shape[2]
        ones, zeros = F.ones((k,), mstype.float32), F.zeros((k,), mstype.float32)
        y = F.reshape(self.layer_norm(flat, ones, zeros)[0], shape)
        per_channel = (1, shape[1]) + (1,) * (len(shape) - 2)
        y = F.add(F.mul(y, F.reshape(self.gamma, per_channel)), F.reshape(self.beta, per_channel))
        return F.cast(y, x.dtype)

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma}, beta={self.beta}, moving_mean={self.moving_mean}, "
                f"moving_variance={self.moving_variance}")


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) input (see _InstanceNorm)."""

    _RANK = 3


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) input (see _InstanceNorm).

    >>> import numpy as np
    >>> from minispore import Tensor
    >>> InstanceNorm2d(3)(Tensor(np.ones((2, 3, 2, 2), np.float32))).shape
    (2, 3, 2, 2)
    """

    _RANK = 4


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) input (see _InstanceNorm)."""

    _RANK = 5
