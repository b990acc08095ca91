"""mindspore.dataset.transforms: general (non-vision) transforms."""
from minispore.dataset.transforms.transforms import (Compose, Concatenate, Duplicate, Fill, OneHot,
                                                     PadEnd, Slice, TensorOperation, TypeCast)

__all__ = ["Compose", "Concatenate", "Duplicate", "Fill", "OneHot", "PadEnd", "Slice", "TypeCast",
           "TensorOperation"]
