"""Micro-batch wrappers (mindspore_semantics.md §9.2): `GradAccumulationCell(network,
micro_size)`, `PipelineCell(network, micro_size)` and `MicroBatchInterleaved(network,
interleave_num)` run `network` on micro-batches of its inputs and sum the outputs, so the
step's loss is the sum of the micro-batch losses and its gradient the sum of theirs (one
optimizer update for the whole batch). With equal micro-batches of a mean-reduced loss, that
sum is micro_size times the single-device loss of the whole batch.

A micro-batch is the contiguous rows ``x[i*N/micro_size:(i+1)*N/micro_size]`` along dim 0 (ops
MicroBatchSlice, as MindSpore's _MicroBatch slices; under operator parallelism the batch dim is
gathered first, so every micro-batch is the single-device one). In PYNATIVE, TrainOneStepCell runs
the micro-batches one after the other, each forward then its backward, adding up the
gradients: only one micro-batch's activations are alive at a time. In GRAPH mode the traced
step holds every micro-batch (each node traced inside micro-batch i carries the annotation
``micro_batch=i``) and the graph's autodiff sums their gradients; under pipeline parallel the
stage's schedule orders the micro-batches' forward and backward work
(minispore/parallel/pipeline/schedule.py).
"""
from minispore.common.auto_parallel_context import ParallelMode, get_auto_parallel_context
from minispore.common.context import GRAPH_MODE, context
from minispore.common.symbolic import is_symbolic
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.ops import functional as F
from minispore.ops.operations.indexing_ops import MicroBatchSlice

__all__ = ["GradAccumulationCell", "PipelineCell", "MicroBatchInterleaved",
           "PipelineGradReducer"]

_CTX = context()


def check_micro_size(owner, network, micro_size):
    if not isinstance(network, Cell):
        raise TypeError(f"For '{owner}', 'network' must be a Cell, but got "
                        f"{type(network).__name__}.")
    if not isinstance(micro_size, int) or isinstance(micro_size, bool):
        raise TypeError(f"For '{owner}', 'micro_size' must be an int, but got "
                        f"{type(micro_size).__name__}.")
    if micro_size <= 0:
        raise ValueError(f"For '{owner}', 'micro_size' must be a positive int, but got "
                         f"{micro_size}.")


class GradAccumulationCell(Cell):
    """``GradAccumulationCell(network, micro_size)``: `network` (usually a WithLossCell) on
    micro-batches of every tensor input, outputs summed (see the module docstring)."""

    def __init__(self, network, micro_size):
        super().__init__(auto_prefix=False)
        check_micro_size("GradAccumulationCell", network, micro_size)
        self.network = network
        self.micro_size = micro_size
        self._slices = [MicroBatchSlice(i, micro_size) for i in range(micro_size)]

    def micro_inputs(self, index, inputs):
        """Micro-batch `index` of each tensor input (other inputs as they are)."""
        cut = self._slices[index]
        return tuple(cut(x) if isinstance(x, Tensor) else x for x in inputs)

    def construct(self, *inputs):
        total = None
        frames = _CTX.annotation_frames
        for i in range(self.micro_size):
            frames.append({"micro_batch": i})
            try:
                out = self.network(*self.micro_inputs(i, inputs))
            finally:
                frames.pop()
            total = out if total is None else total + out
        return total


class PipelineCell(GradAccumulationCell):
    """``PipelineCell(network, micro_size, stage_config=None)``: `network` on `micro_size`
    micro-batches, outputs summed; under pipeline_stages > 1 each stage runs its part of every
    micro-batch in the pipeline's schedule (1F1B by default; ``pipeline_config=
    {"pipeline_scheduler": "gpipe"}`` for GPipe). `stage_config` maps names of `network`'s
    sub-cells (as ``network.cells_and_names()`` gives them) to their pipeline_stage.

    Raises:
        TypeError / ValueError: `network` not a Cell; `micro_size` not a positive int.
        KeyError: a stage_config name that is not a sub-cell of `network`.
        RuntimeError: run eagerly (PYNATIVE_MODE) under pipeline_stages > 1.
    """

    def __init__(self, network, micro_size, stage_config=None, segment_config=None):
        check_micro_size("PipelineCell", network, micro_size)
        super().__init__(network, micro_size)
        if segment_config is not None:
            raise NotImplementedError("For 'PipelineCell', 'segment_config' (virtual pipeline "
                                      "segments) is not implemented in minispore; leave it None.")
        if stage_config is not None:
            _apply_stage_config(network, stage_config)

    def construct(self, *inputs):
        if get_auto_parallel_context("pipeline_stages") > 1 and \
                not any(getattr(x, "traced", False) for x in inputs):   # data in hand: eager
            raise RuntimeError("For 'PipelineCell', pipeline parallel runs in GRAPH_MODE only "
                               "(as in MindSpore), but the cell runs eagerly: call "
                               "set_context(mode=GRAPH_MODE) or compile the step with ms.jit.")
        if get_auto_parallel_context("pipeline_stages") > 1:
            for i, x in enumerate(inputs):
                if isinstance(x, Tensor) and is_symbolic(tuple(x.shape)):
                    raise NotImplementedError(
                        f"For 'PipelineCell', input {i} has the dynamic shape {tuple(x.shape)}, "
                        f"but pipeline outputs do not support dynamic shape (as in MindSpore); "
                        f"give the network static input shapes under pipeline_stages > 1.")
        return super().construct(*inputs)


