"""Cells that return gradients: ForwardValueAndGrad ((loss, gradients) of a network) and
WithGradCell (the gradients of a network's loss with respect to its trainable parameters).
Both are GradOperation applied to the network, as in MindSpore."""
from minispore.common.parameter import Parameter, ParameterTuple
from minispore.nn.cell import Cell
from minispore.nn.wrap.cell_wrapper import WithLossCell
from minispore.ops.grad import GradOperation

__all__ = ["ForwardValueAndGrad", "WithGradCell"]


class ForwardValueAndGrad(Cell):
    """``ForwardValueAndGrad(network, weights=None, get_all=False, get_by_list=False,
    sens_param=False)(*inputs[, sens])`` -> (network(*inputs), gradients): the gradients as
    GradOperation(get_all, get_by_list, sens_param) gives them (the first input's by default,
    every input's with get_all, the weights' with get_by_list, (inputs', weights') with both).
    With sens_param the last input scales the gradients; the value returned is unscaled."""

    def __init__(self, network, weights=None, get_all=False, get_by_list=False,
                 sens_param=False):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell) and not callable(network):
            raise TypeError(f"For 'ForwardValueAndGrad', 'network' must be a Cell or a "
                            f"function, but got {type(network).__name__}.")
        for name, flag in (("get_all", get_all), ("get_by_list", get_by_list),
                           ("sens_param", sens_param)):
            if not isinstance(flag, bool):
                raise TypeError(f"For 'ForwardValueAndGrad', '{name}' must be bool, but got "
                                f"{type(flag).__name__}.")
        if get_by_list and not isinstance(weights, (ParameterTuple, tuple, list)):
            raise TypeError(f"For 'ForwardValueAndGrad', when 'get_by_list' is set to True, the "
                            f"argument 'weights' must be Parameters array, but got "
                            f"'{type(weights)}'")
        if get_by_list and not all(isinstance(w, Parameter) for w in weights):
            raise TypeError("For 'ForwardValueAndGrad', every element of 'weights' must be a "
                            "Parameter.")
        self.network = network
        self.weights = weights
        self.get_by_list = get_by_list
        self.sens_param = sens_param
        self.grad = GradOperation(get_all=get_all, get_by_list=get_by_list,
                                  sens_param=sens_param)

    def construct(self, *inputs):
        value = self.network(*(inputs[:-1] if self.sens_param else inputs))
        grad_fn = (self.grad(self.network, self.weights) if self.get_by_list
                   else self.grad(self.network))
        return value, grad_fn(*inputs)


class WithGradCell(Cell):
    """``WithGradCell(network, loss_fn=None, sens=None)(*inputs)``: the gradients of the loss
    (loss_fn(network(data), label), or network(*inputs) itself when loss_fn is None) with
    respect to the network's trainable parameters, scaled by sens when it is given."""

    def __init__(self, network, loss_fn=None, sens=None):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"For 'WithGradCell', 'network' must be a Cell, but got "
                            f"{type(network).__name__}.")
        self.network = network
        self.loss_fn = loss_fn
        self.sens = sens
        self.weights = ParameterTuple(network.trainable_params())
        self.net = network if loss_fn is None else WithLossCell(network, loss_fn)
        self.grad = GradOperation(get_by_list=True, sens_param=sens is not None)

    def construct(self, *inputs):
        grad_fn = self.grad(self.net, self.weights)
        return grad_fn(*inputs) if self.sens is None else grad_fn(*inputs, self.sens)
