"""mindspore.ops.operations._grad_ops (`import ... _grad_ops as G`): the backward primitives
minispore has whose inputs and outputs are MindSpore's, under that module's names."""
from minispore.ops.operations._grad_ops_more import (ACosGrad, AcoshGrad, AsinGrad, AsinhGrad,
                                                     AtanGrad, DropoutGrad, EluGrad,
                                                     HShrinkGrad, InvGrad, KLDivLossGrad,
                                                     PadV3Grad, ReLU6Grad,
                                                     SigmoidCrossEntropyWithLogitsGrad,
                                                     SliceGrad, SoftplusGrad, SoftShrinkGrad)
from minispore.ops.operations._grad_ops_nn import (CdistGrad, L2NormalizeGrad, LRNGrad,
                                                   ResizeBilinearGrad)
from minispore.ops.operations._grad_ops_pool import (MaxPool3DGradGrad, MaxPoolGradGrad,
                                                     MaxPoolGradGradWithArgmax,
                                                     MaxPoolGradWithArgmax,
                                                     MaxPoolGradWithArgmaxV2)
from minispore.ops.operations._math_grad_ops import RsqrtGrad, SqrtGrad
from minispore.ops.operations.activation_ops import (BiasAddGrad, GeLUGrad, ReluGrad,
                                                     SigmoidGrad, TanhGrad)
from minispore.ops.operations.conv_ops import AvgPoolGrad, Conv2DBackpropFilter, MaxPoolGrad
from minispore.ops.operations.indexing_ops import StridedSliceGrad
from minispore.ops.operations.nn_ops import LayerNormGrad, LogSoftmaxGrad, SoftmaxGrad
from minispore.ops.operations.norm_ops import BatchNormGrad

__all__ = ["ACosGrad", "AcoshGrad", "AsinGrad", "AsinhGrad", "AtanGrad", "AvgPoolGrad",
           "BatchNormGrad", "BiasAddGrad", "CdistGrad", "Conv2DBackpropFilter", "DropoutGrad",
           "EluGrad", "GeLUGrad", "HShrinkGrad", "InvGrad", "KLDivLossGrad", "L2NormalizeGrad",
           "LayerNormGrad", "LogSoftmaxGrad", "LRNGrad", "MaxPool3DGradGrad", "MaxPoolGrad",
           "MaxPoolGradGrad", "MaxPoolGradGradWithArgmax", "MaxPoolGradWithArgmax",
           "MaxPoolGradWithArgmaxV2", "PadV3Grad", "ReLU6Grad", "ReluGrad", "ResizeBilinearGrad",
           "RsqrtGrad", "SigmoidCrossEntropyWithLogitsGrad", "SigmoidGrad", "SliceGrad",
           "SoftmaxGrad", "SoftplusGrad", "SoftShrinkGrad", "SqrtGrad", "StridedSliceGrad",
           "TanhGrad"]
