"""Batching rules for ops.vmap (see ops/batching.py): each runs one operator on a whole batch,
and `RULES` says which operator class takes which.

A rule is ``rule(level, prim, args) -> batch`` (a tuple of them for a tuple output): `args` are
the call's arguments as the operator takes them, mapped ones BatchedTensors of `level`
(``level.owns``), whose ``_batched`` has the mapped axis first; the rule returns the outputs of
every slice with the mapped axis first, computed on the levels below (``level.run``). Shapes
the rules read from a BatchedTensor (``x.shape``, ``x.ndim``) are one slice's. Where a rule
cannot batch a call (say both operands of Gather mapped) it hands it to `loop`, MindSpore's
general rule, which warns.
"""
import logging

import numpy as np

from minispore.common.registry import REGISTRY
from minispore.common.tensor import Tensor
from minispore.ops import sharding
from minispore.ops.operations import (activation_ops, array_ops, combine_ops, conv_ops,
                                      decomp_ops, indexing_ops, linalg_ops, logic_ops, math_ops,
                                      matmul_ops, nn_ops, norm_ops, optim_ops, pool_argmax_ops,
                                      scan_ops, scatter_ops, solve_ops, sort_ops, window_ops)
from minispore.ops.operations.elementwise import BinaryElementwise

logger = logging.getLogger("minispore")
_WARNED = REGISTRY.owned("ops.vmap_loop_warned", set)   # (operator, reason) warned once


def rule_of(prim):
    """`prim`'s batching rule: that of the nearest class in its MRO with one in RULES;
    elementwise for an operator whose sharding rule is elementwise; None (loop) otherwise."""
    for cls in type(prim).__mro__:
        rule = RULES.get(cls)
        if rule is not None:
            return rule
    if sharding.is_elementwise(getattr(prim, "sharding_rule", None)):
        return elementwise
    return None


def _slice(level, value, i):
    """Slice i of a batch (mapped axis first), on the levels below `level`."""
    n = value.ndim
    return level.run(indexing_ops.StridedSlice(shrink_axis_mask=1), value,
                     (i,) + (0,) * (n - 1), (i + 1,) + tuple(value.shape[1:]), (1,) * n)


def _stacked(level, values):
    """The tensors `values` joined along a new first axis, on the levels below `level`."""
    expanded = [level.run(array_ops.ExpandDims(), v, 0) for v in values]
    return level.run(combine_ops.Concat(0), *expanded)


def loop(level, prim, args, reason=None):
    """MindSpore's general vmap rule: `prim` once per slice, the results stacked. `reason`
    says why its batching rule handed the call here (None: it has no rule)."""
    why = reason or "minispore has no batching rule for it"
    if (prim.name, why) not in _WARNED:
        _WARNED.add((prim.name, why))
        logger.warning("vmap: '%s' runs once per slice of the mapped axis (%d calls here) and "
                       "the results are stacked: %s.", prim.name, level.size, why)

    def sliced(a, i):
        if isinstance(a, (tuple, list)):
            return type(a)(sliced(x, i) for x in a)
        return _slice(level, a._batched, i) if level.owns(a) else a
    results = [level.run(prim, *(sliced(a, i) for a in args)) for i in range(level.size)]
    if isinstance(results[0], tuple):
        return tuple(_stacked(level, [r[k] for r in results]) for k in range(len(results[0])))
    return _stacked(level, results)


def _reshape(level, value, shape):
    return level.run(array_ops.Reshape(), value, tuple(shape))


def _aligned(level, x, rank):
    """Mapped `x` as a batch of rank `rank` slices: size-1 dims inserted after the mapped axis
    (numpy's broadcasting of a lower-rank operand, with the mapped axis kept first)."""
    if x.ndim == rank:
        return x._batched
    return _reshape(level, x._batched, (level.size,) + (1,) * (rank - x.ndim) + tuple(x.shape))


def _lifted(level, x, rank):
    """Unmapped `x` with leading size-1 dims up to rank `rank` + 1 (it broadcasts along the
    mapped axis in operators that broadcast)."""
    if x.ndim == rank + 1:
        return x
    return _reshape(level, x, (1,) * (rank + 1 - x.ndim) + tuple(x.shape))


def _full(level, x, rank):
    """`x` as a batch of rank `rank` slices, copied along the mapped axis when it is not
    mapped (for operators that do not broadcast)."""
    if level.owns(x):
        return _aligned(level, x, rank)
    shape = (level.size,) + (1,) * (rank - x.ndim) + tuple(x.shape)
    return level.run(math_ops.BroadcastTo(shape), _lifted(level, x, rank))


