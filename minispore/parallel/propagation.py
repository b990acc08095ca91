"""Sharding propagation (``parallel_mode=AUTO_PARALLEL, search_mode="sharding_propagation"``):
the strategies of the few operators the user configured spread to every other forward
operator (mindspore_semantics.md §5.1).

1. Every configured operator keeps its strategy (``Primitive.shard``, Layouts included).
2. Breadth-first from them, along producer and consumer edges, each unconfigured operator
   takes the candidate strategy with the least redistribution against its already-fixed
   neighbours, producers and consumers alike: the bytes per device each edge then moves (the
   planner of redistribution.py prices it). Ties go to the candidate whose own collectives
   (the AllReduce completing a partial output) move fewer bytes, then to the one that holds
   the same blocks as more of its decided neighbours' split (non-replicated) layouts, then
   to fewer cuts, then to the first enumerated, so every rank picks the same plan. Slicing a
   replicated tensor moves no bytes, so without the agreement term a whole candidate ties
   with the split a consumer wants, wins on fewer cuts, and every rank computes the whole
   producer: a split given to one operator is then never carried back to what feeds it.
   Agreement, not smaller blocks, breaks the tie: cutting an operator nobody decided wants
   cut saves compute but can cost a redistribution further on that this greedy pass
   cannot see yet (a split after a completed partial output met by a consumer wanting it
   whole). Candidates are every power-of-two cut of the operator's dims whose product
   divides the devices.
3. The breadth-first pass decides an operator against the neighbours decided before it, so one
   reached first from one side never heard of the other: an operator between a sharded Gather
   (whose completed output is whole) and a configured MatMul was decided whole against the
   Gather before the MatMul's split reached its consumer. So every propagated operator is then
   priced again against all its neighbours, producers and consumers alike, and takes a
   candidate strictly cheaper than its own, until none changes. The revision's price adds to
   the redistribution bytes those of the gradient AllReduce over the replicas of each
   trainable parameter the operator reads (the mirror operator, which the strategy search
   prices too): cutting a batch already split by the data-parallel inputs moves fewer
   activation bytes than gathering it, but leaves the weight whole and its gradient summed
   every step. Each edge costs the same priced from either end and a parameter's AllReduce
   belongs to its reader, so a change lowers the plan's total price (bytes, then
   own-collective bytes, then agreements) and the revision ends.
4. Operators no configured one reaches keep MindSpore's data-parallel default.

Each propagated node records why (``annotations["strategy_reason"]``: its final price against
all its neighbours, the runner-up, and the strategy the first pass gave it when the revision
changed it), which the INFO plan and describe_plan print.

A strategy costing more than nothing is kept with a warning naming the operator (MindSpore
warns too): the user's strategies then force a redistribution somewhere.
"""
import itertools
import logging
import math
from collections import deque

from minispore.common.symbolic import is_symbolic
from minispore.graph.ir import FORWARD, Value
from minispore.parallel.comm.stats import sent_bytes
from minispore.parallel.param_slicing import fixed_layout
from minispore.parallel.redistribution import cost, plan
from minispore.parallel.rules import StrategyError, apply_default, apply_strategy, rule_of
from minispore.parallel.strategy.check import operator_layouts

__all__ = ["propagate_strategies"]

logger = logging.getLogger("minispore")


def propagate_strategies(graph, settings, arg_avals, tensor_positions, within=None):
    """{id(node): (RuleResult, origin)} for every FORWARD node of `graph`; origin is "user",
    "propagated" or "data-parallel default". `arg_avals(node)` / `tensor_positions(node)`
    read a node's call arguments as the rules see them. With `within` (a predicate on nodes),
    only the nodes it accepts take propagated strategies (semi-auto's shard regions)."""
    nodes = [n for n in graph.nodes if n.phase == FORWARD]
    refuse_dynamic(graph)
    consumers = {}
    for node in nodes:
        for pos, x in enumerate(node.inputs):
            if isinstance(x, Value):
                consumers.setdefault(id(x), []).append((node, pos))
    input_layouts = {id(v): settings.input_layout(i, len(v.shape))
                     for i, v in enumerate(graph.inputs)}
    fixed = {}
    queue = deque()
    for node in nodes:
        strategy = node.annotations.get("in_strategy")
        if strategy is not None:
            fixed[id(node)] = (apply_strategy(node.prim, arg_avals(node), strategy,
                                              settings.device_num,
                                              node.annotations.get("out_strategy"),
                                              scope=node.scope), "user")
            queue.append(node)
    by_id = {id(n): n for n in nodes}
    propagated = []
    while queue:
        node = queue.popleft()
        for neighbour in _neighbours(node, consumers, by_id):
            if id(neighbour) in fixed or (within is not None and not within(neighbour)):
                continue
            fixed[id(neighbour)] = (_priced(neighbour, fixed, consumers, input_layouts,
                                            settings, arg_avals, tensor_positions)[0][1],
                                    "propagated")
            propagated.append(neighbour)
            queue.append(neighbour)
    _revise(propagated, fixed, consumers, by_id, input_layouts, settings, arg_avals,
            tensor_positions)
    for node in nodes:
        if id(node) not in fixed:
            args = arg_avals(node)
            tensors = [node.inputs[i] for i in tensor_positions(node)]
            params = tuple(k for k, x in enumerate(tensors)
                           if isinstance(x, Value) and x.param is not None)
            fixed[id(node)] = (apply_default(node.prim, args, settings.device_num, params,
                                             scope=node.scope), "data-parallel default")
    return fixed


