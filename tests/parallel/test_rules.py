"""Sharding rules proven numerically in one process: slice random global inputs per rank with the
rule's input layouts, run the operator on each rank's slices, assemble the local outputs by the
output layouts (combining partial axes, applying scales) and compare with the global result."""
import numpy as np
import pytest

import minispore as ms
from minispore import ops
from minispore.common.layout import rank_coordinate
from minispore.ops.operations.indexing_ops import _GatherOrZero
from minispore.parallel.rules import apply_default, apply_strategy, propagate

RNG = np.random.default_rng(0)
_COMBINE = {"sum": np.add, "max": np.maximum, "min": np.minimum}
_START = {"sum": 0.0, "max": -np.inf, "min": np.inf}


def f64(*shape):
    return ms.Tensor(RNG.standard_normal(shape))


def f32(*shape):
    return ms.Tensor(RNG.standard_normal(shape).astype(np.float32))


def ints(high, *shape):
    return ms.Tensor(RNG.integers(0, high, shape).astype(np.int32))


def as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def local_args(args, layouts, rank):
    tensors = iter(layouts)
    out = []
    for a in args:
        if isinstance(a, ms.Tensor):
            lay = next(tensors)
            out.append(ms.Tensor(a.asnumpy()[lay.local_slices(a.shape, rank)]))
        else:
            out.append(a)
    return out


def assemble(layout, partial_ops, scale, locals_, shape, dtype):
    """The global tensor the local outputs stand for; also checks replicas agree."""
    op = next(iter(partial_ops.values()), "sum")
    buf = np.full(shape, _START[op], np.float64)
    reps = layout.replica_axes()
    first = {}
    for rank, local in enumerate(locals_):
        assert local.shape == layout.local_shape(shape), (rank, local.shape, layout)
        coord = rank_coordinate(layout.dev_matrix, rank)
        key = tuple(c for a, c in enumerate(coord) if a not in reps)
        if key in first:      # a replica (repeated calculation): same values as the first one
            np.testing.assert_array_equal(local, first[key])
            continue
        first[key] = local
        sl = layout.local_slices(shape, rank)
        buf[sl] = _COMBINE[op](buf[sl], local)
    return (buf * scale).astype(dtype)


def check_sharded(prim, args, strategy, device_num, local_call=None, out_strategy=None):
    """Run prim on every rank's slices under `strategy`; assert it equals the global run."""
    res = apply_strategy(prim, args, strategy, device_num, out_strategy)
    expected = [o.asnumpy() for o in as_tuple(prim(*args))]
    locals_ = [[] for _ in expected]
    for rank in range(device_num):
        largs = local_args(args, res.in_layouts, rank)
        outs = as_tuple(local_call(rank, res, largs) if local_call else prim(*largs))
        for i, o in enumerate(outs):
            locals_[i].append(o.asnumpy())
    for i, exp in enumerate(expected):
        got = assemble(res.out_layouts[i], res.partial_ops[i], res.scales[i], locals_[i],
                       exp.shape, exp.dtype)
        np.testing.assert_allclose(got, exp, rtol=1e-5, atol=1e-6)
    return res


