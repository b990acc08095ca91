"""The elementwise-fusion pass: chains of elementwise nodes become one generated Numba kernel.

Each fusable operator is a scalar body of kernels/scalar.py (`SCALAR_BODIES`: the generated
kernel calls the same function the unfused kernels compile, inlined), or a template over its
operands ``{0}, {1}, …`` for data movement and bias adds. The pass grows groups backwards from
a root node through producers whose output is read only inside the group, then emits one kernel
that loops once over the output and evaluates the composed scalar bodies per element; values
that are the same for every element (size-1 inputs, ``Fill``, reshapes/broadcasts of those) are
computed once before the loop. Kernels are written as real modules by `fused_kernels`, so the
Numba on-disk cache serves them to later processes.

Fusion runs after `differentiate` and the optimizer update, so backward chains fuse too.
``MINISPORE_FUSION=0`` in the environment turns the pass off (for A/B measurements; the pass
in graph/compile.py reads it from the PassContext).
"""
from minispore.common.tensor import Tensor
from minispore.graph import fused_kernels
from minispore.graph.ir import Node, Value
from minispore.ops.operations import _math_grad_ops as G
from minispore.ops.operations import array_ops as A
from minispore.ops.operations import math_ops as M
from minispore.ops.operations import activation_ops as Act
from minispore.ops.primitive import Primitive

# The fused operators whose math is a body of kernels/scalar.py (named by the primitive's
# `kernel_name`, e.g. "exp", "gelu_tanh_grad"): the generated kernel calls that very function,
# inlined (fused_kernels), so fused and unfused results are the same by construction. Keyed by
# exact class: a subclass with other semantics must not inherit fusability.
SCALAR_BODIES = frozenset((
    M.Add, M.Sub, M.Mul, M.RealDiv, M.Neg, M.Maximum, M.Minimum, M.Pow, M.Exp, M.Log, M.Sqrt,
    M.Rsqrt, M.Square, M.Abs, M.Equal, M.NotEqual, M.Less, M.LessEqual, M.Greater,
    M.GreaterEqual, M.Select,
    Act.ReLU, Act.ReluGrad, Act.Sigmoid, Act.SigmoidGrad, Act.Tanh, Act.TanhGrad, Act.GeLU,
    Act.GeLUGrad,
    G.MaximumGrad, G.MinimumGrad, G.PowGradX, G.PowGradY, G.SqrtGrad, G.RsqrtGrad,
    G.SquareGrad, G.AbsGrad,
))

# Templates over the operands ``{0}, {1}, …`` for the fusable operators that are not a scalar
# body: data movement (Cast is the store into the output dtype, Fill the same value everywhere)
# and the bias adds, elementwise only on (N, C) inputs, where the bias broadcasts along rows.
DATA_MOVEMENT = {A.Cast: "{0}", A.Fill: "{2}"}
_ROW_BIAS = {Act.BiasAdd: fused_kernels.call("add", "{0}", "{1}"),
             Act.BiasAddReLU: fused_kernels.call("relu", fused_kernels.call("add", "{0}", "{1}"))}


def scalar_template(prim):
    """The call of the primitive's scalar body on its operands, in argument order."""
    name = prim.kernel_name
    return fused_kernels.call(name, *(f"{{{k}}}" for k in range(fused_kernels.arity(name))))


# Shape-only operators (data in argument 0): fusable where their input holds one value
# repeated (the backward of a mean broadcasts 1/n this way), as they then change nothing.
_LAYOUT_ONLY = (A.Reshape, M.BroadcastTo, M.DynamicBroadcastTo, A.ExpandDims, A.Squeeze)

# Dtypes the generated kernels compute in (numba has no float16 arithmetic on CPU).
_DTYPES = {"float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"}


class FusedElementwise(Primitive):
    """A chain of elementwise primitives run as one generated Numba kernel. ``fused`` holds the
    original primitives in order (attribute ``ops`` names them); ``kernel`` names the generated
    module (see `fused_kernels`). Exists
    only in compiled graphs, after autodiff, so it has no bprop."""

    differentiable = False
    writes_out = True       # the generated run takes out=

    def __init__(self, prims, module):
        super().__init__("FusedElementwise")
        self.fused = tuple(prims)
        self.add_prim_attr("ops", "+".join(p.name for p in prims))
        self.add_prim_attr("kernel", module.__name__)
        self.kernel_module = module
        # The generated `run` allocates the output and calls the kernel; binding it as the
        # instance's impl keeps the executor's per-node cost at one Python call.
        self.impl = module.run


