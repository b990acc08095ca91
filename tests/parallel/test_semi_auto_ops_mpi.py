"""Semi-auto parallel beyond MatMul/ReLU, under mpirun on 2 ranks: Gather row and column splits,
Conv2D batch and output-channel splits, Dropout's per-slice masks, dynamic batch sizes through
one compiled graph, gradients_mean on mirrored parameters, compile-time strategy errors, and the
save_graphs dumps. Each run is compared with the single-device run (rtol 1e-5).

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_semi_auto_ops_mpi.py
"""
import os

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Symbol, Tensor, nn, ops
from minispore.common.initializer import initializer
from minispore.parallel.strategy.check import StrategyError, SymbolDivisorError
from tests.parallel.semi_auto_net import (TutorialNet, batches, setup_training, train,
                                          train_cell)

pytestmark = pytest.mark.mpi(min_size=2)


@pytest.fixture
def two_ranks(world):
    if world[1] != 2:
        pytest.skip("written for 2 ranks (run with mpirun -n 2)")
    return world


def assert_same(make_net, xs, ys, rank, n, **kw):
    ref, ref_w, _ = train_cell(make_net, xs, ys, False, lr=kw.get("lr", 0.05),
                               set_inputs=kw.get("set_inputs"))
    got, got_w, step = train_cell(make_net, xs, ys, True, rank, n, **kw)
    np.testing.assert_allclose(got, ref, rtol=1e-5)
    for w, r in zip(got_w, ref_w):
        np.testing.assert_allclose(w, r, rtol=1e-5, atol=1e-7)
    return step


class EmbeddingNet(nn.Cell):
    def __init__(self, gather_strategy):
        super().__init__()
        self.table = Parameter(initializer("normal", [16, 8], ms.float32), name="table")
        self.w = Parameter(initializer("normal", [8, 4], ms.float32), name="w")
        self.gather = ops.Gather().shard(gather_strategy)
        self.mean = ops.ReduceMean()
        self.matmul = ops.MatMul()

    def construct(self, ids):
        x = self.mean(self.gather(self.table, ids, 0), 1)      # (B, 3, 8) -> (B, 8)
        return self.matmul(x, self.w)


@pytest.mark.parametrize("strategy", [((2, 1), (1, 1)), ((1, 2), (1, 1)), ((1, 1), (2, 1))],
                         ids=["rows", "columns", "indices"])
def test_gather_splits_equal_single_device(two_ranks, strategy):
    rank, n = two_ranks
    rng = np.random.default_rng(3)
    xs = rng.integers(0, 16, (3, 8, 3)).astype(np.int32)
    ys = rng.integers(0, 4, (3, 8)).astype(np.int32)
    assert_same(lambda: EmbeddingNet(strategy), xs, ys, rank, n, lr=0.5)


class ConvNet(nn.Cell):
    def __init__(self, conv_strategy):
        super().__init__()
        self.weight = Parameter(initializer("normal", [4, 2, 3, 3], ms.float32), name="conv_w")
        self.fc = Parameter(initializer("normal", [4 * 3 * 3, 3], ms.float32), name="fc_w")
        self.conv = ops.Conv2D(out_channel=4, kernel_size=3).shard(conv_strategy)
        self.relu = ops.ReLU()
        self.pool = ops.MaxPool(kernel_size=2, strides=2)
        self.flatten = ops.Flatten()
        self.matmul = ops.MatMul()

    def construct(self, x):
        x = self.pool(self.relu(self.conv(x, self.weight)))
        return self.matmul(self.flatten(x), self.fc)


@pytest.mark.parametrize("strategy", [((2, 1, 1, 1), (1, 1, 1, 1)), ((1, 1, 1, 1), (2, 1, 1, 1))],
                         ids=["batch", "out_channel"])   # then ReLU and MaxPool (data parallel)
def test_conv2d_splits_equal_single_device(two_ranks, strategy):
    rank, n = two_ranks
    rng = np.random.default_rng(4)
    xs = rng.standard_normal((2, 4, 2, 8, 8)).astype(np.float32)
    ys = rng.integers(0, 3, (2, 4)).astype(np.int32)
    assert_same(lambda: ConvNet(strategy), xs, ys, rank, n, lr=0.1)


class DropoutNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(initializer("normal", [16, 5], ms.float32), name="w")
        self.dropout = ops.Dropout(keep_prob=0.6).shard(((2, 1),))
        self.matmul = ops.MatMul()

    def construct(self, x):
        out, _ = self.dropout(x)
        return self.matmul(out, self.w)


