"""Strategy search (``parallel_mode=AUTO_PARALLEL``, ``search_mode="dynamic_programming"`` or
``"recursive_programming"``): every forward operator's strategy chosen by one cost model
(mindspore_semantics.md §5.2, §5.3).

The cost model prices one training step on one device. It ranks plans; it does not predict
latency::

    cost = sent_bytes + COMPUTE_WEIGHT * flops + MEMORY_WEIGHT * parameter_bytes

- sent_bytes: what the device sends, priced as comm_stats prices collectives:
  * every edge producer -> consumer: the redistribution plan (redistribution.plan / cost)
    from the producer's completed output layout -- or, for a parameter read again, the
    layout its first consumer sliced it to -- to the layout the consumer needs;
  * every operator's completing collectives: the AllReduce of a partial output;
  * both counted twice where the tensor is or depends on a trainable parameter: the backward
    runs each collective's transpose (AllGather <-> ReduceScatter, AllReduce <-> AllReduce,
    AlltoAll <-> AlltoAll), which sends as many bytes;
  * once, the moves from a graph input's dataset layout and to the layout a returned tensor
    comes back in (no gradient flows into the inputs; a returned loss is whole already);
  * every trainable parameter's gradient AllReduce over the devices holding the same block
    (the mirror operator of partition.py).
  With the flops and memory weights at 0 this is the step's collectives as describe_plan
  predicts them (tests/parallel/test_strategy_search_mpi.py checks it on the MLP).
- flops: 2·|out|·K for an operator that contracts dims, |out| for the others (elementwise),
  divided by the number of distinct blocks (device_num / repeat: repeated work is not shared).
  |out| is the largest output's size; K, the contraction depth, is the smallest product,
  over the inputs that lose a cuttable dim in that output (a cut of it leaves a partial sum),
  of the dims the input loses: k of a MatMul, c·kh·kw of a Conv2D, the reduced extent of a
  reduction. Gather's table rows (a masked lookup, marked by a rule note) are no contraction.
- parameter_bytes: the bytes of the parameter blocks the device holds.

COMPUTE_WEIGHT = 1/16: a byte sent costs what 16 flops do (a GEMM at ~100 GFLOP/s beside a
~6 GB/s link). MEMORY_WEIGHT = 1/8: a resident parameter byte costs an eighth of a sent one,
so where traffic ties the plan holding less wins. Every rank computes the same costs in the
same order, so every rank makes the same choice; ties go to the candidate enumerated first
(fewest cuts first, as candidate_strategies orders them), and between whole plans of equal
cost to the one whose earliest differing operator comes first in that order.

dynamic_programming: the exact minimum of the model by variable elimination over the graph's
execution (a topological) order. The state after node i holds the strategies of the "live" nodes (those
with an edge to a later node): one live node on a chain, a few on trees and small DAGs, where
the result is the global optimum. When the live states exceed MAX_STATES, only the cheapest
MAX_STATES are kept (a beam; the only approximation). Candidates are candidate_strategies
plus the data-parallel default; user strategies (Primitive.shard) stay fixed.

recursive_programming (MindSpore's SAPP): the device count is bisected -- device_num's prime
factors, smallest first (2, 2, 2 for 8) -- and at each level, on a virtual mesh of the devices
cut so far, each operator, heaviest first (unsharded flops, then graph order), multiplies the
cut of one more of its dims by the factor (or of none: repeated work), choosing what is
cheapest against its neighbours: those already decided at this level as decided, the others
as the data-parallel default they would get without a search (as SAPP prices a cut by the
tensors it forces to be redistributed; without that prior the first operators decided, seeing
no neighbour, would cut weights whatever that costs the activations around them). User
strategies are ignored, with a warning naming them, unless the environment sets
MS_INTERFERED_SAPP=1 (MindSpore's switch): then they stay fixed and are priced at the last
level. A tuple dataset_strategy is priced at the last level only (its cuts need every device).

Strategies loaded from a strategy checkpoint stay fixed under both modes. A redistribution the
planner cannot run (device matrices without a common refinement, e.g. (2, 3) against (3, 2)
on 6 devices) is priced infinite, and a search left with no finite plan raises StrategyError.
Dynamic shapes are refused (NotImplementedError), as under sharding propagation.
"""
import logging
import math
from dataclasses import replace
from typing import NamedTuple

