"""mindspore.dataset.vision: image transforms and their enums."""
from minispore.dataset.vision.transforms import (HWC2CHW, Affine, RandomAffine, RandomResize,
                                                 RandomResizedCrop, RandomRotation, Rotate,
                                                 AdjustBrightness, AdjustContrast,
                                                 AdjustGamma, AdjustSaturation, AutoContrast,
                                                 Border, CenterCrop, CutOut, Equalize, Erase,
                                                 HorizontalFlip, Inter, Invert, Normalize,
                                                 NormalizePad, Pad, PadToSize, Posterize,
                                                 RandomAutoContrast, RandomCrop, RandomEqualize,
                                                 RandomHorizontalFlip, RandomInvert,
                                                 RandomPosterize, RandomSolarize,
                                                 RandomVerticalFlip, Rescale, Resize, SliceMode,
                                                 SlicePatches, Solarize, ToNumpy, ToTensor,
                                                 VerticalFlip)

__all__ = ["Affine", "RandomAffine", "RandomResize", "RandomResizedCrop", "RandomRotation",
           "Rotate", "AdjustBrightness", "AdjustContrast", "AdjustGamma", "AdjustSaturation",
           "AutoContrast", "Border", "CenterCrop", "CutOut", "Equalize", "Erase", "HWC2CHW",
           "HorizontalFlip", "Inter", "Invert", "Normalize", "NormalizePad", "Pad", "PadToSize",
           "Posterize", "RandomAutoContrast", "RandomCrop", "RandomEqualize",
           "RandomHorizontalFlip", "RandomInvert", "RandomPosterize", "RandomSolarize",
           "RandomVerticalFlip", "Rescale", "Resize", "SliceMode", "SlicePatches", "Solarize",
           "ToNumpy", "ToTensor", "VerticalFlip"]
