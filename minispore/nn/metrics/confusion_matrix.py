"""ConfusionMatrix (class-by-class counts) and ConfusionMatrixMetric (a rate such as
sensitivity or F1 from the per-channel tp/fp/tn/fn of binarised segmentation-style inputs), as
MindSpore's metrics compute them."""
import numpy as np

from minispore.nn.metrics.metric import Metric, rearrange_inputs

__all__ = ["ConfusionMatrix", "ConfusionMatrixMetric"]


def _check_type(arg_name, value, kind):
    if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
        raise TypeError(f"The type of '{arg_name}' should be '{kind.__name__}', but got type "
                        f"'{type(value).__name__}'.")
    return value


class ConfusionMatrix(Metric):
    """``ConfusionMatrix(num_classes, normalize="no_norm", threshold=0.5)``: counts[i, j] of
    samples of true class i predicted as j, summed over updates. y_pred one rank above y is
    argmax-ed over axis 1; float y_pred of y's rank is binarised at ``threshold``. ``eval``
    returns the float64 counts, or normalised by row ('target'), column ('prediction') or
    total ('all'), empty rows/columns giving 0."""

    def __init__(self, num_classes, normalize="no_norm", threshold=0.5):
        super().__init__()
        self.num_classes = _check_type("num_classes", num_classes, int)
        if normalize not in ["target", "prediction", "all", "no_norm"]:
            raise ValueError(f"For 'ConfusionMatrix', the argument 'normalize' must be in "
                             f"['all', 'prediction', 'label', 'no_norm'(None)], but got "
                             f"{normalize}.")
        self.normalize = normalize
        self.threshold = _check_type("threshold", threshold, float)
        self.clear()

    def clear(self):
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes))
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For 'ConfusionMatrix.update', it needs 2 inputs (predicted value, "
                             f"true value), but got {len(inputs)}.")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if not (y_pred.ndim == y.ndim or y_pred.ndim == y.ndim + 1):
            raise ValueError(f"For 'ConfusionMatrix.update', predicted value (input[0]) and true "
                             f"value (input[1]) should have same dimensions, or the dimension of "
                             f"predicted value equals the dimension of true value add 1, but got "
                             f"predicted value ndim: {y_pred.ndim}, true value ndim: {y.ndim}.")
        if y_pred.ndim == y.ndim + 1:
            y_pred = np.argmax(y_pred, axis=1)
        if y_pred.ndim == y.ndim and y_pred.dtype in (np.float16, np.float32, np.float64):
            y_pred = (y_pred >= self.threshold).astype(int)
        n = self.num_classes
        index = (y.reshape(-1) * n + y_pred.reshape(-1)).astype(int)
        self.confusion_matrix += np.bincount(index, minlength=n * n).reshape(n, n)
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        counts = self.confusion_matrix.astype(float)
        if self.normalize == "no_norm":
            return counts
        with np.errstate(invalid="ignore", divide="ignore"):
            matrix = {"target": lambda: counts / counts.sum(axis=1, keepdims=True),
                      "prediction": lambda: counts / counts.sum(axis=0, keepdims=True),
                      "all": lambda: counts / counts.sum()}[self.normalize]()
        matrix[np.isnan(matrix)] = 0
        return matrix


_METRIC_NAMES = {
    "tpr": ("sensitivity", "recall", "hit_rate", "true_positive_rate", "tpr"),
    "tnr": ("specificity", "selectivity", "true_negative_rate", "tnr"),
    "ppv": ("precision", "positive_predictive_value", "ppv"),
    "npv": ("negative_predictive_value", "npv"),
    "fnr": ("miss_rate", "false_negative_rate", "fnr"),
    "fpr": ("fall_out", "false_positive_rate", "fpr"),
    "fdr": ("false_discovery_rate", "fdr"),
    "for": ("false_omission_rate", "for"),
    "pt": ("prevalence_threshold", "pt"),
    "ts": ("threat_score", "critical_success_index", "ts", "csi"),
    "acc": ("accuracy", "acc"),
    "ba": ("balanced_accuracy", "ba"),
    "f1": ("f1_score", "f1"),
    "mcc": ("matthews_correlation_coefficient", "mcc"),
    "fm": ("fowlkes_mallows_index", "fm"),
    "bm": ("informedness", "bookmaker_informedness", "bm"),
    "mk": ("markedness", "deltap", "mk"),
}
_ALIASES = {alias: key for key, aliases in _METRIC_NAMES.items() for alias in aliases}


