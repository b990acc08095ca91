"""Data parallel: DistributedGradReducer (gradient all-reduce in fused buckets that start during
the backward) and the rank-0 parameter broadcast that makes every rank start equal."""
import logging

import numpy as np

from minispore import communication as comm
from minispore.common.auto_parallel_context import ParallelMode, get_auto_parallel_context
from minispore.common.tensor import Tensor
from minispore.communication.collectives import all_reduce, broadcast
from minispore.nn.cell import Cell
from minispore.ops import functional as F
from minispore.ops.operations.bucket_ops import (AllReduceStart, AllReduceWait, BucketView,
                                                 PackBucket, progress)
from minispore.ops.operations.comm_ops import AllReduce, ReduceOp
from minispore.ops.primitive import Aval

__all__ = ["DistributedGradReducer", "broadcast_parameters", "bucket_plan"]

logger = logging.getLogger("minispore")

#: MindSpore's "auto" allreduce fusion threshold.
DEFAULT_BUCKET_MB = 64
_MB = 1024 * 1024


def is_data_parallel():
    """True when TrainOneStepCell must reduce gradients (data or hybrid parallel mode)."""
    return get_auto_parallel_context("parallel_mode") in (ParallelMode.DATA_PARALLEL,
                                                          ParallelMode.HYBRID_PARALLEL)


def fusion_settings():
    """("none" | "size" | "index", bytes or split indices) from comm_fusion or, when its
    allreduce mode is "auto", the legacy all_reduce_fusion_config; MindSpore's default is 64 MB
    buckets."""
    fusion = get_auto_parallel_context("comm_fusion")
    if fusion["openstate"] is False:
        return "none", None
    allreduce = fusion["allreduce"]
    if allreduce["mode"] == "auto":
        indices = get_auto_parallel_context("all_reduce_fusion_config")
        if indices:
            return "index", list(indices)
        return "size", DEFAULT_BUCKET_MB * _MB
    mode, config = allreduce["mode"], allreduce["config"]
    if mode == "index":
        return "index", list(config)
    if mode == "size":
        return "size", config * _MB
    return "size", DEFAULT_BUCKET_MB * _MB


def bucket_plan(parameters, mode, config):
    """Buckets as lists of parameter indices, in parameter order.

    ``size``: consecutive parameters of one dtype while the bucket stays within `config` bytes
    (a larger gradient gets a bucket of its own; 0 means one bucket per gradient);
    ``index``: split before each index of `config` ([20, 35] fuses 0-19, 20-34 and the rest);
    ``none``: one gradient per bucket. A bucket never mixes dtypes (it is one flat buffer).
    """
    buckets, current, size = [], [], 0
    cuts = set(config) if mode == "index" else ()
    for i, p in enumerate(parameters):
        nbytes = p.nbytes
        split = bool(current) and (
            mode == "none" or i in cuts or p.dtype != parameters[current[0]].dtype
            or (mode == "size" and size + nbytes > config))
        if split:
            buckets.append(current)
            current, size = [], 0
        current.append(i)
        size += nbytes
    if current:
        buckets.append(current)
    return buckets


class _Bucket:
    """The gradients of several parameters (one dtype), reduced by one all-reduce of their
    flat packing; between a start in the backward and the reducer's wait, `token` is the
    pending all-reduce. Its wait and views are made once, with the bucket, not every step."""

    __slots__ = ("members", "grads", "pending", "token", "wait", "views")

    def __init__(self, members, parameters):
        self.members = members
        self.grads = [None] * len(members)
        self.pending = len(members)
        self.token = None
        p = parameters[members[0]]
        self.wait = AllReduceWait((Aval((sum(parameters[i].size for i in members),), p.dtype),))
        self.views, offset = [], 0
        for i in members:
            self.views.append(BucketView(offset, parameters[i].shape))
            offset += parameters[i].size


