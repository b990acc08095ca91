"""The optimizer update of a `place` segment or a pipeline stage: each worker (stage) updates
only the parameters that live on it (minispore/parallel/place/partition.py,
pipeline/stages.py), with their optimizer state."""
from minispore.ops import functional as F

__all__ = ["local_update"]


def local_update(update, wrt_owners, worker, tracer, where="worker",
                 state_owners=None):
    """The program's ``update(grads)`` (one gradient per wrt entry) as the update of this
    worker's gradients, traced by `tracer` (the segment's).

    `wrt_owners`: (traced wrt Value, worker it lives on) per entry, in order; `where`: what a
    worker is called in errors ("worker" for `place`, "pipeline stage"). The entries living
    elsewhere get a zero stand-in; the whole update is traced (the optimizer loops over all its
    parameters), then every node it made that depends on another worker's parameter or
    stand-in is dropped, so those parameters and their state are not even read here. Nodes
    that depend on no parameter (the step counter, a learning-rate schedule) stay on every
    worker, each keeping its own copy in step. `state_owners` (a dict), when given, receives
    ``{id(param): (param, {workers of the update nodes reading it})}`` for every parameter the
    update reads (None standing for a node of no worker), so checkpoints know where the
    optimizer state (momenta, moments) lives and which values every worker keeps.

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
                    f"The optimizer update '{node.prim.name}' (in {node.scope}) combines "
                    f"parameters living on {where}s {sorted(owners)}, but each {where} "
                    f"updates only its own parameters; updates that couple parameters of "
                    f"several {where}s (e.g. global-norm clipping) are not implemented. Keep "
                    f"the cells of those parameters on one {where}, or update them one by "
                    f"one.")
            owner = owners.pop() if owners else None
            for v in node.outputs:
                owner_of[id(v)] = owner
            if state_owners is not None:
                for v in node.input_values():
                    if v.param is not None:
                        state_owners.setdefault(id(v.param), (v.param, set()))[1].add(owner)
            if owner in (None, worker):
                kept.append(node)
        graph.nodes[start:] = kept
        tracer.drop_unread_parameters()

    return run