def _outputs_reshaped(level, outs, avals):
    if isinstance(outs, tuple):
        return tuple(_reshape(level, o, (level.size,) + tuple(av.shape))
                     for o, av in zip(outs, avals))
    return _reshape(level, outs, (level.size,) + tuple(avals.shape))


def elementwise(level, prim, args):
    """Operators whose tensor inputs broadcast against each other and whose outputs have the
    broadcast shape: mapped inputs get the mapped axis first and size-1 dims up to the
    output's rank; unmapped ones broadcast along it (binary arithmetic) or are copied along
    it (operators whose kernels take equal shapes; 0-d ones stay scalars)."""
    broadcasts = isinstance(prim, BinaryElementwise)
    rank = max(a.ndim for a in args if isinstance(a, Tensor))
    new = []
    for a in args:
        if level.owns(a):
            a = _aligned(level, a, rank)
        elif isinstance(a, Tensor) and not broadcasts and a.ndim:
            a = _full(level, a, rank)
        new.append(a)
    return level.run(prim, *new)


def _shifted(axis, ndim):
    """`axis` (an int or a tuple of them, of one slice's rank `ndim`) on the batch."""
    if isinstance(axis, (tuple, list)):
        return tuple(int(a) % ndim + 1 for a in axis)
    return int(axis) % ndim + 1


def axis_arg(level, prim, args):
    """Operators taking (x, axis) that act along `axis` only: CumSum, and ReduceSum and its
    kin, whose axis () means every axis."""
    x, axis = args
    if x.ndim == 0 or isinstance(axis, Tensor):
        return loop(level, prim, args, "x is 0-d or the axis is a Tensor")
    axes = tuple(range(x.ndim)) if axis in ((), [], None) else axis
    return level.run(prim, x._batched, _shifted(axes, x.ndim))


def axis_attr(level, prim, args):
    """Operators that act along their ``axis`` attribute (Softmax, Sort, Concat, Split,
    Argmax, Cummax …); every tensor input has the rank of the first."""
    tensors = [a for a in args if isinstance(a, Tensor)]
    rank = tensors[0].ndim
    if rank == 0 or any(t.ndim != rank for t in tensors):
        return loop(level, prim, args, "x is 0-d or its inputs' ranks differ")
    new = [_full(level, a, rank) if isinstance(a, Tensor) else a for a in args]
    return level.run(prim.with_attrs(axis=_shifted(prim.axis, rank)), *new)


def reshape_like(level, prim, args):
    """Reshape, ExpandDims, Squeeze, Flatten: one slice's output shape (from infer) with the
    mapped axis first is a reshape of the batch, the data order being the same."""
    out = prim.infer(*args)
    return _reshape(level, args[0]._batched, (level.size,) + tuple(out.shape))


def transpose(level, prim, args):
    x, perm = args
    return level.run(prim, x._batched, (0,) + tuple(int(p) % max(x.ndim, 1) + 1 for p in perm))


def broadcast_to(level, prim, args):
    x = args[0]
    out = prim.infer(*args)
    value = _aligned(level, x, len(out.shape))
    return level.run(math_ops.BroadcastTo((level.size,) + tuple(out.shape)), value)


def tile(level, prim, args):
    x, multiples = args
    if level.owns(multiples) or isinstance(multiples, Tensor):
        return loop(level, prim, args, "the multiples are a Tensor")
    rank = max(len(multiples), x.ndim)
    multiples = (1,) * (rank + 1 - len(multiples)) + tuple(multiples)
    return level.run(prim, _aligned(level, x, rank), multiples)


def _slice_masks_up(prim):
    return tuple(m << 1 for m in prim.masks)


def strided_slice(level, prim, args):
    """StridedSlice: the mapped axis taken whole by one more leading entry, every mask's bits
    moved up one."""
    x, begin, end, strides = args
    if any(isinstance(v, Tensor) for v in (begin, end, strides)):
        return loop(level, prim, args, "the bounds are Tensors")
    return level.run(indexing_ops.StridedSlice(*_slice_masks_up(prim)), x._batched,
                     (0,) + tuple(begin), (level.size,) + tuple(end), (1,) + tuple(strides))