class DistributedGradReducer(Cell):
    """``DistributedGradReducer(parameters, mean=None, degree=None, fusion_type=1,
    group=GlobalComm.WORLD_COMM_GROUP)``: sums each gradient over the ranks of `group` (and
    divides by `degree` when `mean`; `mean=None` reads ``gradients_mean`` and `degree=None`
    the group size).

    Gradients are packed into buckets (``comm_fusion={"allreduce": {"mode": "auto" | "size" |
    "index", "config": ...}}``, 64 MB by default, in parameter order); each bucket is one
    all-reduce of its flat packing, through the bucket operators of both modes
    (ops/operations/bucket_ops.py): PackBucket (scaled by the mean's 1/degree while packing),
    AllReduce, BucketView. Called as ``reducer(grads)`` it packs, reduces and returns the
    reduced gradients; traced in a compiled step, the same calls become its nodes.
    TrainOneStepCell's eager step also passes ``reducer.ready_hooks()`` to the tape's
    backward: each bucket then starts (AllReduceStart) as soon as its last gradient is final,
    so communication overlaps the rest of the backward, and ``reducer(grads)`` waits for it
    (AllReduceWait), as the compiled step's overlap pass arranges. Buckets start in a fixed
    order (the reverse of parameter order, the order the backward finishes them), identical
    on every rank as MPI requires.

    The returned gradients are views of each bucket's reduced buffer.
    """

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1,
                 group=comm.GlobalComm.WORLD_COMM_GROUP):
        super().__init__(auto_prefix=False)
        if degree is not None and (not isinstance(degree, int) or isinstance(degree, bool)
                                   or degree <= 0):
            raise ValueError(f"For 'DistributedGradReducer', the 'degree' must be an int "
                             f"greater than 0, but got {degree!r}.")
        if mean is not None and not isinstance(mean, bool):
            raise TypeError(f"For 'DistributedGradReducer', 'mean' must be a bool or None, but "
                            f"got {type(mean).__name__}.")
        if not isinstance(group, str):
            raise TypeError(f"For 'DistributedGradReducer', 'group' must be a str, but got "
                            f"{type(group).__name__}.")
        if get_auto_parallel_context("enable_parallel_optimizer"):
            raise NotImplementedError(
                "enable_parallel_optimizer=True with a DistributedGradReducer (whole "
                "gradients all-reduced by hand) is not implemented in minispore; train with "
                "TrainOneStepCell or Model in GRAPH_MODE, whose compiled step gathers the "
                "sliced weights and reduce-scatters their gradients.")
        self.group = group
        self.degree = comm.get_group_size(group) if degree is None else degree
        self.mean = get_auto_parallel_context("gradients_mean") if mean is None else mean
        self.fusion_type = fusion_type
        self._parameters = tuple(parameters)
        self._reduce = AllReduce(ReduceOp.SUM, group)
        self._reduce.add_prim_attr("gradient_bucket", True)     # the overlap pass starts it early
        self._start = AllReduceStart(ReduceOp.SUM, group, 1, in_place=True)
        self._plan = None
        self._plan_buckets()

    def _plan_buckets(self):
        """Buckets as the comm_fusion settings in force say, made again when they changed
        since the last step (a GRAPH step compiles again then, as every compile-keyed setting
        makes it; an eager step re-buckets between steps, never in the middle of one)."""
        plan = fusion_settings()
        if plan == self._plan or any(getattr(self, "_filled", ())):
            return
        self._plan = plan
        self._buckets = [_Bucket(m, self._parameters)
                         for m in bucket_plan(self._parameters, *plan)]
        self._where = {i: (bucket, k) for bucket in self._buckets
                       for k, i in enumerate(bucket.members)}
        self._filled = [False] * len(self._parameters)
        self._next = len(self._buckets) - 1   # the next bucket to start, counting down
        self._hooks = {id(p): self._hook(i) for i, p in enumerate(self._parameters)}
        # The mean's 1/degree is applied while packing, so no extra pass over the buffers
        # (exact for power-of-two degrees, within an ulp otherwise): a constant per dtype.
        scaled = self.mean and self.degree != 1
        dtypes = {self._parameters[b.members[0]].dtype for b in self._buckets}
        self._factor = {dt: Tensor(np.asarray(1.0 / self.degree, dt.np_dtype), dt)
                        for dt in dtypes} if scaled else None
        self._pack = PackBucket(scaled)

    @property
    def bucket_sizes(self):
        """The number of gradients in each bucket, in parameter order."""
        return [len(b.members) for b in self._buckets]

    def ready_hooks(self):
        """{id(parameter): callback(gradient or None)} for ``Tape.backward(on_final=...)``,
        for one step (a step abandoned half-way, e.g. by an exception, is finished first)."""
        if any(self._filled):
            self.construct(tuple(None for _ in self._parameters))
        self._plan_buckets()
        return self._hooks

    def _hook(self, index):
        def on_final(grad):
            self._fill(index, grad)
            self._start_ready()
        return on_final

    def _fill(self, index, grad):
        bucket, k = self._where[index]
        bucket.grads[k] = F.zeros_like(self._parameters[index]) if grad is None else grad
        self._filled[index] = True
        bucket.pending -= 1

    def _packed(self, grads):
        if self._factor is None:
            return self._pack(*grads)
        return self._pack(*grads, self._factor[grads[0].dtype])

    def _start_ready(self):
        """Start completed buckets in the fixed order; poke the started ones so MPI progresses
        them while Python runs the backward (MPICH has no progress thread by default)."""
        buckets = self._buckets
        while self._next >= 0 and buckets[self._next].pending == 0:
            bucket = buckets[self._next]
            bucket.token = self._start(self._packed(bucket.grads))
            self._next -= 1
        for bucket in buckets[self._next + 1:]:
            progress(bucket.token)

    def construct(self, grads):
        if len(grads) != len(self._parameters):
            raise ValueError(f"For 'DistributedGradReducer', got {len(grads)} gradients for "
                             f"{len(self._parameters)} parameters.")
        self._plan_buckets()
        if any(self._filled):       # a backward with ready hooks filled some buckets
            for i, g in enumerate(grads):
                if not self._filled[i]:
                    self._fill(i, g)
            self._start_ready()
        out = [None] * len(grads)
        for bucket in self._buckets:
            if bucket.token is not None:
                flat = bucket.wait(bucket.token)
            else:
                flat = self._reduce(self._packed([grads[i] for i in bucket.members]))
            for i, view in zip(bucket.members, bucket.views):
                out[i] = view(flat)
            bucket.token, bucket.grads = None, [None] * len(bucket.members)
            bucket.pending = len(bucket.members)
        self._filled = [False] * len(self._parameters)
        self._next = len(self._buckets) - 1
        return tuple(out)