def _rate(num, den):
    """num / den where den > 0, else nan."""
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _fraction(key, tp, fp, tn, fn):
    """(numerator, denominator) of the metric `key` from the tp/fp/tn/fn arrays."""
    p, n = tp + fn, fp + tn
    if key in ("pt", "ba", "bm"):
        tpr, tnr = _rate(tp, p), _rate(tn, n)
        if key == "pt":
            return np.sqrt(tpr * (1.0 - tnr)) + tnr - 1.0, tpr + tnr - 1.0
        return (tpr + tnr, 2.0) if key == "ba" else (tpr + tnr - 1.0, 1.0)
    if key == "fm":
        return np.sqrt(_rate(tp, tp + fp) * _rate(tp, p)), 1.0
    if key == "mk":
        return _rate(tp, tp + fp) + _rate(tn, tn + fn) - 1.0, 1.0
    if key == "mcc":
        return tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return {"tpr": (tp, p), "tnr": (tn, n), "ppv": (tp, tp + fp), "npv": (tn, tn + fn),
            "fnr": (fn, p), "fpr": (fp, n), "fdr": (fp, fp + tp), "for": (fn, fn + tn),
            "ts": (tp, tp + fn + fp), "acc": (tp + tn, p + n),
            "f1": (tp * 2.0, tp * 2.0 + fn + fp)}[key]


def _metric_from_counts(metric_name, counts):
    """The metric over the last axis (tp, fp, tn, fn) of `counts`; nan where undefined."""
    key = _ALIASES.get(metric_name.replace(" ", "_").lower())
    if key is None:
        raise NotImplementedError("The metric is not implemented.")
    if counts.ndim == 1:
        counts = counts[None]
    with np.errstate(invalid="ignore", divide="ignore"):
        num, den = _fraction(key, *(counts[..., i] for i in range(4)))
        if isinstance(den, np.ndarray):
            return np.where(den != 0, num / np.where(den != 0, den, 1.0), np.nan)
        return num / den


def _counts(y_pred, y, skip_channel):
    """(batch, channel, 4) tp/fp/tn/fn of binarised y_pred against y, over the positions."""
    if not skip_channel:
        y = y[:, 1:] if y.shape[1] > 1 else y
        y_pred = y_pred[:, 1:] if y_pred.shape[1] > 1 else y_pred
    y, y_pred = y.astype(float), y_pred.astype(float)
    if y.shape != y_pred.shape:
        raise ValueError(f"The 'y_shape' should be = y_pred_shape: {y_pred.shape}, but got "
                         f"{y.shape}.")
    batch, channels = y_pred.shape[:2]
    y_pred, y = y_pred.reshape(batch, channels, -1), y.reshape(batch, channels, -1)
    tp = ((y_pred + y) == 2).astype(float).sum(axis=2)
    tn = ((y_pred + y) == 0).astype(float).sum(axis=2)
    p = y.sum(axis=2)
    return np.stack([tp, y.shape[-1] - p - tn, tn, p - tp], axis=-1)


def _reduce(chart, decrease):
    """(reduced chart, count of the non-nan entries it averages), MindSpore's `decrease`."""
    nans = np.isnan(chart)
    kept = (~nans).astype(float)
    chart = np.where(nans, 0.0, chart)

    def mean(c, k, axis):
        k = k.sum(axis=axis)
        return np.where(k > 0, c.sum(axis=axis) / np.where(k > 0, k, 1.0), 0.0), k

    if decrease == "mean":
        chart, kept = mean(chart, kept, 1)
        return mean(chart, (kept > 0).astype(float), 0)
    if decrease == "sum":
        return chart.sum(axis=(0, 1)), kept.sum(axis=(0, 1))
    if decrease in ("mean_batch", "mean_channel"):
        return mean(chart, kept, 0 if decrease == "mean_batch" else 1)
    if decrease in ("sum_batch", "sum_channel"):
        axis = 0 if decrease == "sum_batch" else 1
        return chart.sum(axis=axis), kept.sum(axis=axis)
    return chart, kept


_DECREASES = ["none", "mean", "sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel"]