def strided_slice_grad(level, prim, args):
    """StridedSliceGrad(dout, shapex, begin, end, strides), batched as StridedSlice is."""
    dout, shapex, begin, end, strides = args
    if any(isinstance(v, Tensor) for v in (shapex, begin, end, strides)):
        return loop(level, prim, args, "its shape or bounds are Tensors")
    return level.run(indexing_ops.StridedSliceGrad(*_slice_masks_up(prim)), dout._batched,
                     (level.size,) + tuple(shapex), (0,) + tuple(begin),
                     (level.size,) + tuple(end), (1,) + tuple(strides))


def gather_d(level, prim, args):
    """GatherD(x, dim, index): both along dim + 1, an unmapped one copied along the batch."""
    x, dim, index = args
    if isinstance(dim, Tensor) or x.ndim == 0 or index.ndim != x.ndim:
        return loop(level, prim, args, "its dim is a Tensor or x is 0-d")
    return level.run(prim, _full(level, x, x.ndim), int(dim) % x.ndim + 1,
                     _full(level, index, x.ndim))


def gather(level, prim, args):
    """Gather(params, indices, axis): mapped params gather along axis + 1; mapped indices
    gather once and the mapped axis moves to the front. (The zero-filling kind gathers along
    axis 0 only: mapped params loop there.)"""
    params, indices, axis = args
    if (getattr(prim, "batch_dims", 0) or isinstance(axis, Tensor) or params.ndim == 0
            or (level.owns(params) and (level.owns(indices) or prim.zero_out_of_range))):
        return loop(level, prim, args, "both params and indices are mapped, batch_dims is set, "
                    "or it zero-fills along axis 0 only")
    axis = int(axis) % params.ndim
    if level.owns(params):
        return level.run(prim, params._batched, indices, axis + 1)
    out = level.run(prim, params, indices._batched, axis)
    if axis == 0:
        return out
    perm = (axis,) + tuple(d for d in range(out.ndim) if d != axis)
    return level.run(array_ops.Transpose(), out, perm)


def matmul(level, prim, args):
    """MatMul / BatchMatMul: one BatchMatMul over the mapped axis (an unmapped operand
    broadcasts along it)."""
    x, y = args
    if x.ndim < 2 or y.ndim < 2:
        return loop(level, prim, args, "an operand is 1-D")
    rank = max(x.ndim, y.ndim)

    def operand(a):
        return _aligned(level, a, rank) if level.owns(a) else _lifted(level, a, rank)
    bmm = matmul_ops.BatchMatMul(transpose_a=prim.transpose_a, transpose_b=prim.transpose_b)
    return level.run(bmm, operand(x), operand(y))


def one_hot(level, prim, args):
    indices = args[0]
    if any(level.owns(a) for a in args[1:]):
        return loop(level, prim, args, "the on/off values or depth are mapped")
    axis = prim.axis if prim.axis >= 0 else indices.ndim + 1 + prim.axis
    return level.run(prim.with_attrs(axis=axis + 1), indices._batched, *args[1:])


def batch_dims_free(level, prim, args):
    """Operators that treat every leading dim of their inputs as a batch of independent
    problems (TopK along the last axis, the matrix decompositions and solves): the mapped
    axis is one more leading dim."""
    tensors = [a for a in args if isinstance(a, Tensor)]
    rank = max(t.ndim for t in tensors)
    if any(t.ndim != rank for t in tensors):
        return loop(level, prim, args, "its inputs' ranks differ")
    return level.run(prim, *(_full(level, a, rank) if isinstance(a, Tensor) else a
                             for a in args))


def examples_in(*positions):
    """The rule of operators whose inputs at `positions` hold independent examples along dim
    0 and whose other tensor inputs are shared by all examples (Conv2D's weight, BiasAdd's
    bias; pooling and its gradients): the mapped axis and dim 0 are merged into one, and
    split again after."""
    def rule(level, prim, args):
        lead = args[positions[0]]
        if lead.ndim == 0 or any(level.owns(a) for i, a in enumerate(args)
                                 if i not in positions):
            return loop(level, prim, args, "a shared (not per-example) input is mapped")
        avals = prim.infer(*args)
        new = list(args)
        for i in positions:
            batch = _full(level, args[i], args[i].ndim)
            new[i] = _reshape(level, batch, (level.size * args[i].shape[0],)
                              + tuple(args[i].shape[1:]))
        return _outputs_reshaped(level, level.run(prim, *new), avals)
    return rule


first_dim_examples = examples_in(0)


