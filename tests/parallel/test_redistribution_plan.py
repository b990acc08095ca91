"""The redistribution planner, single process: move sequences per placement pair, device-matrix
refinement, traffic cost, and a numpy oracle that runs a plan over every rank's block at once.

The oracle (``run_plan_oracle``) is a reference interpreter for the PLAN, not for our
collectives: it gives each move's meaning in plain numpy over the list of all ranks' blocks, so
"every rank ends with dst's block" checks that the move sequence is right. The real collectives
run the same plans in test_redistribution_mpi.py.
"""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minispore.common.layout import TensorLayout, group_ranks, rank_coordinate
from minispore.parallel.redistribution import cost, expected_comm_stats, plan, refine


# -- helpers shared with the MPI tests ----------------------------------------------------
def all_layouts(dev_matrix, ndim, partial=True, multi=False):
    """Every TensorLayout of an ndim tensor on dev_matrix (each axis: replicate, partial or one
    tensor dim; each dim cut by at most one axis, or with `multi` by several in every order, as
    a Layout's ``layout(("dp", "sp"))`` cuts it)."""
    n = len(dev_matrix)
    choices = ["R", "P"] if partial else ["R"]
    choices += list(range(ndim))
    out = []
    for assign in itertools.product(choices, repeat=n):
        dims = [c for c in assign if c not in ("R", "P")]
        if len(dims) != len(set(dims)) and not multi:
            continue
        partial_axes = [n - 1 - a for a, c in enumerate(assign) if c == "P"]
        cutters = [[n - 1 - a for a, c in enumerate(assign) if c == d] for d in range(ndim)]
        for orders in itertools.product(*(itertools.permutations(c) for c in cutters)):
            tensor_map = [o if o else -1 for o in orders]
            out.append(TensorLayout(dev_matrix, tensor_map, partial_axes))
    return out


def _partial_axes(layout):
    return tuple(layout.axis(p) for p in layout.partial)


def source_blocks(layout, global_array, seed=0):
    """Every rank's block under `layout`; a partial layout splits each block into integer
    terms over its partial group (exact in float64), the same on every process."""
    n = layout.device_num
    blocks = [global_array[layout.local_slices(global_array.shape, r)].copy() for r in range(n)]
    axes = _partial_axes(layout)
    if not axes:
        return blocks
    for group in sorted({group_ranks(layout.dev_matrix, r, axes) for r in range(n)}):
        rng = np.random.default_rng([seed, *group])
        rest = blocks[group[0]].copy()
        for r in group[1:]:
            blocks[r] = rng.integers(-4, 5, rest.shape).astype(global_array.dtype)
            rest -= blocks[r]
        blocks[group[0]] = rest
    return blocks


def logical_block(layout, blocks, rank):
    """What `rank`'s block means: its value, or the sum over its partial group."""
    axes = _partial_axes(layout)
    if not axes:
        return blocks[rank]
    return sum(blocks[r] for r in group_ranks(layout.dev_matrix, rank, axes))


def global_array(shape, seed=0):
    return np.random.default_rng(seed).integers(-9, 10, shape).astype(np.float64)


# -- the oracle -----------------------------------------------------------------------------
def run_plan_oracle(moves, blocks):
    """Apply `moves` to the list of every rank's block with numpy (the test oracle)."""
    blocks = list(blocks)
    for m in moves:
        k = m.size
        out = list(blocks)
        for group in m.groups():
            parts = [blocks[r] for r in group]
            for i, r in enumerate(group):
                assert rank_coordinate(m.dev_matrix, r)[m.axis] == i
                if m.kind == "slice":
                    out[r] = np.split(parts[i], k, axis=m.dims[0])[i]
                elif m.kind == "allgather":
                    out[r] = np.concatenate(parts, axis=m.dims[0])
                elif m.kind == "allreduce":
                    out[r] = sum(parts)
                elif m.kind == "reducescatter":
                    out[r] = np.split(sum(parts), k, axis=m.dims[0])[i]
                elif m.kind == "alltoall":
                    src_dim, dst_dim = m.dims
                    out[r] = np.concatenate([np.split(p, k, axis=dst_dim)[i] for p in parts],
                                            axis=src_dim)
                elif m.kind == "mask":
                    out[r] = parts[i] if i == 0 else np.zeros_like(parts[i])
                else:
                    raise AssertionError(f"unknown move {m}")
        blocks = out
    return blocks


def check_plan(src, dst, shape, enable_alltoall, seed=0):
    x = global_array(shape, seed)
    moves = plan(src, dst, shape, enable_alltoall)
    out = run_plan_oracle(moves, source_blocks(src, x, seed))
    for r in range(dst.device_num):
        np.testing.assert_array_equal(logical_block(dst, out, r),
                                      x[dst.local_slices(shape, r)],
                                      err_msg=f"rank {r}: {src} -> {dst}: "
                                              f"{[str(m) for m in moves]}")
    return moves