class ConfusionMatrixMetric(Metric):
    """``ConfusionMatrixMetric(skip_channel=True, metric_name="sensitivity",
    calculation_method=False, decrease="mean")``.

    ``update(y_pred, y)``: binarised arrays of shape (batch, channel, ...), at least 2-D; the
    per-(sample, channel) counts tp/fp/tn/fn over the remaining positions (channel 0 dropped
    when skip_channel is False). ``metric_name``: any of MindSpore's names (sensitivity /
    recall / tpr, specificity, precision, npv, miss_rate, fall_out, fdr, for, pt, ts,
    accuracy, balanced_accuracy, f1_score, mcc, fm, informedness, markedness, ...).

    calculation_method=False: counts are summed over every update, and ``eval`` returns the
    metric of the totals as a float64 array of shape (1,). True: the metric per sample and
    channel, reduced by ``decrease`` to one number per update ('mean' skips nan entries), and
    ``eval`` returns the float average of those numbers weighted by their non-nan counts. It
    needs inputs with positions (not (batch, channel) or (batch, channel, 1)) and a
    ``decrease`` that leaves one number; otherwise ValueError (MindSpore fails there too, on a
    tuple unpacking or a scalar conversion).
    """

    def __init__(self, skip_channel=True, metric_name="sensitivity", calculation_method=False,
                 decrease="mean"):
        super().__init__()
        self.skip_channel = _check_type("skip_channel", skip_channel, bool)
        self.calculation_method = _check_type("calculation_method", calculation_method, bool)
        self.metric_name = _check_type("metric_name", metric_name, str)
        decrease = _check_type("decrease", decrease, str)
        if decrease not in _DECREASES:
            raise ValueError(f"The 'decrease' must be str and must be in '{_DECREASES}', but got "
                             f"'{decrease}'.")
        self.decrease = decrease
        self.clear()

    def clear(self):
        self._total_num = 0
        self._class_num = 0
        self._total_tp = 0.0
        self._total_fp = 0.0
        self._total_tn = 0.0
        self._total_fn = 0.0

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For 'ConfusionMatrixMetric.update', it needs 2 inputs (predicted "
                             f"value, true value), but got {len(inputs)}.")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if not np.all(y.astype(np.uint8) == y):
            raise ValueError("For 'ConfusionMatrix.update', the true value (input[1]) must be a "
                             "binarized ndarray.")
        if y_pred.ndim < 2:
            raise ValueError(f"For 'ConfusionMatrix.update', the predicted value (input[0]) "
                             f"must have at least 2 dimensions, but got {y_pred.ndim}.")
        counts = _counts(y_pred, y, self.skip_channel)
        if self.calculation_method:
            if y_pred.ndim == 2 or (y_pred.ndim == 3 and y_pred.shape[-1] == 1):
                raise ValueError(f"For 'ConfusionMatrixMetric', calculation_method=True needs "
                                 f"y_pred of shape (batch, channel, positions...), but got shape "
                                 f"{y_pred.shape}; use calculation_method=False for one "
                                 f"position per channel.")
            score, kept = _reduce(_metric_from_counts(self.metric_name, counts), self.decrease)
            if np.size(score) != 1:
                raise ValueError(f"For 'ConfusionMatrixMetric', calculation_method=True needs a "
                                 f"'decrease' that leaves one number per update, but "
                                 f"decrease={self.decrease!r} leaves shape {np.shape(score)}.")
            kept = int(np.asarray(kept).item())
            self._total_num += np.asarray(score).item() * kept
            self._class_num += kept
        else:
            totals = counts.sum(axis=(0, 1))
            self._total_tp += totals[0].item()
            self._total_fp += totals[1].item()
            self._total_tn += totals[2].item()
            self._total_fn += totals[3].item()

    def eval(self):
        if self.calculation_method:
            if self._class_num == 0:
                raise RuntimeError("The 'ConfusionMatrixMetric' can not be calculated, because "
                                   "the number of samples is 0, please check whether your "
                                   "inputs(predicted value, true value) are empty, or has called "
                                   "update method before calling eval method.")
            return self._total_num / self._class_num
        totals = np.array([self._total_tp, self._total_fp, self._total_tn, self._total_fn])
        return _metric_from_counts(self.metric_name, totals)