def conv_backprop_input(level, prim, args):
    """Conv2DBackpropInput / Conv2DTranspose (dout, weight, input_size) with the weight
    shared: the mapped axis merged into dout's examples and input_size's first entry."""
    dout, w, size = args
    if level.owns(w) or isinstance(size, Tensor):
        return loop(level, prim, args, "the weight is mapped or input_size is a Tensor")
    merged = _reshape(level, dout._batched,
                      (level.size * dout.shape[0],) + tuple(dout.shape[1:]))
    out = level.run(prim, merged, w, (level.size * size[0],) + tuple(size[1:]))
    return _reshape(level, out, (level.size,) + tuple(size))


def conv_backprop_filter(level, prim, args):
    """Conv2DBackpropFilter(dout, x, filter_size): every slice's filter gradient from one
    grouped call, the slices' channels side by side (B·C inputs, B·out_channel outputs,
    B·group groups: group b·group + g reads slice b's channels of group g)."""
    dout, x, size = args
    if prim.data_format != "NCHW" or isinstance(size, Tensor):
        return loop(level, prim, args, "data_format is not NCHW or filter_size is a Tensor")
    b = level.size
    grouped = type(prim)(**dict(prim._kwargs, out_channel=b * prim.out_channel,
                                group=b * prim.group))
    dw = level.run(grouped, _side_by_side(level, dout), _side_by_side(level, x),
                   (b * size[0],) + tuple(size[1:]))
    return _reshape(level, dw, (b,) + tuple(size))


def _side_by_side(level, t):
    """(B, N, C, ...) -> (N, B·C, ...): every slice's channels side by side (t copied along
    the mapped axis when it is not mapped)."""
    v = level.run(array_ops.Transpose(), _full(level, t, t.ndim),
                  (1, 0) + tuple(range(2, t.ndim + 1)))
    return _reshape(level, v, (t.shape[0], level.size * t.shape[1]) + tuple(t.shape[2:]))


def _apart(level, t, slice_shape):
    """The inverse of _side_by_side: (N, B·C, ...) -> (B, N, C, ...)."""
    n, c = slice_shape[0], slice_shape[1]
    v = _reshape(level, t, (n, level.size, c) + tuple(slice_shape[2:]))
    return level.run(array_ops.Transpose(), v, (1, 0) + tuple(range(2, v.ndim)))


def batch_norm(level, prim, args):
    """BatchNorm(x, scale, bias, mean, variance) and BatchNormGrad(dy, x, scale, saved_mean,
    saved_rstd) in NCHW: every slice's channels side by side ((B, N, C, ...) -> (N, B·C,
    ...)) and the per-channel inputs (B·C,), so each slice keeps its own statistics in
    training and its own parameters where they are mapped; the per-channel outputs come back
    (B, C). The moving statistics a training BatchNorm writes land in their Parameters when
    those are mapped inputs of vmap (assign); shared ones are refused (parameter_write)."""
    n_full = 2 if isinstance(prim, norm_ops.BatchNormGrad) else 1   # per-example inputs
    x = args[n_full - 1]
    if prim.data_format != "NCHW" or x.ndim < 2:
        return loop(level, prim, args, "data_format is not NCHW or the input has no channels")
    per_channel = [_reshape(level, _full(level, p, 1), (level.size * p.shape[0],))
                   for p in args[n_full:]]
    outs = level.run(prim, *(_side_by_side(level, a) for a in args[:n_full]), *per_channel)
    return ((_apart(level, outs[0], tuple(x.shape)),)
            + tuple(_reshape(level, o, (level.size, x.shape[1])) for o in outs[1:]))


def unsorted_segment_sum(level, prim, args):
    """UnsortedSegmentSum(x, segment_ids, num_segments). Shared ids: the mapped axis moves
    behind the segmented dims and one sum takes every slice. Mapped ids: slice b's ids move
    to segments [b * num, (b + 1) * num) (ids out of range stay out of every range, as each
    slice drops them) and one sum over B * num segments is split again."""
    x, ids, num = args
    if isinstance(num, Tensor):
        return loop(level, prim, args, "num_segments is a Tensor")
    k, size = ids.ndim, level.size
    if not level.owns(ids):
        xb = x._batched
        moved = level.run(array_ops.Transpose(), xb, tuple(range(1, k + 1)) + (0,)
                          + tuple(range(k + 1, xb.ndim)))
        out = level.run(prim, moved, ids, num)
        return level.run(array_ops.Transpose(), out, (1, 0) + tuple(range(2, out.ndim)))
    idb, np_dtype = ids._batched, ids.dtype.np_dtype

    def const(value):
        return Tensor(np.asarray(value, np_dtype))
    inside = level.run(logic_ops.LogicalAnd(), level.run(math_ops.GreaterEqual(), idb, const(0)),
                       level.run(math_ops.Less(), idb, const(num)))
    offsets = const((np.arange(size) * num).reshape((size,) + (1,) * k))
    shifted = level.run(math_ops.Select(), inside, level.run(math_ops.Add(), idb, offsets),
                        const(np.full(tuple(idb.shape), -1)))
    out = level.run(prim, _full(level, x, x.ndim), shifted, size * num)
    return _reshape(level, out, (size, num) + tuple(out.shape[1:]))


