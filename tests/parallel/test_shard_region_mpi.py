"""`Cell.shard` / `ms.shard` regions on several ranks equal the single-device run: eagerly in
PYNATIVE (operator by operator on each rank's blocks, gradients through the recorded
collectives) and as a region of the compiled graph in GRAPH mode. Each test also shows the
region acted: parameter blocks per ``parameter_plan``, the propagated strategies, the
collectives counted.

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_shard_region_mpi.py
     mpirun -n 8 python -m pytest --with-mpi -m "mpi and mpi8" tests/parallel/test_shard_region_mpi.py
"""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore.parallel import comm_stats, reset_comm_stats
from minispore.parallel.param_slicing import gather_parameter

pytestmark = pytest.mark.mpi(min_size=2)

RTOL = 1e-5


class Block(nn.Cell):
    """The tutorial's BasicBlock, small."""

    def __init__(self, d_in=16, d_hidden=32):
        super().__init__()
        self.dense1 = nn.Dense(d_in, d_hidden)
        self.gelu = nn.GELU()
        self.dense2 = nn.Dense(d_hidden, d_in)

    def construct(self, x):
        return self.dense2(self.gelu(self.dense1(x)))


class Net(nn.Cell):
    """The tutorial's Net1: dense, a sharded block, an eager block, dense."""

    def __init__(self, n):
        super().__init__()
        self.layer1 = nn.Dense(20, 16)
        self.block1 = Block()
        self.block2 = Block()
        self.layer2 = nn.Dense(16, 10)
        self.sharded = n > 1
        if self.sharded:
            self.block1_shard = self.block1.shard(
                in_strategy=((1, n),), parameter_plan={"self.block1.dense2.weight": (n, 1)})

    def construct(self, x):
        x = self.layer1(x)
        x = self.block1_shard(x) if self.sharded else self.block1(x)
        return self.layer2(self.block2(x))


def _data(steps, batch=8, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((batch, 20)).astype(np.float32),
             rng.integers(0, 10, batch).astype(np.int32)) for _ in range(steps)]


def _context(n, mode, **kw):
    ms.reset_auto_parallel_context()
    ms.set_context(mode=mode)
    if n > 1:
        if mode == ms.GRAPH_MODE:
            kw.setdefault("parallel_mode", "semi_auto_parallel")
        else:
            kw.update(parallel_mode="auto_parallel", search_mode="sharding_propagation")
        ms.set_auto_parallel_context(device_num=n, **kw)


def train_eager(n, data, **context):
    """value_and_grad + SGD in PYNATIVE (the tutorial's loop); returns losses, gathered
    parameters, each step's comm_stats and the net."""
    _context(n, ms.PYNATIVE_MODE, **context)
    ms.set_seed(1)
    net = Net(n)
    opt = nn.SGD(net.trainable_params(), 1e-1)
    loss_fn = nn.CrossEntropyLoss()

    def forward_fn(x, y):
        logits = net(x)
        return loss_fn(logits, y), logits

    grad_fn = ms.value_and_grad(forward_fn, None, net.trainable_params(), has_aux=True)
    losses, stats = [], []
    for x, y in data:
        reset_comm_stats()
        (loss, _), grads = grad_fn(Tensor(x), Tensor(y))
        opt(grads)
        stats.append(comm_stats())
        losses.append(float(loss.asnumpy()))
    params = {p.name: gather_parameter(p) for p in net.trainable_params()}
    return losses, params, stats, net


def _assert_same(run, reference):
    np.testing.assert_allclose(run[0], reference[0], rtol=RTOL)
    for name, value in reference[1].items():
        np.testing.assert_allclose(run[1][name], value, rtol=RTOL, atol=1e-7, err_msg=name)


