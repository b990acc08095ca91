"""The 1.x module path mindspore.dataset.transforms.c_transforms (same ops)."""
from minispore.dataset.transforms.transforms import (Compose, Concatenate, Duplicate,  # noqa: F401
                                                     Fill, OneHot, PadEnd, Slice, TypeCast)
