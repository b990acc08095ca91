"""MindSpore's mindspore.nn.utils: no_init_parameters (common/deferred_init.py)."""
from minispore.common.deferred_init import no_init_parameters

__all__ = ["no_init_parameters"]