@pytest.mark.mpi8
def test_eager_cell_shard_trains_like_single_device(world):
    rank, n = world
    data = _data(3)
    reference = train_eager(1, data)
    run = train_eager(n, data)
    _assert_same(run, reference)
    net = run[3]
    # parameter_plan: dense2.weight (16, 32) cut (n, 1); the tutorial's other parameters take
    # what propagation chose (dense1.weight follows the input's (1, n) cut).
    weight = net.block1.dense2.weight
    assert weight.shape == (16 // n, 32) and weight.global_shape == (16, 32)
    np.testing.assert_array_equal(weight.asnumpy(),
                                  run[1]["block1.dense2.weight"][rank * 16 // n:][:16 // n])
    assert net.block1.dense1.weight.shape == (32, 16 // n)
    assert net.block2.dense1.weight.shape == (32, 16)       # outside the region: whole
    # dense2's bias follows dense2's cut output: propagation's revision prices a replicated
    # bias's gradient AllReduce, which the cut saves.
    assert net.block1.dense2.bias.shape == (16 // n,)
    # Per step: forward AllReduce (dense1's contracted cut) and AllGather (dense2's cut
    # output back whole); backward their transposes plus the mirrors' AllReduces of dense1's
    # replicated bias and of the region's input (full_batch: the eager code needs whole
    # gradients).
    assert run[2][-1]["AllGather"]["count"] == 1
    assert run[2][-1]["ReduceScatter"]["count"] == 1
    assert run[2][-1]["AllReduce"]["count"] == 4


def test_eager_ms_shard_function(world):
    """mindspore_semantics.md §6.4's minimal test, and a function region's gradients."""
    rank, n = world
    _context(n, ms.PYNATIVE_MODE)
    rng = np.random.default_rng(3)
    x = Tensor(rng.standard_normal((32, 10)).astype(np.float32))
    y = Tensor(rng.standard_normal((32, 10)).astype(np.float32))
    add = ms.shard(lambda a, b: a + b, in_strategy=((n, 1), (n, 1)))
    out = add(x, y)
    assert out.shape == (32, 10)
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy() + y.asnumpy(), rtol=1e-6)

    def matmul_relu(a, w):
        return ms.ops.relu(ms.ops.matmul(a, w))

    region = ms.shard(matmul_relu, in_strategy=((1, n), None))
    w = Tensor(rng.standard_normal((10, 6)).astype(np.float32))
    loss = lambda a, b: (region(a, b) * region(a, b)).sum()     # noqa: E731
    reset_comm_stats()
    value, (ga, gw) = ms.value_and_grad(loss, (0, 1))(x, w)
    assert comm_stats()["AllReduce"]["count"] >= 2     # the contracted cut, in both regions
    a64, w64 = x.asnumpy().astype(np.float64), w.asnumpy().astype(np.float64)
    h = np.maximum(a64 @ w64, 0)
    np.testing.assert_allclose(float(value.asnumpy()), (h * h).sum(), rtol=RTOL)
    np.testing.assert_allclose(ga.asnumpy(), (2 * h) @ w64.T, rtol=RTOL, atol=1e-5)
    np.testing.assert_allclose(gw.asnumpy(), a64.T @ (2 * h), rtol=RTOL, atol=1e-5)


def test_eager_region_under_data_parallel_hands_back_local_rows(world):
    """dataset_strategy='data_parallel': each rank feeds its rows, the region's output is its
    rows, and the region's parameters get the gradient of the mean of the ranks' losses (the
    single-device loss when each rank's loss is the mean over its rows), complete on every
    rank; the inputs get their rank's loss's gradient."""
    rank, n = world
    rng = np.random.default_rng(5)
    whole = rng.standard_normal((4 * n, 16)).astype(np.float32)
    mine = whole[rank * 4:(rank + 1) * 4]

    def run(parallel, x):
        _context(n if parallel else 1, ms.PYNATIVE_MODE,
                 **({"dataset_strategy": "data_parallel"} if parallel else {}))
        ms.set_seed(1)
        block = Block()
        region = block.shard(in_strategy=((1, n),)) if parallel else block
        rows = len(x)
        f = lambda t: (region(t) ** 2).sum() / rows         # noqa: E731
        out = region(Tensor(x)).asnumpy()
        _, (gx, gw) = ms.value_and_grad(f, 0, block.trainable_params())(Tensor(x))
        if parallel:    # gather the sliced parameters' gradient blocks
            gw = [_gather_like(g, p) for g, p in zip(gw, block.trainable_params())]
        return out, gx.asnumpy(), [g if isinstance(g, np.ndarray) else g.asnumpy()
                                   for g in gw], block

    ref_out, ref_gx, ref_gw, _ = run(False, whole)
    out, gx, gw, block = run(True, mine)
    np.testing.assert_allclose(out, ref_out[rank * 4:(rank + 1) * 4], rtol=RTOL, atol=1e-6)
    np.testing.assert_allclose(gx, n * ref_gx[rank * 4:(rank + 1) * 4], rtol=RTOL, atol=1e-6)
    for p, g, ref in zip(block.trainable_params(), gw, ref_gw):
        np.testing.assert_allclose(g, ref, rtol=RTOL, atol=1e-6, err_msg=p.name)


def test_eager_function_region_takes_a_parameter_argument_as_a_weight(world):
    """Under dataset_strategy='data_parallel' the rows of x are each rank's own, but a
    Parameter passed to the region is a weight: whole on entry (sliced by the region, never as
    a batch), and its gradient is the single-device one (issue 28: its dim 0 was taken for a
    per-rank batch, a MatMul shape error)."""
    rank, n = world
    rng = np.random.default_rng(7)
    whole = rng.standard_normal((4 * n, 10)).astype(np.float32)
    w0 = rng.standard_normal((10, 6)).astype(np.float32)

    def matmul_relu(a, w):
        return ms.ops.relu(ms.ops.matmul(a, w))

    def run(parallel, x):
        _context(n if parallel else 1, ms.PYNATIVE_MODE,
                 **({"dataset_strategy": "data_parallel"} if parallel else {}))
        w = ms.Parameter(Tensor(w0), name="w")
        region = ms.shard(matmul_relu, in_strategy=((n, 1), None)) if parallel else \
            matmul_relu
        rows = len(x)
        f = lambda a, b: (region(a, b) ** 2).sum() / rows         # noqa: E731
        out = region(Tensor(x), w).asnumpy()
        _, gw = ms.value_and_grad(f, None, [w])(Tensor(x), w)
        return out, _gather_like(gw[0], w) if parallel else gw[0].asnumpy()

    ref_out, ref_gw = run(False, whole)
    out, gw = run(True, whole[rank * 4:(rank + 1) * 4])
    np.testing.assert_allclose(out, ref_out[rank * 4:(rank + 1) * 4], rtol=RTOL, atol=1e-6)
    np.testing.assert_allclose(gw, ref_gw, rtol=RTOL, atol=1e-6)


def _gather_like(grad, param):
    """The whole gradient of `param` from this rank's block `grad` (an AllGather)."""
    if param.layout is None:
        return grad.asnumpy()
    from minispore.common.layout import TensorLayout
    from minispore.parallel.redistribution import redistribute
    whole = TensorLayout(param.layout.dev_matrix, (-1,) * len(param.global_shape))
    return redistribute(grad.asnumpy(), param.layout, whole, param.global_shape,
                        param.layout_rank)


def test_unsharded_op_after_the_region_sees_the_whole_tensor(world):
    rank, n = world
    _context(n, ms.PYNATIVE_MODE)
    ms.set_seed(1)
    block = Block()
    x = Tensor(np.random.default_rng(7).standard_normal((8, 16)).astype(np.float32))
    whole = block(x).asnumpy()              # before shard: the single-device value
    block.shard(in_strategy=((1, n),), parameter_plan={"dense2.weight": (n, 1)})
    reset_comm_stats()
    out = block(x)          # the marked cell itself runs as its region (r2.5+ style)
    assert comm_stats()["AllReduce"]["count"] == 1 and block.dense2.weight.shape == (16 // n, 32)
    assert out.shape == (8, 16)
    np.testing.assert_allclose((out * 2.0).asnumpy(), whole * 2.0, rtol=RTOL, atol=1e-6)


def test_nested_regions_are_refused(world):
    rank, n = world
    _context(n, ms.PYNATIVE_MODE)
    inner = ms.shard(lambda a: a * 2.0, in_strategy=((n, 1),))
    outer = ms.shard(lambda a: inner(a), in_strategy=((n, 1),))
    with pytest.raises(NotImplementedError, match="nested shard is not supported"):
        outer(Tensor(np.ones((8, 4), np.float32)))


def train_graph(n, data, **context):
    _context(n, ms.GRAPH_MODE, **context)
    ms.set_seed(1)
    net = Net(n)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()),
                               nn.SGD(net.trainable_params(), 1e-1))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in data]
    params = {p.name: gather_parameter(p) for p in net.trainable_params()}
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return losses, params, net


@pytest.mark.parametrize("mode", ["semi_auto_parallel", "auto_parallel"])
def test_graph_region_trains_like_single_device(world, mode):
    """GRAPH mode: the region's operators join the compiled graph; inside it strategies
    propagate from its boundary (under semi_auto too), outside it the usual rules apply."""
    rank, n = world
    data = _data(2)
    reference = train_graph(1, data)
    extra = {"search_mode": "sharding_propagation"} if mode == "auto_parallel" else {}
    run = train_graph(n, data, parallel_mode=mode, dataset_strategy="full_batch", **extra)
    _assert_same(run, reference)
    net = run[2]
    assert net.block1.dense2.weight.shape == (16 // n, 32)
    assert net.block1.dense1.weight.shape == (32, 16 // n)
