"""The layout vocabulary of parallel execution: device matrix, tensor map, placements (plain data).

A TensorLayout says how one logical tensor lies over the devices of a stage:

- ``dev_matrix``: axis sizes whose product is the number of devices (MindSpore's dev_mat). Rank r
  sits at the row-major coordinates of r in dev_matrix, last axis fastest.
- ``tensor_map``: for each tensor dim, the dev_matrix axis that cuts it, counted from the RIGHT end
  of dev_matrix (0 = last axis), or -1 when the dim is not cut (MindSpore's convention). An entry
  may be a tuple of axes (MindSpore r2.3+ Layout: ``layout(("dp", "sp"), "None")``): the dim is
  cut into the product of their sizes, the FIRST axis outermost, so a rank's block of that dim is
  the mixed-radix number of its coordinates on those axes in that order.
- ``partial``: dev_matrix axes (same right-counted indices) along which the values are pending
  sums: every rank holds a term, the logical value is their sum (DTensor's Partial("sum")).

Along every axis that neither cuts a dim nor is partial, the tensor is replicated. The same facts
read per mesh axis give DTensor's placements: Shard(dim), Partial("sum") or Replicate().

Operators speak this vocabulary in their sharding rules without importing the parallel pass.

>>> lay = TensorLayout((2, 1, 4), (2, 1))      # MatMul ((2,1),(1,4)) input X on 8 devices
>>> lay.local_shape((8, 6)), lay.block_index(5)
((4, 6), (1, 0))
>>> two = TensorLayout((2, 2, 2), ((0, 2), -1))   # dim 0 over the last axis, then the first
>>> two.cuts(), [two.block_index(r)[0] for r in range(8)]
((4, 1), [0, 2, 0, 2, 1, 3, 1, 3])
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Shard:
    """The mesh axis cuts tensor dim `dim` into equal blocks."""
    dim: int


@dataclass(frozen=True)
class Replicate:
    """Every rank along the mesh axis holds the same values."""


@dataclass(frozen=True)
class Partial:
    """Every rank along the mesh axis holds one term of a pending reduction."""
    op: str = "sum"


def rank_coordinate(dev_matrix, rank):
    """Row-major coordinates of `rank` in dev_matrix (last axis fastest)."""
    coord = []
    for size in reversed(dev_matrix):
        coord.append(rank % size)
        rank //= size
    return tuple(reversed(coord))


def coordinate_rank(dev_matrix, coord):
    rank = 0
    for size, c in zip(dev_matrix, coord):
        rank = rank * size + c
    return rank


def group_ranks(dev_matrix, rank, axes):
    """The ranks whose coordinates equal `rank`'s on every axis except `axes` (left-counted
    indices), ordered by their coordinates along `axes`: the communication group along them."""
    base = list(rank_coordinate(dev_matrix, rank))
    groups = [base]
    for axis in sorted(axes):
        groups = [c[:axis] + [v] + c[axis + 1:] for c in groups for v in range(dev_matrix[axis])]
    return tuple(sorted(coordinate_rank(dev_matrix, c) for c in groups))


class TensorLayout:
    """How one logical tensor lies over a device matrix (see the module docstring)."""

    __slots__ = ("dev_matrix", "tensor_map", "partial")

    def __init__(self, dev_matrix, tensor_map, partial=()):
        dev_matrix, partial = tuple(dev_matrix), tuple(partial)
        tensor_map = tuple(_map_entry(m, tensor_map) for m in tensor_map)
        n = len(dev_matrix)
        if any(not isinstance(d, int) or d < 1 for d in dev_matrix):
            raise ValueError(f"TensorLayout: dev_matrix {dev_matrix} must hold positive ints.")
        flat = [a for m in tensor_map for a in (m if isinstance(m, tuple) else (m,))]
        used = [m for m in flat if m != -1] + list(partial)
        if any(not -1 <= m < n for m in flat) or any(not 0 <= p < n for p in partial):
            raise ValueError(f"TensorLayout: tensor_map {tensor_map} / partial {partial} index "
                             f"past dev_matrix {dev_matrix} (valid: -1 or 0..{n - 1}).")
        if len(set(used)) != len(used):
            raise ValueError(f"TensorLayout: a dev_matrix axis is used twice in tensor_map "
                             f"{tensor_map} / partial {partial}.")
        self.dev_matrix = dev_matrix
        self.tensor_map = tensor_map
        self.partial = tuple(sorted(partial))

    # -- conversions --------------------------------------------------------------------------
    def axis(self, right_index):
        """Left-counted dev_matrix axis of a right-counted tensor-map entry."""
        return len(self.dev_matrix) - 1 - right_index

    def dim_axes(self, dim):
        """Left-counted dev_matrix axes that cut tensor dim `dim`, outermost first (() if whole)."""
        m = self.tensor_map[dim]
        if isinstance(m, tuple):
            return tuple(self.axis(a) for a in m)
        return () if m == -1 else (self.axis(m),)

    @property
    def device_num(self):
        n = 1
        for d in self.dev_matrix:
            n *= d
        return n

    def placements(self):
        """DTensor's view: one Shard(dim) / Partial() / Replicate() per dev_matrix axis (left
        to right). Several axes may Shard one dim; their nesting order is in `dim_axes`."""
        out = [Replicate()] * len(self.dev_matrix)
        for dim in range(len(self.tensor_map)):
            for a in self.dim_axes(dim):
                out[a] = Shard(dim)
        for p in self.partial:
            out[self.axis(p)] = Partial()
        return tuple(out)

    @classmethod
    def from_placements(cls, dev_matrix, placements, ndim):
        """The layout of `placements`; axes sharding one dim nest left (outer) to right."""
        cutters = [[] for _ in range(ndim)]
        partial = []
        for axis, placement in enumerate(placements):
            right = len(dev_matrix) - 1 - axis
            if isinstance(placement, Shard):
                cutters[placement.dim].append(right)
            elif isinstance(placement, Partial):
                partial.append(right)
        return cls(dev_matrix, [tuple(c) if c else -1 for c in cutters], partial)

    # -- what a rank holds ------------------------------------------------------------------
    def cuts(self):
        """The number of blocks each tensor dim is cut into."""
        return tuple(_prod(self.dev_matrix[a] for a in self.dim_axes(d))
                     for d in range(len(self.tensor_map)))

    def local_shape(self, global_shape):
        if len(global_shape) != len(self.tensor_map):
            raise ValueError(f"TensorLayout: tensor_map {self.tensor_map} has "
                             f"{len(self.tensor_map)}"
                             f" dims but the tensor has shape {tuple(global_shape)}.")
        out = []
        for dim, (size, cut) in enumerate(zip(global_shape, self.cuts())):
            if size % cut:
                raise ValueError(f"TensorLayout: dim {dim} of shape {tuple(global_shape)} "
                                 f"cannot be divided by its cut {cut}.")
            out.append(size // cut)
        return tuple(out)

    def block_index(self, rank):
        """Which block of each tensor dim `rank` holds."""
        coord = rank_coordinate(self.dev_matrix, rank)
        out = []
        for dim in range(len(self.tensor_map)):
            b = 0
            for a in self.dim_axes(dim):       # mixed radix, the first axis outermost
                b = b * self.dev_matrix[a] + coord[a]
            out.append(b)
        return tuple(out)

    def local_slices(self, global_shape, rank):
        """The slice of the logical tensor that `rank` holds (a term of it if partial)."""
        local = self.local_shape(global_shape)
        return tuple(slice(b * n, (b + 1) * n) for b, n in zip(self.block_index(rank), local))

    def replica_axes(self):
        """Left-counted axes along which the tensor is replicated (not cut, not partial)."""
        used = {a for d in range(len(self.tensor_map)) for a in self.dim_axes(d)} | \
            {self.axis(p) for p in self.partial}
        return tuple(a for a in range(len(self.dev_matrix)) if a not in used)

    # -- value semantics ----------------------------------------------------------------------
    def _key(self):
        return (self.dev_matrix, self.tensor_map, self.partial)

    def __eq__(self, other):
        return isinstance(other, TensorLayout) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        extra = f", partial={self.partial}" if self.partial else ""
        return (f"TensorLayout(dev_matrix={self.dev_matrix}, tensor_map={self.tensor_map}"
                f"{extra})")


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def _map_entry(m, tensor_map):
    """One tensor-map entry in canonical form: an int, or a tuple of >= 2 axes (a one-axis
    tuple is that axis; lists, as JSON gives them back, are tuples)."""
    if isinstance(m, (tuple, list)):
        m = tuple(m)
        if not m or any(not isinstance(a, int) or isinstance(a, bool) or a < 0 for a in m):
            raise ValueError(f"TensorLayout: the tensor_map entry {m} in {tuple(tensor_map)} "
                             f"must be a non-empty tuple of dev_matrix axes (no -1 inside).")
        return m[0] if len(m) == 1 else m
    if not isinstance(m, int) or isinstance(m, bool):
        raise ValueError(f"TensorLayout: the tensor_map entry {m!r} in {tuple(tensor_map)} "
                         f"must be an int or a tuple of ints.")
    return m


def check_strategy_tuples(owner, arg_name, strategy):
    """A strategy as MindSpore's APIs take it: a tuple holding, per tensor, a tuple of positive
    ints (or a parallel Layout). TypeError / ValueError name `owner` and `arg_name`; shared by
    Primitive.shard, Cell.shard and dataset_strategy."""
    if not isinstance(strategy, tuple):
        raise TypeError(f"For '{owner}', the '{arg_name}' should be a tuple of tuples, "
                        f"but got {type(strategy).__name__}: {strategy!r}.")
    for item in strategy:
        if hasattr(item, "to_tensor_layout"):      # a parallel Layout (MindSpore r2.3+)
            continue
        if not isinstance(item, tuple):
            raise TypeError(f"For '{owner}', each element of '{arg_name}' should be a tuple, "
                            f"but got {type(item).__name__}: {item!r} in {strategy}.")
        for value in item:
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"For '{owner}', each value in '{arg_name}' should be an int, "
                                f"but got {value!r} in {strategy}.")
            if value < 1:
                raise ValueError(f"For '{owner}', each value in '{arg_name}' should be a "
                                 f"positive int, but got {value} in {strategy}.")
