"""nn.AdaSumByGradWrapCell and nn.AdaSumByDeltaWeightWrapCell: Adaptive Summation (AdaSum,
Maleki et al. 2020, arXiv:2006.02924) of what the servers of a data-parallel job contribute,
as MindSpore's nn/optim/adasum.py and its parallel pass (HandleAdaSum, HandleMirrorInAdaSum)
compute it.

MindSpore's arrangement: the ranks form servers of 8 (`SERVER_SIZE`); the job must have 16 or
more ranks, a power of two, so there are 2^k servers. Under semi-auto/auto parallel each
gradient mirror then sums only within its server (parameter_placement._adasum_mirror_group;
under data parallel TrainOneStepCell's reducer averages within the server, as MindSpore's);
the servers' results are combined by recursive halving over k steps. At step s rank r pairs
with r ± 8·2^s (the lower one is the "left" rank). Each tensor (squeezed) is split along its
first axis at len//2: the left rank keeps the right half and sends the left one, the right rank
the other way round, so each holds the same half of its own vector a and the partner's b. With
c = max(own half) + ε, the pieces divided by c, and the sums below all-reduced over the 2^(s+1)
ranks of equal local index in the servers taking part,

    d = Σ a·b + ε,  na = Σ a·a + ε,  nb = Σ b·b + ε,
    result = (1 − d / (2·na))·a + (1 − d / (2·nb))·b       (a, b undivided by c)

(orthogonal contributions add, equal ones average). A tensor whose dims are all 1 is averaged
over those ranks instead. Then the halves are sent back and concatenated in reverse order.

AdaSumByGradWrapCell applies this to the gradients before its optimizer; AdaSumByDeltaWeight-
WrapCell lets the optimizer step first and applies it to the weight change (old − new), writing
old − AdaSum(change). Both end with an all-reduce of a flag as MindSpore's do (a barrier).

What minispore refuses by name where MindSpore goes on: a parameter sliced by operator
parallel across servers (MindSpore rewrites the exchanges' boundaries for it; refused when the
program is partitioned), and a tensor whose halves reach a single element on some ranks of a
step while others still split (`_uneven_step`; MindSpore's all-reduces mispair there).

Under compiled steps these all-reduces stay in program order: the overlap pass would hoist
each to its inputs, which differ between left and right ranks (minispore/parallel/comm/
overlap.py).
"""
import logging
import math

from minispore.common import dtype as mstype
from minispore.common.auto_parallel_context import ParallelMode, get_auto_parallel_context
from minispore.common.parameter import Parameter, ParameterTuple
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.nn.optim.optimizer import Optimizer
from minispore.ops import functional as F
from minispore.ops.operations.comm_ops import AllReduce, Receive, Send

__all__ = ["AdaSumByGradWrapCell", "AdaSumByDeltaWeightWrapCell"]

logger = logging.getLogger("minispore")

SERVER_SIZE = 8          # MindSpore's devices per server (its _device_number)
_EPS = 1e-12
# Message tags: above those the graph partition and pipeline stages count up from 0, and below
# MPICH's MPI_TAG_UB (2^29 - 1).
_TAG_BASE = 1 << 28


def _stage_device_num():
    from minispore.parallel.settings import get_device_num
    return get_device_num() // get_auto_parallel_context("pipeline_stages")


def _check_parallel(cell_name):
    """MindSpore's _parallel_check: the modes and sizes AdaSum runs under."""
    mode = get_auto_parallel_context("parallel_mode")
    if mode == ParallelMode.STAND_ALONE:
        raise RuntimeError(f"For '{cell_name}', stand alone mode is not supported to apply "
                           f"adasum: set parallel_mode to semi_auto_parallel or auto_parallel.")
    if mode in (ParallelMode.DATA_PARALLEL, ParallelMode.HYBRID_PARALLEL):
        logger.warning("For '%s', under %s MindSpore recommends mindspore.boost to enable "
                       "adasum.", cell_name, mode)
    if get_auto_parallel_context("enable_parallel_optimizer"):
        raise RuntimeError(f"For '{cell_name}', the optimizer shard "
                           f"(enable_parallel_optimizer) is not supported with adasum.")
    if get_auto_parallel_context("pipeline_stages") > 1:
        raise RuntimeError(f"For '{cell_name}', the pipeline parallel (pipeline_stages="
                           f"{get_auto_parallel_context('pipeline_stages')}) is not supported "
                           f"with adasum.")
    devices = _stage_device_num()
    if devices < 16 or devices & (devices - 1):
        raise RuntimeError(f"For '{cell_name}', the device_num must be at least 16 and a power "
                           f"of 2 when applying adasum, but got {devices}.")
    return devices


