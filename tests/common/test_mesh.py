"""DeviceMesh: world ranks laid out as a shape; positions <-> world ranks; validation."""
import pytest

from minispore.common.mesh import DeviceMesh


def test_positions_map_to_world_ranks():
    mesh = DeviceMesh((4, 5, 6, 7), (2, 2))
    assert mesh.size == 4 and mesh.shape == (2, 2)
    assert mesh.position(6) == 2 and mesh.world_ranks((0, 3)) == (4, 7)
    assert 5 in mesh and 3 not in mesh
    assert mesh == DeviceMesh([4, 5, 6, 7], (2, 2)) and hash(mesh) == hash(DeviceMesh((4, 5, 6, 7), (2, 2)))
    assert DeviceMesh(range(3)).shape == (3,)


@pytest.mark.parametrize("ranks, shape, match", [
    ((), None, "non-empty"),
    ((0, 0), None, "distinct"),
    ((0, -1), None, "non-negative"),
    ((0, 1, 2), (2, 2), "holds 4 devices but 3 ranks"),
])
def test_bad_meshes_are_refused(ranks, shape, match):
    with pytest.raises(ValueError, match=match):
        DeviceMesh(ranks, shape)


def test_a_rank_outside_is_named():
    with pytest.raises(ValueError, match="Rank 2 is not in the device mesh"):
        DeviceMesh((4, 5)).position(2)
