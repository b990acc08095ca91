"""High-level training (mindspore.train): Model, callbacks, metrics and checkpoints."""
from minispore.train import callback, metrics, serialization
from minispore.train.callback import (Callback, CheckpointConfig, EarlyStopping, History,
                                      LambdaCallback, LossMonitor, ModelCheckpoint, ProgressBar,
                                      RunContext, TimeMonitor)
from minispore.train.metrics import (F1, MAE, MSE, ROC, Accuracy, BleuScore, ConfusionMatrix,
                                     ConfusionMatrixMetric, CosineSimilarity, Dice,
                                     EvaluationBase, Fbeta, HausdorffDistance, Loss,
                                     MeanSurfaceDistance, Metric, OcclusionSensitivity,
                                     Perplexity, Precision, Recall, RootMeanSquareDistance,
                                     Top1CategoricalAccuracy,
                                     Top5CategoricalAccuracy, TopKCategoricalAccuracy, auc,
                                     get_metric_fn, get_metrics, names, rearrange_inputs)
from minispore.train.amp import (DynamicLossScaleManager, FixedLossScaleManager,
                                 LossScaleManager)
from minispore.train.dataset_helper import DatasetHelper, connect_network_with_dataset
from minispore.train.export import export, load
from minispore.train.model import Model
from minispore.train.profiler import Profiler
from minispore.train.serialization import (CheckpointError, load_checkpoint,
                                           load_param_into_net, save_checkpoint)
from minispore.train.sharded_checkpoints import (load_distributed_checkpoint,
                                                 merge_sharded_checkpoints)
from minispore.train.transform import transform_checkpoints
from minispore.parallel.checkpoint import merge_sliced_parameter
from minispore.train.train_thor import ConvertModelUtils, ConvertNetUtils

__all__ = ["export", "load", "Model", "Callback", "RunContext", "CheckpointConfig", "ModelCheckpoint",
           "EarlyStopping", "History", "LambdaCallback", "LossMonitor", "ProgressBar",
           "TimeMonitor", "Metric", "EvaluationBase", "Accuracy", "MAE", "MSE", "F1", "Fbeta",
           "ROC", "ConfusionMatrix", "ConfusionMatrixMetric", "Loss", "Precision", "Recall", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy",
           "Top5CategoricalAccuracy", "BleuScore", "CosineSimilarity", "HausdorffDistance",
           "MeanSurfaceDistance", "RootMeanSquareDistance", "OcclusionSensitivity", "auc",
           "Dice", "Perplexity", "get_metric_fn", "get_metrics", "names",
           "rearrange_inputs", "save_checkpoint", "load_checkpoint", "load_param_into_net",
           "CheckpointError", "merge_sliced_parameter", "merge_sharded_checkpoints",
           "load_distributed_checkpoint", "transform_checkpoints", "Profiler",
           "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager",
           "ConvertNetUtils", "ConvertModelUtils", "DatasetHelper",
           "connect_network_with_dataset"]
