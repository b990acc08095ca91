"""Distributed graph partition by `place` (GRAPH mode) under MPI: a small LeNet whose cells are
placed on 2, 3 or 5 workers trains exactly like the single-process network (the loss every
step, the parameters gathered from the workers holding them), each worker's compiled step
holds only its cells' parameters, and the Send/Receive pairs carry the forward values and
their gradients (mindspore_semantics.md §7).

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_place_partition_mpi.py
     mpirun -n 4 python -m pytest --with-mpi -m "mpi and mpi4" tests/parallel/test_place_partition_mpi.py
     mpirun -n 8 python -m pytest --with-mpi -m "mpi and mpi8" tests/parallel/test_place_partition_mpi.py
"""
import glob
import os
import re

import numpy as np
import pytest

import minispore as ms
from minispore import Symbol, Tensor, nn, ops
from minispore.common.initializer import TruncatedNormal
from minispore.communication import _comm
from minispore.ops import functional as F
from minispore.parallel import comm_stats, reset_comm_stats

pytestmark = pytest.mark.mpi(min_size=2)

# Cell -> worker for a job spread over k workers; unplaced cells run on worker 0.
PLACEMENTS = {
    2: {"conv1": 1, "fc2": 1},
    3: {"conv1": 1, "conv2": 2, "fc3": 1},
    5: {"fc1": 0, "fc2": 1, "fc3": 2, "conv1": 3, "conv2": 4},      # the tutorial's
}


class Head(nn.Cell):
    """A Dense followed by functional ops: placed, the whole block moves."""

    def __init__(self, cin, cout):
        super().__init__()
        self.dense = nn.Dense(cin, cout, TruncatedNormal(0.2), TruncatedNormal(0.2))

    def construct(self, x):
        return F.mul(F.tanh(self.dense(x)), 2.0)


class LeNet(nn.Cell):
    """The sample's LeNet, small: the shared ReLU/pool/flatten cells are never placed."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, pad_mode="valid", has_bias=False,
                               weight_init=TruncatedNormal(0.3))
        self.conv2 = nn.Conv2d(4, 8, 2, pad_mode="valid", has_bias=False,
                               weight_init=TruncatedNormal(0.3))
        self.fc1 = nn.Dense(32, 16, TruncatedNormal(0.2), TruncatedNormal(0.2))
        self.fc2 = Head(16, 12)
        self.fc3 = nn.Dense(12, 10, TruncatedNormal(0.2), TruncatedNormal(0.2))
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.relu(self.fc1(self.flatten(x)))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def _data(steps, batches=(8,)):
    rng = np.random.default_rng(0)
    out = []
    for i in range(steps):
        b = batches[i % len(batches)]
        out.append((rng.standard_normal((b, 1, 12, 12)).astype(np.float32),
                    rng.integers(0, 10, b).astype(np.int32)))
    return out


def _train(placement, steps=4, batches=(8,), dynamic=False, optimizer="momentum"):
    """(losses per step, {parameter name: value}, the training cell, comm_stats per step)."""
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(1)
    net = LeNet()
    for name, worker in placement.items():
        getattr(net, name).place("MS_WORKER", worker)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    params = net.trainable_params()
    opt = {"momentum": lambda: nn.Momentum(params, 0.1, 0.9),
           "adam": lambda: nn.Adam(params, 0.01)}[optimizer]()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
    if dynamic:
        batch = Symbol(divisor=4)
        step.set_inputs(Tensor(shape=[batch, 1, 12, 12], dtype=ms.float32),
                        Tensor(shape=[batch], dtype=ms.int32))
    losses, stats = [], []
    for x, y in _data(steps, batches):
        reset_comm_stats()
        losses.append(float(step(Tensor(x), Tensor(y)).asnumpy()))
        stats.append(comm_stats())
    return losses, {p.name: p.asnumpy() for p in params}, step, stats


def _owner(name, placement):
    """The worker that holds parameter `name` (fc2.dense.weight -> the worker of fc2)."""
    return placement.get(name.split(".")[0], 0)


def _gathered(weights, placement):
    """Every parameter as its owner holds it (a broadcast from the owner)."""
    world = _comm.STATE.world.comm
    return {name: world.bcast(value if world.Get_rank() == _owner(name, placement) else None,
                              root=_owner(name, placement))
            for name, value in sorted(weights.items())}


def _compiled(step):
    graph = next(iter(step._graph_cache.entries.values())).graph
    return graph


def _held(step):
    """Names of the network parameters this worker's compiled step reads or updates."""
    network = {p.name for p in step.network.trainable_params()}
    return {v.param.name for v in _compiled(step).parameters} & network


def _check_equals_single_process(world, placement, **train_args):
    rank, n = world
    ref_losses, ref_weights, _, _ = _train({}, **train_args)
    losses, weights, step, stats = _train(placement, **train_args)
    # Every worker returns the loss (received from worker 0, which computes it).
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    for name, value in _gathered(weights, placement).items():
        np.testing.assert_allclose(value, ref_weights[name], rtol=1e-5, atol=1e-7,
                                   err_msg=name)
    mine = {name for name in ref_weights if _owner(name, placement) == rank}
    assert _held(step) == mine
    return step, stats


