"""Redistribution with the real collectives, under mpirun: numerically the identity for every pair
of layouts of a (16, 16) tensor (§17 item 14), differentiable, and counted by comm_stats exactly
as the plan predicts.

Run: mpirun -n 8 python -m pytest --with-mpi -m "mpi and mpi8" tests/parallel/test_redistribution*
     mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_redistribution*

Mismatches are collected and asserted after each loop: a rank that stopped early would leave
the others waiting in a collective.
"""
import itertools

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor
from minispore.common.layout import group_ranks
from minispore.parallel import comm_stats, reset_comm_stats
from minispore.parallel.redistribution import expected_comm_stats, plan, redistribute
from tests.parallel.test_redistribution_plan import (_factorizations, all_layouts,
                                                     global_array, run_plan_oracle,
                                                     source_blocks)

pytestmark = pytest.mark.mpi(min_size=2)

SHAPE = (16, 16)


def layouts_for(n, partial):
    """Every layout of a 2-d tensor on every device matrix of n devices (no size-1 axes), with
    (partial=True) or without (False) pending sums."""
    return [lay for dev in _factorizations(n) for lay in all_layouts(dev, 2)
            if bool(lay.partial) == partial]


def identity_cases(n):
    """(src, dst, enable_alltoall) for: every pair of layouts without pending sums, both
    alltoall settings (once when the plan has no alltoall); every partial layout to every
    unsummed layout on the finest and the flat device matrix; every unsummed layout to every
    partial layout on the finest device matrix."""
    full, partial = layouts_for(n, False), layouts_for(n, True)
    finest, flat = _factorizations(n)[-1], (n,)
    ends = [d for d in full if d.dev_matrix in (finest, flat)]
    cases = []
    for src, dst in itertools.product(full, full):
        cases.append((src, dst, True))
        if any(m.kind == "alltoall" for m in plan(src, dst, SHAPE, True)):
            cases.append((src, dst, False))
    cases += [(src, dst, True) for src, dst in itertools.product(partial, ends)]
    cases += [(src, dst, True) for src, dst in itertools.product(full, partial)
              if src.dev_matrix == dst.dev_matrix == finest]
    return cases


def _mismatches(rank, src, dst, moves, blocks, x, enable_alltoall):
    """Run one redistribution; the reasons it is wrong on this rank (empty when right)."""
    reset_comm_stats()
    got = redistribute(blocks[rank], src, dst, SHAPE, enable_alltoall=enable_alltoall,
                       moves=moves)
    want = run_plan_oracle(moves, blocks)[rank] if dst.partial else \
        x[dst.local_slices(SHAPE, rank)]
    bad = []
    if got.shape != want.shape or not np.array_equal(got, want):
        bad.append(f"values: {src} -> {dst} (alltoall={enable_alltoall}) "
                   f"{[str(m) for m in moves]}")
    stats, expected = comm_stats(), expected_comm_stats(moves, SHAPE, x.itemsize)
    if stats != expected:
        bad.append(f"comm_stats {stats} != plan {expected}: {src} -> {dst}")
    return bad


@pytest.mark.mpi8
def test_redistribute_every_pair_of_layouts_is_the_identity(world):
    rank, n = world
    x = global_array(SHAPE).astype(np.float32)
    blocks = {}
    bad = []
    for src, dst, enable_alltoall in identity_cases(n):
        if src not in blocks:
            blocks[src] = source_blocks(src, x)
        moves = plan(src, dst, SHAPE, enable_alltoall)
        bad += _mismatches(rank, src, dst, moves, blocks[src], x, enable_alltoall)
    assert not bad, f"rank {rank}: {len(bad)} failures, first: {bad[:3]}"


def _dual(layout):
    """The layout of a cotangent of a tensor laid out as `layout`: replicated axes hold
    partial cotangents, partial axes replicated ones, cut axes stay cut."""
    from minispore.common.layout import TensorLayout
    n = len(layout.dev_matrix)
    partial = [n - 1 - a for a in layout.replica_axes()]
    return TensorLayout(layout.dev_matrix, layout.tensor_map, partial)


@pytest.mark.mpi8
def test_redistribute_gradient_is_the_redistribution_back(world):
    """d/dx sum_r <redistribute(x)_r, dy_r> with dy laid out as dual(dst) is the cotangent G
    laid out as dual(src): summed over src's replica group it is G's block."""
    from mpi4py import MPI
    rank, n = world
    g = global_array(SHAPE, seed=7)
    x = global_array(SHAPE, seed=3)
    layouts = layouts_for(n, False) + layouts_for(n, True)
    cases = [(s, d) for s, d in itertools.product(layouts, layouts) if s != d]
    cases = cases[::max(1, len(cases) // 60)]
    bad = []
    for (src, dst), enable_alltoall in itertools.product(cases, (False, True)):
        x_r = Tensor(source_blocks(src, x)[rank])
        dy_r = Tensor(source_blocks(_dual(dst), g, seed=11)[rank])
        grad = ms.grad(lambda t: (redistribute(t, src, dst, SHAPE,
                                               enable_alltoall=enable_alltoall)
                                  * dy_r).sum())(x_r).asnumpy()
        grads = MPI.COMM_WORLD.allgather(grad)
        axes = src.replica_axes()
        got = sum(grads[r] for r in group_ranks(src.dev_matrix, rank, axes)) if axes \
            else grad
        if not np.array_equal(got, g[src.local_slices(SHAPE, rank)]):
            bad.append(f"{src} -> {dst} (alltoall={enable_alltoall})")
    assert not bad, f"rank {rank}: {len(bad)} gradient failures, first: {bad[:3]}"


def test_comm_stats_count_every_collective_of_a_plan(world):
    rank, n = world
    from minispore.common.layout import TensorLayout
    x = global_array(SHAPE).astype(np.float32)
    src = TensorLayout((n,), (-1, -1), (0,))
    dst = TensorLayout((n,), (-1, 0))
    moves = plan(src, dst, SHAPE)
    reset_comm_stats()
    got = redistribute(source_blocks(src, x)[rank], src, dst, SHAPE)
    np.testing.assert_array_equal(got, x[dst.local_slices(SHAPE, rank)])
    block = 16 * 16 * 4
    assert comm_stats() == {"ReduceScatter": {"count": 1, "bytes": (n - 1) * block // n}}
    assert comm_stats() == expected_comm_stats(moves, SHAPE, 4)
    # Collectives issued outside redistribution are counted too.
    ms.ops.AllReduce()(Tensor(np.ones(8, np.float32)))
    assert comm_stats()["AllReduce"] == {"count": 1, "bytes": 2 * (n - 1) * 32 // n}
    reset_comm_stats()
    assert comm_stats() == {}


def test_redistribute_rejects_a_block_of_the_wrong_shape(world):
    from minispore.common.layout import TensorLayout
    rank, n = world
    src = TensorLayout((n,), (0, -1))
    with pytest.raises(ValueError, match=r"local block has shape \(16, 16\)"):
        redistribute(np.zeros(SHAPE, np.float32), src, TensorLayout((n,), (-1, -1)), SHAPE)
