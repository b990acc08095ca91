"""Communication operators (AllReduce, AllGather, ReduceScatter, AlltoAll, Broadcast, Reduce,
Send/Receive, Barrier): shape rules and bprops; the data moves through minispore.communication.

Gradients of collectives (mindspore_semantics.md §3.2). Each rank r computes its own loss L_r
from its own copy of a collective's output; the gradient we want is that of the global loss
L = sum_r L_r, so a cotangent arriving at rank r is *partial*: it holds only L_r's share. Every
bprop therefore sums the partial cotangents over the group with the collective that transposes
the forward one. In particular AllReduce(SUM) (y_r = sum_s x_s for every r) has
dL/dx_s = sum_r dL_r/dy_r, i.e. AllReduce(SUM)(dout): the incoming cotangent is partial and the
outgoing one is replicated. (A caller whose per-rank losses are already identical copies of one
replicated loss must divide by the group size, as gradients_mean does.)

Every rank of the group must run each collective's bprop, like the forward: a collective
output must reach the loss on every rank of its group (or on none).
"""
import numpy as np

from minispore import device
from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor, tensor_of
from minispore.common.symbolic import is_symbolic
from minispore.communication import collectives as _coll
from minispore.communication import p2p as _p2p
from minispore.communication._comm import WORLD_NAMES, communicator
from minispore.communication.host_calls import (ALL_GATHER, ALL_REDUCE, REDUCE_SCATTER,
                                                  HostCall)
from minispore.ops import sharding as rules
from minispore.ops.interpreter import unobserved_host_eager
from minispore.ops.operations._base import cached_op, check_tensor
from minispore.ops.operations.array_ops import Cast, ZerosLike
from minispore.ops.operations.math_ops import Equal, Mul, RealDiv
from minispore.ops.primitive import Aval, Primitive

__all__ = ["ReduceOp", "AllReduce", "AllGather", "ReduceScatter", "AlltoAll", "Broadcast",
           "Reduce", "Send", "Receive", "Barrier", "_MirrorOperator", "_DynamicReceive"]

_WORLD = WORLD_NAMES[0]


class ReduceOp:
    """Reduction applied by AllReduce/ReduceScatter/Reduce: SUM, MAX, MIN or PROD."""
    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


_REDUCE_OPS = (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PROD)


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


class _Collective(Primitive):
    """Shared validation: the `group` attribute, the `op` attribute, and the group lookup."""
    sharding_rule = rules.replicate_only(
        "a collective is what the parallel pass inserts; its group decides its layout")
    communication = True
    # One tensor in, one of the same dtype out, and an infer whose checks depend only on the
    # input's shape and dtype: such a collective may skip the generic dispatch (below), as
    # the host_calls kind `host_kind`.
    eager_shortcut = False
    host_kind = None

    def __init__(self, group=_WORLD):
        super().__init__()
        self._host_call = None   # HostCall for the signature the last eager call checked
        if not isinstance(group, str):
            raise self.error(f"the argument 'group' must be a str, but got "
                             f"{type(group).__name__}.", TypeError)
        self.group = group
        self.add_prim_attr("group", group)

    def _set_op(self, op):
        if not isinstance(op, str):
            raise self.error(f"the argument 'op' must be a ReduceOp (str), but got "
                             f"{type(op).__name__}.", TypeError)
        if op not in _REDUCE_OPS:
            raise self.error(f"the argument 'op' must be one of {list(_REDUCE_OPS)}, but got "
                             f"{op!r}.")
        self.op = op
        self.add_prim_attr("op", op)

    def __call__(self, *args):
        # The generic dispatch (infer, device checks, profiler hooks, wrapping) and the generic
        # collective (communicator, op and counter lookups) cost about 2.7 us, twice a 4 KB
        # all-reduce through mpi4py. Once infer has accepted an input signature, a plain eager
        # call on a C-contiguous host tensor of that signature runs the collective prepared for
        # it (communication/host_calls.py); anything watched (tracer, tape, profiler), new, or
        # whose group changed takes the generic path, so errors and recordings stay its own.
        prepared = self._host_call
        if prepared is not None and len(args) == 1:
            x = args[0]
            data = x._data if type(x) is Tensor else None
            if type(data) is np.ndarray and data.shape == prepared.shape \
                    and data.dtype == prepared.dtype and data.flags.c_contiguous \
                    and unobserved_host_eager():
                out = prepared(data)
                if out is not None:
                    return tensor_of(out, x._dtype)
        if self.eager_shortcut and len(args) == 1:
            x = args[0]
            data = x._data if type(x) is Tensor else None
            if type(data) is np.ndarray and unobserved_host_eager():
                out = super().__call__(x)
                self._host_call = HostCall(self.host_kind, data.shape, data.dtype, self.group,
                                           self.name, getattr(self, "op", None))
                return out
        return super().__call__(*args)

    def _comm(self):
        return communicator(self.group, self.name)

    def _check_rank_arg(self, arg_name, value, size):
        if not 0 <= value < size:
            raise self.error(f"'{arg_name}' must be in [0, {size}) for group {self.group!r}, "
                             f"but got {value}.")


