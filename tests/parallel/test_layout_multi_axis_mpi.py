"""Layout strategies whose tensor dims are cut over several device-matrix axes, end to end under
mpirun: the tutorial network trained under SEMI_AUTO_PARALLEL with them equals the single-device
run (every step's loss, the gathered parameters; rtol 1e-5), and each parameter's block is the
one its Layout names (first axis outermost).

Run: mpirun -n 8 python -m pytest --with-mpi -m "mpi and mpi8" tests/parallel/test_layout_multi_axis_mpi.py
     mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_layout_multi_axis_mpi.py
"""
import numpy as np
import pytest

import minispore as ms
from minispore.common.layout import rank_coordinate
from tests.parallel.semi_auto_net import TutorialNet, batches, train_cell

pytestmark = pytest.mark.mpi(min_size=2)

DIMS = (64, 32, 32, 10)


def strategies(layout):
    """matmul1: rows over (dp, sp), columns over mp; relu1 the same rows over (sp, dp);
    matmul2: contracted dim over (mp, dp) -- not adjacent, inner axis first -- rows over sp;
    relu2: rows over (mp, sp), columns over dp (every step changes the layout)."""
    return ((layout(("dp", "sp"), "None"), layout("None", "mp")),
            (layout(("sp", "dp"), "mp"),),
            (layout("sp", ("mp", "dp")), layout(("mp", "dp"), "None")),
            (layout(("mp", "sp"), "dp"),))


def run(rank, n, layout, steps=3, **kw):
    xs, ys = batches(steps, 32, DIMS)
    nets = []

    def make(parallel):
        def build():
            nets.append(TutorialNet(strategies(layout) if parallel else (None,) * 4, DIMS,
                                    **kw))
            return nets[-1]
        return build
    ref_losses, ref_weights, _ = train_cell(make(False), xs, ys, False)
    losses, weights, _ = train_cell(make(True), xs, ys, True, rank, n)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    assert len(set(ref_losses)) == steps        # the weights do move between steps
    for w, ref in zip(weights, ref_weights):
        np.testing.assert_allclose(w, ref, rtol=1e-5, atol=1e-7)
    assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"
    return nets[-1]


def check_blocks(net, layout, rank):
    """fc1 columns are cut over mp; fc2 rows over (mp, dp), mp outermost."""
    axis = dict(zip(layout.alias_name, rank_coordinate(layout.device_matrix, rank)))
    size = dict(zip(layout.alias_name, layout.device_matrix))
    mp, dp = axis["mp"], axis["dp"]
    cols = DIMS[1] // size["mp"]
    assert net.fc1_weight.shape == (DIMS[0], cols)
    assert net.fc1_weight.layout.local_slices(DIMS[:2], rank)[1].start == cols * mp
    rows = DIMS[1] // (size["mp"] * size["dp"])
    assert net.fc2_weight.shape == (rows, DIMS[2])
    assert net.fc2_weight.layout.local_slices(DIMS[1:3], rank)[0].start == \
        rows * (mp * size["dp"] + dp)
    assert net.fc3_weight.shape == DIMS[2:]


def test_multi_axis_layouts_on_2_ranks_equal_single_device(world):
    rank, n = world
    if n != 2:
        pytest.skip("written for 2 ranks")
    # mp cuts 2 ways; dp and sp are size-1 axes that still sit inside the tuples.
    layout = ms.Layout((1, 1, 2), ("dp", "sp", "mp"))
    check_blocks(run(rank, n, layout), layout, rank)
    # dp cuts 2 ways: the contracted dim of matmul2 is cut over (mp, dp) with mp of size 1.
    layout = ms.Layout((2, 1, 1), ("dp", "sp", "mp"))
    check_blocks(run(rank, n, layout), layout, rank)


def test_multi_axis_reduce_scatter_out_strategy_on_2_ranks(world):
    rank, n = world
    if n != 2:
        pytest.skip("written for 2 ranks")
    layout = ms.Layout((1, 1, 2), ("dp", "sp", "mp"))
    run(rank, n, layout, out2=(layout(("sp", "dp", "mp"), "None"),))


@pytest.mark.mpi8
def test_multi_axis_layouts_on_8_ranks_equal_single_device(world):
    rank, n = world
    if n != 8:
        pytest.skip("written for 8 ranks")
    layout = ms.Layout((2, 2, 2), ("dp", "sp", "mp"))
    net = run(rank, n, layout, out2=(layout(("sp", "mp", "dp"), "None"),))
    check_blocks(net, layout, rank)
