"""nn.thor: THOR, MindSpore's second-order optimizer (Trace-based Hardware-driven layer-ORiented
Natural Gradient Descent), as MindSpore's GPU build computes it (ThorGpu; MindSpore's Ascend
build runs other kernels for the same formula).

For each THOR layer (nn/layer/thor_layer.py), with λ this step's damping, B the batch size and
s the loss scale, its weight gradient g (out × in) becomes

    g ← (G/s² · B² + √λ I)⁻¹ · g · (A + √λ I)⁻¹

with each inverse taken block by block along the diagonal (blocks of 128, so a large layer
costs 128³ per block: THOR's approximation), a convolution's damping divided by its patch
count and both inverses scaled by 1/√(patch count); an embedding's A is a diagonal (id counts
/ B). A LayerNorm's gamma and beta get g ← g / (g²/B + √λ). Then weight decay, optional norm
clipping to 1, and Momentum. While the optimizer's ``thor`` flag is False (ModelThor's steps
between inverse updates) it reuses the inverses it stored ('matrix_a_inv_k',
'matrix_g_inv_k'). In data parallel the inverses are averaged over the ranks, as MindSpore's.

MindSpore's THOR does not run on a CPU (its optimizer fails in a Gather there), so there is no
recorded output: tests/nn/test_thor.py checks a step against a float64 reference.
"""
import warnings

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.auto_parallel_context import get_auto_parallel_context
from minispore.common.parameter import Parameter, ParameterTuple
from minispore.common.tensor import Tensor
from minispore.nn.layer.normalization import LayerNorm
from minispore.nn.layer.thor_layer import Conv2dThor, DenseThor, EmbeddingLookupThor, \
    EmbeddingThor
from minispore.nn.optim.optimizer import Optimizer
from minispore.nn.optim.thor_convert import ConvertNetUtils
from minispore.ops import functional as F
from minispore.ops.operations.optim_ops import ApplyMomentum

__all__ = ["thor"]

SPLIT_DIM = 128          # MindSpore's diagonal block size
OTHER, CONV, FC, EMBEDDING, LAYER_NORM = "other", "conv", "fc", "embedding", "layer_norm"


def thor(net, learning_rate, damping, momentum, weight_decay=0.0, loss_scale=1.0,
         batch_size=32, use_nesterov=False, decay_filter=lambda x: x.name not in [],
         split_indices=None, enable_clip_grad=False, frequency=100):
    """Convert `net`'s layers to THOR layers (ConvertNetUtils) and return its THOR optimizer
    (module docstring). `learning_rate`: a Tensor (0-d, or one rate per step); `damping`: a
    1-D Tensor of one damping per step (the last one stays); `frequency`: the steps between
    inverse updates under ConvertModelUtils' model (>= 2).

    Raises:
        TypeError: `learning_rate` or `damping` is not a Tensor, `momentum` not a float,
            `frequency` not an int.
        ValueError: `momentum` < 0, `frequency` < 2, `damping` not 1-D.
    """
    ConvertNetUtils().convert_to_thor_net(net)
    return ThorGpu(net, learning_rate, damping, momentum, weight_decay, loss_scale, batch_size,
                   use_nesterov, decay_filter, split_indices=split_indices,
                   enable_clip_grad=enable_clip_grad, frequency=frequency)


def _check_thor_args(momentum, frequency, learning_rate, damping):
    if not isinstance(momentum, float):
        raise TypeError(f"For 'thor', the argument 'momentum' must be a float, but got "
                        f"{type(momentum).__name__}.")
    if momentum < 0.0:
        raise ValueError(f"For 'thor', the argument 'momentum' must be at least 0.0, but got "
                         f"'momentum' {momentum}.")
    if isinstance(frequency, bool) or not isinstance(frequency, int):
        raise TypeError(f"For 'thor', the argument 'frequency' must be an int, but got "
                        f"{type(frequency).__name__}.")
    if frequency < 2:
        raise ValueError(f"For 'thor', the argument 'frequency' must be at least 2, but got "
                         f"'frequency' {frequency}.")
    if not isinstance(learning_rate, Tensor):
        raise TypeError(f"For 'thor', the argument 'learning rate' must be a Tensor, but got "
                        f"{type(learning_rate).__name__}.")
    if not isinstance(damping, Tensor):
        raise TypeError(f"For 'thor', the argument 'damping' must be a Tensor, but got "
                        f"{type(damping).__name__}.")
    if damping.ndim != 1 or damping.shape[0] == 0:
        raise ValueError(f"For 'thor', 'damping' must be a 1-D Tensor with one damping per "
                         f"step, but got shape {tuple(damping.shape)}.")