def test_dropout_per_slice_masks_equal_the_single_device_mask(two_ranks):
    rank, n = two_ranks
    rng = np.random.default_rng(5)
    xs = rng.standard_normal((3, 8, 16)).astype(np.float32)
    ys = rng.integers(0, 5, (3, 8)).astype(np.int32)
    assert_same(DropoutNet, xs, ys, rank, n, lr=0.5)


def test_dynamic_batch_one_graph_for_every_allowed_size(two_ranks):
    rank, n = two_ranks
    dims = (16, 8, 8, 4)
    sym = Symbol(divisor=2)

    def declare(net, loss_fn, step):
        x, y = Tensor(shape=[sym, 16], dtype=ms.float32), Tensor(shape=[sym], dtype=ms.int32)
        net.set_inputs(x)
        step.set_inputs(x, y)

    rng = np.random.default_rng(6)
    xs = [rng.standard_normal((b, 16)).astype(np.float32) for b in (4, 8, 2)]
    ys = [rng.integers(0, 4, b).astype(np.int32) for b in (4, 8, 2)]
    strategies = (((1, 2), (2, 1)), ((2, 1),), ((2, 1), (1, 1)), ((1, 2),))
    step = assert_same(lambda: TutorialNet(strategies, dims), xs, ys, rank, n,
                       set_inputs=declare)
    assert step.compile_cache_info()["compiles"] == 1


@pytest.mark.parametrize("dynamic", [True, False], ids=["set_inputs", "static"])
def test_ranks_fed_blocks_of_different_sizes_are_refused(two_ranks, dynamic):
    """Rank 0 fed 2 rows, rank 1 fed 4: each would run a graph of another logical batch whose
    gradient AllReduces still match in size (previously a loss and an update on both ranks, no
    error). Symbol constraints hold for the logical dim (2 x 2 and 2 x 4 both satisfy
    divisor=2); the fed blocks are compared across the ranks and both ranks raise."""
    rank, n = two_ranks
    dims = (16, 8, 8, 4)
    net, loss_fn, _, opt = setup_training(
        lambda: TutorialNet((((2, 1), (1, 1)),) + (None,) * 3, dims), True, n)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
    if dynamic:
        sym = Symbol(divisor=2)
        step.set_inputs(Tensor(shape=[sym, 16], dtype=ms.float32),
                        Tensor(shape=[sym], dtype=ms.int32))
    b = 2 if rank == 0 else 4
    x, y = np.ones((b, 16), np.float32), np.zeros(b, np.int32)
    with pytest.raises(ValueError, match=r"rank 0: \(2, 16\), \(2,\); rank 1: \(4, 16\), "
                                         r"\(4,\)\)\. Under 'data_parallel'"):
        step(Tensor(x), Tensor(y))
    ms.reset_auto_parallel_context()


def test_symbol_without_the_divisor_fails_at_compile_time(two_ranks):
    rank, n = two_ranks
    dims = (16, 8, 8, 4)

    def declare(net, loss_fn, step):
        sym = Symbol()
        step.set_inputs(Tensor(shape=[sym, 1, 4, 4], dtype=ms.float32),
                        Tensor(shape=[sym], dtype=ms.int32))

    xs, ys = batches(1, 4, dims)
    with pytest.raises(SymbolDivisorError, match=r"Symbol\(divisor=2\)") as info:
        train_cell(lambda: TutorialNet((((2, 1), (1, 1)),) + (None,) * 3, dims), xs, ys, True,
                   rank, n, set_inputs=declare)
    assert isinstance(info.value, ValueError)


def test_tuple_dataset_strategy_feeds_image_patches(two_ranks):
    """dataset_strategy=((1, 1, 1, 2), (1,)): each rank feeds the left or right half of every
    image (its block of the logical input) and the whole labels (§11.3)."""
    rank, n = two_ranks
    dims = (16, 8, 8, 4)
    xs, ys = batches(3, 8, dims)
    strategies = (((1, 2), (2, 1)), ((2, 1),), ((1, 1), (1, 1)), ((1, 1),))
    ref, ref_w = train(strategies, dims=dims, parallel=False)
    got, got_w = train(strategies, dims=dims, rank=rank, n=n,
                       dataset_strategy=((1, 1, 1, 2), (1,)))
    np.testing.assert_allclose(got, ref, rtol=1e-5)
    for w, r in zip(got_w, ref_w):
        np.testing.assert_allclose(w, r, rtol=1e-5, atol=1e-7)


