"""nn.Adagrad and nn.ProximalAdagrad: per-element rates from the accumulated squared gradients,
one fused update per parameter."""
from minispore.nn.optim._validate import check_bool, check_non_negative
from minispore.nn.optim.optimizer import Optimizer
from minispore.ops.operations.optim_adaptive_ops import ApplyAdagrad, ApplyProximalAdagrad

__all__ = ["Adagrad", "ProximalAdagrad"]


class Adagrad(Optimizer):
    """``Adagrad(params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0,
    weight_decay=0.0)``.

    accum += g^2 (when update_slots); p -= lr * g / sqrt(accum), with
    g = (grad + weight_decay * p) / loss_scale. State: 'accum.<param name>', starting at
    ``accum``.

    >>> import numpy as np, minispore as ms
    >>> from minispore import nn
    >>> w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    >>> opt = nn.Adagrad([w], accum=0.0, learning_rate=0.1)
    >>> opt((ms.Tensor(np.full(2, 0.5, np.float32)),))
    True
    >>> w.asnumpy().tolist()
    [0.8999999761581421, 0.8999999761581421]
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        accum = check_non_negative("Adagrad", "accum", accum)
        self.update_slots = check_bool("Adagrad", "update_slots", update_slots)
        self.accum = self.parameters.clone(prefix="accum", init=accum)
        scale = self.gradient_scale
        self._updates = [ApplyAdagrad(update_slots, scale, wd * scale) for wd in self._decays]

    def construct(self, gradients):
        self._check_gradients(gradients)
        for op, p, a, lr, g in zip(self._updates, self.parameters, self.accum, self._param_lrs(),
                                   gradients):
            op(p, a, lr, g)
        self._advance_step()
        return True


class ProximalAdagrad(Optimizer):
    """``ProximalAdagrad(params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0,
    use_locking=False, loss_scale=1.0, weight_decay=0.0)``.

    accum += g^2; with r = lr / sqrt(accum): v = p - r * g;
    p = sign(v) * max(|v| - r * l1, 0) / (1 + r * l2), g = (grad + weight_decay * p) /
    loss_scale. State: 'accum.<param name>', starting at ``accum``. Dense gradients only
    (minispore has no RowTensor, so the sparse update never applies).
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False,
                 loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        name = "ProximalAdagrad"
        accum = check_non_negative(name, "accum", accum)
        self.l1 = check_non_negative(name, "l1", l1)
        self.l2 = check_non_negative(name, "l2", l2)
        self.use_locking = check_bool(name, "use_locking", use_locking)
        self.accum = self.parameters.clone(prefix="accum", init=accum)
        scale = self.gradient_scale
        self._updates = [ApplyProximalAdagrad(use_locking, scale, wd * scale)
                         for wd in self._decays]

    def construct(self, gradients):
        self._check_gradients(gradients)
        for op, p, a, lr, g in zip(self._updates, self.parameters, self.accum, self._param_lrs(),
                                   gradients):
            op(p, a, lr, self.l1, self.l2, g)
        self._advance_step()
        return True
