"""nn.FTRL: follow-the-regularized-leader proximal updates, one fused update per parameter."""
from minispore.nn.optim._validate import check_bool, check_float, check_positive
from minispore.nn.optim.optimizer import Optimizer
from minispore.ops.operations.optim_adaptive_ops import ApplyFtrl

__all__ = ["FTRL"]


def _check_bound(arg_name, value, bound, op):
    value = check_float("FTRL", arg_name, value)
    if not (value <= bound if op == "<=" else value >= bound):
        raise ValueError(f"For 'FTRL', the argument '{arg_name}' must {op} {bound}, but got "
                         f"{value}.")
    return value


class FTRL(Optimizer):
    """``FTRL(params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0, l2=0.0,
    use_locking=False, loss_scale=1.0, weight_decay=0.0)``.

    a' = a + g^2; linear += g - (a'^-lr_power - a^-lr_power) / lr * p;
    p = (sign(linear) * l1 - linear) / (a'^-lr_power / lr + 2 * l2) if |linear| > l1 else 0,
    g = (grad + weight_decay * p) / loss_scale. The learning rate is one fixed positive float
    (a schedule or per-group rates raise ValueError, as in MindSpore); without groups weight
    decay applies to every parameter (no 'beta'/'gamma' exemption). State:
    'moments.<name>' (starts at initial_accum) and 'linear.<name>'. Dense gradients only
    (minispore has no RowTensor, so the sparse update never applies).
    """

    def __init__(self, params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0,
                 l2=0.0, use_locking=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale=loss_scale)
        if self.dynamic_lr or self.is_group_lr:
            raise ValueError(f"For 'FTRL', dynamic learning rate and group learning rate are "
                             f"currently not supported in FTRL, they should all be false, but "
                             f"got dynamic learning rate {self.dynamic_lr} and group learning rate "
                             f"{self.is_group_lr}.")
        initial_accum = _check_bound("initial_accum", initial_accum, 0.0, ">=")
        self.lr = check_positive("FTRL", "learning_rate", learning_rate)
        self.lr_power = _check_bound("lr_power", lr_power, 0.0, "<=")
        self.l1 = _check_bound("l1", l1, 0.0, ">=")
        self.l2 = _check_bound("l2", l2, 0.0, ">=")
        self.use_locking = check_bool("FTRL", "use_locking", use_locking)
        if not self.is_group:
            self._decays = [self.weight_decay] * len(self.parameters)
        self.moments = self.parameters.clone(prefix="moments", init=initial_accum)
        self.linear = self.parameters.clone(prefix="linear", init="zeros")
        scale = self.gradient_scale
        self._updates = [ApplyFtrl(use_locking, scale, wd * scale) for wd in self._decays]

    def construct(self, gradients):
        self._check_gradients(gradients)
        for op, p, a, lin, lr, g in zip(self._updates, self.parameters, self.moments,
                                        self.linear, self._param_lrs(), gradients):
            op(p, a, lin, g, lr, self.l1, self.l2, self.lr_power)
        self._advance_step()
        return True
