"""Semi-auto parallel end to end under mpirun: the invariant of DESIGN.md -- the parallel run's
loss at every step and its gathered parameters after training equal the single-device run's
(rtol 1e-5) -- for the tutorial network under the tutorial's strategies and other strategy sets
(contracted-dim splits, output-dim splits, repeated calculation, layout changes between
operators, ReduceScatter out_strategy, AllToAll), plus the communication counter against the
analytic count.

Run: mpirun -n 8 python -m pytest --with-mpi -m "mpi and mpi8" tests/parallel/test_semi_auto_mpi.py
     mpirun -n 4 python -m pytest --with-mpi -m "mpi and mpi4" tests/parallel/test_semi_auto_mpi.py
     mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_semi_auto_mpi.py
"""
import numpy as np
import pytest

import minispore as ms
from tests.parallel.semi_auto_net import TutorialNet, batches, train, train_cell

pytestmark = pytest.mark.mpi(min_size=2)

TUTORIAL = (((2, 4), (4, 1)), ((4, 1),), ((1, 8), (8, 1)), ((8, 1),))
SMALL = (64, 32, 32, 10)      # the tutorial's shape of network at a size that runs quickly

# name -> (strategies, extra train() arguments); the sets for 8 ranks
EIGHT = {
    "contracted_dims": ((((1, 8), (8, 1)), ((8, 1),), ((1, 8), (8, 1)), ((1, 8),)), {}),
    "output_dims": ((((1, 1), (1, 8)), ((1, 8),), ((1, 8), (8, 1)), ((1, 1),)), {}),
    "repeated_calculation": ((((2, 1), (1, 1)), ((2, 1),), ((1, 2), (2, 2)), ((4, 2),)), {}),
    "mixed_2d": ((((4, 2), (2, 1)), ((2, 4),), ((2, 4), (4, 1)), ((1, 1),)),
                 {"optimizer": "momentum"}),
    "layout_changes": ((((8, 1), (1, 1)), ((1, 8),), ((1, 1), (1, 1)), ((2, 2),)), {}),
    "reduce_scatter_out": ((((2, 4), (4, 1)), ((8, 1),), ((1, 8), (8, 1)), ((8, 1),)),
                           {"out1": ((8, 1),), "out2": ((8, 1),)}),
    "alltoall": (TUTORIAL, {"enable_alltoall": True}),
    "full_batch": (TUTORIAL, {"dataset_strategy": "full_batch"}),
}
FOUR = {
    "contracted_and_rows": ((((2, 2), (2, 1)), ((4, 1),), ((1, 4), (4, 1)), ((2, 2),)), {}),
    "output_dims_and_repeat": ((((1, 1), (1, 4)), ((1, 4),), ((1, 2), (2, 1)), ((4, 1),)),
                               {"optimizer": "momentum"}),
    "reduce_scatter_and_alltoall": ((((2, 2), (2, 1)), ((4, 1),), ((1, 4), (4, 1)), ((4, 1),)),
                                    {"out1": ((4, 1),), "out2": ((4, 1),),
                                     "enable_alltoall": True}),
}
TWO = {
    "contracted": ((((1, 2), (2, 1)), ((2, 1),), ((2, 1), (1, 1)), ((1, 2),)), {}),
    "output_and_scatter": ((((2, 1), (1, 1)), ((1, 2),), ((1, 2), (2, 1)), ((1, 1),)),
                           {"out2": ((2, 1),), "optimizer": "momentum"}),
    "repeated": ((((1, 1), (1, 1)), ((2, 1),), ((1, 1), (1, 1)), ((1, 1),)), {}),
}


def assert_equivalent(rank, n, strategies, steps=3, dims=SMALL, **kw):
    ref_losses, ref_weights = train(strategies, steps, dims=dims, parallel=False,
                                    optimizer=kw.get("optimizer", "sgd"))
    losses, weights = train(strategies, steps, dims=dims, rank=rank, n=n, **kw)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    assert len(set(ref_losses)) == steps    # the weights do move between steps
    for w, ref in zip(weights, ref_weights):
        np.testing.assert_allclose(w, ref, rtol=1e-5, atol=1e-7)