def _apply_stage_config(network, stage_config):
    if not isinstance(stage_config, dict):
        raise TypeError(f"For 'PipelineCell', 'stage_config' must be a dict of cell name -> "
                        f"stage, but got {type(stage_config).__name__}.")
    left = dict(stage_config)
    for name, cell in network.cells_and_names():
        if name in left:
            cell.pipeline_stage = left.pop(name)
    if left:
        raise KeyError(f"For 'PipelineCell', the stage_config names {sorted(left)} are not "
                       f"sub-cells of {type(network).__name__}.")


class MicroBatchInterleaved(GradAccumulationCell):
    """``MicroBatchInterleaved(network, interleave_num=2)``: `network` on `interleave_num`
    slices of its inputs, outputs summed (MindSpore runs the slices interleaved to overlap one's
    communication with the other's computation; here they run one after the other)."""

    def __init__(self, network, interleave_num=2):
        if not isinstance(interleave_num, int) or isinstance(interleave_num, bool):
            raise TypeError(f"For 'MicroBatchInterleaved', 'interleave_num' must be an int, but "
                            f"got {type(interleave_num).__name__}.")
        if interleave_num <= 0:
            raise ValueError(f"For 'MicroBatchInterleaved', 'interleave_num' must be a "
                             f"positive int, but got {interleave_num}.")
        super().__init__(network, interleave_num)
        self.interleave_num = interleave_num


class PipelineGradReducer(Cell):
    """``PipelineGradReducer(parameters, scale_sense=1.0)``: the gradient reducer of a
    functional pipeline training step (``grads = reducer(grads)`` before the optimizer).

    In minispore the stage's backward already sums each gradient over the micro-batches (the
    graph's autodiff) and over the stage's data-parallel replicas (the mirror operators the
    operator-parallel pass puts on replicated parameters), so what remains is the scale:
    the gradients times `scale_sense`.

    Raises:
        RuntimeError: not in GRAPH_MODE, or parallel_mode is not semi_auto_parallel /
            auto_parallel.
    """

    def __init__(self, parameters, scale_sense=1.0):
        super().__init__(auto_prefix=False)
        if _CTX.get("mode") != GRAPH_MODE:
            raise RuntimeError("For 'PipelineGradReducer', the mode must be GRAPH_MODE, but it "
                               "is PYNATIVE_MODE.")
        mode = get_auto_parallel_context("parallel_mode")
        if mode not in (ParallelMode.SEMI_AUTO_PARALLEL, ParallelMode.AUTO_PARALLEL):
            raise RuntimeError(f"For 'PipelineGradReducer', parallel_mode must be "
                               f"'semi_auto_parallel' or 'auto_parallel', but got {mode!r}.")
        if not isinstance(scale_sense, (int, float)) or isinstance(scale_sense, bool):
            raise TypeError(f"For 'PipelineGradReducer', 'scale_sense' must be a float, but got "
                            f"{type(scale_sense).__name__}.")
        self.parameters = tuple(parameters)
        self.scale_sense = float(scale_sense)

    def construct(self, grads):
        if len(grads) != len(self.parameters):
            raise ValueError(f"For 'PipelineGradReducer', got {len(grads)} gradients for "
                             f"{len(self.parameters)} parameters.")
        if self.scale_sense == 1.0:
            return grads
        return tuple(F.mul(g, self.scale_sense) for g in grads)
