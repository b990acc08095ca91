"""The optimizer update of a `place` segment: each worker updates only the parameters that
live on it (minispore/parallel/place_partition.py), with their optimizer state."""
from minispore.ops import functional as F

__all__ = ["local_update"]


def local_update(update, wrt_owners, worker, tracer):
    """The program's ``update(grads)`` (one gradient per wrt entry) as the update of this
    worker's gradients, traced by `tracer` (the segment's).

    `wrt_owners`: (traced wrt Value, worker it lives on) per entry, in order. The entries living
    elsewhere get a zero stand-in; the whole update is traced (the optimizer loops over all its
    parameters), then every node it made that depends on another worker's parameter or
    stand-in is dropped, so those parameters and their state are not even read here. Nodes
    that depend on no parameter (the step counter, a learning-rate schedule) stay on every
    worker, each keeping its own copy in step.

    Raises:
        NotImplementedError: an update node combines parameters of different workers (a
            global-norm clipping, say): it cannot be split by where the parameters live.
    """
    param_owner = {id(v.param): owner for v, owner in wrt_owners if v.param is not None}

    def run(local_grads):
        graph = tracer.graph
        start = len(graph.nodes)
        owner_of = {}      # id(Value) -> the worker whose parameter it belongs to
        mine = iter(local_grads)
        grads = []
        for value, owner in wrt_owners:
            g = next(mine) if owner == worker else F.fill(value.dtype, tuple(value.shape), 0)
            owner_of[id(tracer.to_graph(g))] = owner
            grads.append(g)
        update(tuple(grads))
        kept = []
        for node in graph.nodes[start:]:
            owners = {owner_of[id(v)] for v in node.outputs if owner_of.get(id(v)) is not None}
            for v in node.input_values():
                owner = owner_of.get(id(v))
                if owner is None and v.param is not None:
                    owner = param_owner.get(id(v.param))
                if owner is not None:
                    owners.add(owner)
            if len(owners) > 1:
                raise NotImplementedError(
                    f"Under distributed graph partition (place), the optimizer update "
                    f"'{node.prim.name}' (in {node.scope}) combines parameters living on "
                    f"workers {sorted(owners)}, but each worker updates only its own "
                    f"parameters; updates that couple parameters of several workers (e.g. "
                    f"global-norm clipping) are not implemented. Place the cells of those "
                    f"parameters on one worker, or update them one by one.")
            owner = owners.pop() if owners else None
            for v in node.outputs:
                owner_of[id(v)] = owner
            if owner in (None, worker):
                kept.append(node)
        graph.nodes[start:] = kept
        tracer.drop_unread_parameters()

    return run
