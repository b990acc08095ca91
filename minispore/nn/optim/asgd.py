"""nn.ASGD: averaged stochastic gradient descent, one fused update per parameter."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.parameter import Parameter, ParameterTuple
from minispore.common.tensor import Tensor
from minispore.nn.optim._validate import check_float
from minispore.nn.optim.optimizer import Optimizer
from minispore.ops import functional as F
from minispore.ops.operations.optim_adaptive_ops import ASGDUpdate

__all__ = ["ASGD"]


def _scalar_state(prefix, params, value):
    return ParameterTuple(Parameter(Tensor(np.asarray(value, np.float32), mstype.float32),
                                    name=f"{prefix}{p.name}", requires_grad=False)
                          for p in params)


class ASGD(Optimizer):
    """``ASGD(params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0)``.

    At step t (from 1), with eta = lr on step 1: p = p * (1 - lambd * eta) - eta * g;
    ax += (p - ax) * mu (ax = p while mu == 1); then eta = lr / (1 + lambd * lr * t)^alpha and
    mu = 1 / max(1, t - t0). g = grad + weight_decay * p. State, as MindSpore names it:
    'mu_<name>' and 'eta_<name>' (0-d float32) and 'ax_.<name>'.
    """

    def __init__(self, params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.lambd = check_float("ASGD", "lambd", lambd)
        self.alpha = check_float("ASGD", "alpha", alpha)
        self.t0 = check_float("ASGD", "t0", t0)
        self.mu = _scalar_state("mu_", self.parameters, 1.0)
        self.eta = _scalar_state("eta_", self.parameters, 0.0)
        self.ax = self.parameters.clone(prefix="ax_", init="zeros")
        self._updates = [ASGDUpdate(self.lambd, self.alpha, self.t0, weight_decay=wd)
                         for wd in self._decays]

    def construct(self, gradients):
        self._check_gradients(gradients)
        step = F.add(self.global_step, 1)
        for op, p, ax, eta, mu, lr, g in zip(self._updates, self.parameters, self.ax, self.eta,
                                             self.mu, self._param_lrs(), gradients):
            op(p, ax, eta, mu, g, lr, step)
        self._advance_step()
        return True
