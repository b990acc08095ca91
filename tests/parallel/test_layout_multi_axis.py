"""A Layout that cuts one tensor dim over several device-matrix axes (MindSpore r2.3+,
mindspore_semantics.md §2.8): TensorLayout's blocks and replicas, the Layout's errors, operator
rules proven numerically on every rank's slices in one process, redistribution plans, and the
checkpoint records of such blocks."""
import json

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, ops
from minispore.common.layout import Partial, Replicate, Shard, TensorLayout
from minispore.ops.primitive import Aval
from minispore.parallel.checkpoint import apply_layout_record, layout_record, merge_values
from minispore.parallel.param_slicing import slice_parameter
from minispore.parallel.redistribution import plan
from minispore.parallel.rules import apply_strategy
from minispore.parallel.strategy.check import StrategyError
from tests.parallel.test_redistribution_plan import check_plan, kinds
from tests.parallel.test_rules import check_sharded, f64

LAYOUT = ms.Layout((2, 2, 2), ("dp", "sp", "mp"))


def aval(*shape):
    return Aval(shape, ms.float32)


# -- TensorLayout ---------------------------------------------------------------------------
def test_block_of_a_dim_cut_over_two_axes_is_mixed_radix_first_axis_outer():
    lay = LAYOUT(("dp", "sp"), "None").to_tensor_layout(8)
    assert lay.tensor_map == ((2, 1), -1) and lay.cuts() == (4, 1)
    # rank r = (dp, sp, mp) row-major: block = dp * 2 + sp; mp holds replicas.
    assert [lay.block_index(r)[0] for r in range(8)] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert lay.replica_axes() == (2,) and lay.dim_axes(0) == (0, 1) and lay.dim_axes(1) == ()
    assert lay.local_shape((8, 6)) == (2, 6)
    assert lay.local_slices((8, 6), 5) == (slice(4, 6), slice(0, 6))
    rev = LAYOUT(("sp", "dp"), "None").to_tensor_layout(8)
    assert [rev.block_index(r)[0] for r in range(8)] == [0, 0, 2, 2, 1, 1, 3, 3]
    assert rev != lay and rev.placements() == lay.placements() == (Shard(0), Shard(0),
                                                                  Replicate())


def test_blocks_tile_the_tensor_once_per_replica():
    lay = LAYOUT("None", ("mp", "dp")).to_tensor_layout(8)
    covered = np.zeros((3, 8), int)
    for r in range(8):
        covered[lay.local_slices((3, 8), r)] += 1
    assert (covered == 2).all()          # sp is the replica axis


def test_tensor_layout_canonical_form_and_errors():
    assert TensorLayout((2, 2), [[1, 0], [-1][0]]) == TensorLayout((2, 2), ((1, 0), -1))
    assert TensorLayout((2, 2), ((1,), -1)).tensor_map == (1, -1)
    assert TensorLayout((2, 2, 2), ((2, 1), -1), (0,)).placements()[2] == Partial()
    with pytest.raises(ValueError, match="used twice"):
        TensorLayout((2, 2), ((1, 0), 0))
    with pytest.raises(ValueError, match="used twice"):
        TensorLayout((2, 2), ((1, 0), -1), (1,))
    with pytest.raises(ValueError, match="no -1 inside"):
        TensorLayout((2, 2), ((1, -1), -1))
    with pytest.raises(ValueError, match="index past"):
        TensorLayout((2, 2), ((2, 0), -1))


# -- Layout errors ---------------------------------------------------------------------------
@pytest.mark.parametrize("args,err,match", [
    ((("dp", "sp"), "dp"), ValueError, "'dp' is used twice"),
    ((("dp", "dp"), "None"), ValueError, "'dp' is used twice"),
    ((("dp", "tp"), "None"), ValueError, "'tp' is not one of the alias names"),
    ((("dp", "None"), "mp"), ValueError, "'None' cannot be inside a tuple"),
    (((), "mp"), ValueError, "at least one alias"),
    (((1, "dp"), "mp"), TypeError, "alias name"),
])
def test_layout_call_errors(args, err, match):
    with pytest.raises(err, match=match):
        LAYOUT(*args)


# -- rules, proven on every rank's slices ---------------------------------------------------
def test_matmul_rows_over_two_axes_columns_over_the_third():
    res = check_sharded(ops.MatMul(), (f64(8, 6), f64(6, 4)),
                        (LAYOUT(("dp", "sp"), "None"), LAYOUT("None", "mp")), 8)
    out = res.out_layouts[0]
    assert res.dev_matrix == (2, 2, 2) and res.repeat == 1
    assert out.tensor_map == ((2, 1), 0) and out.partial == ()


