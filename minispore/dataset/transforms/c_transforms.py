"""The 1.x module path mindspore.dataset.transforms.c_transforms (same ops)."""
from minispore.dataset.transforms.transforms import Compose, OneHot, TypeCast  # noqa: F401