def kinds(moves):
    return [(m.kind, m.axis, m.dims) for m in moves]


L = TensorLayout


# -- move sequences per placement pair ----------------------------------------------------
@pytest.mark.parametrize("src,dst,alltoall,expected", [
    # Partial -> Replicate
    (L((4,), (-1, -1), (0,)), L((4,), (-1, -1)), False, [("allreduce", 0, ())]),
    # Partial -> Shard: straight into the cut, dim moved to the front around it
    (L((4,), (-1, -1), (0,)), L((4,), (-1, 0)), False, [("reducescatter", 0, (1,))]),
    # Shard -> Replicate
    (L((4,), (-1, 0)), L((4,), (-1, -1)), False, [("allgather", 0, (1,))]),
    # Replicate -> Shard
    (L((4,), (-1, -1)), L((4,), (0, -1)), False, [("slice", 0, (0,))]),
    # Shard(i) -> Shard(j) on one axis
    (L((4,), (0, -1)), L((4,), (-1, 0)), True, [("alltoall", 0, (0, 1))]),
    (L((4,), (0, -1)), L((4,), (-1, 0)), False, [("allgather", 0, (0,)), ("slice", 0, (1,))]),
    # Replicate -> Partial
    (L((4,), (-1, -1)), L((4,), (-1, -1), (0,)), False, [("mask", 0, ())]),
    # Shard moving between mesh axes: gather on the old one, slice on the new one
    (L((2, 4), (1, -1)), L((2, 4), (0, -1)), False,
     [("allgather", 0, (0,)), ("slice", 1, (0,))]),
    # Same layout: nothing to do
    (L((2, 4), (1, 0)), L((2, 4), (1, 0)), True, []),
    # Reduce before gather, slice before gather
    (L((2, 4), (0, -1), (1,)), L((2, 4), (-1, 1)), False,
     [("reducescatter", 0, (1,)), ("allgather", 1, (0,))]),
    (L((2, 4), (-1, 0), (1,)), L((2, 4), (-1, 1)), False,
     [("allreduce", 0, ()), ("allgather", 1, (1,)), ("slice", 0, (1,))]),
    (L((2, 4), (0, -1)), L((2, 4), (1, -1)), True,
     [("allgather", 1, (0,)), ("slice", 0, (0,))]),
])
def test_plan_move_sequence(src, dst, alltoall, expected):
    moves = check_plan(src, dst, (8, 8), alltoall)
    assert kinds(moves) == expected


def test_plan_swap_of_two_cuts_uses_one_gather():
    src, dst = L((2, 4), (1, 0)), L((2, 4), (0, 1))
    assert kinds(check_plan(src, dst, (8, 8), True)) == [
        ("allgather", 0, (0,)), ("alltoall", 1, (1, 0)), ("slice", 0, (1,))]
    assert [m.kind for m in check_plan(src, dst, (8, 8), False)] == [
        "allgather", "allgather", "slice", "slice"]


def test_plan_groups_follow_group_ranks():
    moves = plan(L((2, 4), (1, -1)), L((2, 4), (-1, -1)), (8, 8))
    m, = moves
    assert m.group(5) == (1, 5) == group_ranks((2, 4), 5, (0,))
    assert m.groups() == ((0, 4), (1, 5), (2, 6), (3, 7))


def test_plan_move_str():
    m, = plan(L((4,), (0, -1)), L((4,), (-1, 0)), (8, 8), enable_alltoall=True)
    assert str(m) == "alltoall(axis=0, dims=0->1, k=4)"


# -- device-matrix unification ------------------------------------------------------------
def test_refine_merges_cut_points():
    assert refine((2, 4), (4, 2))[0] == (2, 2, 2)
    assert refine((8,), (2, 4))[0] == (2, 4)
    dev, spans = refine((2, 1, 4), (8,))
    assert dev == (2, 4)
    assert [list(s) for s in spans[0]] == [[0], [], [1]]


def test_refine_without_common_refinement_raises():
    with pytest.raises(NotImplementedError,
                       match=r"\(3, 2\), \(2, 3\)\] have no common refinement"):
        plan(L((3, 2), (1, -1)), L((2, 3), (1, -1)), (6, 6))


def test_plan_rejects_other_device_counts_and_bad_shapes():
    with pytest.raises(ValueError, match="different numbers of devices"):
        plan(L((4,), (0, -1)), L((8,), (0, -1)), (8, 8))
    with pytest.raises(ValueError, match="cannot be divided by its cut 4"):
        plan(L((4,), (0, -1)), L((4,), (-1, -1)), (6, 8))
    with pytest.raises(TypeError, match="must be a TensorLayout"):
        plan((4,), L((4,), (-1, -1)), (8, 8))


