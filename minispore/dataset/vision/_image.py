"""What every vision transform shares: the Inter/Border/SliceMode enums and the image batch view."""
import enum


class Inter(enum.IntEnum):
    """Interpolation modes (MindSpore's names; BILINEAR and BICUBIC are aliases)."""
    NEAREST = 0
    LINEAR = 1
    BILINEAR = 1
    CUBIC = 2
    BICUBIC = 2
    AREA = 3
    PILCUBIC = 4
    ANTIALIAS = 5


class Border(enum.Enum):
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class SliceMode(enum.Enum):
    PAD = "pad"
    DROP = "drop"


def image_batch(op, x):
    """A batch of HW or HWC images as (N, H, W, C), or a ValueError naming op and shape."""
    if x.ndim == 3:
        return x[..., None]
    if x.ndim == 4:
        return x
    raise ValueError(f"{op}: each image must be <H, W> or <H, W, C>, got shape "
                     f"{list(x.shape[1:])}.")


def restore(out, x):
    """Undo image_batch's channel axis for a batch of <H, W> images."""
    return out if x.ndim == 4 else out[..., 0]
