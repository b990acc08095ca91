"""Tensor redistribution: plan the moves from one TensorLayout to another, price them, run them.

The logical tensor never changes (redistribution is numerically the identity); only which rank
holds which block, or which term of a pending sum, changes. Planning works on DTensor's view of
a layout, one placement per device-matrix axis (Shard(dim) / Replicate() / Partial()), and
branches only on placement pairs (mindspore_semantics.md §3.1):

=========================  ====================================================================
Partial -> Replicate       ``allreduce`` over the axis group
Partial -> Shard(d)        ``reducescatter`` of dim d (dim d moved to the front around it)
Shard(d) -> Replicate      ``allgather`` (stacks on dim 0, so dim d is moved to the front)
Replicate -> Shard(d)      ``slice``: keep this rank's block of dim d, no communication
Shard(i) -> Shard(j)       ``alltoall`` when enable_alltoall, else ``allgather`` + ``slice``
Replicate -> Partial       ``mask``: coordinate 0 of the axis keeps the values, the others zeros
=========================  ====================================================================

A Shard moving between axes decomposes into a gather on the old axis and a slice (or an
alltoall) on the new one. Layouts on different device matrices are first unified onto their
common refinement (``refine``): an axis of size 8 splits row-major into (2, 4) without moving any
rank, so a tensor dim cut by it becomes a dim cut by two nested axes, the left one outer. The
internal state -- like a Layout whose dim is cut over several axes (``layout(("dp", "sp"))``,
the first outermost, in any order of the device matrix) -- is therefore, per tensor dim, the
ordered list of axes that cut it, and every move keeps the blocks contiguous: only the
innermost cutter of a dim may be gathered, and a new cutter may only be added inside the
existing ones.

Ordering keeps traffic low: pending sums are reduced first (ReduceScatter straight into the
target cut when it is legal at once), then slices and alltoalls that bring an axis to its
target run before any gather, and gathers run one at a time, preferring axes that end
unsharded, so that later slices shrink what is left to move.

>>> from minispore.common.layout import TensorLayout
>>> [str(m) for m in plan(TensorLayout((2, 4), (1, -1)), TensorLayout((2, 4), (-1, 1)), (8, 8))]
['allgather(axis=0, dim=0, k=2)', 'slice(axis=0, dim=1, k=2)']
"""
from dataclasses import dataclass

from minispore.common.layout import (Partial, Replicate, Shard, TensorLayout, group_ranks,
                                     rank_coordinate)
from minispore.common.symbolic import is_symbolic
from minispore.ops.operations._base import cached_op
from minispore.parallel.comm.stats import sent_bytes

__all__ = ["Move", "plan", "cost", "expected_comm_stats", "refine", "redistribute",
           "apply_move", "group_name"]

KINDS = ("slice", "allgather", "alltoall", "allreduce", "reducescatter", "mask")
# The collective each communicating move runs (the names comm_stats counts under).
COLLECTIVE = {"allgather": "AllGather", "alltoall": "AlltoAll", "allreduce": "AllReduce",
              "reducescatter": "ReduceScatter"}


@dataclass(frozen=True)
class Move:
    """One step of a plan, on device-matrix axis `axis` (left-counted) of `dev_matrix`.

    dims: the tensor dim the move cuts or uncuts, ``(from_dim, to_dim)`` for an alltoall,
    ``()`` for allreduce and mask. before: the placements (one per axis) the move starts from.
    The ranks that communicate are ``group(rank)``: those equal to `rank` off `axis`.
    """
    kind: str
    axis: int
    dims: tuple
    dev_matrix: tuple
    before: tuple

    @property
    def size(self):
        return self.dev_matrix[self.axis]

    def group(self, rank):
        return group_ranks(self.dev_matrix, rank, (self.axis,))

    def groups(self):
        """Every group along the axis (they partition the ranks), in order of first rank."""
        n = 1
        for d in self.dev_matrix:
            n *= d
        return tuple(sorted({self.group(r) for r in range(n)}))

    def local_shape(self, global_shape):
        """The shape of each rank's block before the move."""
        return _local_shape(self.before, self.dev_matrix, global_shape)

    @property
    def collective(self):
        """The collective's name (as counted by comm_stats), or None for local moves."""
        return COLLECTIVE.get(self.kind)

    def __str__(self):
        dims = ""
        if len(self.dims) == 1:
            dims = f", dim={self.dims[0]}"
        elif self.dims:
            dims = f", dims={self.dims[0]}->{self.dims[1]}"
        return f"{self.kind}(axis={self.axis}{dims}, k={self.size})"