@pytest.mark.mpi8
def test_tutorial_strategies_equal_single_device(world):
    rank, n = world
    if n != 8:
        pytest.skip("the tutorial's strategies need exactly 8 ranks")
    assert_equivalent(rank, n, TUTORIAL, dims=(784, 512, 512, 10))


@pytest.mark.mpi8
@pytest.mark.parametrize("name", sorted(EIGHT))
def test_strategy_sets_on_8_ranks_equal_single_device(world, name):
    rank, n = world
    if n != 8:
        pytest.skip("these strategy sets are written for 8 ranks")
    strategies, kw = EIGHT[name]
    assert_equivalent(rank, n, strategies, **kw)


@pytest.mark.mpi4
@pytest.mark.parametrize("name", sorted(FOUR))
def test_strategy_sets_on_4_ranks_equal_single_device(world, name):
    rank, n = world
    if n != 4:
        pytest.skip("these strategy sets are written for 4 ranks")
    strategies, kw = FOUR[name]
    assert_equivalent(rank, n, strategies, **kw)


@pytest.mark.parametrize("name", sorted(TWO))
def test_strategy_sets_on_2_ranks_equal_single_device(world, name):
    rank, n = world
    if n != 2:
        pytest.skip("these strategy sets are written for 2 ranks")
    strategies, kw = TWO[name]
    assert_equivalent(rank, n, strategies, **kw)


# What one training step of the tutorial network moves per rank (batch 32 logical, float32):
# forward  - x from data parallel (4 rows) to matmul1's (16 rows, 196 cols): AllGather of
#            (4, 784) over the 4 ranks of a row block, 3 * 12544 B, then a local column slice;
#          - matmul1's partial sums over its 4-way k axis: AllReduce of (16, 512),
#            2 * 3/4 * 32768 B = 49152;
#          - relu1's 4-row blocks lie inside matmul1's 16-row blocks: a local slice;
#          - matmul2 wants whole columns cut 8 ways: AllGather of the (8, 512) row blocks over
#            4 ranks, 3 * 16384 = 49152 B, then local slices;
#          - matmul2's partial sums over 8 ranks: AllReduce of (32, 512), 2 * 7/8 * 65536 B;
#          - relu2 and matmul3 slice locally; the mean loss over the 8-way batch: AllReduce
#            of a scalar, 2 * 7 * 4 // 8 = 7 B.
# backward - the transposes: the loss AllReduce (7 B), matmul2's AllReduce (114688 B), the
#            ReduceScatter of matmul2's input gather ((32, 512) over 4: 3/4 * 65536 B),
#            matmul1's AllReduce (49152 B); x needs no gradient, so its gather has none;
#          - mirrors: fc1 (196, 512) replicated on 2 ranks, 2 * 1/2 * 401408 B; fc3 (512, 10)
#            on all 8, 2 * 7/8 * 20480 B; fc2 is fully sliced (no mirror).
TUTORIAL_STEP_COMM = {
    "AllGather": {"count": 2, "bytes": 3 * 12544 + 3 * 16384},
    "AllReduce": {"count": 8, "bytes": 49152 + 114688 + 7 + 7 + 114688 + 49152
                  + 401408 + 35840},
    "ReduceScatter": {"count": 1, "bytes": 49152},
}


@pytest.mark.mpi8
def test_tutorial_comm_counter_and_blocks_match_the_analytic_plan(world):
    rank, n = world
    if n != 8:
        pytest.skip("the tutorial's strategies need exactly 8 ranks")
    xs, ys = batches(2, 32, (784, 512, 512, 10))
    nets = []

    def make():
        nets.append(TutorialNet(TUTORIAL))
        return nets[-1]
    _, _, _, stats = train_cell(make, xs, ys, True, rank, n, count_comm=True)
    assert stats == TUTORIAL_STEP_COMM
    net = nets[0]
    assert net.fc1_weight.shape == (196, 512) and net.fc1_weight.global_shape == (784, 512)
    assert net.fc2_weight.shape == (64, 512) and net.fc3_weight.shape == (512, 10)
    # rank r holds rows block r % 4 of fc1 (k cut 4 on the middle axis of dev matrix (2, 4, 1))
    assert net.fc1_weight.layout.local_slices((784, 512), rank)[0].start == 196 * (rank % 4)
    assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"
