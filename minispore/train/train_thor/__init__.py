"""THOR's training utilities (MindSpore's mindspore.train.train_thor)."""
from minispore.nn.optim.thor_convert import ConvertNetUtils
from minispore.train.train_thor.model_thor import ConvertModelUtils, ModelThor

__all__ = ["ConvertNetUtils", "ConvertModelUtils", "ModelThor"]