CASES = [
    # (id, prim, args, strategy, device_num)
    ("relu", ops.ReLU(), lambda: (f64(8, 6),), ((4, 1),), 8),
    ("gelu", ops.GeLU(), lambda: (f64(8, 6),), ((2, 2),), 4),
    ("add_bcast", ops.Add(), lambda: (f64(8, 8), f64(8)), ((2, 4), (4,)), 8),
    ("mul_bcast_size1", ops.Mul(), lambda: (f64(8, 6), f64(1, 6)), ((4, 2), (1, 2)), 8),
    ("sub_low_rank_first", ops.Sub(), lambda: (f64(6), f64(4, 6)), ((2,), (2, 2)), 4),
    ("greater", ops.Greater(), lambda: (f64(8, 6), f64(8, 6)), ((2, 2), (2, 2)), 4),
    ("select", ops.Select(), lambda: (ms.Tensor(RNG.random((4, 6)) > 0.5), f64(4, 6),
                                      f64(4, 6)), ((2, 2),) * 3, 4),
    ("cast", ops.Cast(), lambda: (f64(4, 6), ms.float32), ((2, 2),), 4),
    ("matmul", ops.MatMul(), lambda: (f64(8, 16), f64(16, 4)), ((2, 4), (4, 1)), 8),
    ("matmul_tb", ops.MatMul(transpose_b=True), lambda: (f64(8, 16), f64(4, 16)),
     ((2, 2), (2, 2)), 8),
    ("matmul_ta", ops.MatMul(transpose_a=True), lambda: (f64(16, 8), f64(16, 4)),
     ((4, 2), (4, 1)), 8),
    ("matmul_repeat", ops.MatMul(), lambda: (f64(8, 16), f64(16, 4)), ((2, 1), (1, 1)), 8),
    ("batch_matmul", ops.BatchMatMul(), lambda: (f64(2, 4, 8), f64(2, 8, 6)),
     ((2, 1, 2), (2, 2, 2)), 8),
    ("batch_matmul_broadcast", ops.BatchMatMul(transpose_b=True),
     lambda: (f64(2, 1, 4, 8), f64(1, 2, 6, 8)), ((2, 1, 1, 2), (1, 2, 1, 2)), 8),
    ("bias_add", ops.BiasAdd(), lambda: (f64(4, 6, 3, 3), f64(6)), ((2, 2, 1, 1), (2,)), 4),
    ("reduce_sum", ops.ReduceSum(), lambda: (f64(8, 8), 1), ((2, 4),), 8),
    ("reduce_sum_keep", ops.ReduceSum(keep_dims=True), lambda: (f64(8, 6), (0, 1)),
     ((2, 2),), 4),
    ("reduce_mean", ops.ReduceMean(), lambda: (f64(8, 6), 0), ((4, 2),), 8),
    ("reduce_max", ops.ReduceMax(), lambda: (f64(8, 6), 1), ((2, 2),), 4),
    ("reduce_min", ops.ReduceMin(keep_dims=True), lambda: (f64(8, 6), 0), ((4, 1),), 4),
    ("argmax_kept_axis", ops.Argmax(axis=1), lambda: (f64(8, 6),), ((4, 1),), 4),
    ("softmax", ops.Softmax(), lambda: (f64(8, 6),), ((4, 1),), 4),
    ("log_softmax_axis0", ops.LogSoftmax(axis=0), lambda: (f64(8, 6),), ((1, 2),), 2),
    ("transpose", ops.Transpose(), lambda: (f64(4, 6, 2), (2, 0, 1)), ((2, 2, 1),), 4),
    ("reshape_leading", ops.Reshape(), lambda: (f64(8, 2, 3), (-1, 6)), ((4, 1, 1),), 4),
    ("flatten", ops.Flatten(), lambda: (f64(8, 2, 3),), ((8, 1, 1),), 8),
    ("onehot", ops.OneHot(), lambda: (ints(5, 8), 5, ms.Tensor(1.0), ms.Tensor(0.0)),
     ((4,), (), ()), 4),
    ("gather_cols", ops.Gather(), lambda: (f64(10, 8), ints(10, 6), 0), ((1, 4), (1,)), 4),
    ("gather_indices", ops.Gather(), lambda: (f64(10, 8), ints(10, 6), 0), ((1, 1), (2,)), 2),
    ("segment_sum", ops.UnsortedSegmentSum(), lambda: (f64(8, 4), ints(5, 8), 5),
     ((4, 2), (4,)), 8),
    ("softmax_ce", ops.SoftmaxCrossEntropyWithLogits(),
     lambda: (f64(8, 5), ms.Tensor(RNG.random((8, 5)))), ((4, 1), (4, 1)), 8),
    ("sparse_softmax_ce", ops.SparseSoftmaxCrossEntropyWithLogits(),
     lambda: (f64(8, 5), ints(5, 8)), ((4, 1), (4,)), 4),
    ("maxpool", ops.MaxPool(kernel_size=2, strides=2), lambda: (f64(4, 6, 4, 4),),
     ((2, 2, 1, 1),), 4),
    ("avgpool", ops.AvgPool(kernel_size=2, strides=2), lambda: (f64(4, 6, 4, 4),),
     ((4, 1, 1, 1),), 8),
    ("layer_norm", ops.LayerNorm(begin_norm_axis=1, begin_params_axis=1),
     lambda: (f64(8, 6), f64(6), f64(6)), ((4, 1), (1,), (1,)), 4),
    ("dropout_keep1", ops.Dropout(keep_prob=1.0), lambda: (f64(8, 6),), ((2, 2),), 4),
    ("batch_norm_channels", ops.BatchNorm(is_training=True),
     lambda: (f64(4, 6, 2, 2), f64(6), f64(6), f64(6), f64(6)),
     ((1, 2, 1, 1), (2,), (2,), (2,), (2,)), 2),
    ("concat", ops.Concat(axis=1), lambda: (f64(8, 2), f64(8, 3)), ((4, 1), (4, 1)), 4),
]


