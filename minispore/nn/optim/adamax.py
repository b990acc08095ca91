"""nn.AdaMax: Adam with the infinity norm in place of the second moment, one fused update per
parameter."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.nn.optim._validate import check_positive, check_range
from minispore.nn.optim.optimizer import Optimizer
from minispore.ops import functional as F
from minispore.ops.operations.optim_adaptive_ops import ApplyAdaMax

__all__ = ["AdaMax"]


class AdaMax(Optimizer):
    """``AdaMax(params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
    weight_decay=0.0, loss_scale=1.0)``.

    m = beta1 * m + (1 - beta1) * g; v = max(beta2 * v, |g|);
    p -= lr / (1 - beta1^t) * m / (v + eps), g = (grad + weight_decay * p) / loss_scale.
    State: 'beta1_power', 'moment1.<name>', 'moment2.<name>'.
    """

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
                 weight_decay=0.0, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1 = check_range("AdaMax", "beta1", beta1, 0.0, 1.0)
        self.beta2 = check_range("AdaMax", "beta2", beta2, 0.0, 1.0)
        self.eps = check_positive("AdaMax", "eps", eps)
        self.beta1_power = Parameter(Tensor(np.ones(1, np.float32), mstype.float32),
                                     name="beta1_power", requires_grad=False)
        self.moment1 = self.parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self.parameters.clone(prefix="moment2", init="zeros")
        scale = self.gradient_scale
        self._updates = [ApplyAdaMax(scale, wd * scale) for wd in self._decays]

    def construct(self, gradients):
        self._check_gradients(gradients)
        b1p = F.assign(self.beta1_power, F.mul(self.beta1_power, self.beta1))
        for op, p, m, v, lr, g in zip(self._updates, self.parameters, self.moment1,
                                      self.moment2, self._param_lrs(), gradients):
            op(p, m, v, b1p, lr, self.beta1, self.beta2, self.eps, g)
        self._advance_step()
        return True
