"""mindspore.ops.operations._grad_ops (`import ... _grad_ops as G`): the backward primitives
minispore has whose inputs and outputs are MindSpore's, under that module's names."""
from minispore.ops.operations._math_grad_ops import RsqrtGrad, SqrtGrad  # noqa: F401
from minispore.ops.operations.activation_ops import (BiasAddGrad, GeLUGrad, ReluGrad,  # noqa: F401
                                                     SigmoidGrad, TanhGrad)
from minispore.ops.operations.conv_ops import AvgPoolGrad, Conv2DBackpropFilter, MaxPoolGrad  # noqa: F401
from minispore.ops.operations.indexing_ops import StridedSliceGrad  # noqa: F401
from minispore.ops.operations.nn_ops import LayerNormGrad, LogSoftmaxGrad, SoftmaxGrad  # noqa: F401
from minispore.ops.operations.norm_ops import BatchNormGrad  # noqa: F401
from minispore.ops.operations._grad_ops_more import (ACosGrad, AcoshGrad, AsinGrad,  # noqa: F401
                                                     AsinhGrad, AtanGrad, DropoutGrad, EluGrad,
                                                     HShrinkGrad, InvGrad, KLDivLossGrad,
                                                     ReLU6Grad, SigmoidCrossEntropyWithLogitsGrad,
                                                     SliceGrad, SoftplusGrad, SoftShrinkGrad)
from minispore.ops.operations._grad_ops_nn import CdistGrad, L2NormalizeGrad, LRNGrad  # noqa: F401
from minispore.ops.operations._grad_ops_pool import (MaxPoolGradGrad,  # noqa: F401
                                                     MaxPoolGradGradWithArgmax,
                                                     MaxPoolGradWithArgmax,
                                                     MaxPoolGradWithArgmaxV2)
