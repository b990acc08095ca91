"""The 1.x module path mindspore.dataset.vision.c_transforms (same ops)."""
from minispore.dataset.vision.transforms import (HWC2CHW, Border, Inter, Normalize,  # noqa: F401
                                                 RandomCrop, RandomHorizontalFlip, Rescale,
                                                 Resize, SliceMode, SlicePatches)