def broadcast_parameters(parameters, root_rank=0, group=comm.GlobalComm.WORLD_COMM_GROUP):
    """Give every rank `root_rank`'s parameter values (one broadcast per dtype), after
    warning when they differed: ranks that disagree usually forgot ``ms.set_seed``."""
    parameters = [p for p in parameters if p.size]
    by_dtype = {}
    for p in parameters:
        by_dtype.setdefault(p.dtype, []).append(p)
    _warn_if_different(parameters, group)
    for dtype, params in by_dtype.items():
        flat = np.concatenate([p.asnumpy().reshape(-1) for p in params])
        (flat,) = broadcast((flat,), root_rank, group)
        offset = 0
        for p in params:
            p.set_data(flat[offset:offset + p.size].reshape(p.shape))    # host or device
            offset += p.size


def _warn_if_different(parameters, group):
    sums = np.array([float(np.sum(p.asnumpy(), dtype=np.float64)) for p in parameters]
                    + [0.0])
    high = all_reduce(sums, "max", group)
    low = all_reduce(sums, "min", group)
    differ = [p.name for p, h, lo in zip(parameters, high, low) if h != lo]
    if differ and comm.get_rank(group) == 0:
        logger.warning("Data parallel: %d parameters (first: %s) differed between ranks before "
                       "training; rank 0's values are broadcast to all ranks (call "
                       "ms.set_seed on every rank to start from equal values).", len(differ),
                       differ[0])