@pytest.mark.parametrize("name,prim,make,strategy,n", CASES, ids=[c[0] for c in CASES])
def test_rule_sharded_equals_global(name, prim, make, strategy, n):
    args = make()
    if name == "concat":
        # Concat's primitive takes its tensors as separate call arguments.
        res = apply_strategy(prim, args, strategy, n)
        expected = prim(args).asnumpy()
        locals_ = [prim(tuple(local_args(args, res.in_layouts, r))).asnumpy() for r in range(n)]
        got = assemble(res.out_layouts[0], res.partial_ops[0], 1.0, locals_, expected.shape,
                       expected.dtype)
        np.testing.assert_allclose(got, expected)
        return
    check_sharded(prim, args, strategy, n)


def test_matmul_contracted_split_is_partial_sum():
    res = check_sharded(ops.MatMul(), (f64(8, 16), f64(16, 4)), ((2, 4), (4, 1)), 8)
    assert res.dev_matrix == (2, 4, 1)
    assert [lay.tensor_map for lay in res.in_layouts] == [(2, 1), (1, 0)]
    assert res.out_layouts[0].tensor_map == (2, 0) and res.out_layouts[0].partial == (1,)
    assert res.partial_ops[0] == {1: "sum"} and res.reduce_scatter == (None,)


def test_matmul_out_strategy_reduce_scatter():
    x, w = f64(8, 16), f64(16, 4)
    prim = ops.MatMul()
    plain = check_sharded(prim, (x, w), ((2, 4), (4, 1)), 8)
    res = apply_strategy(prim, (x, w), ((2, 4), (4, 1)), 8, out_strategy=((8, 1),))
    assert res.reduce_scatter == ((0, 1),)
    out = res.out_layouts[0]
    assert out.partial == () and out.cuts() == (8, 1)
    expected = prim(x, w).asnumpy()
    # After ReduceScatter along the 4-axis group (ordered by that coordinate) rank r holds the
    # AllReduced block's piece of its coordinate: exactly out's slice.
    for rank in range(8):
        a, b, _ = rank_coordinate(plain.dev_matrix, rank)
        block = expected[a * 4:(a + 1) * 4][b:b + 1]
        np.testing.assert_array_equal(expected[out.local_slices(expected.shape, rank)], block)
    same = apply_strategy(prim, (x, w), ((2, 4), (4, 1)), 8, out_strategy=((2, 1),))
    assert same.reduce_scatter == (None,) and same.out_layouts[0].partial == (1,)


def test_matmul_out_strategy_rejects_other_cuts():
    with pytest.raises(RuntimeError, match=r"dim 0 of output 0 must be cut 2 or 8 ways"):
        apply_strategy(ops.MatMul(), (f64(8, 16), f64(16, 4)), ((2, 4), (4, 1)), 8,
                       out_strategy=((4, 1),))


def test_gather_row_split_masked_lookup_partial():
    params, indices = f64(8, 3), ints(8, 6)

    def masked(rank, res, largs):
        table, idx, axis = largs
        rows = table.shape[0]
        block = res.in_layouts[0].block_index(rank)[0]
        shifted = ms.Tensor(idx.asnumpy() - block * rows)
        return _GatherOrZero()(table, shifted, axis)

    res = check_sharded(ops.Gather(), (params, indices, 0), ((4, 1), (1,)), 4, masked)
    assert res.out_layouts[0].partial and "masked lookup" in res.notes[0][1]


def test_conv2d_batch_out_channel_and_partial_in_channel():
    # out_channel is an attribute holding a global size: each rank builds its local operator.
    def local_conv(rank, res, largs):
        return ops.Conv2D(out_channel=largs[1].shape[0], kernel_size=3)(*largs)

    res = check_sharded(ops.Conv2D(out_channel=4, kernel_size=3),
                        (f32(4, 6, 5, 5), f32(4, 6, 3, 3)), ((2, 2, 1, 1), (2, 2, 1, 1)), 8,
                        local_conv)
    assert res.out_layouts[0].partial and res.out_layouts[0].cuts() == (2, 2, 1, 1)