from minispore.common.layout import TensorLayout
from minispore.graph.ir import FORWARD, Value
from minispore.ops.sharding import tensor_args
from minispore.parallel.comm.stats import sent_bytes
from minispore.parallel.propagation import (candidate_strategies, cuttable_labels, refuse_dynamic,
                                            strategy_of)
from minispore.parallel.redistribution import cost, plan
from minispore.parallel.rules import StrategyError, apply_default, apply_strategy
from minispore.parallel.strategy.check import operator_layouts

__all__ = ["search_strategies", "CostModel", "SEARCH_MODES", "COMPUTE_WEIGHT",
           "MEMORY_WEIGHT", "MAX_STATES"]

logger = logging.getLogger("minispore")

SEARCH_MODES = ("dynamic_programming", "recursive_programming")
COMPUTE_WEIGHT = 1 / 16
MEMORY_WEIGHT = 1 / 8
MAX_STATES = 4096


def search_strategies(graph, settings, arg_avals, tensor_positions, pinned=()):
    """{id(node): (RuleResult, origin)} for every FORWARD node of `graph`, chosen by
    ``settings.search_mode``; origin is "searched", or "user" for a strategy kept fixed.
    `pinned`: ids of the nodes whose strategy a strategy checkpoint loaded (always kept).
    `arg_avals(node)` / `tensor_positions(node)` read a node's call arguments as the rules
    see them."""
    mode = settings.search_mode
    if mode not in SEARCH_MODES:
        raise ValueError(f"search_strategies: search_mode must be one of {list(SEARCH_MODES)}, "
                         f"but got {mode!r}.")
    refuse_dynamic(graph, mode)
    model = CostModel(graph, settings, arg_avals, tensor_positions)
    kept = _kept_nodes(model.nodes, mode, pinned, settings.interfered_sapp)
    fixed = {i: _user_result(model, i) for i in kept}
    if mode == "dynamic_programming":
        chosen = _dynamic_programming(model, fixed)
    else:
        chosen = _recursive_programming(graph, settings, arg_avals, tensor_positions, model,
                                        fixed)
    if math.isinf(model.total(chosen)):
        raise StrategyError(f"search_mode={mode!r} found no plan on {settings.device_num} "
                            f"devices whose redistributions minispore can run (device "
                            f"matrices without a common refinement); shard some operators "
                            f"with semi_auto_parallel instead.")
    return {id(node): (chosen[i], "user" if i in fixed else "searched")
            for i, node in enumerate(model.nodes)}


def _kept_nodes(nodes, mode, pinned, interfered):
    """Indices of the nodes whose strategy stays as given (see the module docstring)."""
    annotated = [i for i, n in enumerate(nodes) if n.annotations.get("in_strategy") is not None]
    keep_user = mode == "dynamic_programming" or interfered
    if keep_user:
        return annotated
    ignored = [nodes[i] for i in annotated if id(nodes[i]) not in pinned]
    if ignored:
        names = ", ".join(f"'{n.prim.name}' (in {n.scope}) {n.annotations['in_strategy']}"
                          for n in ignored)
        logger.warning("search_mode='recursive_programming' ignores the strategies set by "
                       "Primitive.shard on %s, as MindSpore does; set MS_INTERFERED_SAPP=1 to "
                       "keep them.", names)
    return [i for i in annotated if id(nodes[i]) in pinned]


def _user_result(model, i):
    node = model.nodes[i]
    return apply_strategy(node.prim, model.args[i], node.annotations["in_strategy"],
                          model.settings.device_num, node.annotations.get("out_strategy"),
                          scope=node.scope)


# -- the cost model ---------------------------------------------------------------------------
class Edge(NamedTuple):
    """A tensor read by node `dst` (its rule's input `k`) from node `src`: the output
    ``port = ("out", o)``, or, for a parameter read again, the block its first reader sliced
    (``port = ("in", k0)``)."""
    src: int
    port: tuple
    dst: int
    k: int
    value: Value