def test_matmul_contracted_over_two_axes_in_reversed_order_is_partial_over_both():
    res = check_sharded(ops.MatMul(), (f64(4, 8), f64(8, 6)),
                        (LAYOUT("sp", ("mp", "dp")), LAYOUT(("mp", "dp"), "None")), 8)
    out = res.out_layouts[0]
    assert out.tensor_map == (1, -1) and out.partial == (0, 2)
    assert res.partial_ops[0] == {0: "sum", 2: "sum"}


def test_batch_matmul_and_transposed_matmul():
    check_sharded(ops.BatchMatMul(), (f64(4, 2, 8), f64(4, 8, 6)),
                  (LAYOUT(("sp", "dp"), "None", "mp"), LAYOUT(("sp", "dp"), "mp", "None")), 8)
    check_sharded(ops.MatMul(transpose_b=True), (f64(8, 6), f64(4, 6)),
                  (LAYOUT(("mp", "sp"), "dp"), LAYOUT("None", "dp")), 8)


def test_elementwise_with_broadcasting():
    check_sharded(ops.Add(), (f64(8, 8), f64(8)),
                  (LAYOUT("dp", ("mp", "sp")), LAYOUT(("mp", "sp"),)), 8)
    check_sharded(ops.Mul(), (f64(8, 6), f64(1, 6)),
                  (LAYOUT(("dp", "sp", "mp"), "None"), LAYOUT("None", "None")), 8)
    res = check_sharded(ops.ReLU(), (f64(8, 6),), (LAYOUT(("sp", "dp"), "None"),), 8)
    assert res.repeat == 2 and res.out_layouts[0].replica_axes() == (2,)


def test_reductions_over_a_dim_cut_over_two_axes():
    res = check_sharded(ops.ReduceSum(), (f64(8, 6), 0), (LAYOUT(("dp", "mp"), "sp"),), 8)
    assert res.out_layouts[0].partial == (0, 2) and res.out_layouts[0].tensor_map == (1,)
    res = check_sharded(ops.ReduceMean(keep_dims=True), (f64(8, 6), 0),
                        (LAYOUT(("mp", "dp"), "None"),), 8)
    assert res.scales[0] == 0.25
    check_sharded(ops.ReduceMax(), (f64(6, 8), 1), (LAYOUT("None", ("dp", "mp")),), 8)


def test_out_strategy_reduce_scatters_pending_sums_into_an_output_dim():
    ins = (LAYOUT("dp", ("sp", "mp")), LAYOUT(("sp", "mp"), "None"))
    args = (aval(8, 8), aval(8, 4))
    raw = apply_strategy(ops.MatMul(), args, ins, 8).out_layouts[0]
    assert raw.tensor_map == (2, -1) and raw.partial == (0, 1)
    res = apply_strategy(ops.MatMul(), args, ins, 8, (LAYOUT(("dp", "sp"), "None"),))
    out = res.out_layouts[0]
    assert res.reduce_scatter[0] == (0, 1) and res.partial_ops[0] == {}
    assert out.tensor_map == ((2, 1), -1) and out.partial == ()
    # What sharded_apply runs to complete it: one ReduceScatter into rows, one AllReduce.
    assert sorted(kinds(check_plan(raw, out, (8, 4), False))) == [
        ("allreduce", 2, ()), ("reducescatter", 1, (0,))]
    with pytest.raises(StrategyError, match=r"dim 0 must be cut over dp.*but got \('sp', 'dp'\)"):
        apply_strategy(ops.MatMul(), args, ins, 8, (LAYOUT(("sp", "dp"), "None"),))
    with pytest.raises(StrategyError, match=r"out_strategy must be Layouts too"):
        apply_strategy(ops.MatMul(), args, ins, 8, ((4, 1),))


@pytest.mark.parametrize("strategy,match", [
    ((LAYOUT("None", ("sp", "mp")), LAYOUT(("mp", "sp"), "None")),
     r"Strategies of relevant dimensions are not equal: input 0 dim 1 is cut over "
     r"\('sp', 'mp'\) but input 1 dim 0 over \('mp', 'sp'\)"),
    ((LAYOUT(("dp", "sp"), "None"), LAYOUT("None", "dp")),
     r"the axis 'dp' cuts input 0 dim 0 and input 1 dim 1, which are different dims"),
    ((LAYOUT(("dp", "sp"), "None"), ((1, 2))), r"mixes Layouts and tuples"),
    ((LAYOUT(("dp", "sp"), "None"), ms.Layout((4, 2), ("a", "b"))("None", "b")),
     r"must share its device_matrix"),
    ((LAYOUT(("dp", "sp", "mp"), "None"), LAYOUT("None", "None")),
     r"input 0: shape \(4, 8\) cannot be divisible by 8 \(axes \('dp', 'sp', 'mp'\)\)"),
    ((LAYOUT("None", "None", "None"), LAYOUT("None", "None")), r"the layout has 3 dims"),
])
def test_layout_strategy_errors(strategy, match):
    with pytest.raises(StrategyError, match=match) as err:
        apply_strategy(ops.MatMul(), (aval(4, 8), aval(8, 4)), strategy, 8)
    assert "For 'MatMul'" in str(err.value)


