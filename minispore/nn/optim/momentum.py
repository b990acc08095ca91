"""nn.Momentum: v = momentum * v + g; p -= lr * v (or the nesterov form), fused per parameter."""
from minispore.nn.optim.optimizer import Optimizer, _check_number
from minispore.ops.operations.optim_ops import ApplyMomentum

__all__ = ["Momentum"]


class Momentum(Optimizer):
    """``Momentum(params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
    use_nesterov=False)``.

    v = momentum * v + g; p -= lr * v; nesterov: p -= lr * (g + momentum * v), with
    g = (grad + weight_decay * p) / loss_scale. State: 'moments.<param name>'.

    >>> import numpy as np, minispore as ms
    >>> from minispore import nn
    >>> w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    >>> opt = nn.Momentum([w], learning_rate=0.1, momentum=0.9)
    >>> opt((ms.Tensor(np.ones(2, np.float32)),))
    True
    >>> w.asnumpy().tolist()
    [0.8999999761581421, 0.8999999761581421]
    """

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
                 use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = _check_number("Momentum", "momentum", momentum)
        if not isinstance(use_nesterov, bool):
            raise TypeError(f"For 'Momentum', 'use_nesterov' must be bool, but got "
                            f"{type(use_nesterov).__name__}.")
        self.use_nesterov = use_nesterov
        self.moments = self.parameters.clone(prefix="moments", init="zeros")
        scale = self.gradient_scale
        # MindSpore decays before unscaling: (g + wd * p) / loss_scale.
        self._updates = [ApplyMomentum(use_nesterov, gradient_scale=scale,
                                       weight_decay=wd * scale) for wd in self._decays]

    def construct(self, gradients):
        self._check_gradients(gradients)
        for op, p, m, lr, g in zip(self._updates, self.parameters, self.moments,
                                   self._param_lrs(), gradients):
            op(p, m, lr, g, self.momentum)
        self._advance_step()
        return True