class CostModel:
    """The module docstring's model for the FORWARD nodes of `graph` on
    ``settings.device_num`` devices: ``unary(i, result)`` prices what node i costs alone,
    ``pair(edge, src_result, dst_result)`` an edge between two nodes, ``total(results)`` a
    whole plan (one RuleResult per node, in graph order). With both weights 0, ``total`` is
    the bytes the plan's step sends per device (what describe_plan predicts)."""

    def __init__(self, graph, settings, arg_avals, tensor_positions, price_inputs=True,
                 compute_weight=COMPUTE_WEIGHT, memory_weight=MEMORY_WEIGHT):
        self.settings = settings
        self.compute_weight = compute_weight
        self.memory_weight = memory_weight
        self.nodes = [n for n in graph.nodes if n.phase == FORWARD]
        self.args = [arg_avals(n) for n in self.nodes]
        self.positions = [tensor_positions(n) for n in self.nodes]
        self.edges = []             # Edges, sources before destinations
        self.touching = [[] for _ in self.nodes]        # the Edges at each node
        self.rereads = [[] for _ in self.nodes]     # Edges of a parameter read twice by a node
        self.from_inputs = [[] for _ in self.nodes]     # (k, Value, dataset layout)
        self.first_reads = [[] for _ in self.nodes]     # (k, Value) of parameters read first
        self.returned = [[] for _ in self.nodes]        # (o, Value, layout returned in)
        self.trainable = set()      # ids of trainable parameters and the Values they reach
        self.work = [_work(n.prim, a) for n, a in zip(self.nodes, self.args)]
        self._bytes = {}
        self._link(graph, price_inputs)

    def _link(self, graph, price_inputs):
        index = {id(n): i for i, n in enumerate(self.nodes)}
        inputs = {}
        if price_inputs:
            inputs = {id(v): self.settings.input_layout(j, len(v.shape))
                      for j, v in enumerate(graph.inputs)}
        first_read = {}
        for i, node in enumerate(self.nodes):
            for k, pos in enumerate(self.positions[i]):
                x = node.inputs[pos]
                if not isinstance(x, Value):
                    continue        # a constant: every device holds it whole
                if x.producer is not None and id(x.producer) in index:
                    self._add_edge(Edge(index[id(x.producer)], ("out", x.index), i, k, x))
                elif x.param is not None and id(x) in first_read:
                    self._add_edge(Edge(*first_read[id(x)], i, k, x))
                elif x.param is not None:
                    first_read[id(x)] = (i, ("in", k))
                    self.first_reads[i].append((k, x))
                    if x.param.requires_grad:
                        self.trainable.add(id(x))
                elif id(x) in inputs:
                    self.from_inputs[i].append((k, x, inputs[id(x)]))
            if any(id(v) in self.trainable for v in node.input_values()):
                self.trainable.update(id(v) for v in node.outputs)
        batch = graph.inputs[0].shape[0] if graph.inputs and graph.inputs[0].shape else None
        for v in graph.output_values():
            if v.producer is not None and id(v.producer) in index:
                self.returned[index[id(v.producer)]].append(
                    (v.index, v, self.settings.output_layout(tuple(v.shape), batch)))

    def _add_edge(self, edge):
        if edge.src == edge.dst:
            self.rereads[edge.dst].append(edge)
            return
        self.edges.append(edge)
        self.touching[edge.src].append(edge)
        self.touching[edge.dst].append(edge)

    def _sent(self, src, dst, value):
        """Bytes per device of redistributing `value` from `src` to `dst` (memoised); infinite
        where the planner cannot (device matrices without a common refinement), so that no
        plan needing it is chosen."""
        key = (tuple(value.shape), value.dtype.np_dtype.itemsize, src, dst)
        if key not in self._bytes:
            try:
                moves = plan(src, dst, key[0], self.settings.enable_alltoall)
            except NotImplementedError:
                self._bytes[key] = math.inf
            else:
                self._bytes[key] = cost(moves, key[0], key[1])
        return self._bytes[key]

    def _both_ways(self, value):
        """2 where the backward runs the transposed collectives too, else 1."""
        return 2 if id(value) in self.trainable else 1

    def unary(self, i, result):
        """Compute, completing collectives, parameters read here, moves from graph inputs and
        to the returned layouts, for node i under `result`."""
        node = self.nodes[i]
        blocks = self.settings.device_num // result.repeat
        total = self.compute_weight * self.work[i] / blocks
        for o, v in enumerate(node.outputs):
            out = result.out_layouts[o]
            if out.partial:
                total += self._both_ways(v) * self._sent(out, _completed(out), v)
        for k, v in self.first_reads[i]:
            total += self._parameter_cost(_completed(result.in_layouts[k]), v)
        for edge in self.rereads[i]:
            total += self.pair(edge, result, result)
        for k, v, layout in self.from_inputs[i]:
            total += self._sent(layout, result.in_layouts[k], v)
        for o, v, layout in self.returned[i]:
            total += self._sent(_completed(result.out_layouts[o]), layout, v)
        return total

    def _parameter_cost(self, layout, value):
        """A parameter block held per device, and its gradient's AllReduce over the
        replicas."""
        block = value.dtype.np_dtype.itemsize * _prod(layout.local_shape(tuple(value.shape)))
        total = self.memory_weight * block
        if value.param.requires_grad:
            replicas = _prod(layout.dev_matrix[a] for a in layout.replica_axes())
            total += sent_bytes("AllReduce", block, replicas)
        return total

    def pair(self, edge, src, dst):
        """The redistribution along `edge` between node results `src` and `dst`."""
        kind, slot = edge.port
        have = src.out_layouts[slot] if kind == "out" else src.in_layouts[slot]
        return self._both_ways(edge.value) * self._sent(_completed(have), dst.in_layouts[edge.k],
                                                        edge.value)

    def total(self, results):
        return (sum(self.unary(i, r) for i, r in enumerate(results))
                + sum(self.pair(e, results[e.src], results[e.dst]) for e in self.edges))

    def result(self, i, strategy):
        """Node i's RuleResult under `strategy`, or None when the strategy is invalid."""
        node = self.nodes[i]
        try:
            return operator_layouts(node.prim, self.args[i], strategy,
                                    self.settings.device_num, scope=node.scope)
        except (StrategyError, ValueError):
            return None

    def default(self, i):
        """Node i's data-parallel default (what semi-auto parallel gives it unannotated)."""
        node = self.nodes[i]
        tensors = [node.inputs[p] for p in self.positions[i]]
        params = tuple(k for k, x in enumerate(tensors)
                       if isinstance(x, Value) and x.param is not None)
        return apply_default(node.prim, self.args[i], self.settings.device_num, params,
                             scope=node.scope)

    def candidates(self, i):
        """Node i's valid candidate results, in enumeration order, the data-parallel default
        included (it may cut a dim by a count that is not a power of two)."""
        node = self.nodes[i]
        n = self.settings.device_num
        strategies = candidate_strategies(node.prim, self.args[i], n)
        default = self.default(i).strategy
        if default not in strategies:
            strategies.append(default)
        found = [r for r in (self.result(i, s) for s in strategies) if r is not None]
        if not found:
            raise StrategyError(f"For '{node.prim.name}' (in {node.scope}), the strategy "
                                f"search found no valid strategy on {n} devices.")
        return found


