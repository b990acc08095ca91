"""Segmentation surface distances between a predicted and a true mask: HausdorffDistance,
MeanSurfaceDistance and RootMeanSquareDistance, as MindSpore's metrics compute them (the mask
edge is the mask minus its binary erosion; distances come from scipy's distance transforms)."""
import numpy as np
from scipy import ndimage

from minispore.nn.metrics.metric import Metric, _check_string, _check_type, rearrange_inputs

__all__ = ["HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance"]

_DISTANCE_METRICS = ["euclidean", "chessboard", "taxicab"]


def _edges(mask):
    return ndimage.binary_erosion(mask) ^ mask


class _SurfaceDistance(Metric):
    """Input checks and the edge-to-edge distances the three metrics share."""
    _label_type_error = ValueError

    def _masks(self, inputs):
        """(y_pred, y, label_idx) after MindSpore's checks, y_pred and y as numpy arrays."""
        name = type(self).__name__
        if len(inputs) != 3:
            raise ValueError(f"For '{name}.update', it needs 3 inputs (predicted value, true "
                             f"value, label index), but got {len(inputs)}.")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        label_idx = inputs[2]
        if not isinstance(label_idx, (int, float)):
            raise self._label_type_error(
                f"For '{name}.update', the label index (input[2]) must be int or float, but got "
                f"{type(label_idx)}.")
        if label_idx not in y_pred and label_idx not in y:
            raise ValueError(f"For '{name}.update', the label index (input[2]) must be in "
                             f"predicted value (input[0]) or true value (input[1]), but "
                             f"{label_idx} is not.")
        if y_pred.size == 0 or y_pred.shape != y.shape:
            raise ValueError(f"For '{name}.update', the size of predicted value (input[0]) and "
                             f"true value (input[1]) must be greater than 0, in addition to that, "
                             f"predicted value and true value should have the same shape, but "
                             f"got predicted value size: {y_pred.size}, shape: {y_pred.shape}, "
                             f"true value size: {y.size}, shape: {y.shape}.")
        return y_pred, y, label_idx

    def _surface_distance(self, from_edges, to_edges):
        """Distance from each edge point of `from_edges` to the nearest of `to_edges` (all
        infinite when `to_edges` is empty; an empty array when `from_edges` is). Euclidean
        distances are float64, chessboard / taxicab ones int32 (scipy's chamfer transform)."""
        if not np.any(from_edges):
            return np.array([])
        if not np.any(to_edges):
            dis = np.full(to_edges.shape, np.inf)
        elif self.distance_metric == "euclidean":
            dis = ndimage.distance_transform_edt(~to_edges)
        else:
            dis = ndimage.distance_transform_cdt(~to_edges, metric=self.distance_metric)
        return dis[from_edges]


class HausdorffDistance(_SurfaceDistance):
    r"""``HausdorffDistance(distance_metric='euclidean', percentile=None, directed=False,
    crop=True)``: ``update(y_pred, y, label_idx)`` keeps the edges of the masks
    ``y_pred == label_idx`` and ``y == label_idx`` (same shape, any rank).

    ``eval()`` -> max(h(y_pred, y), h(y, y_pred)) (only h(y_pred, y) when ``directed``), where
    h(A, B) is the largest (or the ``percentile``-th) distance from an edge point of A to the
    nearest edge point of B: numpy.float64 for 'euclidean' or a percentile, numpy.int32 for
    'chessboard' / 'taxicab'; inf when A's edge is empty. ``crop`` first cuts both masks to the
    bounding box of their union (and squeezes unit dims, as MindSpore does).

    Raises TypeError / ValueError for bad constructor arguments (percentile must be a float),
    ValueError for a bad label or shapes (update) or a percentile outside [0, 100] (eval),
    RuntimeError when eval comes before update.
    """

    def __init__(self, distance_metric="euclidean", percentile=None, directed=False, crop=True):
        super().__init__()
        self.distance_metric = _check_string("distance_metric", distance_metric,
                                             _DISTANCE_METRICS)
        self.percentile = None if percentile is None else _check_type("percentile", percentile,
                                                                       (float,))
        self.directed = None if directed is None else _check_type("directed", directed, (bool,))
        self.crop = None if crop is None else _check_type("crop", crop, (bool,))
        self.clear()

    def clear(self):
        self.y_pred_edges = 0
        self.y_edges = 0
        self._is_update = False

    def _crop_edges(self, y_pred, y):
        if self.crop:
            union = y_pred | y
            if not np.any(union):
                return np.zeros_like(y_pred), np.zeros_like(y)
            box = tuple(slice(idx.min(), idx.max() + 1) for idx in np.nonzero(union))
            y_pred, y = np.squeeze(y_pred[box]), np.squeeze(y[box])
        return _edges(y_pred), _edges(y)

    @rearrange_inputs
    def update(self, *inputs):
        # MindSpore marks the metric updated before checking the inputs.
        self._is_update = True
        y_pred, y, label_idx = self._masks(inputs)
        # MindSpore tests `dtype is not bool`, always true, so bool masks are compared with
        # label_idx too (label 0 selects their False entries).
        self.y_pred_edges, self.y_edges = self._crop_edges(y_pred == label_idx, y == label_idx)

    def _directed(self, from_edges, to_edges):
        distance = self._surface_distance(from_edges, to_edges)
        if distance.shape == (0,):
            return np.inf
        if not self.percentile:
            return distance.max()
        if 0 <= self.percentile <= 100:
            return np.percentile(distance, self.percentile)
        raise ValueError(f"For 'HausdorffDistance', the value of the argument 'percentile' must "
                         f"be [0, 100], but got {self.percentile}.")

    def eval(self):
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        hd = self._directed(self.y_pred_edges, self.y_edges)
        if self.directed:
            return hd
        return max(hd, self._directed(self.y_edges, self.y_pred_edges))