def fuse_elementwise(graph):
    """Replace each maximal group of >= 2 fusable nodes, whose inner values are read only
    inside the group (or are uniform, see `_grow`), by one FusedElementwise node at the group
    root's position. Uniform nodes copied into groups stay until dead-code elimination."""
    consumers = _consumers(graph)
    index = {id(n): k for k, n in enumerate(graph.nodes)}
    grouped = set()
    replace = {}
    for k in range(len(graph.nodes) - 1, -1, -1):
        root = graph.nodes[k]
        if id(root) in grouped or _template(root) is None:
            continue
        group, replaced = _grow(graph, root, consumers, index, grouped)
        if len(group) >= 2:
            grouped.update(replaced)
            replace[id(root)] = _build(group)
    if replace:
        graph.nodes = [replace.get(id(n), n) for n in graph.nodes
                       if id(n) in replace or id(n) not in grouped]
    return graph


def _template(node):
    """The node's scalar template, or None when it cannot be fused."""
    prim = node.prim
    if node.side_effect or node.tuple_output or len(node.outputs) != 1:
        return None
    values = node.outputs + [x for x in node.inputs if isinstance(x, (Value, Tensor))]
    if any(str(v.dtype.np_dtype) not in _DTYPES for v in values):
        return None
    cls = type(prim)
    if cls in SCALAR_BODIES:
        entry = scalar_template(prim)
    elif cls in DATA_MOVEMENT:
        entry = DATA_MOVEMENT[cls]
    elif cls in _ROW_BIAS and len(node.inputs[0].shape) == 2:
        entry = _ROW_BIAS[cls]
    else:
        return None
    if any(isinstance(x, (tuple, list)) and any(isinstance(y, Value) for y in x)
           for x in node.inputs):
        return None
    return entry


def _is_layout_only(node):
    return (isinstance(node.prim, _LAYOUT_ONLY) and type(node.prim) in _LAYOUT_ONLY
            and not node.side_effect and len(node.outputs) == 1
            and isinstance(node.inputs[0], Value)
            and len(node.input_values()) == 1)


def _consumers(graph):
    """{id(Value): number of reads by nodes, plus one if the graph returns it}."""
    count = {}
    for node in graph.nodes:
        for v in node.input_values():
            count[id(v)] = count.get(id(v), 0) + 1
    for v in graph.output_values():
        count[id(v)] = count.get(id(v), 0) + 1
    return count


def _grow(graph, root, consumers, index, grouped):
    """The group rooted at `root` (in graph order) and the ids of the members it replaces.

    Producers are pulled in while every read of their output comes from the group, or while
    that output is uniform (one value repeated: cheap to recompute, so a copy joins the group
    and the original stays for its other readers), and while no in-place node lies between
    them and the root (they move to the root's position)."""
    members = {id(root): root}
    reads = {}                      # id(Value) -> reads from inside the group
    frontier = [root]
    uniform = {}
    while frontier:
        node = frontier.pop()
        for v in node.input_values():
            reads[id(v)] = reads.get(id(v), 0) + 1
        for v in _unique(node.input_values()):
            p = v.producer
            if p is None or id(p) in members or id(p) in grouped:
                continue
            if reads[id(v)] != consumers.get(id(v), 0) and not _uniform(v, uniform):
                continue
            if _template(p) is None and not (_is_layout_only(p) and
                                             _uniform(p.inputs[0], uniform)):
                continue
            if _written_between(graph, p, index[id(p)], index[id(root)]):
                continue
            members[id(p)] = p
            frontier.append(p)
    group = sorted(members.values(), key=lambda n: index[id(n)])
    # A member is replaced when all reads of its output come from replaced members; consumers
    # follow producers in graph order, so one reverse sweep settles it.
    replaced = {id(root)}
    from_replaced = {}
    for node in reversed(group):
        out = node.outputs[0]
        if node is not root and from_replaced.get(id(out), 0) == consumers.get(id(out), 0):
            replaced.add(id(node))
        if id(node) in replaced:
            for v in node.input_values():
                from_replaced[id(v)] = from_replaced.get(id(v), 0) + 1
    return group, replaced


def _scalar_like(shape):
    return all(isinstance(d, int) and d == 1 for d in shape)


