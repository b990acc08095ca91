"""mindspore.dataset.vision: image transforms and their enums."""
from minispore.dataset.vision.transforms import (HWC2CHW, Border, CenterCrop, Erase,
                                                 HorizontalFlip, Inter, Normalize, NormalizePad,
                                                 Pad, PadToSize, RandomCrop, RandomHorizontalFlip,
                                                 RandomVerticalFlip, Rescale, Resize, SliceMode,
                                                 SlicePatches, ToNumpy, ToTensor, VerticalFlip)

__all__ = ["Border", "CenterCrop", "Erase", "HWC2CHW", "HorizontalFlip", "Inter", "Normalize",
           "NormalizePad", "Pad", "PadToSize", "RandomCrop", "RandomHorizontalFlip",
           "RandomVerticalFlip", "Rescale", "Resize", "SliceMode", "SlicePatches", "ToNumpy",
           "ToTensor", "VerticalFlip"]
