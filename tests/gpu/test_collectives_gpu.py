"""Collectives on GPU tensors stage through host memory and hand results back on the device.

Runs on one process (a world of one) in the plain suite and on every rank under
`mpirun -n 2 python -m pytest --with-mpi` (the mpi-marked test).
"""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from minispore import communication as comm
from minispore import device
from minispore.communication import _comm, collectives


@pytest.fixture
def world():
    started = not _comm.STATE.inited
    if started:
        comm.init()
    yield comm
    if started and _comm.STATE.inited:
        comm.release()


def test_the_mpich_wheel_is_not_cuda_aware_so_gpu_collectives_stage(world):
    assert collectives.cuda_aware_mpi() is False


def test_collectives_take_and_return_device_arrays(world, gpu):
    n = comm.get_group_size()
    x = np.arange(6, dtype=np.float32).reshape(2, 3) + comm.get_rank()
    total = sum(np.arange(6, dtype=np.float32).reshape(2, 3) + r for r in range(n))
    dx = device.asarray(x)
    out = collectives.all_reduce(dx)
    assert device.is_device_array(out)
    np.testing.assert_array_equal(device.to_host(out), total)
    gathered = collectives.all_gather(dx)
    assert device.is_device_array(gathered) and gathered.shape == (2 * n, 3)
    (root,) = collectives.broadcast((dx,), 0)
    assert device.is_device_array(root)
    np.testing.assert_array_equal(device.to_host(root), x - comm.get_rank())

    buf = device.asarray(x)
    assert collectives.all_reduce_(buf) is buf
    np.testing.assert_array_equal(device.to_host(buf), total)
    buf = device.asarray(x)
    handle = collectives.iallreduce(buf)
    assert handle.wait() is buf
    np.testing.assert_array_equal(device.to_host(buf), total)


@pytest.mark.mpi(min_size=2)
def test_all_reduce_operator_and_its_gradient_on_gpu_tensors(world, gpu):
    n, rank = comm.get_group_size(), comm.get_rank()
    x = Tensor(np.full((2, 2), rank + 1.0, np.float32))
    y = ops.AllReduce()(x)
    assert device.is_device_array(y._data)
    np.testing.assert_array_equal(y.asnumpy(), n * (n + 1) / 2)
    grad = ms.grad(lambda t: (ops.AllReduce()(t) * 2.0).sum())(x)
    assert device.is_device_array(grad._data)
    np.testing.assert_array_equal(grad.asnumpy(), 2.0 * n)


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("mode", ["PYNATIVE", "GRAPH"])
def test_data_parallel_training_on_gpu_equals_the_cpu_run(world, gpu, mode):
    """DATA_PARALLEL with device_target='GPU': the gradient buckets are reduced in host memory
    and handed back to the device optimizer; weights end equal to the CPU data-parallel run."""
    from minispore import nn
    rank, n = comm.get_rank(), comm.get_group_size()
    rng = np.random.default_rng(2)
    xs = rng.standard_normal((3, 4 * n, 6)).astype(np.float32)
    ys = rng.integers(0, 3, (3, 4 * n)).astype(np.int32)

    def run(target):
        ms.set_context(device_target=target, mode=getattr(ms, f"{mode}_MODE"))
        ms.set_auto_parallel_context(parallel_mode="data_parallel", gradients_mean=True)
        ms.set_seed(0)
        net = nn.Dense(6, 3)
        step = nn.TrainOneStepCell(
            nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                  reduction="mean")),
            nn.Momentum(net.trainable_params(), 0.1, 0.9))
        rows = slice(4 * rank, 4 * rank + 4)
        losses = [float(step(Tensor(x[rows]), Tensor(y[rows])).asnumpy())
                  for x, y in zip(xs, ys)]
        weights = [p.asnumpy() for p in net.trainable_params()]
        ms.reset_auto_parallel_context()
        ms.set_context(device_target="CPU")
        return losses, weights

    cpu, gpu_run = run("CPU"), run("GPU")
    np.testing.assert_allclose(gpu_run[0], cpu[0], rtol=1e-5)
    for w, ref in zip(gpu_run[1], cpu[1]):
        np.testing.assert_allclose(w, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.mpi(min_size=2)
def test_semi_auto_parallel_on_gpu_equals_the_single_device_cpu_run(world, gpu):
    """Operator parallelism with device_target='GPU': sliced parameters stay on the device,
    redistribution and partial sums go through the staged collectives."""
    from tests.parallel.semi_auto_net import train
    n = comm.get_group_size()
    strategies = (((1, n), (n, 1)), ((n, 1),), ((n, 1), (1, 1)), ((1, n),))
    dims = (16, 8, 8, 4)
    ms.set_context(device_target="CPU")
    ref, ref_w = train(strategies, steps=2, dims=dims, parallel=False)
    ms.set_context(device_target="GPU")
    got, got_w = train(strategies, steps=2, dims=dims, rank=comm.get_rank(), n=n)
    np.testing.assert_allclose(got, ref, rtol=1e-5)
    for w, r in zip(got_w, ref_w):
        np.testing.assert_allclose(w, r, rtol=1e-5, atol=1e-6)
