"""DatasetHelper and connect_network_with_dataset (mindspore.train): a dataset fed to a network
from the host, or through the data queue of sink mode (dataset/engine/transfer.py) that a
GetNext node inside the network reads.

Sink mode as MindSpore runs it on a GPU: the helper sends `epoch_num` epochs into the queue, and
the connected network (`_DataWrapper`: GetNext, then the network on its outputs) takes its
inputs from there. Under GRAPH_MODE one call of the connected network runs `sink_size` steps
(MindSpore's loop sink) and iterating the helper gives one empty tuple per sink; under
PYNATIVE_MODE a call is one step and the helper gives one per step.

Differences: MindSpore's CPU build refuses sink mode (no data-queue kernels); minispore runs it
on both targets. Under semi-auto/auto parallel sink mode is refused (GetNext's batch would
enter the partitioned graph as a whole logical tensor); data parallel works.
"""
from minispore.common.auto_parallel_context import ParallelMode, get_auto_parallel_context
from minispore.common.context import GRAPH_MODE, context
from minispore.common import dtype as mstype
from minispore.nn.cell import Cell
from minispore.ops.operations.data_queue_ops import GetNext

__all__ = ["DatasetHelper", "connect_network_with_dataset"]


def _types_and_shapes(dataset):
    return ([mstype.to_type(t) for t in dataset.output_types()],
            [list(s) for s in dataset.output_shapes()])


class _HostIter:
    """Non-sink mode: the dataset's rows as lists of Tensors, one epoch per `for` loop."""

    def __init__(self, dataset, epoch_num):
        self.dataset = dataset
        self.iter = dataset.create_tuple_iterator(num_epochs=epoch_num)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self.iter)


class _SinkIter:
    """Sink mode: the dataset's queue is filled; each item is an empty tuple (the connected
    network takes its inputs from the queue)."""

    def __init__(self, dataset, sink_size, epoch_num):
        self.dataset = dataset
        self.dataset_types, self.dataset_shapes = _types_and_shapes(dataset)
        self.steps_per_sink = sink_size
        if context().mode == GRAPH_MODE:
            self.sink_count = 1
        else:
            self.steps_per_sink, self.sink_count = 1, sink_size
        transfer = getattr(dataset, "__transfer_dataset__", None)
        if transfer is None:
            transfer = dataset.__transfer_dataset__ = dataset.device_que()
        transfer.send(epoch_num)
        self.transfer = transfer

    def __iter__(self):
        self.index = 0
        return self

    def __next__(self):
        if self.index >= self.sink_count:
            raise StopIteration
        self.index += 1
        return ()


