"""nn.Adadelta: rates from running averages of squared gradients and squared updates, one fused
update per parameter."""
from minispore.common.tensor import Tensor
from minispore.nn.optim._validate import check_non_negative, check_range
from minispore.nn.optim.optimizer import Optimizer
from minispore.ops.operations.optim_adaptive_ops import ApplyAdadelta

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """``Adadelta(params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0,
    weight_decay=0.0)``.

    a = rho * a + (1 - rho) * g^2; u = sqrt(au + epsilon) * g / sqrt(a + epsilon);
    au = rho * au + (1 - rho) * u^2; p -= lr * u, g = (grad + weight_decay * p) / loss_scale.
    State: 'accum.<name>', 'accum_update.<name>'. The gradients must be a tuple of Tensors.
    """

    def __init__(self, params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.rho = check_range("Adadelta", "rho", rho, 0.0, 1.0, closed=True)
        self.epsilon = check_non_negative("Adadelta", "epsilon", epsilon)
        self.accum = self.parameters.clone(prefix="accum", init=0)
        self.accum_update = self.parameters.clone(prefix="accum_update", init=0)
        scale = self.gradient_scale
        self._updates = [ApplyAdadelta(scale, wd * scale) for wd in self._decays]

    def construct(self, gradients):
        if not isinstance(gradients, tuple) or not gradients or \
                not isinstance(gradients[0], Tensor):
            raise TypeError("For 'Adadelta', the 'grads' must be a tuple of Tensor.")
        self._check_gradients(gradients)
        for op, p, a, au, lr, g in zip(self._updates, self.parameters, self.accum,
                                       self.accum_update, self._param_lrs(), gradients):
            op(p, a, au, lr, self.rho, self.epsilon, g)
        self._advance_step()
        return True
