"""nn.SGD: momentum SGD with dampening and nesterov; the first step sets v = g."""
from minispore.common.initializer import initializer
from minispore.common.parameter import Parameter, ParameterTuple
from minispore.nn.optim.optimizer import Optimizer, _check_number
from minispore.ops.operations.optim_ops import SGD as SGDUpdate

__all__ = ["SGD"]


class SGD(Optimizer):
    """``SGD(params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
    nesterov=False, loss_scale=1.0)``.

    g = grad / loss_scale + weight_decay * p; with momentum > 0: v = g on the first step, then
    v = momentum * v + (1 - dampening) * g; p -= lr * v (nesterov: p -= lr * (g + momentum * v)).
    Without momentum p -= lr * g. Nesterov needs momentum > 0 and dampening == 0 (ValueError).
    State: 'accum.<param name>' and 'stat.<param name>' (a 1-element first-step flag).
    """

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = _check_number("SGD", "momentum", momentum)
        self.dampening = _check_number("SGD", "dampening", dampening)
        if not isinstance(nesterov, bool):
            raise TypeError(f"For 'SGD', 'nesterov' must be bool, but got "
                            f"{type(nesterov).__name__}.")
        if nesterov and (self.momentum <= 0.0 or self.dampening != 0.0):
            raise ValueError(f"For 'SGD', nesterov needs momentum > 0 and dampening == 0, but "
                             f"got momentum={momentum} and dampening={dampening}.")
        self.nesterov = nesterov
        self.accum = self.parameters.clone(prefix="accum", init="zeros")
        self.stat = ParameterTuple(
            Parameter(initializer("ones", [1], p.dtype), name=f"stat.{p.name}",
                      requires_grad=False) for p in self.parameters)
        self._updates = [SGDUpdate(self.dampening, wd, nesterov, self.gradient_scale)
                         for wd in self._decays]

    def construct(self, gradients):
        self._check_gradients(gradients)
        for op, p, a, s, lr, g in zip(self._updates, self.parameters, self.accum, self.stat,
                                      self._param_lrs(), gradients):
            op(p, g, lr, a, self.momentum, s)
        self._advance_step()
        return True