def bias_add_grad(level, prim, args):
    """BiasAddGrad(dy): each slice's dy summed over every dim but its channel dim."""
    dy = args[0]
    channel = dy.ndim - 1 if prim.data_format == "NHWC" or dy.ndim < 2 else 1
    axes = tuple(d + 1 for d in range(dy.ndim) if d != channel)
    return level.run(math_ops.ReduceSum(), dy._batched, axes)


def layer_norm(level, prim, args):
    """LayerNorm(x, gamma, beta): both begin axes move up one; gamma and beta stay shared."""
    x = args[0]
    if x.ndim == 0 or any(level.owns(a) for a in args[1:]):
        return loop(level, prim, args, "gamma or beta is mapped")
    batched = prim.with_attrs(begin_norm_axis=_shifted(prim.begin_norm_axis, x.ndim),
                              begin_params_axis=_shifted(prim.begin_params_axis, x.ndim))
    return level.run(batched, x._batched, *args[1:])


def layer_norm_grad(level, prim, args):
    """LayerNormGrad(x, dy, variance, mean, gamma), gamma shared: dx from one call with both
    begin axes moved up one; dgamma and dbeta, which the kernel sums over every row (the
    slices' rows together), are each slice's own sums of dy * x_hat and dy over its rows."""
    x, dy, variance, mean, gamma = args
    if x.ndim == 0 or level.owns(gamma):
        return loop(level, prim, args, "gamma is mapped")
    norm = prim.begin_norm_axis % x.ndim
    shifted = prim.with_attrs(begin_norm_axis=norm + 1,
                              begin_params_axis=_shifted(prim.begin_params_axis, x.ndim))
    xb, dyb, var_b, mean_b = (_full(level, a, a.ndim) for a in (x, dy, variance, mean))
    dx = level.run(shifted, xb, dyb, var_b, mean_b, gamma)[0]
    eps = Tensor(np.asarray(prim.epsilon, var_b.dtype.np_dtype))
    rstd = level.run(math_ops.Rsqrt(), level.run(math_ops.Add(), var_b, eps))
    x_hat = level.run(math_ops.Mul(), level.run(math_ops.Sub(), xb, mean_b), rstd)
    weighted = level.run(math_ops.Mul(), dyb, x_hat)
    rows = tuple(range(1, norm + 1))
    if not rows:        # no rows to sum (ReduceSum's axis () would sum every axis)
        return dx, weighted, dyb
    return (dx, level.run(math_ops.ReduceSum(), weighted, rows),
            level.run(math_ops.ReduceSum(), dyb, rows))


def parameter_write(level, prim, args, why="the Parameter written is not a mapped input"):
    """A write of per-slice values that cannot land in one Parameter: refused by name."""
    raise NotImplementedError(
        f"For '{prim.name}' inside vmap: writing per-slice values into a Parameter is "
        f"implemented for Parameters given to vmap as mapped inputs (with in_axes 0 for the "
        f"optimizer updates and unmapped hyperparameters), but {why}.")


def assign(level, prim, args):
    """Assign(variable, value) into a Parameter given to vmap as a mapped input: the whole
    batch of values, the mapped axis put back where it was, into the Parameter at once."""
    variable, value = args
    target = variable.mapped_parameter if level.owns(variable) else None
    if target is None:
        return parameter_write(level, prim, args)
    full = write_into_parameter(level, target, value)
    variable._batched = target[0] if target[1] == 0 else full    # fn reads the new value next
    return variable._batched


def write_into_parameter(level, target, value):
    """Every slice of `value` (a slice-shaped value of this level, mapped or shared) into the
    mapped Parameter `target` = (Parameter, mapped axis); returns the batch written (mapped
    axis first)."""
    param, axis = target
    full = _full(level, value, param.ndim - 1)
    back = full if axis == 0 else level.run(
        array_ops.Transpose(), full, tuple(range(1, axis + 1)) + (0,)
        + tuple(range(axis + 1, full.ndim)))
    level.run(array_ops.Assign(), param, back)
    return full


