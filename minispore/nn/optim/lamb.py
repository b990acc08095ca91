"""nn.Lamb: layer-wise adaptive moments (You et al., arXiv:1904.00962), as MindSpore's GPU
kernel computes it, composed from our operators (MindSpore 2.7.2 has no CPU kernel for it)."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.nn.optim.adam import _check_betas
from minispore.nn.optim.optimizer import Optimizer
from minispore.ops import functional as F

__all__ = ["Lamb"]


class Lamb(Optimizer):
    """``Lamb(params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0)``.

    Per parameter w with gradient g at step t (from 1):
    m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2;
    r = (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps); u = r + weight_decay * w;
    w -= lr * ratio * u with ratio = ||w|| / ||u|| when both norms are positive, else 1.
    Weight decay skips 'beta'/'gamma' parameters when not grouped. State: 'lamb_m.<name>',
    'lamb_v.<name>'.
    """

    def __init__(self, params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2, self.eps = _check_betas("Lamb", beta1, beta2, eps)
        self.moments1 = self.parameters.clone(prefix="lamb_m", init="zeros")
        self.moments2 = self.parameters.clone(prefix="lamb_v", init="zeros")

    def construct(self, gradients):
        self._check_gradients(gradients)
        step = F.cast(F.add(self.global_step, 1), mstype.float32)
        for p, m, v, lr, wd, g in zip(self.parameters, self.moments1, self.moments2,
                                      self._param_lrs(), self._decays, gradients):
            dt = p.dtype
            g = F.cast(g, dt)
            if self.loss_scale != 1.0:
                g = F.mul(g, self.gradient_scale)
            m_new = F.add(F.mul(m, self.beta1), F.mul(g, 1.0 - self.beta1))
            v_new = F.add(F.mul(v, self.beta2), F.mul(F.square(g), 1.0 - self.beta2))
            F.assign(m, m_new)
            F.assign(v, v_new)
            m_hat = F.div(m_new, F.cast(F.sub(1.0, F.pow(np.float32(self.beta1), step)), dt))
            v_hat = F.div(v_new, F.cast(F.sub(1.0, F.pow(np.float32(self.beta2), step)), dt))
            update = F.div(m_hat, F.add(F.sqrt(v_hat), self.eps))
            if wd:
                update = F.add(update, F.mul(p, wd))
            w_norm = F.sqrt(F.reduce_sum(F.square(p)))
            u_norm = F.sqrt(F.reduce_sum(F.square(update)))
            both = F.logical_and(F.greater(w_norm, 0.0), F.greater(u_norm, 0.0))
            ratio = F.select(both, F.div(w_norm, F.select(both, u_norm, F.ones_like(u_norm))),
                             F.ones_like(w_norm))
            F.assign(p, F.sub(p, F.mul(F.mul(ratio, F.cast(lr, dt)), update)))
        self._advance_step()
        return True
