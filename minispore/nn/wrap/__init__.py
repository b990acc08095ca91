"""Cell wrappers for training and evaluation."""
from minispore.nn.wrap.cell_wrapper import *  # noqa: F401,F403
from minispore.nn.wrap.grad_reducer import DistributedGradReducer  # noqa: F401
from minispore.nn.wrap.loss_scale import (DynamicLossScaleUpdateCell,  # noqa: F401
                                          FixedLossScaleUpdateCell,
                                          TrainOneStepWithLossScaleCell)
from minispore.nn.wrap.micro_batch import (GradAccumulationCell, MicroBatchInterleaved,  # noqa: F401
                                           PipelineCell, PipelineGradReducer)
from minispore.nn.wrap.grad_wrappers import ForwardValueAndGrad, WithGradCell  # noqa: F401
from minispore.nn.wrap.product_cells import (GetNextSingleOp, Jvp, ParameterUpdate,  # noqa: F401
                                             Vjp)
