"""GetNext: the next batch of a dataset sink-mode data queue (minispore/dataset/engine/
transfer.py), on the active device. It runs on the host (a queue pop and a copy): there is no
kernel to write."""
from minispore import device
from minispore.common import dtype as mstype
from minispore.common.registry import REGISTRY
from minispore.ops import sharding as rules
from minispore.ops.primitive import Aval, Primitive

__all__ = ["GetNext"]


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


class GetNext(Primitive):
    """``GetNext(types, shapes, output_num, shared_name)()``: the next batch of the data queue
    `shared_name` as `output_num` tensors of `types` and `shapes`. Each call (each run of a
    compiled graph holding it) takes one batch. Not differentiable.

    Raises:
        TypeError: `types` or `shapes` not a list or tuple, `output_num` not an int, a type that
            is not a minispore dtype, a shape that is not a tuple of ints.
        NotImplementedError: a dynamic dim (-1): MindSpore's dynamic-shape sink.
        ValueError: `types`, `shapes` and `output_num` of different lengths.
        RuntimeError (at the call): no queue of that name, a queue that is exhausted or
            stopped, or a batch whose column count, dtypes or shapes differ from the declared.
    """
    sharding_rule = rules.replicate_only("it reads this rank's own batches from its host queue")

    differentiable = False
    side_effect = True      # it consumes a batch: graphs keep it and run it every step
    replayable = False      # a second run takes the next batch

    def __init__(self, types, shapes, output_num, shared_name):
        super().__init__()
        for arg_name, value in (("types", types), ("shapes", shapes)):
            if not isinstance(value, (list, tuple)):
                raise self.error(f"the argument '{arg_name}' must be a list or tuple, but got "
                                 f"{type(value).__name__}.", TypeError)
        if len(types) != len(shapes):
            raise self.error(f"'types length' ({len(types)}) must be equal to 'shapes length' "
                             f"({len(shapes)}).")
        if not _is_int(output_num):
            raise self.error(f"the argument 'output_num' must be an int, but got "
                             f"{type(output_num).__name__}.", TypeError)
        if output_num != len(types):
            raise self.error(f"'output_num' ({output_num}) must be the number of types and "
                             f"shapes ({len(types)}).")
        if not isinstance(shared_name, str):
            raise self.error(f"the argument 'shared_name' must be a str, but got "
                             f"{type(shared_name).__name__}.", TypeError)
        try:
            self.types = tuple(mstype.to_type(t) for t in types)
        except TypeError as e:
            raise self.error(str(e), TypeError) from None
        for shape in shapes:
            if not isinstance(shape, (list, tuple)) or not all(_is_int(d) and d >= -1
                                                               for d in shape):
                raise self.error(f"each shape must be a tuple of ints >= -1, but got "
                                 f"{shape!r}.", TypeError)
            if -1 in shape:
                raise self.error(f"the shape {tuple(shape)} has a dynamic dim (-1); "
                                 f"minispore's GetNext takes static shapes only.",
                                 NotImplementedError)
        self.shapes = tuple(tuple(s) for s in shapes)
        self.shared_name = shared_name
        for k, v in (("types", self.types), ("shapes", self.shapes),
                     ("output_num", output_num), ("shared_name", shared_name)):
            self.add_prim_attr(k, v)

    def infer(self):
        return tuple(Aval(s, t) for s, t in zip(self.shapes, self.types))

    def impl(self):
        # the queues minispore/dataset/engine/transfer.py registers (ops may not import it)
        queues = REGISTRY.owned("dataset.data_queues", dict)
        if self.shared_name not in queues:
            raise self.error(f"there is no data queue named {self.shared_name!r} (queues: "
                             f"{sorted(queues) or 'none'}); make one with "
                             f"dataset.device_que().send() or DatasetHelper(dataset, "
                             f"dataset_sink_mode=True).", RuntimeError)
        batch = queues[self.shared_name].pop(self.name)
        if len(batch) != len(self.types):
            raise self.error(f"the batch of queue {self.shared_name!r} has {len(batch)} "
                             f"columns, but {len(self.types)} types were declared.",
                             RuntimeError)
        out = []
        for i, (x, t, s) in enumerate(zip(batch, self.types, self.shapes)):
            if x.dtype != t.np_dtype or x.shape != s:
                raise self.error(f"column {i} of the batch of queue {self.shared_name!r} is "
                                 f"{mstype.to_type(x.dtype)} of shape {x.shape}, but "
                                 f"{t} of shape {s} was declared.", RuntimeError)
            out.append(device.asarray(x))
        return tuple(out)
