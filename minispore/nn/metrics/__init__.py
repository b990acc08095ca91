"""Metrics for Model.eval, and lookup by name (`get_metric_fn`, `names`): MindSpore's
mindspore.nn metrics (also mindspore.train's, which re-exports them). They read only Tensors
and numpy, so they sit in nn, below train."""
from minispore.nn.metrics.accuracy import Accuracy
from minispore.nn.metrics.confusion_matrix import ConfusionMatrix, ConfusionMatrixMetric
from minispore.nn.metrics.error import MAE, MSE
from minispore.nn.metrics.fbeta import F1, Fbeta, Precision, Recall
from minispore.nn.metrics.loss import Loss
from minispore.nn.metrics.metric import EvaluationBase, Metric, rearrange_inputs
from minispore.nn.metrics.overlap import Dice, Perplexity
from minispore.nn.metrics.roc import ROC
from minispore.nn.metrics.topk import (Top1CategoricalAccuracy, Top5CategoricalAccuracy,
                                       TopKCategoricalAccuracy)

__all__ = ["Metric", "EvaluationBase", "rearrange_inputs", "Accuracy", "MAE", "MSE", "F1",
           "Fbeta", "Precision", "Recall", "Loss", "Dice", "Perplexity", "ROC", "ConfusionMatrix",
           "ConfusionMatrixMetric",
           "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy",
           "get_metric_fn", "get_metrics", "names"]

_METRICS = {
    "accuracy": Accuracy,
    "mae": MAE,
    "mse": MSE,
    "loss": Loss,
    "precision": Precision,
    "recall": Recall,
    "F1": F1,
    "dice": Dice,
    "perplexity": Perplexity,
    "roc": ROC,
    "confusion_matrix": ConfusionMatrix,
    "confusion_matrix_metric": ConfusionMatrixMetric,
    "top_k_categorical_accuracy": TopKCategoricalAccuracy,
    "top_1_categorical_accuracy": Top1CategoricalAccuracy,
    "top_5_categorical_accuracy": Top5CategoricalAccuracy,
}


def names():
    """The names `get_metric_fn` accepts, sorted."""
    return sorted(_METRICS)


def get_metric_fn(name, *args, **kwargs):
    """``get_metric_fn('accuracy', eval_type='classification')`` -> a new Accuracy."""
    if name not in _METRICS:
        raise KeyError(f"Unknown Metric: {name!r}; valid names are {names()}.")
    return _METRICS[name](*args, **kwargs)


def get_metrics(metrics):
    """Model's metrics argument -> {name: Metric}: a dict is checked, a set of names resolved."""
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for key, value in metrics.items():
            if not isinstance(key, str) or not isinstance(value, Metric):
                raise TypeError(f"For 'Model', the 'metrics' dict must map str to Metric, but "
                                f"got {key!r}: {type(value).__name__}.")
        return dict(metrics)
    if isinstance(metrics, set):
        return {name: get_metric_fn(name) for name in sorted(metrics)}
    raise TypeError(f"For 'Model', the argument 'metrics' must be a dict or a set, but got "
                    f"{type(metrics).__name__}.")
