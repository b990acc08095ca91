"""mindspore.amp: automatic mixed precision and loss scaling (implemented in train/amp.py)."""
from minispore.train.amp import (AMP_LEVELS, DynamicLossScaleManager,  # noqa: F401
                                 DynamicLossScaler, FixedLossScaleManager, LossScaleManager,
                                 LossScaler, StaticLossScaler, all_finite, auto_mixed_precision,
                                 build_train_network, get_black_list, get_white_list)

__all__ = ["auto_mixed_precision", "get_white_list", "get_black_list", "build_train_network",
           "all_finite", "LossScaler", "StaticLossScaler", "DynamicLossScaler",
           "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager"]