def _split_len(shape):
    """The length of the squeezed tensor's first axis, or None when every dim is 1."""
    dims = [d for d in shape if d != 1]
    return dims[0] if dims and dims[0] > 1 else None


def _uneven_step(shape, steps):
    """The first step at which some halves of a tensor of `shape` are single elements while
    others still split, or None. At such a step the ranks of one all-reduce group would run
    different collectives (MindSpore's would pair them wrongly), and a single element left by
    an earlier split would be averaged with other elements: only tensors of ones from the start
    are averaged correctly."""
    if _split_len(shape) is None:
        return None
    pieces = [tuple(shape)]
    for step in range(steps):
        lengths = [_split_len(p) for p in pieces]
        if None in lengths:
            return step
        pieces = [(half,) + tuple(d for d in p if d != 1)[1:]
                  for p, n in zip(pieces, lengths) for half in (n // 2, n - n // 2)]
    return None


class _AdaSum(Cell):
    """The recursive-halving exchange of a tuple of tensors between the servers (module
    docstring); `construct(tensors)` returns the combined tensors in their own shapes."""

    def __init__(self, rank, servers, names):
        super().__init__()
        self.names = tuple(names)
        from minispore.parallel.redistribution import group_name
        self.steps = int(math.log2(servers))
        self.partners, self.left, self.groups = [], [], []
        for step in range(self.steps):
            distance = SERVER_SIZE * 2 ** step
            left = (rank // distance) % 2 == 0
            self.left.append(left)
            self.partners.append(rank + distance if left else rank - distance)
            # the ranks of this local index in the 2^(step+1) servers this step combines
            span = 2 ** (step + 1)
            first = rank // SERVER_SIZE // span * span
            ranks = [(first + i) * SERVER_SIZE + rank % SERVER_SIZE for i in range(span)]
            self.groups.append(group_name(ranks))

    def _tag(self, step, phase, index, count):
        return _TAG_BASE + ((2 * step + phase) * count + index)

    def _exchange(self, step, phase, index, count, out, in_shape):
        """Send `out` to this step's partner and receive a tensor of `in_shape` from it; the
        left rank sends first, so the blocking pair cannot deadlock."""
        tag = self._tag(step, phase, index, count)
        peer = self.partners[step]
        recv = Receive(tag, peer, in_shape, out.dtype)
        if self.left[step]:
            return recv(Send(tag, peer)(out))
        got = recv(out)
        return F.depend(got, Send(tag, peer)(F.depend(out, got)))

    def _combine(self, step, own, other):
        """The AdaSum of this rank's half `own` and the partner's `other` (module docstring),
        in the order MindSpore reduces its three sums."""
        reduce = AllReduce(group=self.groups[step])
        scale = F.reduce_max(own) + _EPS
        own_s, other_s = own / scale, other / scale
        a, b = (own, other) if self.left[step] else (other, own)
        a_s, b_s = (own_s, other_s) if self.left[step] else (other_s, own_s)
        # summed over the ranks: a is the left ranks' vector, whichever half a rank holds
        dot = reduce(F.reduce_sum(own_s * other_s) + _EPS)
        norm_a = reduce(F.reduce_sum(a_s * a_s) + _EPS)
        norm_b = reduce(F.reduce_sum(b_s * b_s) + _EPS)
        return (1 - dot / (2 * norm_a)) * a + (1 - dot / (2 * norm_b)) * b

    def construct(self, tensors):
        count = len(tensors)
        for name, x in zip(self.names, tensors):
            step = _uneven_step(x.shape, self.steps)
            if step is not None:
                raise NotImplementedError(
                    f"AdaSum over {2 ** self.steps} servers: {name} (shape {tuple(x.shape)}) "
                    f"cannot be halved {self.steps} times evenly; at step {step} some ranks "
                    f"would hold one element while others still split theirs. MindSpore's "
                    f"exchange mispairs its all-reduces there; use fewer servers or a "
                    f"dimension that halves down to ones at the same step on every rank.")
        pieces = list(tensors)
        sent = []       # per step, per tensor: the size of the half sent (None: averaged)
        for step in range(self.steps):
            sizes = []
            for i, x in enumerate(pieces):
                n = _split_len(x.shape)
                if n is None:
                    sizes.append(None)
                    pieces[i] = AllReduce(group=self.groups[step])(x) / 2 ** (step + 1)
                    continue
                x = F.reshape(x, tuple(d for d in x.shape if d != 1))
                lower, upper = x[:n // 2], x[n // 2:]
                send, keep = (lower, upper) if self.left[step] else (upper, lower)
                # the partner keeps the half this rank sends: same shape
                other = self._exchange(step, 0, i, count, send, keep.shape)
                pieces[i] = self._combine(step, keep, other)
                sizes.append(math.prod(send.shape))
            sent.append(sizes)
        for step in reversed(range(self.steps)):
            for i, x in enumerate(pieces):
                if sent[step][i] is None:
                    continue
                flat = F.reshape(x, (-1,))
                other = self._exchange(step, 1, i, count, flat, (sent[step][i],))
                pieces[i] = F.concat((other, flat) if self.left[step] else (flat, other))
        return tuple(F.reshape(p, t.shape) for p, t in zip(pieces, tensors))


class AdaSumWrapCell(Cell):
    """What the two wrap cells share: the checks, the parameters whose mirrors stay within
    their server, the exchange (`adasum`), and `server_group`: the group of this rank's server,
    over which TrainOneStepCell's data-parallel reducer averages (as MindSpore's does)."""

    def __init__(self, optimizer):
        super().__init__(auto_prefix=False)
        cell_name = type(self).__name__
        devices = _check_parallel(cell_name)
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"For '{cell_name}', the argument 'optimizer' must be an "
                            f"nn.Optimizer, but got {type(optimizer).__name__}.")
        from minispore.communication.management import get_rank
        from minispore.parallel.parameter_placement import mark_adasum
        from minispore.parallel.redistribution import group_name
        for p in optimizer.parameters:
            mark_adasum(p, SERVER_SIZE)
        rank = get_rank()
        first = rank // SERVER_SIZE * SERVER_SIZE
        self.server_group = group_name(range(first, first + SERVER_SIZE))
        self.adasum = _AdaSum(rank, devices // SERVER_SIZE,
                              [p.name for p in optimizer.parameters])
        self.optimizer = optimizer
        self.parameters = ParameterTuple(optimizer.parameters)
        self.sync_tensor = Parameter(Tensor(0, dtype=mstype.int32), name="sync_tensor")

    def _sync(self, after):
        """All ranks meet (an all-reduce of a flag ordered after `after`), as MindSpore's
        wrap cells end."""
        return AllReduce()(F.depend(self.sync_tensor, after))


class AdaSumByGradWrapCell(AdaSumWrapCell):
    """Wraps `optimizer` (an nn.Optimizer) so that it steps on the AdaSum of the servers'
    gradients (module docstring). Call it as the optimizer: ``cell(grads)``.

    Raises:
        RuntimeError: stand_alone mode, optimizer parallel, pipeline stages, or a device_num
            that is below 16 or not a power of 2.
        TypeError: `optimizer` is not an nn.Optimizer.
    """

    def construct(self, grads):
        combined = self.adasum(grads)
        flag = self._sync(combined)
        return F.depend(self.optimizer(combined), flag)


class AdaSumByDeltaWeightWrapCell(AdaSumWrapCell):
    """Wraps `optimizer` (an nn.Optimizer): each step the optimizer updates the weights on this
    server's gradients, then every weight becomes old − AdaSum(old − new) over the servers
    (module docstring). Call it as the optimizer: ``cell(grads)``; returns the weights.

    Raises:
        RuntimeError: stand_alone mode, optimizer parallel, pipeline stages, or a device_num
            that is below 16 or not a power of 2.
        TypeError: `optimizer` is not an nn.Optimizer.
    """

    def construct(self, grads):
        old = tuple(p * 1.0 for p in self.parameters)
        done = self.optimizer(F.depend(grads, old))
        new = tuple(F.depend(p, done) for p in self.parameters)
        combined = self.adasum(tuple(o - n for o, n in zip(old, new)))
        for p, o, c in zip(self.parameters, old, combined):
            F.assign(p, o - c)
        return F.depend(self.parameters, self._sync(combined))
