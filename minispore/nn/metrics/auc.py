"""auc: the area under a curve (e.g. ROC's fpr, tpr) by the trapezoidal rule, as MindSpore's."""
import numpy as np

__all__ = ["auc"]


def _num_samples(arr):
    if arr.ndim == 0:
        raise TypeError(f"Singleton array {arr} cannot be considered as a valid collection.")
    return arr.shape[0]


def _column_or_1d(arr):
    if arr.ndim == 1 or (arr.ndim == 2 and arr.shape[1] == 1):
        return np.ravel(arr)
    raise ValueError(f"For 'auc', the input must be a 1-dimensional array, or a 2-dimensional "
                     f"array with the second dimension of 1, but got shape {arr.shape}.")


def auc(x, y, reorder=False):
    """``auc(x, y, reorder=False)`` -> numpy.float64: the trapezoidal area under the points
    (x[i], y[i]). x and y are numpy arrays of N points ((N,) or (N, 1)), N >= 2. x must rise
    or fall monotonically (a falling x gives the area with positive sign) unless `reorder`,
    which sorts the points by x (then y) first.

    Raises TypeError when x or y is no numpy array (or is 0-d), ValueError when their lengths
    differ, N < 2, they are not (N,) / (N, 1), or x is not monotonic and `reorder` is False.

    >>> float(auc(np.array([0., 0.5, 1.]), np.array([0., 1., 1.])))
    0.75
    """
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        raise TypeError(f"For 'auc', the argument 'x' and 'y' must all be np.ndarray, but got "
                        f"{type(x)}, {type(y)}")
    lengths = [_num_samples(x), _num_samples(y)]
    if lengths[0] != lengths[1]:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: "
                         f"{lengths}.")
    x, y = _column_or_1d(x), _column_or_1d(y)
    if x.shape[0] < 2:
        raise ValueError(f"For 'auc', the shape of the argument 'x' in axis 0 must be greater "
                         f"than 2, but got {x.shape[0]}.")
    direction = 1
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    else:
        dx = np.diff(x)
        if np.any(dx < 0):
            if not np.all(dx <= 0):
                raise ValueError(f"For 'auc', if the argument is False, the argument 'x' array "
                                 f"must be increasing or decreasing, but got 'x': {x}")
            direction = -1
    # MindSpore's numpy 1.x promotes the area to float64 whatever the inputs' dtype.
    return np.float64(direction * np.trapezoid(y, x))