def refuse_dynamic(graph, mode="sharding_propagation"):
    """Auto parallel's search modes take concrete shapes only, as in MindSpore."""
    for v in graph.inputs:
        if any(is_symbolic(d) for d in v.shape):
            raise NotImplementedError(
                f"search_mode={mode!r} does not support dynamic shapes (input %{v.name} has "
                f"shape {tuple(v.shape)}), as in MindSpore; use "
                f"parallel_mode='semi_auto_parallel' with Symbol(divisor=...) dims.")


def _neighbours(node, consumers, by_id):
    """The forward nodes that produce node's inputs or consume its outputs, in graph order."""
    found = []
    for x in node.input_values():
        if x.producer is not None and id(x.producer) in by_id:
            found.append(x.producer)
    for v in node.outputs:
        found.extend(c for c, _ in consumers.get(id(v), ()))
    return found


def cuttable_labels(prim, args):
    """The operator's einsum spec and its labelled dims that may be cut, in order of first
    appearance."""
    outs = prim.infer(*args)
    outs = outs if isinstance(outs, tuple) else (outs,)
    spec = rule_of(prim).spec(prim, args, outs)
    labels = []
    for labs in spec.inputs:
        for lab in labs:
            if lab is not None and lab not in spec.fixed and lab not in labels:
                labels.append(lab)
    return spec, labels


def strategy_of(spec, cuts):
    """The strategy tuple that cuts each label of `spec` by ``cuts.get(label, 1)``."""
    return tuple(tuple(cuts.get(lab, 1) if lab is not None else 1 for lab in labs)
                 for labs in spec.inputs)


def candidate_strategies(prim, args, device_num):
    """Every strategy of power-of-two cuts of the operator's labelled dims whose product
    divides `device_num`, fewest cuts first."""
    spec, labels = cuttable_labels(prim, args)
    powers = [1 << k for k in range(device_num.bit_length()) if (1 << k) <= device_num]
    found = []
    for cuts in itertools.product(powers, repeat=len(labels)):
        total = 1
        for c in cuts:
            total *= c
        if device_num % total:
            continue
        found.append((total, strategy_of(spec, dict(zip(labels, cuts)))))
    found.sort(key=lambda item: item[0])
    return [s for _, s in found]


def _priced(node, fixed, consumers, input_layouts, settings, arg_avals, tensor_positions):
    """[(price, RuleResult)] of the node's valid candidates against its decided neighbours,
    least first (stable: among equal prices the earlier enumerated, fewer cuts, wins)."""
    args = arg_avals(node)
    priced = []
    for strategy in candidate_strategies(node.prim, args, settings.device_num):
        try:
            result = operator_layouts(node.prim, args, strategy, settings.device_num,
                                      scope=node.scope)
        except (StrategyError, ValueError):
            continue
        price = _price(node, result, fixed, consumers, input_layouts, settings,
                       tensor_positions)
        priced.append((price, result))
    if not priced:
        raise StrategyError(f"For '{node.prim.name}' (in {node.scope}), sharding propagation "
                            f"found no valid strategy on {settings.device_num} devices.")
    priced.sort(key=lambda item: item[0])
    return priced


def _revise(propagated, fixed, consumers, by_id, input_layouts, settings, arg_avals,
            tensor_positions):
    """Price every propagated node again against all its neighbours and move it to a strictly
    cheaper candidate until none moves (module docstring, step 3); then record each one's
    reason and warn where its price is not zero."""
    first = {id(n): fixed[id(n)][0].strategy for n in propagated}
    pending = deque(propagated)
    queued = {id(n) for n in propagated}
    while pending:
        node = pending.popleft()
        queued.discard(id(node))
        current = fixed[id(node)][0]
        priced = _priced(node, fixed, consumers, input_layouts, settings, arg_avals,
                         tensor_positions)
        priced = _with_gradients(node, priced, tensor_positions, settings)
        own = next(price for price, r, _ in priced if r.strategy == current.strategy)
        if priced[0][0] >= own:
            continue
        fixed[id(node)] = (priced[0][1], "propagated")
        for neighbour in _neighbours(node, consumers, by_id):
            if id(neighbour) in first and id(neighbour) not in queued:
                pending.append(neighbour)
                queued.add(id(neighbour))
    for node in propagated:
        result = fixed[id(node)][0]
        priced = _with_gradients(node, _priced(node, fixed, consumers, input_layouts, settings,
                                               arg_avals, tensor_positions),
                                 tensor_positions, settings)
        mine = next(k for k, (_, r, _) in enumerate(priced) if r.strategy == result.strategy)
        priced.insert(0, priced.pop(mine))
        reason = _reason(node, priced, fixed, consumers)
        if first[id(node)] != result.strategy:
            reason += (f"; revised from {first[id(node)]}, which the first pass chose before "
                       f"all its neighbours were decided")
        node.annotations["strategy_reason"] = reason
        redistributed = priced[0][0][0] - priced[0][2]
        if redistributed > 0:
            logger.warning("Sharding propagation: '%s' (in %s) takes strategy %s, which needs "
                           "%d bytes of redistribution per device against its neighbours' "
                           "strategies.", node.prim.name, node.scope, result.strategy,
                           redistributed)