def test_gradients_mean_averages_mirrored_gradients(two_ranks):
    """Every weight is replicated on both ranks (all strategies whole), so each mirror sums two
    gradients that already add up to the single-device one; gradients_mean halves it, which for
    SGD is the single-device run with half the learning rate."""
    rank, n = two_ranks
    whole = (((1, 1), (1, 1)), ((1, 1),), ((1, 1), (1, 1)), ((1, 1),))
    dims = (16, 8, 8, 4)
    ref, ref_w = train(whole, dims=dims, parallel=False, lr=0.025)
    got, got_w = train(whole, dims=dims, rank=rank, n=n, lr=0.05, gradients_mean=True)
    np.testing.assert_allclose(got, ref, rtol=1e-5)
    for w, r in zip(got_w, ref_w):
        np.testing.assert_allclose(w, r, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("gradients_mean, loss_repeated_mean, scale", [
    (True, True, (1, 2, 2)), (False, True, (1, 1, 1)), (False, False, (1 / 2, 1 / 2, 1 / 2))],
    ids=["mean", "sum", "no_loss_divisor"])
def test_gradient_scale_per_weight_is_mindspores(two_ranks, gradients_mean, loss_repeated_mean,
                                                   scale):
    """MindSpore's rule (step_parallel.cc, operator_info.cc, _MirrorOperator's bprop): the
    scalar loss's seed is divided by the stage's device count (VirtualDiv, under
    loss_repeated_mean), an AllReduce(SUM)'s bprop all-reduces, and the mirror sums over a
    weight's replicas and, with gradients_mean, divides by their count. So the update is the
    single-device one without gradients_mean, 1/k of it for a weight held by k ranks with it,
    and 2x of it without the loss divisor. fc1 is split over both ranks (k=1); fc2 and fc3
    are whole on both (k=2). `scale` is single-device update / parallel update per weight."""
    rank, n = two_ranks
    dims = (16, 8, 8, 4)
    strategies = (((1, 2), (2, 1)), None, None, None)
    lr = 50.0    # the weights start at N(0, 0.01): a large step keeps the updates well above
    _, start = train((None,) * 4, steps=0, dims=dims, parallel=False)   # float32 rounding
    _, ref_w = train(strategies, steps=1, dims=dims, parallel=False, lr=lr)
    _, got_w = train(strategies, steps=1, dims=dims, rank=rank, n=n, lr=lr,
                     gradients_mean=gradients_mean, loss_repeated_mean=loss_repeated_mean)
    for w0, r, g, k in zip(start, ref_w, got_w, scale):
        assert np.abs(r - w0).max() > 1e-3
        np.testing.assert_allclose((g - w0) * k, r - w0, rtol=1e-3, atol=1e-6)


@pytest.mark.parametrize("strategy, message", [
    ((((2, 2), (2, 1)),), "needs 4 devices, but the stage has 2"),
    ((((1, 2), (1, 1)),), "Strategies of relevant dimensions are not equal"),
    ((((1, 1), (1, 2)), ((1, 1),), ((1, 1), (1, 1)), ((1, 1),)), None),
], ids=["product_too_large", "inconsistent_contracted_dim", "valid_control"])
def test_strategy_errors_are_raised_at_compile_time(two_ranks, strategy, message):
    rank, n = two_ranks
    strategies = strategy + (None,) * (4 - len(strategy))
    if message is None:
        train(strategies, steps=1, dims=(16, 8, 8, 4), rank=rank, n=n)
        return
    with pytest.raises(StrategyError, match=message) as info:
        train(strategies, steps=1, dims=(16, 8, 8, 4), rank=rank, n=n)
    assert "matmul1" in str(info.value) and "(32, 16)" in str(info.value)


def test_indivisible_dim_and_softmax_axis_are_rejected(two_ranks):
    rank, n = two_ranks
    with pytest.raises(StrategyError, match="cannot be divisible by strategy value 2 at dim 1"):
        train((((1, 2), (2, 1)),) + (None,) * 3, steps=1, dims=(15, 8, 8, 4), rank=rank, n=n)

    class SoftmaxNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.softmax = ops.Softmax().shard(((1, 2),))

        def construct(self, x):
            return self.softmax(x)

    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=n)
    with pytest.raises(StrategyError, match="cannot be split"):
        SoftmaxNet()(Tensor(np.ones((4, 6), np.float32)))


