"""GradAccumulationCell: the step's loss is the sum of the micro-batch losses and one update
applies the sum of their gradients, in PYNATIVE (micro-batch after micro-batch) and GRAPH
mode; the reference sums the micro-batch gradients by hand."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops

MICRO = 4


def _data(steps=2, batch=16, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((batch, 12)).astype(np.float32),
             rng.integers(0, 5, batch).astype(np.int32)) for _ in range(steps)]


def _net():
    ms.set_seed(3)
    return nn.SequentialCell([nn.Dense(12, 16), nn.ReLU(), nn.Dense(16, 5)])


def _reference(data):
    """The losses of the contiguous micro-batches summed, their gradients summed by
    value_and_grad."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = _net()
    loss_fn = nn.CrossEntropyLoss()
    opt = nn.SGD(net.trainable_params(), 0.1)

    def summed(x, y):
        k = len(x) // MICRO
        return sum((loss_fn(net(x[i * k:(i + 1) * k]), y[i * k:(i + 1) * k])
                    for i in range(MICRO)), Tensor(np.float32(0)))

    grad_fn = ms.value_and_grad(summed, None, net.trainable_params())
    losses = []
    for x, y in data:
        loss, grads = grad_fn(Tensor(x), Tensor(y))
        opt(grads)
        losses.append(float(loss.asnumpy()))
    return losses, [p.asnumpy() for p in net.trainable_params()]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_accumulated_step_equals_summed_micro_batches(mode):
    data = _data()
    ref_losses, ref_params = _reference(data)
    ms.set_context(mode=mode)
    net = _net()
    step = nn.TrainOneStepCell(
        nn.GradAccumulationCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), MICRO),
        nn.SGD(net.trainable_params(), 0.1))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in data]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-6)
    for got, want in zip(net.trainable_params(), ref_params):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6, atol=1e-7)


def test_pynative_runs_one_micro_batch_at_a_time(monkeypatch):
    """Each micro-batch's backward runs before the next micro-batch's forward."""
    events = []
    net = _net()
    real = nn.WithLossCell.construct

    def traced(self, x, y):
        events.append(("forward", x.shape[0]))
        return real(self, x, y)
    monkeypatch.setattr(nn.WithLossCell, "construct", traced)
    from minispore.ops.autodiff import Tape
    real_backward = Tape.backward

    def backward(self, *args, **kwargs):
        events.append(("backward",))
        return real_backward(self, *args, **kwargs)
    monkeypatch.setattr(Tape, "backward", backward)
    step = nn.TrainOneStepCell(
        nn.GradAccumulationCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), MICRO),
        nn.SGD(net.trainable_params(), 0.1))
    x, y = _data(1)[0]
    step(Tensor(x), Tensor(y))
    assert events == [("forward", 4), ("backward",)] * MICRO


def test_micro_batches_are_contiguous_rows():
    # MindSpore's _MicroBatch: micro-batch i is rows [i*N/m, (i+1)*N/m)
    x = Tensor(np.arange(24, dtype=np.float32).reshape(8, 3))
    out = ops.MicroBatchSlice(1, 4)(x)
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy()[2:4])
    g = ms.grad(lambda t: (ops.MicroBatchSlice(1, 4)(t) * 2.0).sum())(x)
    want = np.zeros((8, 3), np.float32)
    want[2:4] = 2.0
    np.testing.assert_array_equal(g.asnumpy(), want)


class _SquaredMean(nn.Cell):
    def construct(self, x):
        return x.mean() ** 2


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("wrapper", [nn.GradAccumulationCell, nn.PipelineCell])
def test_accumulated_value_sums_contiguous_micro_batches(mode, wrapper):
    # the case: mean(x)^2 over 0..7 in 2 micro-batches is 1.5^2 + 5.5^2 = 32.5
    # (strided micro-batches 0,2,4,6 / 1,3,5,7 gave 3^2 + 4^2 = 25)
    ms.set_context(mode=mode)
    out = wrapper(_SquaredMean(), 2)(Tensor(np.arange(8, dtype=np.float32)))
    assert float(out.asnumpy()) == 32.5


def test_bad_arguments():
    with pytest.raises(TypeError, match="'network' must be a Cell"):
        nn.GradAccumulationCell(lambda x: x, 2)
    with pytest.raises(TypeError, match="'micro_size' must be an int"):
        nn.GradAccumulationCell(nn.Dense(2, 2), 2.0)
    with pytest.raises(ValueError, match="'micro_size' must be a positive int"):
        nn.GradAccumulationCell(nn.Dense(2, 2), 0)
    with pytest.raises(ValueError, match="divisible by the micro-batch count 4"):
        ops.MicroBatchSlice(0, 4)(Tensor(np.ones((6, 2), np.float32)))
    with pytest.raises(ValueError, match=r"'index' must be in \[0, count=4\)"):
        ops.MicroBatchSlice(4, 4)
