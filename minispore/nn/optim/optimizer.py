"""Optimizer base: parameter groups, learning rates (fixed, per step, scheduled), weight decay
flags and loss scale, shared by SGD, Momentum, Adam and AdamWeightDecay."""
import numbers

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.parameter import Parameter, ParameterTuple
from minispore.common.registry import REGISTRY
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.nn.learning_rate_schedule import LearningRateSchedule, _ListLR
from minispore.ops import functional as F

__all__ = ["Optimizer"]

_GROUP_KEYS = ("params", "lr", "weight_decay", "grad_centralization", "order_params")


def _check_number(name, arg_name, value, lower=0.0, strict=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{name}', '{arg_name}' must be a float, but got "
                        f"{type(value).__name__}.")
    if value < lower or (strict and value == lower):
        cmp = ">" if strict else ">="
        raise ValueError(f"For '{name}', '{arg_name}' must be {cmp} {lower}, but got {value}.")
    return float(value)


def _skip_decay(param):
    """Ungrouped weight decay skips normalisation scales and shifts, like MindSpore."""
    return "beta" in param.name or "gamma" in param.name


class Optimizer(Cell):
    """Base class of optimizers: ``Optimizer(learning_rate, parameters, weight_decay=0.0,
    loss_scale=1.0)``.

    ``parameters``: an iterable of Parameters (a ``filter(...)`` is materialised) or of group
    dicts with 'params' and optionally 'lr', 'weight_decay', 'grad_centralization' (accepted,
    no effect) and one dict with 'order_params' (the order the optimizer keeps).
    ``learning_rate``: a float >= 0, a 0-d Tensor, a list / 1-D Tensor (one rate per step; the
    last stays) or a LearningRateSchedule. Without groups, weight decay skips parameters whose
    names contain 'beta' or 'gamma'. Gradients are divided by ``loss_scale``.
    Subclasses implement ``construct(gradients)`` with one fused update primitive per
    parameter and return True.
    """

    # minispore/ps/runtime.py, which installs itself when minispore is imported: it keeps the
    # optimizers of set_param_ps parameters and runs their calls the parameter-server way.

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        name = type(self).__name__
        if parameters is None:
            raise ValueError(f"For '{name}', 'parameters' must not be None.")
        parameters = list(parameters)
        if not parameters:
            raise ValueError(f"For '{name}', the argument 'parameters' must not be empty.")
        self.loss_scale = _check_number(name, "loss_scale", loss_scale, 0.0, strict=True)
        weight_decay = _check_number(name, "weight_decay", weight_decay)
        default_lr = self._lr_source(learning_rate, "learning_rate")
        self.is_group = isinstance(parameters[0], dict)
        params, lrs, decays = [], [], []
        order = None
        if self.is_group:
            for group in parameters:
                if not isinstance(group, dict):
                    raise TypeError(f"For '{name}', grouped 'parameters' must all be dicts, but "
                                    f"got {type(group).__name__}.")
                for key in group:
                    if key not in _GROUP_KEYS:
                        raise ValueError(f"For '{name}', the group key {key!r} is not "
                                         f"supported; valid keys are {list(_GROUP_KEYS)}.")
                if "order_params" in group:
                    order = list(group["order_params"])
                    continue
                group_params = list(group.get("params", ()))
                if not group_params:
                    raise ValueError(f"For '{name}', every group must have a non-empty 'params'.")
                lr = self._lr_source(group["lr"], "lr") if "lr" in group else default_lr
                wd = _check_number(name, "weight_decay", group.get("weight_decay", weight_decay))
                for p in group_params:
                    params.append(p)
                    lrs.append(lr)
                    decays.append(wd)
        else:
            params = parameters
            lrs = [default_lr] * len(params)
            decays = [0.0 if isinstance(p, Parameter) and _skip_decay(p) else weight_decay
                      for p in params]
        for p in params:
            if not isinstance(p, Parameter):
                raise TypeError(f"For '{name}', every parameter must be a Parameter, but got "
                                f"{type(p).__name__}.")
        ids = [id(p) for p in params]
        if len(set(ids)) != len(ids):
            raise RuntimeError(f"For '{name}', the same parameter appears in more than one "
                               f"group or twice in 'parameters'.")
        if order is not None:
            index = {id(p): i for i, p in enumerate(params)}
            missing = [p.name for p in order if id(p) not in index]
            if missing or len(order) != len(params):
                raise ValueError(f"For '{name}', 'order_params' must list exactly the grouped "
                                 f"parameters; not in any group: {missing}.")
            perm = [index[id(p)] for p in order]
            params, lrs, decays = ([seq[i] for i in perm] for seq in (params, lrs, decays))
        self.parameters = ParameterTuple(params)
        self._lr_per_param = lrs
        self._lr_sources = list({id(s): s for s in lrs}.values())
        self.is_group_lr = len(self._lr_sources) > 1
        self.dynamic_lr = any(isinstance(s, LearningRateSchedule) for s in self._lr_sources)
        self.weight_decay = weight_decay
        self._decays = decays
        if isinstance(default_lr, Cell):
            self.learning_rate = default_lr
        else:
            object.__setattr__(self, "learning_rate", default_lr)
        self.global_step = Parameter(Tensor(np.zeros(1, np.int32), mstype.int32),
                                     name="global_step", requires_grad=False)
        ps = REGISTRY.plugged("nn.parameter_server")
        if ps is not None:
            ps.register_optimizer(self)

    def __call__(self, *args, **kwargs):
        """The Cell's call; with parameter-server training on, the set_param_ps parameters'
        updates go to the servers (the "nn.parameter_server" plug point's ``optimizer_call``)."""
        ps = REGISTRY.plugged("nn.parameter_server")
        if ps is not None:
            return ps.optimizer_call(
                self, lambda: super(Optimizer, self).__call__(*args, **kwargs))
        return super().__call__(*args, **kwargs)

    def _lr_source(self, lr, arg_name):
        """A fixed rate becomes a 0-d float32 Tensor; a per-step list or 1-D Tensor and a
        schedule become a LearningRateSchedule."""
        name = type(self).__name__
        if isinstance(lr, LearningRateSchedule):
            return lr
        if isinstance(lr, Tensor):
            if lr.ndim == 0:
                return Tensor(lr.asnumpy().astype(np.float32), mstype.float32)
            if lr.ndim == 1:
                return _ListLR(lr.asnumpy().tolist())
            raise ValueError(f"For '{name}', a Tensor '{arg_name}' must be 0-d or 1-d, but got "
                             f"shape {tuple(lr.shape)}.")
        if isinstance(lr, (list, tuple)):
            for v in lr:
                _check_number(name, arg_name, v)
            return _ListLR(lr)
        value = _check_number(name, arg_name, lr)
        return Tensor(np.asarray(value, np.float32), mstype.float32)

    def get_lr(self):
        """The current learning rate: a Tensor, or a tuple with one per parameter when groups
        have different rates."""
        lrs = {id(s): self._eval_lr(s) for s in self._lr_sources}
        if self.is_group_lr:
            return tuple(lrs[id(s)] for s in self._lr_per_param)
        return lrs[id(self._lr_sources[0])]

    def get_lr_parameter(self, param):
        """The learning rate used for ``param`` (a Parameter or a list of them)."""
        lrs = self._param_lrs()
        index = {id(p): i for i, p in enumerate(self.parameters)}
        if isinstance(param, Parameter):
            return lrs[index[id(param)]]
        return [lrs[index[id(p)]] for p in param]

    def _eval_lr(self, source):
        return source(self.global_step) if isinstance(source, Cell) else source

    def _param_lrs(self):
        """One learning-rate Tensor per parameter for this step."""
        lrs = {id(s): self._eval_lr(s) for s in self._lr_sources}
        return [lrs[id(s)] for s in self._lr_per_param]

    def _check_gradients(self, gradients):
        if len(gradients) != len(self.parameters):
            raise ValueError(f"For '{type(self).__name__}', got {len(gradients)} gradients for "
                             f"{len(self.parameters)} parameters.")

    def _advance_step(self):
        F.assign(self.global_step, F.add(self.global_step, 1))

    def _graph_call(self, args, kwargs):
        """GRAPH mode, called on its own (``optimizer(grads)`` after a compiled value_and_grad,
        not traced into a compiled step): the update compiles for this rank alone, each
        gradient cut to the block its parameter holds under operator parallel (a compiled
        gradient comes back whole). Its inputs are gradients, not dataset columns, so neither
        dataset_strategy nor the operators' default strategies apply."""
        from minispore.parallel.compiler import local_program
        from minispore.parallel.param_slicing import local_block_of
        if args and isinstance(args[0], (tuple, list)) and \
                len(args[0]) == len(self.parameters):
            grads = tuple(local_block_of(p, g) if isinstance(g, Tensor) else g
                          for p, g in zip(self.parameters, args[0]))
            args = (grads,) + tuple(args[1:])
        with local_program():
            return super()._graph_call(args, kwargs)

    @property
    def gradient_scale(self):
        return 1.0 / self.loss_scale