def _uniform(x, memo):
    """Whether every element of `x` (a Value or constant Tensor) is provably the same value:
    it has one element, or an elementwise or layout-only node computed it from such values
    only. Layout-only nodes are fusable exactly on such inputs, whatever group they land in."""
    if _scalar_like(x.shape):
        return True
    p = x.producer if isinstance(x, Value) else None
    if p is None:
        return False
    if id(x) not in memo:
        ok = _template(p) is not None or _is_layout_only(p)
        memo[id(x)] = ok and all(_uniform(y, memo) for y in p.inputs
                                 if isinstance(y, (Value, Tensor)))
    return memo[id(x)]


def _written_between(graph, node, start, stop):
    """Whether an in-place node lies between `node` and the root. Any one counts: the values
    it writes may be aliased (Reshape outputs are views), so matching inputs is not enough."""
    return any(n.side_effect for n in graph.nodes[start + 1:stop])


def _unique(values):
    seen = set()
    out = []
    for v in values:
        if id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out


def _build(group):
    """The FusedElementwise node computing `group` (graph-ordered; the last is the root)."""
    root = group[-1]
    inside = {id(n) for n in group}
    out = root.outputs[0]
    externals = []                  # Values and constant Tensors read from outside, in order
    ext_index = {}
    steps = []                      # (node, template or None for layout-only, operands)
    for node in group:
        operands = []
        for x in node.inputs:
            if isinstance(x, Value) and x.producer is not None and id(x.producer) in inside:
                operands.append(("temp", id(x)))
            elif isinstance(x, (Value, Tensor)):
                key = id(x)
                if key not in ext_index:
                    ext_index[key] = len(externals)
                    externals.append(x)
                operands.append(("input", ext_index[key]))
            else:
                operands.append(("const", x))
        steps.append((node, _template(node), operands))
    uniform = {}
    # A uniform input (one value repeated, whatever its shape) is read once: its shape may
    # not even broadcast to the output's when only layout-only members read it.
    kinds = ["scalar" if _uniform(x, uniform) else _kind(x.shape, out.shape) for x in externals]
    rows = [k[1] for k in kinds if isinstance(k, tuple)]
    # The kernel's inner loop runs over one row shape; inputs with another one are expanded.
    kinds = [("row" if k[1] == rows[0] else "broadcast") if isinstance(k, tuple) else k
             for k in kinds]
    shape_from = next((i for i, x in enumerate(externals)
                       if isinstance(x, Value) and tuple(x.shape) == tuple(out.shape)), None)
    spec = fused_kernels.KernelSpec(
        inputs=[(str(x.dtype.np_dtype), kind) for x, kind in zip(externals, kinds)],
        steps=[(type(node.prim).__name__, template, operands,
                str(node.outputs[0].dtype.np_dtype), _operand_dtype(node))
               for node, template, operands in steps],
        temps=[id(node.outputs[0]) for node in group],
        out_dtype=str(out.dtype.np_dtype), shape_from=shape_from)
    module = fused_kernels.load(spec)
    inputs = list(externals) + ([] if shape_from is not None else [tuple(out.shape)])
    prim = FusedElementwise([n.prim for n in group], module)
    # The fused node keeps the provenance of the node whose output it makes (a fused backward
    # chain is backward work: memory accounting and the pipeline schedule read the phase).
    fused = Node(prim, inputs, [out], root.scope, dict(root.annotations), phase=root.phase,
                 derived_from=root.derived_from)
    fused.micro_batch = root.micro_batch
    out.producer = fused
    return fused


def _operand_dtype(node):
    """The numpy type name `{T}` stands for: the first tensor operand's dtype (the output's
    for nodes without tensor operands, like Fill)."""
    for x in node.inputs:
        if isinstance(x, (Value, Tensor)):
            return str(x.dtype.np_dtype)
    return str(node.outputs[0].dtype.np_dtype)


def _strip(shape):
    shape = tuple(shape)
    while shape and isinstance(shape[0], int) and shape[0] == 1:
        shape = shape[1:]
    return shape


def _kind(shape, out_shape):
    """How the kernel reads an input of `shape` for an output of `out_shape`: 'scalar' (one
    value, read once), 'full' (same elements, flat index), 'row' (a trailing block of the
    output's dims, read at index % its size), else 'broadcast' (materialised first)."""
    if _scalar_like(shape):
        return "scalar"
    s, o = _strip(shape), _strip(out_shape)
    if s == o:
        return "full"
    if len(s) < len(o) and s == o[len(o) - len(s):]:
        return ("row", s)
    return "broadcast"
