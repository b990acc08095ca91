"""DeviceMesh: the world ranks a program (or a pipeline stage, or a placed worker set) runs on.

Layouts compute with mesh positions 0..size-1 (a device matrix over the mesh); the mesh turns
positions into world ranks when a collective's group is formed, so a strategy applied on the
sub-mesh of world ranks {4, 5, 6, 7} communicates among exactly those ranks.
"""

__all__ = ["DeviceMesh"]


class DeviceMesh:
    """``DeviceMesh(ranks, shape=None)``: the world ranks ``ranks`` (distinct, in mesh order)
    laid out as ``shape`` (default: one axis of all of them).

    >>> mesh = DeviceMesh((4, 5, 6, 7))
    >>> mesh.position(6), mesh.world_ranks((0, 3))
    (2, (4, 7))
    """

    __slots__ = ("ranks", "shape")

    def __init__(self, ranks, shape=None):
        ranks = tuple(ranks)
        if not ranks or any(not isinstance(r, int) or isinstance(r, bool) or r < 0
                            for r in ranks):
            raise ValueError(f"DeviceMesh: 'ranks' must be a non-empty sequence of "
                             f"non-negative int world ranks, but got {ranks}.")
        if len(set(ranks)) != len(ranks):
            raise ValueError(f"DeviceMesh: 'ranks' must be distinct, but got {ranks}.")
        shape = (len(ranks),) if shape is None else tuple(shape)
        size = 1
        for d in shape:
            size *= d
        if size != len(ranks):
            raise ValueError(f"DeviceMesh: shape {shape} holds {size} devices but {len(ranks)} "
                             f"ranks were given ({ranks}).")
        self.ranks = ranks
        self.shape = shape

    @property
    def size(self):
        return len(self.ranks)

    def __contains__(self, world_rank):
        return world_rank in self.ranks

    def position(self, world_rank):
        """The mesh position (0..size-1) of `world_rank`."""
        try:
            return self.ranks.index(world_rank)
        except ValueError:
            raise ValueError(f"Rank {world_rank} is not in the device mesh {self.ranks}.") \
                from None

    def world_ranks(self, positions):
        """The world ranks at mesh `positions`, in the same order."""
        return tuple(self.ranks[p] for p in positions)

    def __eq__(self, other):
        return isinstance(other, DeviceMesh) and (self.ranks, self.shape) == \
            (other.ranks, other.shape)

    def __hash__(self):
        return hash((self.ranks, self.shape))

    def __repr__(self):
        return f"DeviceMesh(ranks={self.ranks}, shape={self.shape})"