class _SymmetricSurfaceDistance(_SurfaceDistance):
    """MeanSurfaceDistance and RootMeanSquareDistance: edges of the label masks, reduced by
    `_reduce` from y_pred to y, and both ways when ``symmetric``."""

    def __init__(self, symmetric=False, distance_metric="euclidean"):
        super().__init__()
        self.distance_metric = _check_string("distance_metric", distance_metric,
                                             _DISTANCE_METRICS)
        self.symmetric = _check_type("symmetric", symmetric, (bool,))
        self.clear()
        # As MindSpore's constructor does: the flag is None, not False, until clear or update,
        # so eval before any update returns inf (both edges empty) instead of raising.
        self._is_update = None

    def clear(self):
        self._y_pred_edges = 0
        self._y_edges = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y, label_idx = self._masks(inputs)
        if y_pred.dtype != bool:
            y_pred = y_pred == label_idx
        if y.dtype != bool:
            y = y == label_idx
        self._y_pred_edges, self._y_edges = _edges(y_pred), _edges(y)
        self._is_update = True

    def eval(self):
        if self._is_update is False:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        distance = self._surface_distance(self._y_pred_edges, self._y_edges)
        if distance.shape == (0,):
            return np.inf
        if not self.symmetric:
            return self._one_way(distance)
        contrary = self._surface_distance(self._y_edges, self._y_pred_edges)
        if contrary.shape == (0,):
            return np.inf
        return self._both_ways(distance, contrary)


class MeanSurfaceDistance(_SymmetricSurfaceDistance):
    r"""``MeanSurfaceDistance(symmetric=False, distance_metric='euclidean')``:
    ``update(y_pred, y, label_idx)`` keeps the edges of the label masks (bool inputs are taken
    as masks already).

    ``eval()`` -> numpy.float64: the mean distance from y_pred's edge points to y's edge, or
    with ``symmetric`` the mean of that and the mean the other way; inf when an edge needed is
    empty.

    Raises TypeError / ValueError for bad constructor arguments, ValueError for a bad label
    (type or value) or shapes, RuntimeError when eval follows clear without update.
    """

    def _one_way(self, distance):
        return distance.mean()

    def _both_ways(self, distance, contrary):
        return np.mean((distance.mean(), contrary.mean()))


class RootMeanSquareDistance(_SymmetricSurfaceDistance):
    r"""``RootMeanSquareDistance(symmetric=False, distance_metric='euclidean')``:
    ``update(y_pred, y, label_idx)`` as MeanSurfaceDistance.

    ``eval()`` -> numpy.float64: with ``symmetric``, sqrt of the mean of the two one-way mean
    squared edge distances; without, the one-way mean squared distance itself (MindSpore takes
    no square root there, and this follows it); inf when an edge needed is empty.

    Raises TypeError for a label index that is no int or float, otherwise as
    MeanSurfaceDistance.
    """
    _label_type_error = TypeError

    def _one_way(self, distance):
        return (distance ** 2).mean()

    def _both_ways(self, distance, contrary):
        return np.sqrt(np.mean(((distance ** 2).mean(), (contrary ** 2).mean())))