# -- device-matrix unification ------------------------------------------------------------
def refine(*dev_matrices):
    """The coarsest device matrix that refines every one of `dev_matrices` (same product), and
    for each of them the refined axes each of its axes covers (a range per axis).

    Row-major rank coordinates make an axis of size a*b the pair of axes (a, b), so this only
    merges the cut points (prefix products). Raises NotImplementedError when some axis of one
    straddles a cut point of another without dividing it, e.g. (3, 2) against (2, 3): that
    needs MindSpore's reshape-based tensor unification, which minispore does not implement.
    """
    cuts = set()
    for dm in dev_matrices:
        p = 1
        for d in dm:
            p *= d
            cuts.add(p)
    totals = {_prod(dm) for dm in dev_matrices}
    if len(totals) != 1:
        raise ValueError(f"redistribution: the device matrices {list(dev_matrices)} hold "
                         f"different numbers of devices {sorted(totals)}; a layout can only be "
                         f"redistributed within one set of devices.")
    ordered = sorted(cuts - {1})
    refined, prev = [], 1
    for c in ordered:
        if c % prev:
            raise NotImplementedError(
                f"redistribution: the device matrices {list(dev_matrices)} have no common "
                f"refinement (cut points {ordered}: {prev} does not divide {c}); redistributing "
                f"between them needs a reshape of the tensor, which is not implemented.")
        refined.append(c // prev)
        prev = c
    index = {c: i + 1 for i, c in enumerate(ordered)}
    index[1] = 0
    spans = []
    for dm in dev_matrices:
        span, p = [], 1
        for d in dm:
            lo = index[p]
            p *= d
            span.append(range(lo, index[p]))
        spans.append(span)
    return tuple(refined), spans


def _state_on(layout, span, ndim):
    """(per-dim cutter lists, outermost first; partial axes) of `layout` on the refined axes.
    A refined axis splits row-major, so its sub-axes nest left (outer) to right."""
    cut = [[sub for a in layout.dim_axes(d) for sub in span[a]] for d in range(ndim)]
    part = {sub for p in layout.partial for sub in span[layout.axis(p)]}
    return cut, part


# -- planning -----------------------------------------------------------------------------
def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def _local_shape(placements, dev_matrix, global_shape):
    out = []
    for dim, size in enumerate(global_shape):
        cut = _prod(dev_matrix[a] for a, p in enumerate(placements) if p == Shard(dim))
        out.append(size // cut)
    return tuple(out)


class _Planner:
    """The plan as a walk over states: per tensor dim, the axes that cut it (outermost
    first, so a rank's block is the mixed-radix number of its coordinates on them), and the
    axes holding pending sums. A move may only add or remove the innermost cutter of a dim,
    which keeps every block contiguous."""

    def __init__(self, cur, dst, dev_matrix, enable_alltoall):
        self.cut, self.part = [list(c) for c in cur[0]], set(cur[1])
        self.want, self.want_part = [list(c) for c in dst[0]], set(dst[1])
        self.dev, self.ndim = tuple(dev_matrix), len(self.cut)
        self.alltoall, self.moves = enable_alltoall, []

    def placements(self):
        out = [Replicate()] * len(self.dev)
        for dim, axes in enumerate(self.cut):
            for a in axes:
                out[a] = Shard(dim)
        for a in self.part:
            out[a] = Partial()
        return tuple(out)

    def emit(self, kind, axis, dims):
        self.moves.append(Move(kind, axis, tuple(dims), self.dev, self.placements()))

    def cutting(self, axis):
        """The dim `axis` cuts now, or None."""
        return next((d for d, axes in enumerate(self.cut) if axis in axes), None)

    def wanted_dim(self, axis):
        return next((d for d, axes in enumerate(self.want) if axis in axes), None)

    def next_cutter(self, dim):
        """The axis to add next inside dim's cutters, when they are a proper prefix of its
        target cutters (else None: something must be gathered first, or dim is done)."""
        have, want = self.cut[dim], self.want[dim]
        if len(have) < len(want) and want[:len(have)] == have:
            return want[len(have)]
        return None

    def done(self):
        return self.cut == self.want and self.part == self.want_part

    def run(self):
        self.reduce_pending_sums()
        while not self.done():
            if not (self.add_cutter() or self.gather_one() or self.mask_one()):
                raise AssertionError(f"redistribution planner made no progress from "
                                     f"{self.cut}/{self.part} to {self.want}/{self.want_part} "
                                     f"on {self.dev}")
        return self.moves

    def reduce_pending_sums(self):
        for a in sorted(self.part):
            if a in self.want_part:
                continue
            dim = self.wanted_dim(a)
            if dim is not None and self.next_cutter(dim) == a:
                self.emit("reducescatter", a, (dim,))
                self.cut[dim].append(a)
            else:
                self.emit("allreduce", a, ())
            self.part.discard(a)

    def add_cutter(self):
        """Slice or alltoall one axis into its target cut; False when none can go now."""
        for dim in range(self.ndim):
            a = self.next_cutter(dim)
            if a is None:
                continue
            src = self.cutting(a)
            if src is None and a not in self.part:
                self.emit("slice", a, (dim,))
                self.cut[dim].append(a)
                return True
            if src is not None and self.cut[src][-1] == a:
                if self.alltoall:
                    self.emit("alltoall", a, (src, dim))
                else:
                    self.emit("allgather", a, (src,))
                    self.cut[src].pop()
                    self.emit("slice", a, (dim,))
                    self.cut[dim].append(a)
                    return True
                self.cut[src].pop()
                self.cut[dim].append(a)
                return True
        return False

    def gather_one(self):
        """Gather the innermost cutter of some dim that is not where the target wants it,
        preferring axes that end unsharded."""
        candidates = []
        for dim in range(self.ndim):
            have, want = self.cut[dim], self.want[dim]
            if have and want[:len(have)] != have:
                a = have[-1]
                candidates.append((self.wanted_dim(a) is not None, a, dim))
        if not candidates:
            return False
        _, a, dim = min(candidates)
        self.emit("allgather", a, (dim,))
        self.cut[dim].pop()
        return True

    def mask_one(self):
        for a in sorted(self.want_part - self.part):
            if self.cutting(a) is None:
                self.emit("mask", a, ())
                self.part.add(a)
                return True
        return False


def plan(src, dst, global_shape, enable_alltoall=False):
    """The moves that take a tensor of `global_shape` from layout `src` to layout `dst`.

    Both layouts are first expressed on their common refined device matrix (every Move carries
    it). Returns a list of Move; an empty list when the layouts hold the same blocks.

    Raises:
        ValueError: a layout does not fit the shape (rank or divisibility), or the layouts
            cover different numbers of devices.
        NotImplementedError: the device matrices have no common refinement (see ``refine``).
    """
    # Symbolic (dynamic) dims stay symbolic: the planner only divides them by their cuts.
    global_shape = tuple(d if is_symbolic(d) else int(d) for d in global_shape)
    for name, layout in (("src", src), ("dst", dst)):
        if not isinstance(layout, TensorLayout):
            raise TypeError(f"redistribution: '{name}' must be a TensorLayout, but got "
                            f"{type(layout).__name__}.")
        layout.local_shape(global_shape)
    dev, (span_src, span_dst) = refine(src.dev_matrix, dst.dev_matrix)
    ndim = len(global_shape)
    cur, want = _state_on(src, span_src, ndim), _state_on(dst, span_dst, ndim)
    return _Planner(cur, want, dev, enable_alltoall).run()


# -- cost ---------------------------------------------------------------------------------
def expected_comm_stats(moves, global_shape, itemsize):
    """What comm_stats() reports after one rank ran `moves` on a tensor of `global_shape`
    with `itemsize`-byte elements: {collective: {'count': n, 'bytes': b}}."""
    stats = {}
    for m in moves:
        if m.collective is None:
            continue
        nbytes = _prod(m.local_shape(global_shape)) * itemsize
        entry = stats.setdefault(m.collective, {"count": 0, "bytes": 0})
        entry["count"] += 1
        entry["bytes"] += sent_bytes(m.collective, nbytes, m.size)
    return stats


def cost(moves, global_shape, itemsize):
    """Bytes sent per device by the plan (§3.1): (k-1)·S for an AllGather of S-byte blocks,
    (k-1)/k·S for ReduceScatter and AlltoAll, 2(k-1)/k·S for AllReduce, 0 for local moves."""
    return sum(e["bytes"] for e in expected_comm_stats(moves, global_shape, itemsize).values())


# -- execution ----------------------------------------------------------------------------
def group_name(ranks):
    """The communication group of world ranks `ranks`, created on first use.

    Deadlock freedom: a group is created lazily by exactly its member ranks (MPI's
    Comm_create_group is collective over the members only), the first time a move needs it.
    Every rank runs the same plans in the same order (SPMD), so the members of a group reach
    its creation at the same point of their sequence of collectives, and the groups created at
    one move are disjoint (they partition the ranks along one axis). Communicators are cached
    by rank tuple (minispore.communication), so a group is built once per init().
    """
    from minispore.communication import management
    from minispore.communication._comm import STATE
    ranks = tuple(ranks)
    if ranks == STATE.world.world_ranks:
        return management.GlobalComm.WORLD_COMM_GROUP
    name = "redistribution_" + "_".join(str(r) for r in ranks)
    if name not in STATE.groups:
        management.create_group(name, list(ranks))
    return name


def _prim(cls, *args):
    return cached_op(cls, *args)


def _front(x, dim):
    """x with dim moved to the front, and the permutation that moves it back."""
    from minispore.ops import functional as F
    if dim == 0:
        return x, None
    perm = (dim,) + tuple(d for d in range(x.ndim) if d != dim)
    back = tuple(perm.index(d) for d in range(x.ndim))
    return F.transpose(x, perm), back


def _back(x, back):
    from minispore.ops import functional as F
    return x if back is None else F.transpose(x, back)


def _slice(x, move, rank, group):
    from minispore.ops import functional as F
    dim, k = move.dims[0], move.size
    n = x.shape[dim] // k
    i = rank_coordinate(move.dev_matrix, rank)[move.axis]
    begin, end = [0] * x.ndim, list(x.shape)
    begin[dim], end[dim] = i * n, (i + 1) * n
    return F.strided_slice(x, tuple(begin), tuple(end), (1,) * x.ndim)


def _allgather(x, move, rank, group):
    from minispore.ops.operations.comm_ops import AllGather
    y, back = _front(x, move.dims[0])
    return _back(_prim(AllGather, group)(y), back)


def _reducescatter(x, move, rank, group):
    from minispore.ops.operations.comm_ops import ReduceOp, ReduceScatter
    y, back = _front(x, move.dims[0])
    return _back(_prim(ReduceScatter, ReduceOp.SUM, group)(y), back)


def _allreduce(x, move, rank, group):
    from minispore.ops.operations.comm_ops import AllReduce, ReduceOp
    return _prim(AllReduce, ReduceOp.SUM, group)(x)


def _alltoall(x, move, rank, group):
    from minispore.ops.operations.comm_ops import AlltoAll
    src_dim, dst_dim = move.dims
    return _prim(AlltoAll, move.size, dst_dim, src_dim, group)(x)


def _mask(x, move, rank, group):
    from minispore.ops import functional as F
    if rank_coordinate(move.dev_matrix, rank)[move.axis] == 0:
        return x
    return F.mul(x, F.zeros_like(x))


_RUN = {"slice": _slice, "allgather": _allgather, "reducescatter": _reducescatter,
        "allreduce": _allreduce, "alltoall": _alltoall, "mask": _mask}


def apply_move(x, move, rank, mesh=None):
    """Run one Move on this rank's block `x` (a Tensor) with minispore operators, so the
    result is differentiable (every collective has its bprop) and traceable. `rank` is this
    process's position in `mesh` (a DeviceMesh; None: the world), whose world ranks form the
    collective's group."""
    group = None
    if move.collective:
        members = move.group(rank)
        group = group_name(mesh.world_ranks(members) if mesh is not None else members)
    return _RUN[move.kind](x, move, rank, group)


def redistribute(x, src, dst, global_shape, rank=None, enable_alltoall=False, moves=None,
                 mesh=None):
    """This rank's block of the tensor of `global_shape`, moved from layout `src` to `dst`.

    `x` is this rank's block under `src` (a Tensor, or a numpy array: then a numpy array comes
    back). Every rank of the layouts' devices must call it with the same arguments (they run
    the same collectives). `rank` defaults to this process's world rank; `moves` reuses a plan;
    with `mesh` (a DeviceMesh) the layouts' devices are its ranks and `rank` is a position.

    Raises:
        ValueError: x's shape is not src's block shape, or the rank is outside the layout.
    """
    import numpy as np

    from minispore.common.tensor import Tensor
    from minispore.communication import get_rank
    if rank is None:
        rank = get_rank()
    if moves is None:
        moves = plan(src, dst, global_shape, enable_alltoall)
    if not 0 <= rank < src.device_num:
        raise ValueError(f"redistribute: rank {rank} is outside the {src.device_num} devices "
                         f"of layout {src}.")
    want = src.local_shape(global_shape)
    if tuple(x.shape) != want:
        raise ValueError(f"redistribute: the local block has shape {tuple(x.shape)}, but "
                         f"{src} gives blocks of shape {want} for the global shape "
                         f"{tuple(global_shape)}.")
    as_numpy = isinstance(x, np.ndarray)
    t = Tensor(x) if as_numpy else x
    for move in moves:
        t = apply_move(t, move, rank, mesh)
    return t.asnumpy() if as_numpy else t
