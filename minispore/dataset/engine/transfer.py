"""Dataset.device_que(): the data queue of dataset sink mode, which ops.GetNext reads.

MindSpore moves a sink-mode dataset's batches into a named queue on the device
(``TransferDataset.send``), and the network's GetNext node takes one batch per run. Here a
queue is a prefetching iterator of the pipeline (its thread fills ds.config's prefetch buffer)
registered under its name; GetNext pops the next batch and puts it on the active device. Every
epoch of `num_epochs` follows the previous one in the queue; a GetNext past the last batch, or
while sending is stopped, raises (MindSpore's waits until its GetNext timeout).

MindSpore's CPU build has no data-queue kernels (InitDataSetQueue, GetNext); minispore runs
the queue on both targets.
"""
import uuid

from minispore.common.registry import REGISTRY
from minispore.dataset.engine.datasets import Dataset

__all__ = ["TransferDataset"]

# queue name -> _DataQueue; ops.GetNext (ops/operations/data_queue_ops.py) reads it
_QUEUES = REGISTRY.owned("dataset.data_queues", dict)


class _DataQueue:
    """The batches of `num_epochs` epochs (-1: unlimited) of `dataset`, in order."""

    def __init__(self, name, dataset, num_epochs):
        self.name = name
        self.num_epochs = num_epochs
        self._iterator = dataset.create_tuple_iterator(num_epochs=num_epochs,
                                                       output_numpy=True)
        self.sent = 0
        self.stopped = False

    def pop(self, op_name):
        """The next batch (numpy arrays, one per column)."""
        if self.stopped:
            raise RuntimeError(f"For '{op_name}', sending to data queue {self.name!r} is "
                               f"stopped (stop_send); call continue_send() first.")
        while True:
            try:
                batch = self._iterator._next_row()
                self.sent += 1
                return batch
            except StopIteration:
                if self._iterator._done:
                    raise RuntimeError(
                        f"For '{op_name}', data queue {self.name!r} is exhausted: all "
                        f"{self.sent} batches of its {self.num_epochs} epoch(s) were "
                        f"taken.") from None

    def size(self):
        """Batches prefetched and waiting (chunks: one per batch after .batch())."""
        return self._iterator._queue.qsize()

    def release(self):
        self._iterator.stop()


class TransferDataset(Dataset):
    """What ``dataset.device_que()`` returns: the dataset bound to a data queue (its name is
    `queue_name`, a new uuid unless given). ``send(num_epochs)`` starts filling the queue;
    it cannot be iterated on the host (as MindSpore's)."""

    def __init__(self, input_dataset, send_epoch_end=True, create_data_info_queue=False,
                 queue_name=""):
        super().__init__(children=[input_dataset])
        for arg_name, value in (("send_epoch_end", send_epoch_end),
                                ("create_data_info_queue", create_data_info_queue)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'device_que', the argument '{arg_name}' must be a bool, "
                                f"but got {type(value).__name__}.")
        if not isinstance(queue_name, str):
            raise TypeError(f"For 'device_que', the argument 'queue_name' must be a str, but "
                            f"got {type(queue_name).__name__}.")
        self.queue_name = queue_name or str(uuid.uuid1())
        self.column_name = input_dataset.get_col_names()

    def get_col_names(self):
        return list(self.column_name)

    def _size(self):
        return self.children[0].get_dataset_size()

    def _chunks(self, ctx):
        raise RuntimeError("TransferDataset is not iterable.")

    def create_tuple_iterator(self, *args, **kwargs):
        raise RuntimeError("TransferDataset is not iterable.")

    def create_dict_iterator(self, *args, **kwargs):
        raise RuntimeError("TransferDataset is not iterable.")

    def __iter__(self):
        raise RuntimeError("TransferDataset is not iterable.")

    def output_shapes(self, estimate=False):
        raise RuntimeError("TransferDataset does not support obtaining output_shapes.")

    def output_types(self):
        raise RuntimeError("TransferDataset does not support obtaining output_types.")

    def send(self, num_epochs=-1):
        """Fill the queue with `num_epochs` epochs (-1: unlimited); a queue this dataset sent
        before is released first."""
        self.release()
        _QUEUES[self.queue_name] = _DataQueue(self.queue_name, self.children[0], num_epochs)

    def _queue(self, api):
        found = _QUEUES.get(self.queue_name)
        if found is None:
            raise RuntimeError(f"For 'TransferDataset.{api}', data queue {self.queue_name!r} "
                               f"was not sent (call send() first) or was released.")
        return found

    def stop_send(self):
        """GetNext refuses the queue until continue_send()."""
        if self.queue_name in _QUEUES:
            _QUEUES[self.queue_name].stopped = True

    def continue_send(self):
        if self.queue_name in _QUEUES:
            _QUEUES[self.queue_name].stopped = False

    def release(self):
        """Drop the queue and stop its pipeline thread."""
        found = _QUEUES.pop(self.queue_name, None)
        if found is not None:
            found.release()

    def get_mbuf_queue_size(self):
        """The batches waiting in the queue."""
        return self._queue("get_mbuf_queue_size").size()

    def get_data_info(self):
        raise NotImplementedError(
            "TransferDataset.get_data_info (the types and shapes of the batch at the head of "
            "a dynamic-shape sink queue) is not implemented in minispore.")

    def get_send_info(self):
        raise NotImplementedError(
            "TransferDataset.get_send_info (per-epoch fetch and send timings) is not "
            "implemented in minispore.")
