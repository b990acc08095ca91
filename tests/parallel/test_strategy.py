"""Compile-time strategy checks (§2.2), device matrix / repeated calculation / rank placement
(§2.3), the tutorial's strategies (§2.7), symbolic dims, and the user-facing Layout (§2.8)."""
import numpy as np
import pytest

import minispore as ms
from minispore import ops
from minispore.common.layout import group_ranks
from minispore.common.symbolic import SymDim, SymVar
from minispore.ops.primitive import Aval
from minispore.parallel.rules import apply_strategy
from minispore.parallel.strategy.check import StrategyError


def aval(*shape):
    return Aval(shape, ms.float32)


def sym(divisor=None):
    return SymDim.var(SymVar(0, None if divisor is None else ms.Symbol(divisor=divisor)))


def test_strategy_error_is_runtime_error_naming_op_scope_strategy_shapes():
    mm = ops.MatMul()
    with pytest.raises(RuntimeError) as err:
        apply_strategy(mm, (aval(256, 784), aval(784, 512)), ((3, 1), (1, 1)), 8,
                       scope="net.fc1.matmul")
    msg = str(err.value)
    assert isinstance(err.value, StrategyError)
    for part in ("'MatMul'", "net.fc1.matmul", "((3, 1), (1, 1))", "(256, 784)",
                 "cannot be divisible by strategy value 3"):
        assert part in msg


@pytest.mark.parametrize("strategy,match", [
    (((2, 1),), r"strategy size 1 is not equal to inputs size 2"),
    (((2, 1, 1), (1, 1)), r"strategy len 3 is not equal to inputs len 2"),
    (((0, 1), (1, 1)), r"must be an int >= 1"),
    (((3, 1), (1, 1)), r"cannot be divisible by strategy value 3"),
    (((4, 4), (4, 1)), r"needs 16 devices, but the stage has 8, which is not a multiple"),
    (((2, 4), (2, 1)), r"Strategies of relevant dimensions are not equal"),
])
def test_compile_checks(strategy, match):
    with pytest.raises(RuntimeError, match=match):
        apply_strategy(ops.MatMul(), (aval(256, 784), aval(784, 512)), strategy, 8)


def test_non_power_of_two_cut_rejected_only_for_power_of_two_device_num():
    args = (aval(12, 6),)
    with pytest.raises(RuntimeError, match=r"not a power of 2"):
        apply_strategy(ops.ReLU(), args, ((3, 1),), 8)
    res = apply_strategy(ops.ReLU(), args, ((3, 1),), 6)
    assert res.dev_matrix == (3, 1, 2) and res.repeat == 2


def test_device_num_not_multiple_of_p():
    with pytest.raises(RuntimeError, match=r"needs 4 devices, but the stage has 6"):
        apply_strategy(ops.ReLU(), (aval(8, 8),), ((2, 2),), 6)


def test_repeated_calculation_axis_on_the_right():
    res = apply_strategy(ops.ReLU(), (aval(8, 4),), ((4, 1),), 8)
    assert res.dev_matrix == (4, 1, 2) and res.repeat == 2
    lay = res.in_layouts[0]
    assert lay.tensor_map == (2, 1)
    for k in range(4):
        assert lay.local_slices((8, 4), 2 * k) == lay.local_slices((8, 4), 2 * k + 1)
        assert lay.block_index(2 * k) == (k, 0)


def test_rank_coordinates_row_major():
    res = apply_strategy(ops.MatMul(), (aval(8, 16), aval(16, 8)), ((2, 1), (1, 4)), 8)
    x, w = res.in_layouts
    assert res.dev_matrix == (2, 1, 4)
    assert {x.block_index(r) for r in range(4)} == {(0, 0)}
    assert {x.block_index(r) for r in range(4, 8)} == {(1, 0)}
    assert w.block_index(0) == w.block_index(4) == (0, 0)
    assert w.block_index(1) == w.block_index(5) == (0, 1)


def test_worked_example_tutorial_strategies():
    """§2.7 on 8 ranks, logical batch 256."""
    x = aval(256, 784)
    mm1 = apply_strategy(ops.MatMul(), (x, aval(784, 512)), ((2, 4), (4, 1)), 8)
    assert mm1.dev_matrix == (2, 4, 1)
    assert mm1.in_layouts[0].local_shape((256, 784)) == (128, 196)
    assert mm1.in_layouts[1].local_shape((784, 512)) == (196, 512)
    out = mm1.out_layouts[0]
    assert out.local_shape((256, 512)) == (128, 512) and out.partial == (1,)
    assert group_ranks(mm1.dev_matrix, 0, (1,)) == (0, 1, 2, 3)
    assert group_ranks(mm1.dev_matrix, 5, (1,)) == (4, 5, 6, 7)
    # w1 is replicated along axis "a": its mirror group is {r, r+4}.
    assert mm1.in_layouts[1].replica_axes() == (0,)
    assert group_ranks(mm1.dev_matrix, 1, (0,)) == (1, 5)
    relu1 = apply_strategy(ops.ReLU(), (aval(256, 512),), ((4, 1),), 8)
    assert relu1.dev_matrix == (4, 1, 2) and relu1.in_layouts[0].local_shape((256, 512)) == \
        (64, 512)
    mm2 = apply_strategy(ops.MatMul(), (aval(256, 512), aval(512, 512)), ((1, 8), (8, 1)), 8)
    assert mm2.dev_matrix == (1, 8, 1) and mm2.out_layouts[0].partial == (1,)
    assert mm2.in_layouts[0].local_shape((256, 512)) == (256, 64)
    assert mm2.in_layouts[1].replica_axes() == (0,)     # only a size-1 axis: no mirror
    mm3 = apply_strategy(ops.MatMul(), (aval(256, 512), aval(512, 10)), ((8, 1), (1, 1)), 8)
    assert mm3.dev_matrix == (8, 1, 1) and mm3.in_layouts[0].local_shape((256, 512)) == (32, 512)
    rep = apply_strategy(ops.MatMul(), (x, aval(784, 512)), ((2, 1), (1, 1)), 8)
    assert rep.repeat == 4 and rep.dev_matrix == (2, 1, 1, 4)


