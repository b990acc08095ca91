"""mindspore.ops.operations._grad_ops (`import ... _grad_ops as G`): the backward primitives
minispore has whose inputs and outputs are MindSpore's, under that module's names. The ones
composed of functional ops (ops/function/grad_prims_*.py) join this module when minispore.ops
is imported (ops/__init__.py), as ops.function cannot be imported from here."""
from minispore.ops.operations._math_grad_ops import RsqrtGrad, SqrtGrad
from minispore.ops.operations.activation_ops import (BiasAddGrad, GeLUGrad, ReluGrad,
                                                     SigmoidGrad, TanhGrad)
from minispore.ops.operations.conv_ops import AvgPoolGrad, Conv2DBackpropFilter, MaxPoolGrad
from minispore.ops.operations.indexing_ops import StridedSliceGrad
from minispore.ops.operations.nn_ops import LayerNormGrad, LogSoftmaxGrad, SoftmaxGrad
from minispore.ops.operations.norm_ops import BatchNormGrad

__all__ = ["AvgPoolGrad", "BatchNormGrad", "BiasAddGrad", "Conv2DBackpropFilter", "GeLUGrad",
           "LayerNormGrad", "LogSoftmaxGrad", "MaxPoolGrad", "ReluGrad", "RsqrtGrad",
           "SigmoidGrad", "SoftmaxGrad", "SqrtGrad", "StridedSliceGrad", "TanhGrad"]
