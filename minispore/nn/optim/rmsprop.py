"""nn.RMSProp: plain or centred, one fused update per parameter."""
from minispore.nn.optim._validate import check_bool, check_non_negative, check_positive
from minispore.nn.optim.optimizer import Optimizer
from minispore.ops.operations.optim_adaptive_ops import ApplyCenteredRMSProp, ApplyRMSProp

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    """``RMSProp(params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10,
    use_locking=False, centered=False, loss_scale=1.0, weight_decay=0.0)``.

    s = decay * s + (1 - decay) * g^2; m = momentum * m + lr * g / sqrt(s + epsilon); p -= m.
    Centred: also mg = decay * mg + (1 - decay) * g, and s - mg^2 in place of s.
    g = (grad + weight_decay * p) / loss_scale. State: 'mean_square.<name>' (starts at ones),
    'moment.<name>' and, centred, 'mean_grad.<name>'.
    """

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.decay = check_non_negative("RMSProp", "decay", decay)
        self.momentum = check_non_negative("RMSProp", "momentum", momentum)
        self.epsilon = check_positive("RMSProp", "epsilon", epsilon)
        self.use_locking = check_bool("RMSProp", "use_locking", use_locking)
        self.centered = check_bool("RMSProp", "centered", centered)
        if centered:
            self.mg = self.parameters.clone(prefix="mean_grad", init="zeros")
        self.ms = self.parameters.clone(prefix="mean_square", init="ones")
        self.moment = self.parameters.clone(prefix="moment", init="zeros")
        scale = self.gradient_scale
        prim = ApplyCenteredRMSProp if centered else ApplyRMSProp
        self._updates = [prim(use_locking, scale, wd * scale) for wd in self._decays]

    def construct(self, gradients):
        self._check_gradients(gradients)
        lrs = self._param_lrs()
        if self.centered:
            for op, p, mg, ms, mom, lr, g in zip(self._updates, self.parameters, self.mg,
                                                 self.ms, self.moment, lrs, gradients):
                op(p, mg, ms, mom, g, lr, self.decay, self.momentum, self.epsilon)
        else:
            for op, p, ms, mom, lr, g in zip(self._updates, self.parameters, self.ms,
                                             self.moment, lrs, gradients):
                op(p, ms, mom, lr, g, self.decay, self.momentum, self.epsilon)
        self._advance_step()
        return True
