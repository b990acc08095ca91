"""nn.LazyAdam and nn.AdamOffload: MindSpore's deprecated Adam variants, which with dense
gradients update exactly as nn.Adam (the same fused kernel and state names)."""
import logging

from minispore.nn.optim._validate import check_bool, check_non_negative, check_positive, \
    check_range
from minispore.nn.optim.adam import Adam

__all__ = ["LazyAdam", "AdamOffload"]

logger = logging.getLogger("minispore")


def _deprecated(name):
    logger.warning("'%s' is deprecated from version 2.0 and will be removed in a future version, "
                   "use 'Adam' instead.", name)


def _check(name, beta1, beta2, eps, use_locking, use_nesterov):
    check_range(name, "beta1", beta1, 0.0, 1.0)
    check_range(name, "beta2", beta2, 0.0, 1.0)
    check_positive(name, "eps", eps)
    check_bool(name, "use_locking", use_locking)
    check_bool(name, "use_nesterov", use_nesterov)


class LazyAdam(Adam):
    """``LazyAdam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
    use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0)``.

    MindSpore's LazyAdam updates only the rows a sparse (RowTensor) gradient touches; minispore
    has no RowTensor, so every gradient is dense and LazyAdam is nn.Adam (formula, state
    'moment1.<name>', 'moment2.<name>', 'beta1_power', 'beta2_power'), with LazyAdam's stricter
    argument checks (floats only) and MindSpore's deprecation warning.
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        _deprecated("LazyAdam")
        _check("LazyAdam", beta1, beta2, eps, use_locking, use_nesterov)
        # MindSpore's message spells the argument 'weight_dacay'.
        check_non_negative("LazyAdam", "weight_dacay", weight_decay)
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov,
                         weight_decay, loss_scale)


class AdamOffload(Adam):
    """``AdamOffload(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
    use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0)``.

    MindSpore keeps this Adam's moments on the host CPU and adds the computed step to the
    parameter on the device, to save device memory; the arithmetic is nn.Adam's (same formula
    and state names). minispore keeps optimizer state wherever the parameter lives, so here
    AdamOffload is nn.Adam with its argument checks and MindSpore's deprecation warning.
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        _deprecated("AdamOffload")
        _check("AdamOffload", beta1, beta2, eps, use_locking, use_nesterov)
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov,
                         weight_decay, loss_scale)
