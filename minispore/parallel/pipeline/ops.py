"""The operators the pipeline passes insert: the transfers between stages and the step clock.

`StageSend` / `StageReceive` carry one value of one micro-batch from a rank of one stage to the
rank at the same position of a later stage (activations forward; their bprops carry the
gradient back). A send is non-blocking and completed by the step's `PipelineStepEnd` (see
minispore/communication/p2p.py for why); a receive blocks and adds its wait to the
stage's idle time. Both ends of an edge run their bprop in every backward
(``backward_always``) when the edge carries a gradient, so the peers always agree.
"""
import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.communication import p2p
from minispore.ops.operations.comm_ops import Receive, Send
from minispore.ops.primitive import Aval, Primitive
from minispore.parallel.pipeline.stats import CLOCK

__all__ = ["StageSend", "StageReceive", "PipelineStepBegin", "PipelineStepEnd", "placeholder"]


class StageSend(Send):
    """Start sending x to world rank `dest_rank` (tag `sr_tag`); returns a 0-d token."""

    def impl(self, x):
        p2p.isend(x, self.dest_rank, self.sr_tag, self.group)
        return device.zeros((), x.dtype)

    def bprop(self, inputs, out, dout):
        x, = inputs
        return (StageReceive(self.sr_tag, self.dest_rank, x.shape, x.dtype, self.group)(),)


class StageReceive(Receive):
    """The value of `shape`/`dtype` that world rank `src_rank` sent with `sr_tag`; the wait is
    the stage's idle time."""

    def impl(self):
        out, waited = p2p.receive_waiting(self.shape, self.dtype.np_dtype, self.src_rank,
                                                self.sr_tag, self.group)
        CLOCK.waited(waited)
        return out

    def bprop(self, inputs, out, dout):
        StageSend(self.sr_tag, self.src_rank, self.group)(dout)
        return ()


class _StepMarker(Primitive):
    """Returns a 0-d token (a graph node has at least one output)."""
    differentiable = False
    replayable = False
    side_effect = True

    def infer(self):
        return Aval((), mstype.float32)


class PipelineStepBegin(_StepMarker):
    """The first node of a stage's program: starts the step clock."""

    def impl(self):
        CLOCK.begin()
        return np.zeros((), np.float32)


class PipelineStepEnd(_StepMarker):
    """The last node of a stage's program: completes the step's sends (their wait is idle
    time) and records the step's busy and idle time for stage `stage` of `stages` with
    `micro_size` micro-batches."""

    def __init__(self, stage, stages, micro_size):
        super().__init__()
        self.stage, self.stages, self.micro_size = stage, stages, micro_size
        for k in ("stage", "stages", "micro_size"):
            self.add_prim_attr(k, getattr(self, k))

    def impl(self):
        CLOCK.waited(p2p.wait_sends())
        CLOCK.end(self.stage, self.stages, self.micro_size)
        return np.zeros((), np.float32)


def placeholder(value):
    """What a stage returns for an output another stage computes: zeros of its shape."""
    return Tensor(np.zeros(value.shape, mstype.to_type(value.dtype).np_dtype))

