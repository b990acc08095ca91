"""Parameter writes inside an `if` on a Tensor in GRAPH mode / ms.jit (MindSpore's mixed-precision
tutorial: ``if all_finite(grads): optimizer(grads)``): Assign and optimizer steps in a branch act
only when that branch runs, equal PYNATIVE step by step, with one compile; what is not supported
there is refused by name."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.amp import DynamicLossScaler, all_finite
from minispore.graph import cache_info


@pytest.fixture(autouse=True)
def pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_an_assign_in_a_branch_acts_only_when_the_branch_runs():
    p = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="p")
    q = Parameter(Tensor(np.array([10.0], np.float32)), name="q")

    @ms.jit
    def step(x):
        if x.sum() > 0:
            ops.assign(p, p * x)
            y = x + 1.0
        else:
            ops.assign(q, q - 1.0)
            y = x - 1.0
        return y

    before = cache_info()["compiles"]
    for x, want_p, want_q, want_y in (([2.0, 3.0], [2.0, 6.0], [10.0], [3.0, 4.0]),
                                      ([-1.0, -1.0], [2.0, 6.0], [9.0], [-2.0, -2.0]),
                                      ([1.0, 0.5], [2.0, 3.0], [9.0], [2.0, 1.5])):
        y = step(Tensor(np.array(x, np.float32)))
        np.testing.assert_array_equal(y.asnumpy(), want_y)
        np.testing.assert_array_equal(p.asnumpy(), want_p)
        np.testing.assert_array_equal(q.asnumpy(), want_q)
    assert cache_info()["compiles"] - before == 1


class _Mlp(nn.Cell):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(3)
        self.fc1 = nn.Dense(4, 8, weight_init=Tensor(rng.standard_normal((8, 4)).astype(
            np.float32)), bias_init="zeros")
        self.fc2 = nn.Dense(8, 3, weight_init=Tensor(rng.standard_normal((3, 8)).astype(
            np.float32)), bias_init="zeros")

    def construct(self, x):
        return self.fc2(ops.relu(self.fc1(x)))


def _train(compiled, scales, momentum):
    """The tutorial's loss-scaled step, run as Python (PYNATIVE) or under ms.jit, with the scale
    set before each step (a huge one overflows float32 gradients, so the step must be
    skipped); returns each step's loss and scale and the final weights."""
    net, loss_fn = _Mlp(), nn.CrossEntropyLoss()
    optimizer = nn.SGD(net.trainable_params(), 0.1, momentum=momentum)
    scaler = DynamicLossScaler(scale_value=2.0 ** 4, scale_factor=2, scale_window=2)

    def forward_fn(data, label):
        loss = loss_fn(net(data), label)
        return scaler.scale(loss), loss

    grad_fn = ms.value_and_grad(forward_fn, None, net.trainable_params(), has_aux=True)

    def train_step(data, label):
        (_, loss), grads = grad_fn(data, label)
        is_finite = all_finite(grads)
        if is_finite:
            grads = scaler.unscale(grads)
            optimizer(grads)
        scaler.adjust(is_finite)
        return loss
    step = ms.jit(train_step) if compiled else train_step

    rng = np.random.default_rng(0)
    trace = []
    for scale in scales:
        if scale is not None:
            ops.assign(scaler.scale_value, Tensor(np.array(scale, np.float32)))
        data = Tensor(rng.standard_normal((5, 4)).astype(np.float32))
        label = Tensor(rng.integers(0, 3, 5).astype(np.int32))
        loss = step(data, label)
        trace.append((float(loss.asnumpy()), float(scaler.scale_value.asnumpy())))
    return trace, [p.asnumpy().copy() for p in net.trainable_params()]


@pytest.mark.parametrize("momentum", [0.0, 0.9], ids=["sgd", "momentum"])
def test_the_mixed_precision_tutorials_step_equals_pynative(momentum):
    # Steps 3 and 4 overflow (no update, the scale halves); step 5 is clean, one short of the
    # window that would double it.
    scales = [None, None, 3.0e38, None, None]
    want_trace, want_weights = _train(False, scales, momentum)
    before = cache_info()["compiles"]
    got_trace, got_weights = _train(True, scales, momentum)
    assert cache_info()["compiles"] - before == 1
    np.testing.assert_allclose(got_trace, want_trace, rtol=1e-6)
    np.testing.assert_allclose([s for _, s in want_trace], [16.0, 32.0, 1.5e38, 7.5e37, 7.5e37],
                               rtol=1e-6)
    for got, want in zip(got_weights, want_weights):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_what_a_branch_cannot_write_is_refused_by_name():
    p = Parameter(Tensor(np.array([1.0], np.float32)), name="p")

    @ms.jit
    def read_after_write(x):
        if x.sum() > 0:
            ops.assign(p, x)
            y = p * 2.0
        else:
            y = x
        return y

    with pytest.raises(NotImplementedError, match="reads a Parameter the branch wrote before"):
        read_after_write(Tensor(np.array([1.0], np.float32)))

    @ms.jit
    def prints(x):
        if x.sum() > 0:
            ops.Print()("positive", x)
            y = x + 1.0
        else:
            y = x
        return y

    with pytest.raises(NotImplementedError, match="'Print'.*acts outside the graph"):
        prints(Tensor(np.array([1.0], np.float32)))
