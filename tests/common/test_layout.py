"""The layout vocabulary: MindSpore's rank placement (semantics §2.3) and DTensor placements."""
import numpy as np
import pytest

from minispore.common.layout import (Partial, Replicate, Shard, TensorLayout, coordinate_rank,
                                     group_ranks, rank_coordinate)


def test_rank_coordinates_are_row_major_last_axis_fastest():
    assert [rank_coordinate((2, 1, 4), r) for r in (0, 3, 4, 7)] == \
        [(0, 0, 0), (0, 0, 3), (1, 0, 0), (1, 0, 3)]
    assert all(coordinate_rank((2, 3, 4), rank_coordinate((2, 3, 4), r)) == r for r in range(24))


def test_matmul_doc_example_blocks():
    # MatMul ((2,1),(1,4)) on 8 devices: dev_mat (2,1,4); X map (2,1), W map (1,0).
    x = TensorLayout((2, 1, 4), (2, 1))
    w = TensorLayout((2, 1, 4), (1, 0))
    assert [x.block_index(r)[0] for r in range(8)] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert {r for r in range(8) if w.block_index(r) == (0, 0)} == {0, 4}
    assert {r for r in range(8) if w.block_index(r) == (0, 1)} == {1, 5}
    assert w.replica_axes() == (0,)


def test_repeated_calculation_pairs_hold_the_same_block():
    # ReLU ((4,1),) on 8 devices: dev_mat (4,1,2), map (2,1): ranks 2k and 2k+1 agree.
    lay = TensorLayout((4, 1, 2), (2, 1))
    for k in range(4):
        assert lay.block_index(2 * k) == lay.block_index(2 * k + 1) == (k, 0)


def test_local_slices_tile_the_global_tensor():
    lay = TensorLayout((2, 2, 2), (2, 0))
    covered = np.zeros((4, 6), int)
    for r in range(8):
        covered[lay.local_slices((4, 6), r)] += 1
    assert (covered == 2).all()          # axis 1 (right index 1) is a replica axis of size 2


def test_group_ranks_along_axes():
    assert group_ranks((2, 4), 5, (1,)) == (4, 5, 6, 7)
    assert group_ranks((2, 4), 5, (0,)) == (1, 5)
    assert group_ranks((2, 2, 2), 0, (0, 2)) == (0, 1, 4, 5)


def test_placements_round_trip():
    lay = TensorLayout((2, 4, 2), (0, -1), partial=(1,))
    assert lay.placements() == (Replicate(), Partial(), Shard(0))
    assert TensorLayout.from_placements((2, 4, 2), lay.placements(), 2) == lay


@pytest.mark.parametrize("args, match", [
    (((2, 0), (0,)), "positive"),
    (((2, 2), (2,)), "index past"),
    (((2, 2), (0, 0)), "used twice"),
    (((2, 2), (0,), (0,)), "used twice"),
])
def test_bad_layouts_are_rejected(args, match):
    with pytest.raises(ValueError, match=match):
        TensorLayout(*args)


def test_indivisible_dim_names_dim_and_cut():
    with pytest.raises(ValueError, match=r"dim 0 of shape \(5, 4\).*cut 2"):
        TensorLayout((2,), (0, -1)).local_shape((5, 4))
