"""Communication fusion in compiled programs (mindspore_semantics.md §11): collectives that
share a fusion id become one collective on a flat buffer.

A collective's fusion id is its primitive's ``fusion`` attribute when set (MindSpore's manual
id), else that of the parameter it serves: the partition pass traces a parameter's read (its
mirror, its optimizer-parallel AllGather) under the parameter's ``comm_fusion``
(``Cell.set_comm_fusion``, default 1), and the backward collectives derived from those nodes
(the gradient's AllReduce or ReduceScatter) inherit it. Id 0 is never fused.

After autodiff the pass groups the AllReduce / AllGather / ReduceScatter nodes by (kind,
group, reduce op, dtype, fusion id, phase) and cuts each group, in program order, into runs
that can share one node: a run stops before a member whose position is past the first use of
an earlier member's output, past a node that writes in place, or beyond the size cap
(``comm_fusion={"allreduce"|"allgather"|"reducescatter": {"mode": "size", "config": MB}}``,
64 MB by default, as MindSpore's "auto"). A run of two or more becomes one `FusedCollective`
node at its last member's position, producing the members' own output Values, so no consumer
changes. ``comm_fusion={"openstate": False}`` turns fusion off. Collectives that recompute
re-emitted in the backward (``duplicated``) are not fused.
"""
import numpy as np

from minispore import device
from minispore.communication import collectives as _coll
from minispore.graph.ir import Node
from minispore.ops.operations.comm_ops import AllGather, AllReduce, ReduceScatter
from minispore.ops.primitive import Aval, Primitive

__all__ = ["fuse_communication", "FusedCollective", "fusion_id"]

_KINDS = {AllReduce: "AllReduce", AllGather: "AllGather", ReduceScatter: "ReduceScatter"}
_CONFIG_KEYS = {"AllReduce": "allreduce", "AllGather": "allgather",
                "ReduceScatter": "reducescatter"}
_DEFAULT_CAP_MB = 64


def fusion_id(node):
    """The fusion id of a collective node (see the module docstring)."""
    own = node.prim.attrs.get("fusion", 0)
    if own:
        return own
    for source in (node, node.derived_from):
        if source is not None and "param_fusion" in source.annotations:
            return source.annotations["param_fusion"]
    return 0


def _cap(config, kind):
    """Bytes per fused collective of `kind` (comm_fusion `config`'s size, else MindSpore's
    64 MB)."""
    key = _CONFIG_KEYS[kind]
    entry = config[key]
    if entry["mode"] == "index":
        raise NotImplementedError(
            f"comm_fusion['{key}'] mode 'index' is not implemented for compiled operator-"
            f"parallel programs in minispore (it splits data-parallel gradient buckets); use "
            f"mode 'size' or 'auto', or Cell.set_comm_fusion ids.")
    mb = entry["config"] if entry["mode"] == "size" else _DEFAULT_CAP_MB
    return mb * (1 << 20)


def _nbytes(value):
    n = value.dtype.np_dtype.itemsize
    for d in value.shape:
        n *= int(d)
    return n


def fuse_communication(program, ctx):
    """Fuse the collectives of `program` that share a fusion id (module docstring)."""
    config = ctx.option("auto_parallel.comm_fusion")
    if config["openstate"] is False:
        return program
    graph = program.graph
    position = {id(n): k for k, n in enumerate(graph.nodes)}
    first_use = {}
    for k, node in enumerate(graph.nodes):
        for v in node.input_values():
            first_use.setdefault(id(v), k)
    writes = [k for k, n in enumerate(graph.nodes) if n.side_effect]
    groups = {}
    for node in graph.nodes:
        kind = _KINDS.get(type(node.prim))
        # A recomputed collective (minispore/graph/recompute.py) stays just before its backward
        # reader: fused, it would move up to where its inputs exist and live from there.
        fid = fusion_id(node) if kind and not node.annotations.get("duplicated") else 0
        if fid:
            x = node.input_values()[0]
            key = (kind, node.prim.group, node.prim.attrs.get("op"), x.dtype, fid, node.phase)
            groups.setdefault(key, []).append(node)
    inserted, removed = {}, set()
    for (kind, *_), members in groups.items():
        for run, at in _runs(members, position, first_use, writes, _cap(config, kind)):
            if len(run) > 1:
                inserted.setdefault(at, []).append(_fused_node(kind, run))
                removed.update(id(n) for n in run)
    if inserted:
        nodes = []
        for k, node in enumerate(graph.nodes):
            nodes.extend(inserted.get(k, ()))
            if id(node) not in removed:
                nodes.append(node)
        graph.nodes = nodes
    return program