def _with_gradients(node, priced, tensor_positions, settings):
    """[(price, RuleResult, gradient bytes)]: `priced` with each price's bytes raised by the
    gradient AllReduce of the trainable parameters `node` reads, least first (stable)."""
    raised = []
    for (moved, own, agree), result in priced:
        grads = 0
        for k, i in enumerate(tensor_positions(node)):
            x = node.inputs[i]
            if isinstance(x, Value) and x.param is not None and x.param.requires_grad:
                layout = result.in_layouts[k]
                block = x.dtype.np_dtype.itemsize * math.prod(layout.local_shape(tuple(x.shape)))
                replicas = math.prod(layout.dev_matrix[a] for a in layout.replica_axes())
                grads += sent_bytes("AllReduce", block, replicas)
        raised.append(((moved + grads, own, agree), result, grads))
    raised.sort(key=lambda item: item[0])
    return raised


def _reason(node, priced, fixed, consumers):
    """The sentence saying why `node` holds priced[0]'s strategy (priced[1] the runner-up),
    from _with_gradients' triples."""
    (total, own, agree), _, grads = priced[0]
    against = [x.producer.scope for x in node.input_values()
               if x.producer is not None and id(x.producer) in fixed]
    against += [c.scope for v in node.outputs for c, _ in consumers.get(id(v), ())
                if id(c) in fixed]
    text = (f"least cost of {len(priced)} candidates against "
            f"{', '.join(against) or 'the graph inputs'}: {total - grads} B redistributed, "
            f"{grads} B of gradient AllReduce, {own} B in its own collectives, the blocks of "
            f"{-agree} split neighbours kept")
    if len(priced) > 1:
        (r_total, r_own, r_agree), runner, r_grads = priced[1]
        text += (f"; next {runner.strategy}: {r_total - r_grads} B, {r_grads} B, {r_own} B, "
                 f"{-r_agree} kept")
    return text


def _edge_bytes(src, dst, value, settings):
    shape = tuple(value.shape)
    moves = plan(src, dst, shape, settings.enable_alltoall)
    return cost(moves, shape, value.dtype.np_dtype.itemsize)


def _completed(layout):
    from minispore.common.layout import TensorLayout
    return TensorLayout(layout.dev_matrix, layout.tensor_map)


def _agrees(have, want, shape):
    """Whether `want` is a split (not replicated) layout whose blocks `have` holds on every
    rank: the edge keeps a neighbour's cut rather than merely slicing a whole tensor."""
    shape = tuple(shape)
    if all(c == 1 for c in want.cuts()) or have.device_num != want.device_num:
        return False
    return all(have.local_slices(shape, r) == want.local_slices(shape, r)
               for r in range(want.device_num))


def _price(node, result, fixed, consumers, input_layouts, settings, tensor_positions):
    """(redistribution bytes per device against the fixed neighbours, bytes per device of
    the node's own completing collectives, minus the decided split neighbours whose blocks
    it keeps)."""
    total = own = agree = 0
    for k, i in enumerate(tensor_positions(node)):
        x = node.inputs[i]
        if not isinstance(x, Value):
            continue
        if x.producer is not None and id(x.producer) in fixed:
            producer = fixed[id(x.producer)][0]
            have = _completed(producer.out_layouts[x.index])
        elif id(x) in input_layouts:
            have = input_layouts[id(x)]
        elif x.param is not None and fixed_layout(x.param, settings.device_num) is not None:
            have = fixed_layout(x.param, settings.device_num)
        else:
            continue        # a parameter: sliced to whatever its first consumer needs
        total += _edge_bytes(have, result.in_layouts[k], x, settings)
        agree += _agrees(result.in_layouts[k], have, x.shape)
    for o, v in enumerate(node.outputs):
        out = result.out_layouts[o]
        if out.partial:
            own += _edge_bytes(out, _completed(out), v, settings)
        for consumer, pos in consumers.get(id(v), ()):
            if id(consumer) not in fixed:
                continue
            want = fixed[id(consumer)][0].in_layouts[tensor_positions(consumer).index(pos)]
            total += _edge_bytes(_completed(out), want, v, settings)
            agree += _agrees(_completed(out), want, v.shape)
    return total, own, -agree
