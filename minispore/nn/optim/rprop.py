"""nn.Rprop: resilient backpropagation (sign-based steps with adaptive sizes), one fused update
per parameter."""
from minispore.nn.optim._validate import check_float, check_range
from minispore.nn.optim.optimizer import Optimizer
from minispore.ops import functional as F
from minispore.ops.operations.optim_adaptive_ops import RpropUpdate

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """``Rprop(params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.),
    weight_decay=0.0)``.

    Per element, with the step size s starting at lr on step 1: where g * prev > 0,
    s *= etaplus; where g * prev < 0, s *= etaminus and g counts as 0; s is clipped to
    step_sizes; p -= sign(g) * s; prev = g. g = grad + weight_decay * p. State:
    'prev.<name>', 'step_size.<name>'.
    """

    def __init__(self, params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.),
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        if not isinstance(etas, tuple):
            raise TypeError(f"For Rprop, etas must be a tuple, but got {type(etas)}.")
        if len(etas) != 2:
            raise ValueError(f"For Rprop, etas must be a tuple with the size of 2, but got "
                             f"{len(etas)}.")
        if not isinstance(step_sizes, tuple):
            raise TypeError(f"For Rprop, step_sizes must be a tuple, but got "
                            f"{type(step_sizes)}.")
        if len(step_sizes) != 2:
            raise ValueError(f"For Rprop, step_sizes must be a tuple with the size of 2, but got "
                             f"{len(step_sizes)}.")
        if step_sizes[0] > step_sizes[1]:
            raise ValueError(f"For Rprop, maximal step size should not be less than minimal "
                             f"step size, but got {step_sizes[0]} > {step_sizes[1]}.")
        self.etaminus = check_range("Rprop", "etaminus", etas[0], 0.0, 1.0)
        self.etaplus = check_float("Rprop", "etaplus", etas[1])
        if self.etaplus <= 1.0:
            raise ValueError(f"For Rprop, etaplus must be greater than 1.0, but got etaplus "
                             f"{etas[1]}.")
        self.step_size_min = check_float("Rprop", "min_step_sizes", step_sizes[0])
        self.step_size_max = check_float("Rprop", "max_step_sizes", step_sizes[1])
        self.prev = self.parameters.clone(prefix="prev", init="zeros")
        self.step_size = self.parameters.clone(prefix="step_size", init="zeros")
        self._updates = [RpropUpdate(self.etaminus, self.etaplus, self.step_size_min,
                                     self.step_size_max, weight_decay=wd) for wd in self._decays]

    def construct(self, gradients):
        self._check_gradients(gradients)
        step = F.add(self.global_step, 1)
        for op, p, prev, size, lr, g in zip(self._updates, self.parameters, self.prev,
                                            self.step_size, self._param_lrs(), gradients):
            op(p, prev, size, g, lr, step)
        self._advance_step()
        return True
