"""Neural-network API (MindSpore's mindspore.nn): Cell, layers, losses, optimizers, wrappers."""
from minispore.common.parameter import ParameterTuple  # noqa: F401
from minispore.nn.cell import Cell  # noqa: F401
from minispore.nn.dynamic_lr import *  # noqa: F401,F403
from minispore.nn.graph_cell import GraphCell  # noqa: F401
from minispore.nn.layer import *  # noqa: F401,F403
from minispore.nn.loss import *  # noqa: F401,F403
from minispore.nn.metrics import (F1, MAE, MSE, ROC, Accuracy, BleuScore,  # noqa: F401
                                  ConfusionMatrix, ConfusionMatrixMetric, CosineSimilarity, Dice,
                                  EvaluationBase, Fbeta, HausdorffDistance, Loss,
                                  MeanSurfaceDistance, Metric, OcclusionSensitivity, Perplexity,
                                  Precision, Recall, RootMeanSquareDistance,
                                  Top1CategoricalAccuracy, Top5CategoricalAccuracy,
                                  TopKCategoricalAccuracy, auc, get_metric_fn, get_metrics, names,
                                  rearrange_inputs)
from minispore.nn.optim import *  # noqa: F401,F403
from minispore.nn.utils import no_init_parameters  # noqa: F401
from minispore.nn.wrap import *  # noqa: F401,F403
from minispore.ops.grad import GradOperation  # noqa: F401