def test_layout_strategy_cannot_cut_a_fixed_or_broadcast_dim():
    with pytest.raises(StrategyError, match=r"input 0 dim 1 cannot be split \(.*softmax"):
        apply_strategy(ops.Softmax(), (aval(4, 8),), (LAYOUT("dp", ("sp", "mp")),), 8)
    with pytest.raises(StrategyError, match=r"input 1 dim 0 cannot be split .*broadcast"):
        apply_strategy(ops.Mul(), (aval(8, 6), aval(1, 6)),
                       (LAYOUT(("dp", "sp"), "None"), LAYOUT(("dp", "sp"), "None")), 8)
    with pytest.raises(StrategyError, match="stage device number 4"):
        apply_strategy(ops.ReLU(), (aval(8, 6),), (LAYOUT(("dp", "sp"), "None"),), 4)


# -- redistribution plans -------------------------------------------------------------------
def test_plan_from_data_parallel_rows_to_rows_over_two_axes():
    src = TensorLayout((8,), (0, -1))
    dst = LAYOUT(("dp", "sp"), "None").to_tensor_layout()
    assert kinds(check_plan(src, dst, (16, 4), False)) == [("allgather", 2, (0,))]


def test_plan_reversing_the_order_of_two_cutters_gathers_then_slices():
    src = LAYOUT(("dp", "sp"), "None").to_tensor_layout()
    dst = LAYOUT(("sp", "dp"), "None").to_tensor_layout()
    assert kinds(check_plan(src, dst, (16, 4), False)) == [
        ("allgather", 1, (0,)), ("allgather", 0, (0,)), ("slice", 1, (0,)), ("slice", 0, (0,))]


def test_plan_moves_an_inner_cutter_to_another_dim_with_alltoall():
    src = LAYOUT(("dp", "mp"), "sp").to_tensor_layout()
    dst = LAYOUT("dp", ("sp", "mp")).to_tensor_layout()
    assert kinds(check_plan(src, dst, (8, 8), True)) == [("alltoall", 2, (0, 1))]


def test_plan_partial_over_two_axes_reduce_scatters_into_a_two_axis_cut():
    src = TensorLayout((2, 2, 2), (-1, 2), (0, 1))
    dst = LAYOUT(("mp", "sp"), "dp").to_tensor_layout()
    assert kinds(check_plan(src, dst, (8, 8), False)) == [
        ("allreduce", 1, ()), ("reducescatter", 2, (0,)), ("slice", 1, (0,))]
    assert [m.kind for m in plan(src, TensorLayout((2, 2, 2), ((1, 0), 2)), (8, 8))] == [
        "reducescatter", "reducescatter"]


# -- parameter slicing and checkpoint records ------------------------------------------------
def _sliced(whole, layout, rank, name="w"):
    p = Parameter(whole.copy(), name=name)
    return slice_parameter(p, layout, rank)


def test_parameter_sliced_by_a_two_axis_layout():
    whole = np.arange(8 * 6, dtype=np.float32).reshape(8, 6)
    lay = LAYOUT(("mp", "dp"), "None").to_tensor_layout(8)
    for rank in range(8):
        p = _sliced(whole, lay, rank)
        dp, _, mp = rank >> 2, (rank >> 1) & 1, rank & 1
        block = mp * 2 + dp
        np.testing.assert_array_equal(p.asnumpy(), whole[2 * block:2 * block + 2])
        assert p.global_shape == (8, 6) and p.layout == lay


def test_checkpoint_record_round_trips_through_json_and_blocks_merge():
    whole = np.arange(8 * 6, dtype=np.float32).reshape(8, 6)
    lay = LAYOUT(("sp", "dp"), "mp").to_tensor_layout(8)
    sources = []
    for rank in range(8):
        p = _sliced(whole, lay, rank)
        record = json.loads(json.dumps(layout_record(p)))
        assert record["tensor_map"] == [[1, 2], 0]
        loaded = Parameter(p.asnumpy(), name="w")
        apply_layout_record(loaded, record)
        assert loaded.layout == lay
        sources.append((f"rank_{rank}", {"w": loaded}))
    np.testing.assert_array_equal(merge_values(sources)["w"], whole)
    with pytest.raises(ValueError, match=r"no file holds its block\(s\)"):
        merge_values(sources[:4])
