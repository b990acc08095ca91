"""Micro-batch wrappers (mindspore_semantics.md §9.2): `GradAccumulationCell(network,
micro_size)` runs `network` on `micro_size` micro-batches of its inputs and sums the outputs,
so the step's loss is the sum of the micro-batch losses and its gradient the sum of theirs
(one optimizer update for the whole batch).

A micro-batch is ``x[i::micro_size]`` along dim 0 (ops MicroBatchSlice: strided, so under data
parallel each rank's micro-batch comes from its own rows). In PYNATIVE, TrainOneStepCell runs
the micro-batches one after the other, each forward then its backward, adding up the
gradients: only one micro-batch's activations are alive at a time. In GRAPH mode the traced
step holds every micro-batch and the graph's autodiff sums their gradients.
"""
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.ops.operations.indexing_ops import MicroBatchSlice

__all__ = ["GradAccumulationCell"]


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
        for i in range(self.micro_size):
            out = self.network(*self.micro_inputs(i, inputs))
            total = out if total is None else total + out
        return total
