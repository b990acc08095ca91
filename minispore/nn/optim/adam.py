"""nn.Adam and nn.AdamWeightDecay, each one fused kernel per parameter."""
import logging

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.context import get_context
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.nn.optim.optimizer import Optimizer, _check_number
from minispore.ops import functional as F
from minispore.ops.operations.optim_ops import Adam as AdamUpdate
from minispore.ops.operations.optim_ops import AdamWeightDecay as AdamWeightDecayUpdate

__all__ = ["Adam", "AdamWeightDecay"]


def _check_betas(name, beta1, beta2, eps):
    for arg_name, v in (("beta1", beta1), ("beta2", beta2)):
        _check_number(name, arg_name, v)
        if not 0.0 < v < 1.0:
            raise ValueError(f"For '{name}', '{arg_name}' must be in range (0.0, 1.0), but got "
                             f"{v}.")
    return float(beta1), float(beta2), _check_number(name, "eps", eps, 0.0, strict=True)


class Adam(Optimizer):
    """``Adam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0,
    use_nesterov=False, loss_scale=1.0, use_lazy=False, use_offload=False)``.

    m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2;
    p -= lr sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + eps), with
    g = (grad + weight_decay * p) / loss_scale (L2 decay, as MindSpore's nn.Adam).
    State: 'moment1.<name>', 'moment2.<name>', 'beta1_power', 'beta2_power'.

    use_lazy (update only the rows a sparse RowTensor gradient touches) and use_offload (run
    the update on the host) change nothing in MindSpore for dense gradients on a CPU, and
    minispore's gradients are always dense (it has no RowTensor): they are checked as
    MindSpore checks them, and the update is the one above.
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0,
                 use_lazy=False, use_offload=False):
        for arg, value in (("use_lazy", use_lazy), ("use_offload", use_offload)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'Adam', the type of '{arg}' should be 'bool', but got "
                                f"type '{type(value).__name__}'.")
        if use_lazy and use_offload:
            raise ValueError(f"For 'Adam', 'use_lazy' and 'use_offload' can not both be True. "
                             f"But got use_lazy={use_lazy}, use_offload={use_offload}.")
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.use_lazy, self.use_offload = use_lazy, use_offload
        if use_offload and get_context("device_target") == "GPU":
            logging.getLogger("minispore").warning(
                "Adam(use_offload=True): minispore updates the parameters on the GPU, where "
                "they live; MindSpore would run the update on the host (the same values, "
                "without its device-memory saving).")
        self.beta1, self.beta2, self.eps = _check_betas("Adam", beta1, beta2, eps)
        if not isinstance(use_nesterov, bool):
            raise TypeError(f"For 'Adam', 'use_nesterov' must be bool, but got "
                            f"{type(use_nesterov).__name__}.")
        self.use_nesterov = use_nesterov
        self.beta1_power = Parameter(Tensor(np.ones(1, np.float32), mstype.float32),
                                     name="beta1_power", requires_grad=False)
        self.beta2_power = Parameter(Tensor(np.ones(1, np.float32), mstype.float32),
                                     name="beta2_power", requires_grad=False)
        self.moment1 = self.parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self.parameters.clone(prefix="moment2", init="zeros")
        scale = self.gradient_scale
        self._updates = [AdamUpdate(use_locking, use_nesterov, scale, wd * scale)
                         for wd in self._decays]

    def construct(self, gradients):
        self._check_gradients(gradients)
        b1p = F.assign(self.beta1_power, F.mul(self.beta1_power, self.beta1))
        b2p = F.assign(self.beta2_power, F.mul(self.beta2_power, self.beta2))
        for op, p, m, v, lr, g in zip(self._updates, self.parameters, self.moment1,
                                      self.moment2, self._param_lrs(), gradients):
            op(p, m, v, b1p, b2p, lr, self.beta1, self.beta2, self.eps, g)
        self._advance_step()
        return True


class AdamWeightDecay(Optimizer):
    """``AdamWeightDecay(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
    weight_decay=0.0)``: decoupled weight decay, no bias correction (MindSpore's form):

    m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2;
    p -= lr (m / (sqrt(v) + eps) + weight_decay p).
    State: 'adam_m.<name>', 'adam_v.<name>'.
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2, self.eps = _check_betas("AdamWeightDecay", beta1, beta2, eps)
        self.moments1 = self.parameters.clone(prefix="adam_m", init="zeros")
        self.moments2 = self.parameters.clone(prefix="adam_v", init="zeros")
        self._update = AdamWeightDecayUpdate()

    def construct(self, gradients):
        self._check_gradients(gradients)
        for p, m, v, lr, wd, g in zip(self.parameters, self.moments1, self.moments2,
                                      self._param_lrs(), self._decays, gradients):
            self._update(p, m, v, lr, self.beta1, self.beta2, self.eps, wd, g)
        self._advance_step()
        return True