def optimizer_update(level, prim, args):
    """An optimizer update (elementwise over the Parameter, hyperparameters shared) of
    Parameters given to vmap as mapped inputs on axis 0: one update of the stacked Parameters
    with the batch of gradients, each slice its own."""
    names = prim.tensor_args + prim.scalar_args
    new = []
    for name, a in zip(names, args):
        if name == "gradient":
            new.append(_full(level, a, a.ndim))       # a shared gradient: copied per slice
        elif name in prim.tensor_args:
            target = a.mapped_parameter if level.owns(a) else None
            if name in prim.free_args or target is None or target[1] != 0:
                return parameter_write(level, prim, args,
                                       f"'{name}' is not a Parameter mapped on axis 0")
            new.append(target[0])
        elif level.owns(a):
            return parameter_write(level, prim, args, f"the hyperparameter '{name}' is mapped")
        else:
            new.append(a)
    return level.run(prim, *new)


RULES = {
    array_ops.Reshape: reshape_like,
    array_ops._ReshapeLike: reshape_like,       # ExpandDims, Squeeze, Flatten
    array_ops.Transpose: transpose,
    array_ops.Assign: assign,
    optim_ops._ApplyUpdate: optimizer_update,
    math_ops._Reduce: axis_arg,                # ReduceSum, ReduceMean, ReduceMax, ReduceMin
    math_ops.Argmax: axis_attr,
    math_ops.BroadcastTo: broadcast_to,
    nn_ops._SoftmaxBase: axis_attr,             # Softmax, LogSoftmax and their gradients
    nn_ops.LayerNorm: layer_norm,
    nn_ops.LayerNormGrad: layer_norm_grad,
    norm_ops.BatchNorm: batch_norm,
    norm_ops.BatchNormGrad: batch_norm,
    nn_ops.SoftmaxCrossEntropyWithLogits: examples_in(0, 1),   # a loss and a gradient per row
    combine_ops.Concat: axis_attr,
    combine_ops.Split: axis_attr,
    combine_ops.Tile: tile,
    scan_ops._CumExtreme: axis_attr,            # Cummax, Cummin
    sort_ops.CumSum: axis_arg,
    sort_ops.Sort: axis_attr,
    sort_ops.SortGrad: axis_attr,
    sort_ops.TopK: batch_dims_free,
    indexing_ops.StridedSlice: strided_slice,
    indexing_ops.StridedSliceGrad: strided_slice_grad,
    indexing_ops.Gather: gather,
    indexing_ops.OneHot: one_hot,
    indexing_ops.UnsortedSegmentSum: unsorted_segment_sum,
    scatter_ops.GatherD: gather_d,
    matmul_ops._MatMulBase: matmul,             # MatMul, BatchMatMul
    activation_ops._BiasAddBase: first_dim_examples,
    activation_ops.BiasAddGrad: bias_add_grad,
    conv_ops.Conv2D: first_dim_examples,
    conv_ops.Conv2DBackpropInput: conv_backprop_input,     # and Conv2DTranspose
    conv_ops.Conv2DBackpropFilter: conv_backprop_filter,
    conv_ops._Pool2D: first_dim_examples,       # MaxPool, AvgPool, MaxPoolWithArgmax
    conv_ops._Pool2DGrad: examples_in(0, 1, 2),
    pool_argmax_ops.MaxPoolWithArgmaxV2: first_dim_examples,
    pool_argmax_ops.MaxPoolGradWithArgmax: examples_in(0, 1, 2),   # indices within a sample
    window_ops.Rolling: axis_attr,
    window_ops.Shift: axis_attr,
    linalg_ops.MatrixDeterminant: batch_dims_free,
    linalg_ops.LogMatrixDeterminant: batch_dims_free,
    linalg_ops.MatrixInverse: batch_dims_free,
    decomp_ops.Svd: batch_dims_free,
    decomp_ops.Geqrf: batch_dims_free,
    decomp_ops.Qr: batch_dims_free,
    decomp_ops.Cholesky: batch_dims_free,
    decomp_ops.CholeskyInverse: batch_dims_free,
    decomp_ops.LuUnpack: batch_dims_free,
    solve_ops.MatrixSolve: batch_dims_free,
    solve_ops.CholeskySolve: batch_dims_free,
    solve_ops.Orgqr: batch_dims_free,
}