def _completed(layout):
    return TensorLayout(layout.dev_matrix, layout.tensor_map)


def _prod(xs):
    p = 1
    for x in xs:
        p *= int(x)
    return p


def _work(prim, args):
    """The unsharded flops of the module docstring."""
    outs = prim.infer(*args)
    outs = outs if isinstance(outs, tuple) else (outs,)
    if not outs:
        return 0
    spec, cuttable = cuttable_labels(prim, args)
    o = max(range(len(outs)), key=lambda j: _prod(outs[j].shape))
    kept = set(spec.outputs[o]) if o < len(spec.outputs) else set()
    shapes = [a.shape for a in tensor_args(args)]
    depth = None
    for labs, shape in zip(spec.inputs, shapes):
        lost = [(lab, d) for lab, d in zip(labs, shape) if lab is not None and lab not in kept]
        if any(lab in cuttable and lab not in spec.notes for lab, _ in lost):
            k = _prod(d for _, d in lost)
            depth = k if depth is None else min(depth, k)
    size = _prod(outs[o].shape)
    return size if depth is None else 2 * size * depth


# -- dynamic programming ----------------------------------------------------------------------
def _dynamic_programming(model, fixed):
    """The plan of least total cost (exact unless a frontier exceeds MAX_STATES)."""
    n = len(model.nodes)
    options = [[fixed[i]] if i in fixed else model.candidates(i) for i in range(n)]
    unary = [[model.unary(i, r) for r in options[i]] for i in range(n)]
    incoming = [[] for _ in range(n)]
    last = list(range(n))       # the last node each node shares an edge with
    for j, edge in enumerate(model.edges):
        incoming[edge.dst].append((j, edge))
        last[edge.src] = max(last[edge.src], edge.dst)
    pair = {}

    def pair_cost(j, edge, a, b):
        if (j, a, b) not in pair:
            pair[j, a, b] = model.pair(edge, options[edge.src][a], options[edge.dst][b])
        return pair[j, a, b]

    states = {(): (0.0, ())}    # live choices -> (cost, choice of every node so far)
    live = []
    for i in range(n):
        live_next = [j for j in live + [i] if last[j] > i]
        found = {}
        for cost_so_far, chosen in sorted(states.values()):
            for c in range(len(options[i])):
                total = cost_so_far + unary[i][c]
                for j, edge in incoming[i]:
                    total += pair_cost(j, edge, chosen[edge.src], c)
                candidate = (total, chosen + (c,))
                key = tuple(candidate[1][j] for j in live_next)
                if key not in found or candidate < found[key]:
                    found[key] = candidate
        live = live_next
        states = dict(sorted(found.items(), key=lambda item: item[1])[:MAX_STATES])
    _, chosen = min(states.values())
    return [options[i][c] for i, c in enumerate(chosen)]


