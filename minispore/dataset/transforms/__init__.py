"""mindspore.dataset.transforms: general (non-vision) transforms."""
from minispore.dataset.transforms.transforms import Compose, OneHot, TensorOperation, TypeCast

__all__ = ["Compose", "OneHot", "TypeCast", "TensorOperation"]
