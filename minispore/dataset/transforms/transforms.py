"""General transforms (TypeCast, OneHot, Compose) and TensorOperation, the base of all ops."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.dataset import config
from minispore.dataset.engine.chunk import as_array


class TensorOperation:
    """A per-sample transform, callable on numpy arrays.

    Subclasses implement `_compute(*columns, rng)` on arrays whose axis 0 indexes samples, so
    a map can run them once over a whole chunk of rows; calling the op on one sample runs
    `_compute` on a batch of one. Random ops draw from `rng` (the pipeline's seeded generator).
    """

    def __call__(self, *arrays):
        if not arrays:
            raise TypeError(f"{type(self).__name__}: expected at least one input array.")
        batch = [as_array(a)[None] for a in arrays]
        out = self._compute(*batch, rng=self._eager_rng())
        return tuple(o[0] for o in out) if isinstance(out, tuple) else out[0]

    def _eager_rng(self):
        if getattr(self, "_rng", None) is None:
            self._rng = np.random.default_rng(config.seed_if_set())
        return self._rng

    def _compute(self, *columns, rng):
        raise NotImplementedError

    def __repr__(self):
        attrs = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({attrs})"


class TypeCast(TensorOperation):
    """Cast to `data_type` (a minispore dtype such as mstype.int32, or a numpy dtype)."""

    def __init__(self, data_type):
        try:
            self.data_type = mstype.to_type(data_type)
        except TypeError as e:
            raise TypeError(f"TypeCast: {e}") from None

    def _compute(self, x, rng):
        return x.astype(self.data_type.np_dtype, copy=False)


class OneHot(TensorOperation):
    """Integer labels -> one-hot vectors of length num_classes (label smoothing optional).

    Output keeps the label dtype; with smoothing_rate > 0 it is float32 with
    (1 - rate) + rate/num_classes on the hot entry and rate/num_classes elsewhere.
    """

    def __init__(self, num_classes, smoothing_rate=0.0):
        if not isinstance(num_classes, int) or isinstance(num_classes, bool) or num_classes < 1:
            raise ValueError(f"OneHot: num_classes must be an int >= 1, got {num_classes!r}.")
        if not 0.0 <= float(smoothing_rate) <= 1.0:
            raise ValueError(f"OneHot: smoothing_rate must be in [0, 1], got {smoothing_rate}.")
        self.num_classes, self.smoothing_rate = num_classes, float(smoothing_rate)

    def _compute(self, x, rng):
        if x.dtype.kind not in "iu":
            raise TypeError(f"OneHot: labels must be integers, got {x.dtype}.")
        if x.size and (x.min() < 0 or x.max() >= self.num_classes):
            raise ValueError(f"OneHot: labels must lie in [0, {self.num_classes}), got values in "
                             f"[{x.min()}, {x.max()}].")
        hot = x[..., None] == np.arange(self.num_classes)
        if self.smoothing_rate == 0.0:
            return hot.astype(x.dtype)
        off = np.float32(self.smoothing_rate / self.num_classes)
        return np.where(hot, np.float32(1.0 - self.smoothing_rate) + off, off)


class Compose:
    """Several transforms applied in order; map() expands it into its members."""

    def __init__(self, transforms):
        ops = list(transforms) if isinstance(transforms, (list, tuple)) else None
        if not ops or not all(callable(t) for t in ops):
            raise TypeError(f"Compose: transforms must be a non-empty list of callables, "
                            f"got {transforms!r}.")
        self.transforms = ops

    def __call__(self, *arrays):
        out = arrays
        for t in self.transforms:
            out = t(*out)
            out = out if isinstance(out, tuple) else (out,)
        return out if len(out) > 1 else out[0]

    def __repr__(self):
        return f"Compose({self.transforms!r})"