def test_save_graphs_shows_strategies_layouts_and_collectives(two_ranks, shared_dir):
    rank, n = two_ranks
    root = shared_dir
    ms.set_context(save_graphs=True, save_graphs_path=root)
    strategies = (((1, 2), (2, 1)), ((2, 1),), ((2, 1), (1, 1)), ((1, 2),))
    train(strategies, steps=1, dims=(16, 8, 8, 4), rank=rank, n=n)
    ms.set_context(save_graphs=False)
    folder = os.path.join(root, f"rank_{rank}")
    (sub,) = [d for d in os.listdir(folder) if d.startswith("TrainOneStepCell")]
    files = os.listdir(os.path.join(folder, sub))
    begin = open(os.path.join(folder, sub, next(f for f in files
                                                if f.endswith("step_parallel_begin.ir")))).read()
    end = open(os.path.join(folder, sub, next(f for f in files
                                              if f.endswith("step_parallel_end.ir")))).read()
    assert "strategy=((1, 2), (2, 1))" in begin and "dev_matrix=(2, 1)" in end
    assert "layout=TensorLayout(dev_matrix=(1, 2, 1), tensor_map=(2, 0), partial=(1,))" in begin
    assert "Prim[AllReduce]<group=mccl_world_group, op=sum" in end
    assert "_MirrorOperator" in end and "[8, 4]" in end      # fc3 (8, 4) whole, mirrored


class MixedNet(nn.Cell):
    """BiasAdd, Tanh, a ReduceMax over a cut axis (a MAX partial completed by AllReduce(MAX)),
    broadcasting Sub and Mul, two Transposes and a ReduceSum over a cut axis, each with a
    strategy that changes the layout from the previous operator's."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(initializer("normal", [8, 16], ms.float32), name="w")
        self.b = Parameter(initializer("normal", [16], ms.float32), name="b")
        self.w2 = Parameter(initializer("normal", [16, 4], ms.float32), name="w2")
        self.matmul = ops.MatMul().shard(((2, 1), (1, 1)))
        self.bias_add = ops.BiasAdd().shard(((1, 2), (2,)))
        self.tanh = ops.Tanh().shard(((2, 1),))
        self.max = ops.ReduceMax(keep_dims=True).shard(((1, 2),))
        self.sub = ops.Sub().shard(((2, 1), (2, 1)))
        self.scale = ops.Mul().shard(((1, 2), (2,)))
        self.t1 = ops.Transpose().shard(((2, 1),))
        self.t2 = ops.Transpose().shard(((1, 2),))
        self.sum = ops.ReduceSum(keep_dims=True).shard(((1, 2),))
        self.add = ops.Add()
        self.matmul2 = ops.MatMul().shard(((1, 2), (2, 1)))

    def construct(self, x):
        h = self.tanh(self.bias_add(self.matmul(x, self.w), self.b))
        h = self.sub(h, self.max(h, 1))
        h = self.scale(h, Tensor(np.linspace(0.5, 1.5, 16).astype(np.float32)))
        h = self.t2(self.t1(h, (1, 0)), (1, 0))
        h = self.add(h, self.sum(h, 1) * 0.1)
        return self.matmul2(h, self.w2)


def test_mixed_operators_with_layout_changes_equal_single_device(two_ranks):
    rank, n = two_ranks
    rng = np.random.default_rng(7)
    xs = rng.standard_normal((3, 8, 8)).astype(np.float32)
    ys = rng.integers(0, 4, (3, 8)).astype(np.int32)
    assert_same(MixedNet, xs, ys, rank, n, lr=0.5)


class ConcatSplitNet(nn.Cell):
    """Concat of two branches (cut on the other dim), Split back, and a Select/Greater pair:
    operators whose call takes a tuple or returns one."""

    def __init__(self):
        super().__init__()
        self.w1 = Parameter(initializer("normal", [6, 4], ms.float32), name="w1")
        self.w2 = Parameter(initializer("normal", [6, 4], ms.float32), name="w2")
        self.w3 = Parameter(initializer("normal", [4, 3], ms.float32), name="w3")
        self.matmul1 = ops.MatMul().shard(((2, 1), (1, 1)))
        self.matmul2 = ops.MatMul().shard(((1, 2), (2, 1)))
        self.concat = ops.Concat(axis=1).shard(((2, 1), (2, 1)))
        self.split = ops.Split(axis=1, output_num=2).shard(((2, 1),))
        self.matmul3 = ops.MatMul()

    def construct(self, x):
        h = self.concat((self.matmul1(x, self.w1), self.matmul2(x, self.w2)))
        a, b = self.split(ops.relu(h))
        return self.matmul3(a * b + a, self.w3)


def test_concat_and_split_equal_single_device(two_ranks):
    rank, n = two_ranks
    rng = np.random.default_rng(8)
    xs = rng.standard_normal((3, 8, 6)).astype(np.float32)
    ys = rng.integers(0, 3, (3, 8)).astype(np.int32)
    assert_same(ConcatSplitNet, xs, ys, rank, n, lr=0.5)