def test_symbolic_batch_cut_needs_symbol_divisor():
    res = apply_strategy(ops.MatMul(), (aval(sym(8), 784), aval(784, 512)), ((8, 1), (1, 1)), 8)
    assert res.dev_matrix == (8, 1, 1)
    apply_strategy(ops.MatMul(), (aval(sym(8), 784), aval(784, 512)), ((2, 1), (1, 1)), 8)
    with pytest.raises(RuntimeError, match=r"use Symbol\(divisor=8\)"):
        apply_strategy(ops.MatMul(), (aval(sym(1), 784), aval(784, 512)), ((8, 1), (1, 1)), 8)
    with pytest.raises(RuntimeError, match=r"use Symbol\(divisor=8\) for s0 \(now divisor=4\)"):
        apply_strategy(ops.ReLU(), (aval(sym(4), 6),), ((8, 1),), 8)
    # A flattened dim s0*4 cut 8 needs only an even s0.
    with pytest.raises(RuntimeError, match=r"use Symbol\(divisor=2\)"):
        apply_strategy(ops.ReLU(), (aval(sym(1) * 4, 6),), ((8, 1),), 8)
    # A plain None dim (no Symbol) is checked at run time.
    apply_strategy(ops.ReLU(), (aval(sym(None), 6),), ((8, 1),), 8)


def test_shard_accepts_layout_objects_and_they_drive_the_rule():
    layout = ms.Layout((2, 4, 1), ("dp", "mp", "x"))
    mm = ops.MatMul().shard((layout("dp", "mp"), layout("mp", "x")))
    res = apply_strategy(mm, (aval(8, 16), aval(16, 4)), mm.attrs["in_strategy"], 8)
    # The strategy recorded is the Layouts as given; the device matrix and blocks are theirs.
    assert res.strategy == mm.attrs["in_strategy"] and res.dev_matrix == (2, 4, 1)
    assert [lay.cuts() for lay in res.in_layouts] == [(2, 4), (4, 1)]
    assert res.out_layouts[0].partial == (1,)
    with pytest.raises(TypeError):
        ops.MatMul().shard(([2, 1], (1, 1)))


def test_layout_validation():
    with pytest.raises(TypeError):
        ms.Layout([2, 4], ("dp", "mp"))
    with pytest.raises(TypeError):
        ms.Layout((2, 4), ["dp", "mp"])
    with pytest.raises(ValueError):
        ms.Layout((2, 4), ("dp",))
    with pytest.raises(TypeError):
        ms.Layout((2, 4.0), ("dp", "mp"))
    with pytest.raises(TypeError):
        ms.Layout((2, 4), ("dp", 1))
    for names in (("dp", ""), ("dp", "None"), ("dp", "dp")):
        with pytest.raises(ValueError):
            ms.Layout((2, 4), names)
    with pytest.raises(ValueError, match="interleaved_parallel"):
        ms.Layout((2, 4), ("interleaved_parallel", "mp"))
    ms.Layout((2, 4), ("dp", "interleaved_parallel"))


def test_layout_call_builds_tensor_map():
    layout = ms.Layout((2, 2, 2), ("dp", "sp", "mp"))
    d = layout("dp", ("sp", "mp"), "None").to_dict()
    assert d == {"device_matrix": (2, 2, 2), "tensor_map": (2, (1, 0), -1),
                 "interleaved_parallel": False}
    with pytest.raises(ValueError, match="not one of the alias names"):
        layout("dp", "tp")
    with pytest.raises(ValueError, match="used twice"):
        layout("dp", "dp")
    with pytest.raises(ValueError):
        layout.to_dict()


def test_layout_to_tensor_layout():
    layout = ms.Layout((2, 2, 2), ("dp", "sp", "mp"))
    tl = layout(("dp", "sp"), "mp").to_tensor_layout(8)
    assert tl.dev_matrix == (2, 2, 2) and tl.tensor_map == ((2, 1), 0)
    data = np.arange(8 * 6).reshape(8, 6)
    # rank 3 = (dp 0, sp 1, mp 1): rows block 1 of 4, columns block 1 of 2.
    assert tl.block_index(3) == (1, 1) and data[tl.local_slices((8, 6), 3)].shape == (2, 3)
    assert layout("mp", "None").to_tensor_layout().tensor_map == (0, -1)
    with pytest.raises(ValueError, match="stage device number 4"):
        layout("dp", "mp").to_tensor_layout(4)
    # Axes need not be adjacent nor major first: ("mp", "dp") puts mp outermost.
    tl = layout(("mp", "dp"), "None").to_tensor_layout()
    assert [tl.block_index(r)[0] for r in range(8)] == [0, 2, 0, 2, 1, 3, 1, 3]
    with pytest.raises(NotImplementedError, match="interleaved_parallel"):
        ms.Layout((2, 2), ("dp", "interleaved_parallel"))("dp", "None").to_tensor_layout()