def _ready(node, position):
    """The position after which every input of `node` exists (-1: parameters, inputs)."""
    return max((position.get(id(v.producer), -1) for v in node.input_values()), default=-1)


def _runs(members, position, first_use, writes, cap):
    """Cut `members` (program order) into runs one node can replace, each with the position
    its fused node takes: right after the last of its inputs is made, which must come before
    the first use of any of its outputs, with no in-place write in between."""
    runs, run = [], []
    ready = used = size = 0
    for node in members:
        nbytes = _nbytes(node.input_values()[0])
        node_ready = _ready(node, position)
        node_used = first_use.get(id(node.outputs[0]), len(position))
        if run:
            at = max(ready, node_ready) + 1
            last = max(position[id(n)] for n in run + [node])
            if at > min(used, node_used) or size + nbytes > cap or \
                    any(at <= w < last for w in writes):
                runs.append((run, ready + 1))
                run = []
        if not run:
            ready, used, size = node_ready, node_used, 0
        run.append(node)
        ready, used, size = max(ready, node_ready), min(used, node_used), size + nbytes
    if run:
        runs.append((run, ready + 1))
    return runs


def _fused_node(kind, run):
    first = run[0]
    prim = FusedCollective(kind, first.prim.attrs.get("op"), first.prim.group,
                           [tuple(n.input_values()[0].shape) for n in run],
                           [tuple(n.outputs[0].shape) for n in run])
    outputs = [n.outputs[0] for n in run]
    node = Node(prim, [n.inputs[0] for n in run], outputs, first.scope,
                dict(run[-1].annotations, fused=len(run)), tuple_output=True,
                phase=run[-1].phase)
    for i, v in enumerate(outputs):
        v.producer, v.index = node, i
    return node


class FusedCollective(Primitive):
    """One AllReduce / AllGather / ReduceScatter over the flat concatenation of several
    inputs (what `fuse_communication` makes); returns each input's own result. Placed after
    autodiff, so it has no bprop."""
    differentiable = False

    def __init__(self, kind, op, group, in_shapes, out_shapes):
        super().__init__()
        self.kind, self.op, self.group = kind, op, group
        self.in_shapes, self.out_shapes = list(in_shapes), list(out_shapes)
        self.add_prim_attr("kind", kind)
        self.add_prim_attr("group", group)
        self.add_prim_attr("count", len(in_shapes))

    def infer(self, *xs):
        return tuple(Aval(s, x.dtype) for s, x in zip(self.out_shapes, xs))

    def impl(self, *arrays):
        on_device = any(device.is_device_array(a) for a in arrays)
        host = [np.ascontiguousarray(device.to_host(a)) if on_device else
                np.ascontiguousarray(a) for a in arrays]
        outs = getattr(self, "_" + self.kind)(host)
        return tuple(device.asarray(o) for o in outs) if on_device else tuple(outs)

    def _AllReduce(self, xs):
        flat = _coll.all_reduce(np.concatenate([x.ravel() for x in xs]), self.op, self.group)
        return _split(flat, [x.size for x in xs], self.out_shapes)

    def _AllGather(self, xs):
        flat = _coll.all_gather(np.concatenate([x.ravel() for x in xs]), self.group)
        k = flat.size // sum(x.size for x in xs)
        table = flat.reshape(k, -1)          # row r: rank r's concatenation
        outs, start = [], 0
        for x, shape in zip(xs, self.out_shapes):
            outs.append(np.ascontiguousarray(table[:, start:start + x.size]).reshape(shape))
            start += x.size
        return outs

    def _ReduceScatter(self, xs):
        k = xs[0].shape[0] // self.out_shapes[0][0]
        # rank r's part of every input side by side, so the scatter hands each rank its parts
        table = np.concatenate([x.reshape(k, -1) for x in xs], axis=1)
        flat = _coll.reduce_scatter(np.ascontiguousarray(table).ravel(), self.op, self.group)
        return _split(flat, [x.size // k for x in xs], self.out_shapes)


def _split(flat, sizes, shapes):
    outs, start = [], 0
    for n, shape in zip(sizes, shapes):
        outs.append(np.ascontiguousarray(flat[start:start + n]).reshape(shape))
        start += n
    return outs