class AllReduce(_Collective):
    """out = op(x of every rank in `group`), the same on every rank; shape and dtype of x.

    Attributes: op (ReduceOp, default SUM), group (default the world group).

    bprop (see the module docstring): SUM -> AllReduce(SUM)(dout); PROD ->
    AllReduce(SUM)(dout * out) / x (undefined where x == 0); MAX/MIN ->
    AllReduce(SUM)(dout) * (x == out): the summed gradient goes to every rank holding the
    extremum (ties each get the full gradient, as in MindSpore).

    Example (2 ranks): ``AllReduce()(Tensor(np.ones((2, 8), np.float32)))`` gives 2s.
    """

    eager_shortcut = True
    host_kind = ALL_REDUCE

    def __init__(self, op=ReduceOp.SUM, group=_WORLD):
        super().__init__(group)
        self._set_op(op)
        self.add_prim_attr("fusion", 0)
        self.add_prim_attr("index", 0)

    def infer(self, x):
        check_tensor(self, "x", x)
        self._comm()
        return Aval(x.shape, x.dtype)

    writes_out = True

    def impl(self, x, out=None):
        return _coll.all_reduce(x, self.op, self.group, out=out)

    def bprop(self, inputs, out, dout):
        x, = inputs
        if self.op == ReduceOp.SUM:
            return (AllReduce(ReduceOp.SUM, self.group)(dout),)
        mul = cached_op(Mul)
        if self.op == ReduceOp.PROD:
            return (cached_op(RealDiv)(AllReduce(ReduceOp.SUM, self.group)(mul(dout, out)), x),)
        holds = cached_op(Cast)(cached_op(Equal)(x, out), x.dtype)
        return (mul(AllReduce(ReduceOp.SUM, self.group)(dout), holds),)


class AllGather(_Collective):
    """out = the ranks' x concatenated along dim 0 in group-rank order: (k*x0, x1, ...).

    bprop: ReduceScatter(SUM)(dout) (times 1/k when the `mean_flag` attribute is True).
    """
    eager_shortcut = True
    host_kind = ALL_GATHER

    def __init__(self, group=_WORLD):
        super().__init__(group)
        self.add_prim_attr("fusion", 0)
        self.add_prim_attr("mean_flag", False)

    def infer(self, x):
        check_tensor(self, "x", x)
        if len(x.shape) < 1:
            raise self.error(f"the input 'x' must have rank >= 1, but got shape "
                             f"{tuple(x.shape)}.")
        k = self._comm().size
        self.add_prim_attr("rank_size", k)
        return Aval((k * x.shape[0],) + tuple(x.shape[1:]), x.dtype)

    def impl(self, x):
        return _coll.all_gather(x, self.group)

    def bprop(self, inputs, out, dout):
        dx = ReduceScatter(ReduceOp.SUM, self.group)(dout)
        if self.attrs.get("mean_flag"):
            dx = dx * (1.0 / self._comm().size)
        return (dx,)


