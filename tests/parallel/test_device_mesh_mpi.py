"""A strategy applied on a sub-mesh: on 8 ranks, world ranks {4..7} train the tutorial network
under a 4-device strategy inside ``on_mesh(DeviceMesh((4, 5, 6, 7)))`` while ranks {0..3} train
it on their own mesh under another strategy, at the same time; each equals the single-device
run, and each mesh's collectives stay among its own world ranks.

Run: mpirun -n 8 python -m pytest --with-mpi -m "mpi and mpi8" tests/parallel/test_device_mesh_mpi.py
"""
import numpy as np
import pytest

from minispore.communication import _comm
from minispore.parallel import DeviceMesh, on_mesh
from tests.parallel.semi_auto_net import train

pytestmark = pytest.mark.mpi(min_size=2)

SMALL = (64, 32, 32, 10)
STRATEGIES = {
    (4, 5, 6, 7): (((2, 2), (2, 1)), ((4, 1),), ((1, 4), (4, 1)), ((2, 2),)),
    (0, 1, 2, 3): (((1, 4), (4, 1)), ((1, 4),), ((1, 1), (1, 4)), ((4, 1),)),
}


@pytest.mark.mpi8
def test_strategy_on_a_sub_mesh_of_world_ranks_equals_single_device(world):
    rank, n = world
    if n != 8:
        pytest.skip("the sub-meshes {0..3} and {4..7} need exactly 8 ranks")
    ranks = (4, 5, 6, 7) if rank >= 4 else (0, 1, 2, 3)
    strategies = STRATEGIES[ranks]
    ref_losses, ref_weights = train(strategies, 3, dims=SMALL, parallel=False)
    before = set(_comm.STATE.groups)          # groups earlier tests of this process made
    with on_mesh(DeviceMesh(ranks)):
        losses, weights, stats = train(strategies, 3, dims=SMALL, rank=ranks.index(rank), n=4,
                                       count_comm=True)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    for w, ref in zip(weights, ref_weights):
        np.testing.assert_allclose(w, ref, rtol=1e-5, atol=1e-7)
    assert sum(e["count"] for e in stats.values()) > 0
    # Every group this run made lies inside its own mesh.
    groups = [name for name in set(_comm.STATE.groups) - before
              if name.startswith("redistribution_")]
    for name in groups:
        members = {int(r) for r in name.split("_")[1:]}
        assert members <= set(ranks), (name, ranks)


def test_mesh_size_and_membership_are_checked(world):
    import minispore as ms
    from minispore.parallel.settings import operator_parallel_settings
    rank, n = world
    others = tuple(r for r in range(n) if r != rank)
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
                                 device_num=n)
    try:
        with pytest.raises(RuntimeError, match=r"device mesh .* has 1 ranks"):
            operator_parallel_settings(DeviceMesh((rank,)))
        if len(others) > 1:
            ms.set_auto_parallel_context(device_num=len(others))
            with pytest.raises(ValueError, match=f"Rank {rank} is not in the device mesh"):
                operator_parallel_settings(DeviceMesh(others))
        ms.set_auto_parallel_context(device_num=n)
        settings = operator_parallel_settings(DeviceMesh(tuple(reversed(range(n)))))
        assert settings.rank == n - 1 - rank            # a position in the mesh
        assert settings.world_group((0, n - 1)) == (n - 1, 0)
    finally:
        ms.reset_auto_parallel_context()
