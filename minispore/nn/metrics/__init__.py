"""Metrics for Model.eval, and lookup by name (`get_metric_fn`, `names`): MindSpore's
mindspore.nn metrics (also mindspore.train's, which re-exports them). They read only Tensors
and numpy, so they sit in nn, below train."""
from minispore.nn.metrics.accuracy import Accuracy
from minispore.nn.metrics.auc import auc
from minispore.nn.metrics.bleu import BleuScore
from minispore.nn.metrics.confusion_matrix import ConfusionMatrix, ConfusionMatrixMetric
from minispore.nn.metrics.cosine import CosineSimilarity
from minispore.nn.metrics.error import MAE, MSE
from minispore.nn.metrics.fbeta import F1, Fbeta, Precision, Recall
from minispore.nn.metrics.loss import Loss
from minispore.nn.metrics.metric import EvaluationBase, Metric, rearrange_inputs
from minispore.nn.metrics.occlusion import OcclusionSensitivity
from minispore.nn.metrics.overlap import Dice, Perplexity
from minispore.nn.metrics.roc import ROC
from minispore.nn.metrics.surface_distance import (HausdorffDistance, MeanSurfaceDistance,
                                                   RootMeanSquareDistance)
from minispore.nn.metrics.topk import (Top1CategoricalAccuracy, Top5CategoricalAccuracy,
                                       TopKCategoricalAccuracy)

__all__ = ["Metric", "EvaluationBase", "rearrange_inputs", "Accuracy", "MAE", "MSE", "F1",
           "Fbeta", "Precision", "Recall", "Loss", "Dice", "Perplexity", "ROC", "ConfusionMatrix",
           "ConfusionMatrixMetric", "BleuScore", "CosineSimilarity", "HausdorffDistance",
           "MeanSurfaceDistance", "RootMeanSquareDistance", "OcclusionSensitivity", "auc",
           "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy",
           "get_metric_fn", "get_metrics", "names"]

# MindSpore's factory: the names Model(metrics={...}) and get_metric_fn accept.
_METRICS = {
    "accuracy": Accuracy,
    "acc": Accuracy,
    "precision": Precision,
    "recall": Recall,
    "F1": F1,
    "dice": Dice,
    "roc": ROC,
    "auc": auc,
    "bleu_score": BleuScore,
    "cosine_similarity": CosineSimilarity,
    "occlusion_sensitivity": OcclusionSensitivity,
    "topk": TopKCategoricalAccuracy,
    "hausdorff_distance": HausdorffDistance,
    "top_1_accuracy": Top1CategoricalAccuracy,
    "top_5_accuracy": Top5CategoricalAccuracy,
    "mae": MAE,
    "mse": MSE,
    "loss": Loss,
    "mean_surface_distance": MeanSurfaceDistance,
    "root_mean_square_distance": RootMeanSquareDistance,
    "perplexity": Perplexity,
    "confusion_matrix": ConfusionMatrix,
    "confusion_matrix_metric": ConfusionMatrixMetric,
}


def names():
    """The names `get_metric_fn` accepts, sorted."""
    return sorted(_METRICS)


def get_metric_fn(name, *args, **kwargs):
    """``get_metric_fn('accuracy', eval_type='classification')`` -> a new Accuracy."""
    if name not in _METRICS:
        raise KeyError(f"For 'get_metric_fn', unsupported metric {name}, valid names are "
                       f"{names()}.")
    return _METRICS[name](*args, **kwargs)


def get_metrics(metrics):
    """Model's metrics argument -> {name: Metric}: a dict is checked and returned as is, a set
    of names resolved through get_metric_fn, None passed through."""
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for key, value in metrics.items():
            if not isinstance(key, str) or not isinstance(value, Metric):
                raise TypeError(f"For 'get_metrics', if 'metrics' is dict, the key in 'metrics' "
                                f"must be string and value in 'metrics' must be Metric, but got "
                                f"key:{type(key)}, value:{type(value)}.")
        return metrics
    if isinstance(metrics, set):
        return {name: get_metric_fn(name) for name in sorted(metrics)}
    raise TypeError(f"For 'get_metrics', the argument 'metrics' must be None, dict or set, but "
                    f"got {metrics}")