class DatasetHelper:
    """``DatasetHelper(dataset, dataset_sink_mode=True, sink_size=-1, epoch_num=1)``: iterate
    it for one epoch of `dataset` (module docstring for sink mode). `sink_size`: the steps
    of each sink (-1: the dataset's size).

    Raises:
        TypeError: dataset_sink_mode not a bool, sink_size not an int.
        ValueError: sink_size 0 or below -1.
        NotImplementedError: sink mode under semi_auto_parallel or auto_parallel.
    """

    def __init__(self, dataset, dataset_sink_mode=True, sink_size=-1, epoch_num=1):
        if not isinstance(dataset_sink_mode, bool):
            raise TypeError(f"For 'DatasetHelper', the argument 'dataset_sink_mode' must be a "
                            f"bool, but got {type(dataset_sink_mode).__name__}.")
        if not isinstance(sink_size, int) or isinstance(sink_size, bool):
            raise TypeError(f"For 'DatasetHelper', the argument 'sink_size' must be an int, but "
                            f"got {type(sink_size).__name__}.")
        if sink_size < -1 or sink_size == 0:
            raise ValueError(f"The 'sink_size' must be -1 or positive, but got sink_size "
                             f"{sink_size}.")
        if not dataset_sink_mode:
            self.iter = _HostIter(dataset, epoch_num)
            return
        mode = get_auto_parallel_context("parallel_mode")
        if mode in (ParallelMode.SEMI_AUTO_PARALLEL, ParallelMode.AUTO_PARALLEL):
            raise NotImplementedError(
                f"DatasetHelper(dataset_sink_mode=True) under parallel_mode {mode!r}: "
                f"minispore's GetNext would feed the partitioned graph a whole logical batch; "
                f"use dataset_sink_mode=False.")
        steps = dataset.get_dataset_size() if sink_size == -1 else sink_size
        self.iter = _SinkIter(dataset, steps, epoch_num)

    def __iter__(self):
        return iter(self.iter)

    def _sink(self, api):
        if not isinstance(self.iter, _SinkIter):
            raise RuntimeError(f"For 'DatasetHelper.{api}', the helper is not in dataset sink "
                               f"mode.")
        return self.iter

    def types_shapes(self):
        """([dtype of each column], [shape of each column]) of the dataset's batches."""
        if isinstance(self.iter, _HostIter):
            return _types_and_shapes(self.iter.dataset)
        return self.iter.dataset_types, self.iter.dataset_shapes

    def sink_size(self):
        """The steps one sink runs (one call of the connected network under GRAPH_MODE)."""
        return self._sink("sink_size").steps_per_sink

    def stop_send(self):
        self._sink("stop_send").transfer.stop_send()

    def continue_send(self):
        self._sink("continue_send").transfer.continue_send()

    def release(self):
        self._sink("release").transfer.release()

    def get_mbuf_queue_size(self):
        return self._sink("get_mbuf_queue_size").transfer.get_mbuf_queue_size()

    def get_data_info(self):
        return self._sink("get_data_info").transfer.get_data_info()

    def get_send_info(self, run_context=None):
        return self._sink("get_send_info").transfer.get_send_info()


class _DataWrapper(Cell):
    """The network fed by GetNext from queue `queue_name`; under GRAPH_MODE a call runs
    `steps` steps and returns the last one's outputs."""

    def __init__(self, network, dataset_types, dataset_shapes, queue_name, steps):
        super().__init__(auto_prefix=False)
        self.get_next = GetNext(dataset_types, [tuple(s) for s in dataset_shapes],
                                len(dataset_types), queue_name)
        self.network = network
        self.steps = steps

    def construct(self):
        return self.network(*self.get_next())

    def __call__(self, *args):
        if args:
            raise TypeError(f"A network connected with a dataset takes its inputs from the "
                            f"data queue, but it was called with {len(args)} input(s).")
        ctx = context()
        steps = self.steps if ctx.mode == GRAPH_MODE and ctx.tracer is None else 1
        for _ in range(steps):
            out = super().__call__()
        return out


def connect_network_with_dataset(network, dataset_helper):
    """The network fed from `dataset_helper`'s data queue (sink mode only); one network per
    dataset, the same wrapper when asked again.

    Raises:
        RuntimeError: a helper not in sink mode.
        ValueError: the dataset is already connected to another network.
    """
    sink = dataset_helper.iter
    if not isinstance(sink, _SinkIter):
        raise RuntimeError(
            "The API 'connect_network_with_dataset' should be called in dataset sink mode.")
    dataset = sink.dataset
    connected = getattr(dataset, "__network__", None)
    if connected is None:
        dataset.__network__ = network
    elif connected is not network:
        raise ValueError("The dataset has been connected to other network, please check the "
                         "code.")
    wrapper = getattr(dataset, "__sink_network__", None)
    if wrapper is None:
        wrapper = dataset.__sink_network__ = _DataWrapper(
            network, sink.dataset_types, sink.dataset_shapes, sink.transfer.queue_name,
            sink.steps_per_sink)
    wrapper.steps = sink.steps_per_sink      # this helper's sink size, reconnected or not
    wrapper.add_flags(sink_mode=True)
    return wrapper