def test_broadcast_to_cuts_the_kept_dim():
    def local_bt(rank, res, largs):
        return ops.BroadcastTo(res.out_layouts[0].local_shape((4, 8, 6)))(*largs)

    check_sharded(ops.BroadcastTo((4, 8, 6)), (f64(8, 1),), ((2, 1),), 4, local_bt)


def test_dropout_records_per_slice_seed_note():
    res = apply_strategy(ops.Dropout(keep_prob=0.5), (f32(8, 6),), ((2, 2),), 4)
    assert any("per-slice seeds" in note for _, note in res.notes)


def test_optimizer_update_is_elementwise_over_slices():
    var = ms.Parameter(ms.Tensor(RNG.standard_normal((8, 4)).astype(np.float32)), name="w")
    acc = ms.Tensor(np.zeros((8, 4), np.float32))
    grad = f32(8, 4)
    res = apply_strategy(ops.ApplyMomentum(), (var, acc, grad, ms.Tensor(0.1), ms.Tensor(0.9)),
                         ((2, 2), (2, 2), (2, 2), (), ()), 4)
    assert res.out_layouts[0] == res.in_layouts[0] and not res.out_layouts[0].partial


@pytest.mark.parametrize("prim,args,strategy,match", [
    (ops.Softmax(), lambda: (f64(8, 6),), ((1, 2),), r"softmax axis"),
    (ops.ReduceMax(), None, None, None),
    (ops.Argmax(axis=1), lambda: (f64(8, 6),), ((1, 2),), r"index of the maximum"),
    (ops.SoftmaxCrossEntropyWithLogits(), lambda: (f64(8, 4), f64(8, 4)), ((1, 2), (1, 2)),
     r"class axis"),
    (ops.Conv2D(4, 3), lambda: (f32(2, 2, 6, 6), f32(4, 2, 3, 3)), ((1, 1, 2, 1), (1, 1, 1, 1)),
     r"halo exchange"),
    (ops.LayerNorm(), lambda: (f64(8, 6), f64(6), f64(6)), ((1, 2), (2,), (2,)),
     r"whole row"),
    (ops.Tile(), lambda: (f64(4, 2), (2, 1)), ((2, 1),), r"tile its slice"),
    (ops.BatchNorm(is_training=True), lambda: (f64(4, 6), f64(6), f64(6), f64(6), f64(6)),
     ((2, 1), (1,), (1,), (1,), (1,)), r"SyncBatchNorm"),
    (ops.Reshape(), lambda: (f64(4, 6), (6, 4)), ((2, 1),), r"only a leading dim"),
    (ops.Gather(), lambda: (f64(8, 3), ints(8, 4), 0), ((2, 1), (2,)), r"cannot be cut together"),
    (ops.Add(), lambda: (f64(8, 6), f64(1, 6)), ((2, 1), (2, 1)), r"cannot be divisible by strategy value 2"),
])
def test_rule_rejects_uncuttable_dims(prim, args, strategy, match):
    if args is None:
        # ReduceMax over a cut axis is allowed: a pending AllReduce MAX is recorded.
        res = apply_strategy(prim, (f64(8, 6), 1), ((1, 2),), 2)
        assert res.partial_ops[0] == {0: "max"}
        return
    with pytest.raises(RuntimeError, match=match):
        apply_strategy(prim, args(), strategy, 4 if len(strategy[0]) != 1 else 2)


def test_default_strategy_is_data_parallel():
    x, w = f64(16, 8), f64(8, 4)
    res = apply_default(ops.MatMul(), (x, w), 8, params=(1,))
    assert res.strategy == ((8, 1), (1, 1)) and res.dev_matrix == (8, 1, 1)
    res = apply_default(ops.Add(), (x, f64(8)), 8)
    assert res.strategy == ((8, 1), (1,))
    assert apply_default(ops.Softmax(axis=0), (x,), 4).strategy == ((1, 1),)


def test_propagate_from_producer_layouts():
    x, w = f64(8, 16), f64(16, 4)
    mm = apply_strategy(ops.MatMul(), (x, w), ((2, 1), (1, 4)), 8)
    y = ops.MatMul()(x, w)
    relu = propagate(ops.ReLU(), (y,), mm.out_layouts)
    assert relu.strategy == ((2, 4),)
    soft = propagate(ops.Softmax(), (y,), mm.out_layouts)
    # The softmax axis is made whole: the pass redistributes y before the Softmax.
    assert soft.strategy == ((2, 1),) and soft.in_layouts[0].cuts() == (2, 1)
