"""mindspore.dataset.vision: image transforms and their enums."""
from minispore.dataset.vision.transforms import (HWC2CHW, Border, Inter, Normalize,
                                                 RandomCrop, RandomHorizontalFlip, Rescale,
                                                 Resize, SliceMode, SlicePatches)

__all__ = ["Border", "HWC2CHW", "Inter", "Normalize", "RandomCrop", "RandomHorizontalFlip",
           "Rescale", "Resize", "SliceMode", "SlicePatches"]