def test_plan_across_device_matrices_nests_cuts():
    # dim 0 cut 8 ways by one axis becomes dim 0 cut by the refined axes (2, 4), left outer.
    moves = check_plan(L((8,), (0, -1)), L((2, 4), (1, 0)), (16, 16), False)
    assert kinds(moves) == [("allgather", 1, (0,)), ("slice", 1, (1,))]
    check_plan(L((2, 4), (1, 0)), L((4, 2), (0, 1)), (16, 16), True)


# -- cost ---------------------------------------------------------------------------------
def test_cost_is_bytes_sent_per_device():
    shape, item = (16, 16), 4
    gather = plan(L((4,), (0, -1)), L((4,), (-1, -1)), shape)   # blocks of 4x16 floats
    assert cost(gather, shape, item) == 3 * 256
    reduce = plan(L((4,), (-1, -1), (0,)), L((4,), (-1, -1)), shape)
    assert cost(reduce, shape, item) == 2 * 3 * 1024 // 4
    a2a = plan(L((4,), (0, -1)), L((4,), (-1, 0)), shape, enable_alltoall=True)
    no_a2a = plan(L((4,), (0, -1)), L((4,), (-1, 0)), shape)
    assert cost(a2a, shape, item) == 3 * 256 // 4 < cost(no_a2a, shape, item)
    assert expected_comm_stats(no_a2a, shape, item) == {"AllGather": {"count": 1,
                                                                      "bytes": 768}}


def test_reduce_scatter_is_cheaper_than_allreduce_then_slice():
    shape = (16, 16)
    rs = plan(L((2, 4), (-1, -1), (0,)), L((2, 4), (-1, 0)), shape)
    assert [m.kind for m in rs] == ["reducescatter"]
    assert cost(rs, shape, 4) < 2 * 3 * 1024 // 4


# -- exhaustive and property tests over the oracle ------------------------------------------
@pytest.mark.parametrize("dev_matrix", [(8,), (2, 4), (2, 2, 2)])
def test_plan_all_pairs_on_eight_devices(dev_matrix):
    layouts = all_layouts(dev_matrix, 2) + all_layouts((4, 2), 2, partial=False)
    for src, dst in itertools.product(all_layouts(dev_matrix, 2), layouts):
        for alltoall in (False, True):
            check_plan(src, dst, (16, 16), alltoall)


def test_plan_all_pairs_of_multi_axis_layouts_on_2x2x2():
    """Every layout of a 2-d tensor on (2, 2, 2) whose dims may be cut over several axes in any
    order, to every non-partial one of them and to the 8-way and (4, 2) layouts."""
    src_all = all_layouts((2, 2, 2), 2, multi=True)
    dsts = all_layouts((2, 2, 2), 2, partial=False, multi=True) + all_layouts((8,), 2) + \
        all_layouts((4, 2), 2, partial=False)
    assert any(isinstance(m, tuple) for lay in src_all for m in lay.tensor_map)
    for src, dst in itertools.product(src_all, dsts):
        check_plan(src, dst, (8, 8), src.tensor_map[0] != dst.tensor_map[1])


def _factorizations(n):
    if n == 1:
        return [()]
    out = [(n,)]
    for f in range(2, n):
        if n % f == 0:
            out += [(f,) + rest for rest in _factorizations(n // f)]
    return out


@st.composite
def layout_pairs(draw):
    n = draw(st.sampled_from([2, 4, 8]))
    ndim = draw(st.integers(1, 3))
    shape = tuple(n * draw(st.integers(1, 2)) for _ in range(ndim))
    pair = []
    for _ in range(2):
        dev = list(draw(st.sampled_from(_factorizations(n))))
        if draw(st.booleans()):
            dev.insert(draw(st.integers(0, len(dev))), 1)
        pair.append(draw(st.sampled_from(all_layouts(tuple(dev), ndim, multi=True))))
    return pair[0], pair[1], shape, draw(st.booleans())


@settings(max_examples=300, deadline=None, derandomize=True)
@given(layout_pairs())
def test_plan_property_redistribution_is_the_identity(case):
    src, dst, shape, alltoall = case
    moves = check_plan(src, dst, shape, alltoall)
    # Every collective runs on a group of the size of its axis; local moves cost nothing.
    for m in moves:
        assert all(len(g) == m.size > 1 for g in m.groups())
    if not alltoall:
        assert all(m.kind != "alltoall" for m in moves)
    if src == dst:
        assert moves == []