class ReduceScatter(_Collective):
    """out = block r (of k equal blocks along dim 0) of op(x of every rank), on group rank r:
    shape (x0 / k, x1, ...). x0 must be divisible by the group size k.

    bprop: AllGather(dout) for SUM; any other op raises RuntimeError in backward.
    """
    eager_shortcut = True
    host_kind = REDUCE_SCATTER

    def __init__(self, op=ReduceOp.SUM, group=_WORLD):
        super().__init__(group)
        self._set_op(op)
        self.add_prim_attr("fusion", 0)

    def infer(self, x):
        check_tensor(self, "x", x)
        if len(x.shape) < 1:
            raise self.error(f"the input 'x' must have rank >= 1, but got shape "
                             f"{tuple(x.shape)}.")
        k = self._comm().size
        self.add_prim_attr("rank_size", k)
        if x.shape[0] % k:
            raise self.error(f"the first dimension of 'x' ({x.shape[0]}, shape "
                             f"{tuple(x.shape)}) must be divisible by the group size {k} "
                             f"of group {self.group!r}.")
        return Aval((x.shape[0] // k,) + tuple(x.shape[1:]), x.dtype)

    def impl(self, x):
        return _coll.reduce_scatter(x, self.op, self.group)

    def bprop(self, inputs, out, dout):
        if self.op != ReduceOp.SUM:
            raise RuntimeError(f"The backward of '{self.name}' only supports ReduceOp.SUM, but "
                               f"got op {self.op!r}.")
        return (AllGather(self.group)(dout),)


class AlltoAll(_Collective):
    """Split x into `split_count` blocks along `split_dim`, send block j to group rank j, and
    concatenate the received blocks along `concat_dim`: out.shape[split_dim] /= k, then
    out.shape[concat_dim] *= k. `split_count` must equal the group size.

    bprop: AlltoAll(split_count, concat_dim, split_dim)(dout), the inverse permutation.

    Example (4 ranks): ``AlltoAll(4, -2, -1)`` on ``ones((1, 1, 4, 1)) * rank`` gives
    ``[[[[0, 1, 2, 3]]]]`` on every rank.
    """

    def __init__(self, split_count, split_dim, concat_dim, group=_WORLD):
        super().__init__(group)
        for arg_name, value in (("split_count", split_count), ("split_dim", split_dim),
                                ("concat_dim", concat_dim)):
            if not _is_int(value):
                raise self.error(f"the argument '{arg_name}' must be an int, but got "
                                 f"{type(value).__name__}.", TypeError)
        if split_count < 1:
            raise self.error(f"'split_count' must be positive, but got {split_count}.")
        self.split_count, self.split_dim, self.concat_dim = (int(split_count), int(split_dim),
                                                             int(concat_dim))
        self.add_prim_attr("split_count", self.split_count)
        self.add_prim_attr("split_dim", self.split_dim)
        self.add_prim_attr("concat_dim", self.concat_dim)

    def _dims(self, ndim):
        dims = []
        for arg_name, d in (("split_dim", self.split_dim), ("concat_dim", self.concat_dim)):
            if not -ndim <= d < ndim:
                raise self.error(f"'{arg_name}' must be in [{-ndim}, {ndim}) for an input of "
                                 f"rank {ndim}, but got {d}.")
            dims.append(d % ndim)
        return dims

    def infer(self, x):
        check_tensor(self, "x", x)
        k = self._comm().size
        if self.split_count != k:
            raise self.error(f"'split_count' ({self.split_count}) must be equal to the size "
                             f"of group {self.group!r} ({k}).")
        split_dim, concat_dim = self._dims(len(x.shape))
        shape = list(x.shape)
        if shape[split_dim] % k:
            raise self.error(f"the split dimension {split_dim} of 'x' (shape {tuple(shape)}) "
                             f"must be divisible by 'split_count' {k}.")
        shape[split_dim] //= k
        shape[concat_dim] *= k
        return Aval(tuple(shape), x.dtype)

    def impl(self, x):
        split_dim, concat_dim = self._dims(x.ndim)
        return _coll.all_to_all(x, self.split_count, split_dim, concat_dim, self.group)

    def bprop(self, inputs, out, dout):
        return (AlltoAll(self.split_count, self.concat_dim, self.split_dim, self.group)(dout),)


class Broadcast(_Collective):
    """Every tensor of the input tuple replaced by group rank `root_rank`'s; takes and returns
    a tuple of tensors (the shapes and dtypes must match across ranks).

    bprop: y_r = x_root on every rank r, so dL/dx_root = sum_r dout_r and the other ranks'
    inputs get zeros: Reduce(root_rank, SUM)(dout) per tensor. (MindSpore returns dout
    unchanged, which is right only when the caller sums elsewhere; we give the true gradient.)
    """

    def __init__(self, root_rank, group=_WORLD):
        super().__init__(group)
        if not _is_int(root_rank):
            raise self.error(f"the argument 'root_rank' must be an int, but got "
                             f"{type(root_rank).__name__}.", TypeError)
        self.root_rank = int(root_rank)
        self.add_prim_attr("root_rank", self.root_rank)

    def __call__(self, input_x):
        if not isinstance(input_x, tuple):
            raise self.error(f"the input must be a tuple of Tensors, but got "
                             f"{type(input_x).__name__}.", TypeError)
        return super().__call__(*input_x)

    def infer(self, *xs):
        for i, x in enumerate(xs):
            check_tensor(self, f"input_x[{i}]", x)
        self._check_rank_arg("root_rank", self.root_rank, self._comm().size)
        return tuple(Aval(x.shape, x.dtype) for x in xs)

    def impl(self, *xs):
        return _coll.broadcast(xs, self.root_rank, self.group)

    def bprop(self, inputs, out, dout):
        reduce = Reduce(self.root_rank, ReduceOp.SUM, self.group)
        return tuple(reduce(d) for d in dout)


class Reduce(_Collective):
    """out = op(x of every rank) on group rank `dest_rank`; zeros of x's shape elsewhere.

    bprop (SUM only): Broadcast(dest_rank)(dout): every input contributed to the root's sum,
    and the other ranks' outputs are constants.
    """

    def __init__(self, dest_rank, op=ReduceOp.SUM, group=_WORLD):
        super().__init__(group)
        if not _is_int(dest_rank):
            raise self.error(f"the argument 'dest_rank' must be an int, but got "
                             f"{type(dest_rank).__name__}.", TypeError)
        self.dest_rank = int(dest_rank)
        self._set_op(op)
        self.add_prim_attr("dest_rank", self.dest_rank)

    def infer(self, x):
        check_tensor(self, "x", x)
        self._check_rank_arg("dest_rank", self.dest_rank, self._comm().size)
        return Aval(x.shape, x.dtype)

    def impl(self, x):
        return _coll.reduce(x, self.dest_rank, self.op, self.group)

    def bprop(self, inputs, out, dout):
        if self.op != ReduceOp.SUM:
            raise RuntimeError(f"The backward of '{self.name}' only supports ReduceOp.SUM, but "
                               f"got op {self.op!r}.")
        return (Broadcast(self.dest_rank, self.group)((dout,))[0],)


class Send(_Collective):
    """Send x to group rank `dest_rank` with tag `sr_tag`; returns a 0-d token of x's dtype.

    bprop: receives x's gradient from `dest_rank` (same tag, over `group_back`), sent there by
    the matching Receive's bprop. The token must reach this rank's loss (add it: it is 0) so
    that backward visits the Send; the peer's Receive must reach its loss too. (A graph
    partitioned by `place` sets `backward_always` on its pairs instead.)
    """

    replayable = False      # a second send needs a second receive on the peer
    side_effect = True      # the message is its effect: graphs keep it though the token is unused

    def __init__(self, sr_tag, dest_rank, group=_WORLD, group_back=_WORLD):
        super().__init__(group)
        _check_p2p_args(self, sr_tag, dest_rank, "dest_rank", group_back)
        self.sr_tag, self.dest_rank, self.group_back = int(sr_tag), int(dest_rank), group_back
        self.add_prim_attr("sr_tag", self.sr_tag)
        self.add_prim_attr("dest_rank", self.dest_rank)
        self.add_prim_attr("group_back", group_back)

    def infer(self, x):
        check_tensor(self, "x", x)
        _check_peer(self, "dest_rank", self.dest_rank)
        return Aval((), x.dtype)

    def impl(self, x):
        _p2p.send(x, self.dest_rank, self.sr_tag, self.group)
        return device.zeros((), x.dtype)

    def bprop(self, inputs, out, dout):
        x, = inputs
        if is_symbolic(x.shape):
            return (_DynamicReceive(self.sr_tag, self.dest_rank, x.dtype,
                                    self.group_back)(x.shape),)
        return (Receive(self.sr_tag, self.dest_rank, x.shape, x.dtype, self.group_back)(),)


class Receive(_Collective):
    """out = the array of `shape` and `dtype` that group rank `src_rank` sent with `sr_tag`.

    Called with no input, or with dummy tensors (to order it after them, or to take
    gradients through it: backward runs only through ops with a watched input). bprop sends
    dout back to `src_rank` (same tag, over `group_back`) and gives the dummies zeros.
    """

    replayable = False      # a second receive needs a second send on the peer
    side_effect = True      # it consumes a message: graphs keep it and never reorder it

    def __init__(self, sr_tag, src_rank, shape, dtype, group=_WORLD, group_back=_WORLD):
        super().__init__(group)
        _check_p2p_args(self, sr_tag, src_rank, "src_rank", group_back)
        if not isinstance(shape, (tuple, list)) or not all(_is_int(d) and d >= 0
                                                           for d in shape):
            raise self.error(f"'shape' must be a tuple of non-negative ints, but got "
                             f"{shape!r}.", TypeError)
        try:
            self.dtype = mstype.to_type(dtype)
        except TypeError as e:
            raise self.error(str(e), TypeError) from None
        self.sr_tag, self.src_rank, self.group_back = int(sr_tag), int(src_rank), group_back
        self.shape = tuple(int(d) for d in shape)
        for k, v in (("sr_tag", self.sr_tag), ("src_rank", self.src_rank),
                     ("shape", self.shape), ("dtype", self.dtype), ("group_back", group_back)):
            self.add_prim_attr(k, v)

    def infer(self, *dummies):
        for i, d in enumerate(dummies):
            check_tensor(self, f"input[{i}]", d)
        _check_peer(self, "src_rank", self.src_rank)
        return Aval(self.shape, self.dtype)

    def impl(self, *dummies):
        return _p2p.receive(self.shape, self.dtype.np_dtype, self.src_rank, self.sr_tag,
                             self.group)

    def bprop(self, inputs, out, dout):
        Send(self.sr_tag, self.src_rank, self.group_back)(dout)
        return tuple(cached_op(ZerosLike)(d) for d in inputs)


class _DynamicReceive(Receive):
    """Receive of a value whose shape holds dynamic dims: the shape is the last call argument,
    ``_DynamicReceive(sr_tag, src_rank, dtype)(*dummies, shape)``, so a compiled graph
    substitutes each call's sizes (an attribute would stay symbolic). What a partitioned graph
    and Send's bprop use where Receive's shape cannot be ints."""

    def __init__(self, sr_tag, src_rank, dtype, group=_WORLD, group_back=_WORLD):
        super().__init__(sr_tag, src_rank, (), dtype, group, group_back)
        self.del_prim_attr("shape")

    def infer(self, *args):
        *dummies, shape = args
        if not isinstance(shape, tuple):
            raise self.error(f"the last argument must be the shape (a tuple of ints or "
                             f"dynamic dims), but got {shape!r}.", TypeError)
        super().infer(*dummies)
        return Aval(shape, self.dtype)

    def impl(self, *args):
        *_, shape = args
        return _p2p.receive(shape, self.dtype.np_dtype, self.src_rank, self.sr_tag, self.group)

    def bprop(self, inputs, out, dout):
        return super().bprop(inputs[:-1], out, dout) + (None,)


class Barrier(_Collective):
    """Wait until every rank of `group` reaches the barrier; returns an empty tuple."""

    differentiable = False

    def infer(self):
        self._comm()
        return ()

    def impl(self):
        _coll.barrier(self.group)
        return ()


class _MirrorOperator(_Collective):
    """What the parallel pass puts on a parameter that is replicated over some devices
    (mindspore_semantics.md §3.2): the forward is the identity; the backward sums the replicas'
    gradients over `group` with AllReduce(SUM), each scaled by 1/dev_num first when
    `mean_flag` (gradients_mean), so every replica applies the same update.
    """

    def __init__(self, group=_WORLD, dev_num=1, mean_flag=False):
        super().__init__(group)
        self.dev_num = int(dev_num)
        self.mean_flag = bool(mean_flag)
        self.add_prim_attr("dev_num", self.dev_num)
        self.add_prim_attr("mean_flag", self.mean_flag)

    def infer(self, x):
        check_tensor(self, "x", x)
        self._comm()
        return Aval(x.shape, x.dtype)

    def impl(self, x):
        return x

    def bprop(self, inputs, out, dout):
        # The mean's scale comes before the sum, as data parallel's buckets apply it: the
        # AllReduce is then the last node of the gradient, which communication fusion can
        # merge with its neighbours (a scale after each one would read it at once); with a
        # power-of-two dev_num the two orders give the same bits.
        if self.mean_flag:
            dout = dout * (1.0 / self.dev_num)
        return (AllReduce(ReduceOp.SUM, self.group)(dout),)


def _check_p2p_args(prim, sr_tag, rank, rank_name, group_back):
    for arg_name, value in (("sr_tag", sr_tag), (rank_name, rank)):
        if not _is_int(value):
            raise prim.error(f"the argument '{arg_name}' must be an int, but got "
                             f"{type(value).__name__}.", TypeError)
        if value < 0:
            raise prim.error(f"'{arg_name}' must be >= 0, but got {value}.")
    if not isinstance(group_back, str):
        raise prim.error(f"the argument 'group_back' must be a str, but got "
                         f"{type(group_back).__name__}.", TypeError)


def _check_peer(prim, arg_name, peer):
    comm = prim._comm()
    prim._check_rank_arg(arg_name, peer, comm.size)
    if peer == comm.rank:
        raise prim.error(f"'{arg_name}' ({peer}) must be another rank than this one: a "
                         f"blocking send to oneself never completes.")
