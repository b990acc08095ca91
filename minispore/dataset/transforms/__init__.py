"""mindspore.dataset.transforms: general (non-vision) transforms."""
from minispore.dataset.transforms.mask_unique import Mask, Relational, Unique
from minispore.dataset.transforms.random_compose import RandomApply, RandomChoice, RandomOrder
from minispore.dataset.transforms.transforms import (Compose, Concatenate, Duplicate, Fill, OneHot,
                                                     PadEnd, Slice, TensorOperation, TypeCast)

__all__ = ["Compose", "Concatenate", "Duplicate", "Fill", "OneHot", "PadEnd", "Slice", "TypeCast",
           "TensorOperation", "RandomApply", "RandomChoice", "RandomOrder", "Mask", "Relational",
           "Unique"]