@pytest.mark.parametrize("k", [2, pytest.param(3, marks=[pytest.mark.mpi(min_size=3),
                                                          pytest.mark.mpi4]),
                               pytest.param(5, marks=[pytest.mark.mpi(min_size=5),
                                                      pytest.mark.mpi8])])
def test_placed_lenet_equals_the_single_process_run(world, k):
    """Workers beyond the k used own nothing: they run every step (receiving the loss) and
    finish with the others."""
    step, stats = _check_equals_single_process(world, PLACEMENTS[k])
    # Each message is sent once and received once: the counts add up over the job, and each
    # worker's count is the number of Send/Receive nodes in its compiled step.
    nodes = [n.prim.name for n in _compiled(step).nodes]
    for kind in ("Send", "Receive"):
        assert stats[-1].get(kind, {}).get("count", 0) == nodes.count(kind)
    world_comm = _comm.STATE.world.comm
    sends = world_comm.allreduce(stats[-1].get("Send", {}).get("count", 0))
    receives = world_comm.allreduce(stats[-1].get("Receive", {}).get("count", 0))
    assert sends == receives > 0


def test_send_receive_counts_on_two_workers(world):
    """conv1 and fc2 on worker 1, the rest on worker 0. Forward, worker 0 sends the input and
    fc1's activation to worker 1, and the loss (returned everywhere) to every other worker,
    and receives conv1's and fc2's outputs; backward, each received activation's gradient
    goes back to its maker: 0 sends 2 and receives 1, 1 the opposite. The input and the loss
    carry no gradient back."""
    rank, n = world
    _, _, step, stats = _train(PLACEMENTS[2], steps=2)
    expected = {0: {"Send": 2 + (n - 1) + 2, "Receive": 2 + 1},
                1: {"Send": 2 + 1, "Receive": 3 + 2}}.get(rank, {"Send": 0, "Receive": 1})
    assert {kind: stats[-1].get(kind, {}).get("count", 0) for kind in expected} == expected
    graph = _compiled(step)
    backward = [n for n in graph.nodes if n.phase == "backward"
                and n.prim.name in ("Send", "Receive")]
    assert len(backward) == {0: 3, 1: 3}.get(rank, 0)
    if rank == 1:
        # 4 bytes per float32 sent: conv1's output (8, 4, 10, 10), fc2's (8, 12), the
        # gradient of fc1's activation (8, 16).
        assert stats[-1]["Send"]["bytes"] == 4 * (8 * 4 * 10 * 10 + 8 * 12 + 8 * 16)


def test_adam_updates_each_parameter_where_it_lives(world):
    step, _ = _check_equals_single_process(world, PLACEMENTS[2], steps=3, optimizer="adam")
    rank, _ = world
    states = {v.param.name for v in _compiled(step).parameters if v.param.name.startswith("moment")}
    mine = {f"{m}.{p}" for m in ("moment1", "moment2") for p in _held(step)}
    assert states == mine


def test_dynamic_batch_compiles_once_and_equals_the_single_process_run(world):
    """Receive shapes with a symbolic batch: one compile serves batches 4, 8 and 12."""
    step, _ = _check_equals_single_process(world, PLACEMENTS[2], steps=3, batches=(4, 8, 12),
                                           dynamic=True)
    assert step.compile_cache_info()["compiles"] == 1
    assert any(n.prim.name == "_DynamicReceive" for n in _compiled(step).nodes) == \
        (world[0] in (0, 1))


class TiedDecoder(nn.Cell):
    """Reads a weight another cell owns (tied weights)."""

    def __init__(self, weight):
        super().__init__()
        self.weight = weight
        self.matmul = ops.MatMul()

    def construct(self, x):
        return self.matmul(x, self.weight)


class Tied(nn.Cell):
    def __init__(self):
        super().__init__()
        self.enc = nn.Dense(6, 6, TruncatedNormal(0.5), TruncatedNormal(0.5))
        self.dec = TiedDecoder(self.enc.weight)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.dec(self.relu(self.enc(x)))


def _train_tied(place):
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(1)
    net = Tied()
    if place:
        net.dec.place("MS_WORKER", 1)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), 0.1))
    rng = np.random.default_rng(0)
    losses = [float(step(Tensor(rng.standard_normal((4, 6)).astype(np.float32)),
                         Tensor(rng.standard_normal((4, 6)).astype(np.float32))).asnumpy())
              for _ in range(3)]
    return losses, {p.name: p.asnumpy() for p in net.trainable_params()}, step


def test_a_parameter_read_on_two_workers_lives_on_its_first_reader(world):
    """The tied weight lives on worker 0 (enc reads it first) and is sent to worker 1 before
    the step's operators; its gradient from dec comes back through Send's bprop and adds to
    enc's."""
    rank, _ = world
    ref_losses, ref_weights, _ = _train_tied(False)
    losses, weights, step = _train_tied(True)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    if rank == 0:
        for name, value in weights.items():
            np.testing.assert_allclose(value, ref_weights[name], rtol=1e-5, atol=1e-7)
    assert _held(step) == {0: {"dec.weight", "enc.bias"}}.get(rank, set())   # (one Parameter)
    sends = [n for n in _compiled(step).nodes if n.prim.name == "Send"
             and n.phase == "forward" and n.inputs[0].param is not None]
    assert len(sends) == (1 if rank == 0 else 0)


