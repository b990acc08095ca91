"""Gather's manual_split (mindspore_semantics.md §2.4): an embedding table cut non-uniformly by
rows over the ranks -- each rank stores only its rows, looks up the indices that fall in them
(the others give zero rows) and the ranks' partial results are summed -- trains exactly like
the single-device table; the uniform row split, also with enable_alltoall, too.

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_gather_manual_split_mpi.py
     mpirun -n 4 python -m pytest --with-mpi -m "mpi and mpi4" tests/parallel/test_gather_manual_split_mpi.py
"""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.common.initializer import initializer
from minispore.communication import get_group_size
from minispore.parallel.param_slicing import gather_parameter

ROWS, DIM, BATCH = 10, 4, 8


class Embed(nn.Cell):
    def __init__(self, n, splits):
        super().__init__()
        self.table = Parameter(initializer("normal", [ROWS, DIM], ms.float32), name="table")
        self.gather = ops.Gather()
        self.dense = nn.Dense(DIM, 3)
        if n > 1:
            self.gather.shard(((n, 1), (1, 1)))
            if splits is not None:
                self.gather.add_prim_attr("manual_split", splits)

    def construct(self, ids):
        return self.dense(self.gather(self.table, ids, 0).sum(axis=1))


def _train(splits, parallel, steps=3, **context):
    n = get_group_size() if parallel else 1
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.reset_auto_parallel_context()
    if parallel:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
                                     device_num=n, full_batch=True, **context)
    ms.set_seed(1)
    net = Embed(n, splits)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    rng = np.random.default_rng(0)
    losses = []
    for _ in range(steps):
        ids = Tensor(rng.integers(0, ROWS, (BATCH, 3)).astype(np.int32))
        y = Tensor(rng.integers(0, 3, BATCH).astype(np.int32))
        losses.append(float(step(ids, y).asnumpy()))
    stored = net.table.asnumpy().shape
    weights = [gather_parameter(p) for p in net.trainable_params()]
    ms.reset_auto_parallel_context()
    return losses, weights, stored


SPLITS = {2: (3, 7), 4: (1, 2, 3, 4)}


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("manual, context", [(True, {}), (False, {}),
                                             (False, {"enable_alltoall": True})],
                         ids=["manual_split", "uniform", "uniform_alltoall"])
def test_row_split_table_equals_single_device(world, manual, context):
    rank, n = world
    if n not in SPLITS or (not manual and ROWS % n):
        pytest.skip(f"the splits are written for 2 and 4 ranks (and {ROWS} rows)")
    splits = SPLITS[n] if manual else None
    want_losses, want_weights, _ = _train(splits, False)
    losses, weights, stored = _train(splits, True, **context)
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
    for got, want in zip(weights, want_weights):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert stored == ((splits[rank], DIM) if manual else (ROWS // n, DIM))


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("splits, match", [((4, 4), "sums to 8, but the table has 10 rows"),
                                           ((5, 5, 0), "tuple of positive ints"),
                                           ((2, 3, 5), "has 3 sizes")])
def test_bad_manual_splits_are_refused(world, splits, match):
    if world[1] != 2:
        pytest.skip("written for 2 ranks")
    with pytest.raises(ValueError, match=match):
        _train(splits, True, steps=1)
    ms.reset_auto_parallel_context()


@pytest.mark.mpi(min_size=4)
@pytest.mark.mpi4
def test_four_uneven_blocks_equal_single_device(world):
    rank, n = world
    if n != 4:
        pytest.skip("the split (1, 2, 3, 4) is written for 4 ranks")
    want_losses, want_weights, _ = _train(SPLITS[4], False)
    losses, weights, stored = _train(SPLITS[4], True)
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
    for got, want in zip(weights, want_weights):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert stored == (SPLITS[4][rank], DIM)


class Lookup(nn.Cell):
    def __init__(self, slice_mode):
        super().__init__()
        self.embedding = nn.EmbeddingLookup(ROWS, DIM, slice_mode=slice_mode)
        self.dense = nn.Dense(DIM, 3)

    def construct(self, ids):
        return self.dense(self.embedding(ids).sum(axis=1))


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("slice_mode", ["batch_slice", "table_row_slice",
                                        "table_column_slice"])
def test_embedding_lookup_slice_modes_equal_single_device(world, slice_mode):
    rank, n = world
    if n != 2:
        pytest.skip("written for 2 ranks")

    def run(parallel):
        ms.set_context(mode=ms.GRAPH_MODE)
        ms.reset_auto_parallel_context()
        if parallel:
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
                                         device_num=n, full_batch=True)
        ms.set_seed(1)
        net = Lookup(slice_mode)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()),
                                   nn.SGD(net.trainable_params(), 0.1))
        rng = np.random.default_rng(0)
        losses = [float(step(Tensor(rng.integers(0, ROWS, (BATCH, 3)).astype(np.int32)),
                             Tensor(rng.integers(0, 3, BATCH).astype(np.int32))).asnumpy())
                  for _ in range(2)]
        stored = net.embedding.embedding_table.asnumpy().shape
        weights = [gather_parameter(p) for p in net.trainable_params()]
        ms.reset_auto_parallel_context()
        return losses, weights, stored

    want = run(False)
    got = run(True)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    for a, b in zip(got[1], want[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert got[2] == {"batch_slice": (ROWS, DIM), "table_row_slice": (ROWS // n, DIM),
                      "table_column_slice": (ROWS, DIM // n)}[slice_mode]