# -- recursive programming --------------------------------------------------------------------
def _bisection(device_num):
    """device_num's prime factors, smallest first: the cut added at each level."""
    factors, n, p = [], device_num, 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    return factors


def _recursive_programming(graph, settings, arg_avals, tensor_positions, model, fixed):
    """SAPP over the levels of `_bisection`; `model` is the full-mesh CostModel."""
    n = len(model.nodes)
    order = sorted(range(n), key=lambda i: (-model.work[i], i))
    specs = [cuttable_labels(node.prim, model.args[i]) for i, node in enumerate(model.nodes)]
    cuts = [{} for _ in range(n)]
    factors = _bisection(settings.device_num)
    devices = 1
    for level, factor in enumerate(factors):
        devices *= factor
        last = level == len(factors) - 1
        level_model = model if last else CostModel(
            graph, replace(settings, device_num=devices), arg_avals, tensor_positions,
            price_inputs=not isinstance(settings.dataset_strategy, tuple))
        decided = dict(fixed) if last else {}
        defaults = [level_model.default(i) for i in range(n)]
        for i in order:
            if i in fixed:
                continue
            spec, labels = specs[i]
            best = None
            for option in _grown_cuts(cuts[i], labels, factor):
                result = level_model.result(i, strategy_of(spec, option))
                if result is None:
                    continue
                price = _price_against(level_model, i, result, decided, defaults)
                if best is None or price < best[0]:
                    best = (price, option, result)
            _, cuts[i], decided[i] = best
    return [decided[i] for i in range(n)]


def _grown_cuts(cuts, labels, factor):
    """Each label's cut times `factor` in label order, then the cuts unchanged: the new
    devices repeat the work (always valid, as it was on the level before)."""
    for lab in labels:
        yield dict(cuts, **{lab: cuts.get(lab, 1) * factor})
    yield dict(cuts)


def _price_against(model, i, result, decided, defaults):
    """Node i's own cost plus its edges: to the neighbours decided at this level as decided,
    to the others as the data-parallel default they would get without a search."""
    total = model.unary(i, result)
    for edge in model.touching[i]:
        if edge.dst == i:
            total += model.pair(edge, decided.get(edge.src, defaults[edge.src]), result)
        else:
            total += model.pair(edge, result, decided.get(edge.dst, defaults[edge.dst]))
    return total