def test_a_primitive_place_wins_over_its_cell(world):
    """fc2 on worker 1, but its bias add on worker 0: the node runs on 0."""
    rank, _ = world
    ms.set_context(mode=ms.GRAPH_MODE)
    x = Tensor(_data(1)[0][0])
    ms.set_seed(1)
    ref = LeNet()(x).asnumpy()
    ms.set_seed(1)
    net = LeNet()
    net.fc2.place("MS_WORKER", 1)
    net.fc2.dense.bias_add.place("MS_WORKER", 0)
    out = net(x).asnumpy()
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    # (elementwise chains are fused after the partition: count the operators inside)
    names = [p.name for n in _compiled(net).nodes if ".fc2." in n.scope
             for p in getattr(n.prim, "fused", (n.prim,))
             if p.name not in ("Send", "Receive")]
    assert names == {0: ["BiasAdd"], 1: ["MatMul", "Tanh", "Mul"]}.get(rank, [])


def test_forward_only_outputs_reach_every_worker(world):
    """A compiled forward (no gradient) returns the network's output on every worker."""
    ms.set_context(mode=ms.GRAPH_MODE)
    x = Tensor(_data(1)[0][0])
    ms.set_seed(1)
    ref = LeNet()(x).asnumpy()
    ms.set_seed(1)
    net = LeNet()
    net.fc3.place("MS_WORKER", 1)
    np.testing.assert_allclose(net(x).asnumpy(), ref, rtol=1e-6)
    # fc3 on worker 1 gets its input from 0 and sends its output (the result) to every other
    # worker.
    rank, n = world
    kinds = [node.prim.name for node in _compiled(net).nodes
             if node.prim.name in ("Send", "Receive")]
    assert kinds == {0: ["Send", "Receive"], 1: ["Receive"] + ["Send"] * (n - 1)}.get(
        rank, ["Receive"])


def test_an_update_coupling_parameters_of_two_workers_is_refused(world):
    """Scaling every gradient by their global norm needs all of them in one place."""
    ms.set_context(mode=ms.GRAPH_MODE)
    net = LeNet()
    net.fc2.place("MS_WORKER", 1)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn),
                               nn.SGD(net.trainable_params(), 0.1))

    def by_global_norm(grads):
        norm = F.sqrt(sum(F.reduce_sum(F.mul(g, g)) for g in grads))
        return tuple(F.div(g, norm) for g in grads)

    object.__setattr__(step, "grad_reducer", by_global_norm)
    x, y = _data(1)[0]
    with pytest.raises(NotImplementedError, match=r"The optimizer update 'Add' .* combines "
                                                  r"parameters living on workers \[0, 1\]"):
        step(Tensor(x), Tensor(y))


def test_rank_id_beyond_the_job_is_refused(world):
    rank, n = world
    ms.set_context(mode=ms.GRAPH_MODE)
    net = LeNet()
    net.fc3.place("MS_WORKER", n)
    with pytest.raises(ValueError, match=rf"'MatMul' \(in LeNet\.fc3\.matmul\) is placed on "
                                         rf"worker {n}, but the job has {n} workers: rank_id "
                                         rf"must be in \[0, {n}\)"):
        net(Tensor(_data(1)[0][0]))


def test_save_graphs_shows_each_worker_segment(world, shared_dir):
    rank, n = world
    ms.set_context(save_graphs=True, save_graphs_path=shared_dir)
    try:
        _train(PLACEMENTS[2], steps=1)
    finally:
        ms.set_context(save_graphs=False)
    dumps = sorted(glob.glob(os.path.join(shared_dir, f"rank_{rank}", "TrainOneStepCell_*",
                                          "*_partition_by_place.ir")))
    text = open(dumps[0]).read()
    sends = re.findall(r"Prim\[Send\]<.*sr_tag=(\d+), dest_rank=(\d+)", text)
    receives = re.findall(r"Prim\[Receive\]<.*sr_tag=(\d+), src_rank=(\d+)", text)
    assert (len(sends), len(receives)) == {0: (2 + n - 1, 2), 1: (2, 3)}.get(rank, (0, 1))
    # A worker's segment holds only its own cells' operators.
    # A worker's segment holds only its own cells' operators (a Send/Receive is scoped by
    # the operator that made its value).
    cells = {re.match(r"\w+", scope).group(0) for scope in
             re.findall(r"= Prim\[(?!Send|Receive)\w+\].*\n.*scope=WithLossCell\._backbone\.(\S+)",
                        text)}
    assert cells == {0: {"relu", "max_pool2d", "flatten", "conv2", "fc1", "fc3"},
                     1: {"conv1", "fc2"}}.get(rank, set())