def _blocks(dim):
    """(block count, block size) of a dim split along the diagonal into SPLIT_DIM blocks."""
    if dim <= SPLIT_DIM:
        return 1, dim
    return -(-dim // SPLIT_DIM), SPLIT_DIM


def _damped(matrix, damping):
    """matrix + damping·I."""
    dim = matrix.shape[0]
    return F.add(matrix, F.mul(F.eye(dim, dim, mstype.float32), damping))


def _inverse(spd):
    """The inverse of a symmetric positive definite matrix, through its Cholesky factor."""
    return F.cholesky_inverse(F.cholesky(spd))


def _block_inverses(matrix, damping):
    """(count, size, size): the inverse of each diagonal block of matrix + damping·I (the last
    block padded with the identity to full size)."""
    dim = matrix.shape[0]
    count, size = _blocks(dim)
    matrix = _damped(matrix, damping)
    if count * size != dim:
        pad = count * size - dim
        matrix = F.pad(matrix, (0, pad, 0, pad))
        matrix = F.add(matrix, Tensor(np.diag(np.r_[np.zeros(dim), np.ones(pad)])
                                      .astype(np.float32)))
    inverses = [_inverse(matrix[i * size:(i + 1) * size, i * size:(i + 1) * size])
                for i in range(count)]
    return F.stack(inverses)


def _precondition(g_inv, grad, a_inv):
    """blockdiag(g_inv) · grad · blockdiag(a_inv) for grad (out, in), g_inv (H, sg, sg),
    a_inv (W, sa, sa) (MindSpore's UpdateThorGradient)."""
    rows, cols = grad.shape
    (count_h, size_g), (count_w, size_a) = g_inv.shape[:2], a_inv.shape[:2]
    padded = F.pad(grad, (0, count_w * size_a - cols, 0, count_h * size_g - rows))
    left = F.bmm(g_inv, F.reshape(padded, (count_h, size_g, count_w * size_a)))
    left = F.transpose(F.reshape(left, (count_h * size_g, count_w, size_a)), (1, 0, 2))
    both = F.transpose(F.bmm(left, a_inv), (1, 0, 2))
    return F.reshape(both, (count_h * size_g, count_w * size_a))[:rows, :cols]


class ThorGpu(Optimizer):
    """THOR's optimizer (module docstring); built by nn.thor, which converts the network
    first. Its name is MindSpore's (ConvertModelUtils recognises it)."""

    def __init__(self, net, learning_rate, damping, momentum, weight_decay=0.0, loss_scale=1.0,
                 batch_size=32, use_nesterov=False, decay_filter=lambda x: x.name not in [],
                 split_indices=None, enable_clip_grad=False, frequency=100):
        params = [p for p in net.get_parameters() if p.requires_grad]
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        _check_thor_args(momentum, frequency, learning_rate, damping)
        if not isinstance(use_nesterov, bool):
            raise TypeError(f"For 'ThorGpu', 'use_nesterov' must be bool, but got "
                            f"{type(use_nesterov).__name__}.")
        self.momentum = momentum
        self.moments = self.parameters.clone(prefix="moments", init="zeros")
        self.opt = ApplyMomentum(use_nesterov)
        self.damping = Tensor(damping.asnumpy().astype(np.float32))
        self.cov_step = Parameter(Tensor(np.zeros(1, np.int32)), name="cov_step",
                                  requires_grad=False)
        self.batch_size = float(batch_size)
        self.thor = True
        self.frequency = frequency
        self.enable_clip_grad = bool(enable_clip_grad)
        self.decay_flags = tuple(bool(decay_filter(p)) for p in self.parameters)
        self.layers = self._layers_of(net)
        self.matrix_a, self.matrix_g = self._inverse_parameters()
        self.device_num = self._data_parallel_ranks(split_indices)

    def get_frequency(self):
        """The steps between THOR's inverse updates."""
        return self.frequency

    def _layers_of(self, net):
        """(kind, layer cell, THOR layer index or None) of each parameter, by the cell that
        owns it (MindSpore walks the cells in step with the parameter names instead)."""
        owner = {}
        for _, cell in net.cells_and_names():
            for name, param in cell._params.items():
                if param is None:
                    continue
                if isinstance(cell, (DenseThor, Conv2dThor)) and name == "weight":
                    owner[id(param)] = (FC if isinstance(cell, DenseThor) else CONV, cell)
                elif isinstance(cell, (EmbeddingThor, EmbeddingLookupThor)) and \
                        name == "embedding_table":
                    owner[id(param)] = (EMBEDDING, cell)
                elif isinstance(cell, LayerNorm):
                    owner.setdefault(id(param), (LAYER_NORM, cell))
        layers, count = [], 0
        for param in self.parameters:
            kind, cell = owner.get(id(param), (OTHER, None))
            index = None
            if kind in (FC, CONV, EMBEDDING):
                index, count = count, count + 1
            layers.append((kind, cell, index))
        return layers

    def _inverse_parameters(self):
        """The stored inverses of each THOR layer, in MindSpore's shapes."""
        inverses_a, inverses_g = [], []
        for param, (kind, cell, index) in zip(self.parameters, self.layers):
            if index is None:
                continue
            if kind == EMBEDDING:
                shape_a, shape_g = (param.shape[0],), (param.shape[1],) * 2
            else:
                (count_w, size_a), (count_h, size_g) = \
                    _blocks(int(np.prod(param.shape[1:]))), _blocks(param.shape[0])
                shape_a, shape_g = (count_h, count_w, size_a, size_a), (count_h, size_g, size_g)
            inverses_a.append(Parameter(Tensor(np.zeros(shape_a, np.float32)),
                                        name=f"matrix_a_inv_{index}", requires_grad=False))
            inverses_g.append(Parameter(Tensor(np.zeros(shape_g, np.float32)),
                                        name=f"matrix_g_inv_{index}", requires_grad=False))
        return ParameterTuple(inverses_a), ParameterTuple(inverses_g)

    @staticmethod
    def _data_parallel_ranks(split_indices):
        """The ranks the inverses are averaged over (1 stand-alone)."""
        if get_auto_parallel_context("parallel_mode") in ("stand_alone", None):
            return 1
        from minispore.parallel.settings import get_device_num
        if split_indices:
            warnings.warn("nn.thor: 'split_indices' (the fusion groups of the inverses' "
                          "all-reduces) is not implemented by minispore; each inverse is "
                          "reduced on its own, with the same values.", UserWarning,
                          stacklevel=3)
        return get_device_num()

    def _mean_over_ranks(self, x):
        from minispore.ops.operations.comm_ops import AllReduce
        return F.mul(AllReduce()(x), 1.0 / self.device_num)

    def _inverses(self, kind, cell, param, damping):
        """(A inverse, G inverse) of a THOR layer from its statistics this step."""
        scale_g = self.batch_size ** 2 / self.loss_scale ** 2
        if kind == EMBEDDING:
            a_inv = F.reciprocal(F.add(F.mul(cell.matrix_a, 1.0 / self.batch_size),
                                       F.sqrt(damping)))
            # MindSpore inverts an embedding's G whole (no block split).
            return a_inv, _inverse(_damped(F.mul(cell.matrix_g, scale_g), F.sqrt(damping)))
        if kind == CONV:
            a, g = cell.matrix_a_cov, cell.matrix_g_cov
            damping_a = F.div(damping, cell.a_normalizer)
            damping_g = F.div(damping, cell.g_normalizer)
            feature_map = F.sqrt(F.reciprocal(cell.a_normalizer))
        else:
            a, g = cell.matrix_a, cell.matrix_g
            damping_a = damping_g = damping
            feature_map = None
        a_inv = _block_inverses(a, F.sqrt(damping_a))
        g_inv = _block_inverses(F.mul(g, scale_g), F.sqrt(damping_g))
        if feature_map is not None:
            a_inv, g_inv = F.mul(a_inv, feature_map), F.mul(g_inv, feature_map)
        count_h = _blocks(param.shape[0])[0]
        return F.broadcast_to(a_inv, (count_h,) + tuple(a_inv.shape)), g_inv

    def _preconditioned(self, kind, cell, index, param, grad, damping):
        if kind == LAYER_NORM:
            fisher = F.add(F.mul(F.square(grad), 1.0 / self.batch_size), F.sqrt(damping))
            return F.mul(F.reciprocal(fisher), grad)
        if index is None:
            return grad
        if self.thor:
            a_inv, g_inv = self._inverses(kind, cell, param, damping)
            if self.device_num > 1:
                a_inv, g_inv = self._mean_over_ranks(a_inv), self._mean_over_ranks(g_inv)
            F.assign(self.matrix_a[index], a_inv)
            F.assign(self.matrix_g[index], g_inv)
        else:
            a_inv, g_inv = self.matrix_a[index], self.matrix_g[index]
        if kind == EMBEDDING:
            return F.matmul(F.mul(F.expand_dims(a_inv, 1), grad), g_inv)
        flat = F.reshape(grad, (grad.shape[0], -1))
        return F.reshape(_precondition(g_inv, flat, a_inv[0]), grad.shape)

    def construct(self, gradients):
        self._check_gradients(gradients)
        if self.loss_scale != 1.0:
            gradients = tuple(F.mul(g, self.gradient_scale) for g in gradients)
        last = self.damping.shape[0] - 1
        damping = F.gather(self.damping, F.minimum(self.cov_step, last), 0)
        updated = []
        for param, grad, (kind, cell, index), decay in zip(
                self.parameters, gradients, self.layers, self.decay_flags):
            grad = self._preconditioned(kind, cell, index, param, grad, damping)
            if self.weight_decay > 0 and decay:
                grad = F.add(grad, F.mul(param, self.weight_decay))
            if self.enable_clip_grad:
                grad = F.clip_by_norm(grad, Tensor(1.0, grad.dtype))
            updated.append(grad)
        self.cov_step = F.add(self.cov_step, 1)
        for param, moment, lr, grad in zip(self.parameters, self.moments, self._param_lrs(),
                                           updated):
            self.opt(param, moment, lr, grad, self.momentum)
        self._advance_step()
        return True
