"""Mixed precision: auto_mixed_precision's levels, the loss scalers and update cells,
TrainOneStepWithLossScaleCell's overflow handling, and Model with amp_level and
loss_scale_manager, in PYNATIVE and GRAPH mode."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.train import Model

from tests.train._data import ArrayDataset, blobs

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


@pytest.fixture(params=MODES, ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


class TinyLeNet(nn.Cell):
    """LeNet's structure at toy size: conv-relu-pool, conv-relu-pool, dense-relu, dense."""

    def __init__(self, classes=3):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, pad_mode="valid")
        self.conv2 = nn.Conv2d(4, 6, 3, pad_mode="valid")
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(6 * 2 * 2, 16)
        self.fc2 = nn.Dense(16, classes)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))     # (N, 4, 12, 12) -> (N, 4, 6, 6)
        x = self.pool(self.relu(self.conv2(x)))     # (N, 6, 4, 4) -> (N, 6, 2, 2)
        return self.fc2(self.relu(self.fc1(self.flatten(x))))


def _images(n=32, seed=0):
    """Three classes of 14x14 images: a bright block in one of three places, plus noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n).astype(np.int32)
    x = rng.standard_normal((n, 1, 14, 14)).astype(np.float32) * 0.3
    for i, c in enumerate(y):
        x[i, 0, 4 * c:4 * c + 5, 3:11] += 2.0
    return x, y


def _lenet(seed=1):
    ms.set_seed(seed)
    return TinyLeNet()


def _params(net):
    return {p.name: p.asnumpy().copy() for p in net.trainable_params()}


def test_o2_keeps_parameters_float32_and_computes_in_float16():
    class Logged(TinyLeNet):
        def construct(self, x):
            self.seen = [x.dtype]
            x = self.pool(self.relu(self.conv1(x)))
            self.seen.append(x.dtype)
            return super().construct_rest(x)

        def construct_rest(self, x):
            x = self.pool(self.relu(self.conv2(x)))
            return self.fc2(self.relu(self.fc1(self.flatten(x))))

    TinyLeNet.construct_rest = Logged.construct_rest
    ms.set_seed(1)
    net = ms.amp.auto_mixed_precision(Logged(), "O2")
    x, _ = _images(4)
    out = net(Tensor(x))
    assert out.dtype == ms.float32                # cast back at the network's boundary
    assert net.seen == [ms.float16, ms.float16]   # inputs cast; conv/pool ran in float16
    assert all(p.dtype == ms.float32 for p in net.get_parameters())
    grads = ms.grad(lambda v: ops.reduce_sum(net(v)), None, net.trainable_params())(Tensor(x))
    assert all(g.dtype == ms.float32 for g in grads)   # master weights get float32 grads
    ref = ms.amp.auto_mixed_precision(_lenet(), "O0")(Tensor(x)).asnumpy()
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-2, atol=1e-2 * np.abs(ref).max())


def test_o1_casts_only_white_list_cells_and_o3_everything():
    class Probe(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 3)
            self.log = []

        def construct(self, x):
            y = self.fc(x)
            self.log.append(y.dtype)
            return ops.softmax(y, -1)

    x = Tensor(np.ones((2, 4), np.float32))
    o1 = ms.amp.auto_mixed_precision(Probe(), "O1")
    assert o1(x).dtype == ms.float32 and o1.log == [ms.float32]   # Dense ran fp16, cast back
    assert o1.fc._cast_dtype == ms.float16 and o1._cast_dtype is None
    o3 = ms.amp.auto_mixed_precision(Probe(), "O3")
    assert o3(x).dtype == ms.float32 and o3.log == [ms.float16]
    o0 = ms.amp.auto_mixed_precision(Probe(), "O0")
    assert o0(x).dtype == ms.float32 and o0.fc._cast_dtype is None
    with pytest.raises(ValueError, match="amp_level"):
        ms.amp.auto_mixed_precision(Probe(), "O4")
    with pytest.raises(ValueError, match="dtype"):
        ms.amp.auto_mixed_precision(Probe(), "O2", dtype=ms.float32)


def test_o1_wraps_white_list_primitives_of_custom_cells():
    class MatNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(Tensor(np.full((4, 2), 0.5, np.float32)), name="w")
            self.matmul = ops.MatMul()
            self.dtypes = []

        def construct(self, x):
            y = self.matmul(x, self.w)
            self.dtypes.append(y.dtype)
            return y

    net = ms.amp.auto_mixed_precision(MatNet(), "O1")
    out = net(Tensor(np.ones((3, 4), np.float32)))
    assert out.dtype == ms.float32 and net.w.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), np.full((3, 2), 2.0))


def test_o2_black_list_keeps_batchnorm_and_losses_float32():
    net = nn.SequentialCell([nn.Dense(4, 4), nn.BatchNorm1d(4), nn.Dense(4, 2)])
    ms.amp.auto_mixed_precision(net, "O2")
    cells = dict(net.cells_and_names())
    kinds = {type(c).__name__: c._cast_dtype for c in cells.values()}
    assert kinds["BatchNorm1d"] == ms.float32 and kinds["Dense"] == ms.float16
    assert ms.amp.auto_mixed_precision(nn.SoftmaxCrossEntropyWithLogits(), "O2")._cast_dtype \
        == ms.float32


def _train_curve(level, mode, steps=12, manager=None):
    """Losses of `steps` Momentum steps of the tiny LeNet at `level` (same init, same data)."""
    net = _lenet()
    if level != "O0":
        ms.amp.auto_mixed_precision(net, level)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    step = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, loss_fn), opt,
                                            scale_sense=manager or
                                            nn.FixedLossScaleUpdateCell(1024.0))
    x, y = _images(32)
    losses = []
    for i in range(steps):
        s = slice((i % 4) * 8, (i % 4) * 8 + 8)
        loss, overflow, _ = step(Tensor(x[s]), Tensor(y[s]))
        assert not bool(overflow.asnumpy())
        losses.append(float(loss.asnumpy()))
    return np.array(losses), net


def test_o2_loss_curve_matches_o0(mode):
    # float16 keeps 11 significant bits: each activation and float16 weight copy is within
    # 2**-11 ~ 4.9e-4 relative of its float32 value. The accumulations run in float32 and the
    # loss itself in float32 (a black-list cell), so the logits, and the loss at step 0, carry
    # about one such rounding per layer: a few 1e-4 at most, well inside 2e-3. The master
    # weights stay float32 and only the step's gradient carries the fp16 error (~1e-3 of an
    # lr-sized update), so over 16 steps the curves drift apart by far less than the loss
    # moves: 1e-2 relative plus 1e-3 absolute is still 50x tighter than the fall (1.0 -> 0.16)
    # and would catch a step that trained on zeroed (underflowed) or wrongly scaled gradients.
    o0, _ = _train_curve("O0", mode, steps=16)
    o2, net = _train_curve("O2", mode, steps=16)
    assert abs(o2[0] - o0[0]) <= 2e-3 * abs(o0[0])
    np.testing.assert_allclose(o2, o0, rtol=1e-2, atol=1e-3)
    assert o0[-1] < 0.3 * o0[0] and o2[-1] < 0.3 * o2[0]
    assert all(p.dtype == ms.float32 for p in net.trainable_params())


def _linear_step(scale_sense, lr=0.1):
    ms.set_seed(0)
    net = nn.Dense(3, 1)
    loss_fn = nn.MSELoss()
    opt = nn.SGD(net.trainable_params(), lr)
    return net, nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, loss_fn), opt,
                                                 scale_sense)


def test_overflow_skips_the_step_and_halves_the_scale_then_grows_after_window(mode):
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=2.0 ** 10, scale_factor=2,
                                           scale_window=3)
    net, step = _linear_step(update)
    x = Tensor(np.ones((4, 3), np.float32))
    bad = Tensor(np.full((4, 1), np.inf, np.float32))     # an inf target: inf gradients
    good = Tensor(np.zeros((4, 1), np.float32))
    before = _params(net)
    loss, overflow, scale = step(x, bad)
    assert bool(overflow.asnumpy()) and float(scale.asnumpy()) == 1024.0
    assert all(np.array_equal(before[k], v) for k, v in _params(net).items())   # skipped
    assert float(step.scale_sense.asnumpy()) == 512.0
    scales = []
    for _ in range(4):
        loss, overflow, scale = step(x, good)
        assert not bool(overflow.asnumpy())
        scales.append(float(scale.asnumpy()))
    assert scales == [512.0, 512.0, 512.0, 1024.0]   # grown after 3 clean steps
    assert not all(np.array_equal(before[k], v) for k, v in _params(net).items())
    if mode == ms.GRAPH_MODE:       # one compiled forward+backward for every scale
        assert step.compile_cache_info()["compiles"] == 1


def test_float16_backward_overflow_is_detected_with_a_huge_scale(mode):
    net = ms.amp.auto_mixed_precision(nn.Dense(3, 2), "O3")
    opt = nn.SGD(net.trainable_params(), 0.01)
    step = nn.TrainOneStepWithLossScaleCell(
        nn.WithLossCell(net, nn.MSELoss()), opt,
        nn.DynamicLossScaleUpdateCell(2.0 ** 24, 2, 1000))
    x = Tensor(np.full((4, 3), 1.0, np.float32))
    y = Tensor(np.full((4, 2), 4.0, np.float32))
    flags = [bool(step(x, y)[1].asnumpy()) for _ in range(20)]
    # 2**24 times cotangents of order 1 exceeds float16's 65504 in the float16 backward: the
    # first steps overflow (skipped, scale halved each time) until the scale fits, then every
    # step runs.
    first_clean = flags.index(False)
    assert first_clean > 0 and not any(flags[first_clean:]), flags
    assert float(step.scale_sense.asnumpy()) == 2.0 ** 24 / 2 ** first_clean


def test_tensor_scale_sense_and_set_sense_scale():
    net, step = _linear_step(Tensor(np.array([8.0], np.float32)))
    x, y = Tensor(np.ones((2, 3), np.float32)), Tensor(np.zeros((2, 1), np.float32))
    ref_net, ref_step = _linear_step(Tensor(np.array([1.0], np.float32)))
    for _ in range(3):
        l1, o1, s1 = step(x, y)
        l2, _, _ = ref_step(x, y)
    assert s1.shape == (1,) and float(s1.asnumpy()[0]) == 8.0
    for k, v in _params(net).items():       # scaling by a power of 2 is exact
        np.testing.assert_allclose(v, _params(ref_net)[k], rtol=1e-6)
    step.set_sense_scale(Tensor(np.array([4.0], np.float32)))
    assert float(step(x, y)[2].asnumpy()[0]) == 4.0
    with pytest.raises(ValueError, match="shape"):
        _linear_step(Tensor(np.ones((2,), np.float32)))
    with pytest.raises(TypeError, match="scale_sense"):
        _linear_step(4.0)


def test_loss_scalers_and_all_finite():
    grads = (Tensor(np.array([np.nan, 1.0]), ms.float16),
             Tensor(np.array([0.2]), ms.float16))
    scaler = ms.amp.DynamicLossScaler(scale_value=2 ** 10, scale_factor=2, scale_window=1)
    unscaled = scaler.unscale(grads)
    assert unscaled[1].dtype == ms.float16
    np.testing.assert_allclose(unscaled[1].asnumpy(), np.float16(0.2) / 1024, rtol=1e-3)
    finite = ms.amp.all_finite(unscaled)
    assert finite.dtype == ms.bool_ and not bool(finite.asnumpy())
    assert scaler.adjust(finite) is True
    assert float(scaler.scale_value.asnumpy()) == 512.0
    ok = ms.amp.all_finite((Tensor(np.ones(3, np.float32)),))
    scaler.adjust(ok)                                    # window 1: grows at once
    assert float(scaler.scale_value.asnumpy()) == 1024.0
    static = ms.amp.StaticLossScaler(scale_value=16)
    loss = Tensor(np.float32(0.5))
    assert float(static.scale(loss).asnumpy()) == 8.0
    assert float(static.unscale(static.scale(loss)).asnumpy()) == 0.5
    assert static.adjust(finite) is False and float(static.scale_value.asnumpy()) == 16.0


def test_update_cells_follow_mindspore_rules():
    scale = ms.Parameter(Tensor(np.float32(8.0)), name="s")
    cell = nn.DynamicLossScaleUpdateCell(8.0, 2, 2)
    t, f = Tensor(np.array(True)), Tensor(np.array(False))
    values = []
    for flag in (f, f, t, f, f, t, t, t, t):
        cell(scale, flag)
        values.append(float(scale.asnumpy()))
    assert values == [8.0, 16.0, 8.0, 8.0, 16.0, 8.0, 4.0, 2.0, 1.0]
    cell(scale, t)
    assert float(scale.asnumpy()) == 1.0                  # never below 1
    fixed = nn.FixedLossScaleUpdateCell(128.0)
    assert fixed(scale, t) is t and fixed.get_loss_scale() == 128.0


def _model_data():
    x, y = blobs(64, seed=0)
    return ArrayDataset(x, y, batch_size=16)


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 16, activation="relu")
        self.fc2 = nn.Dense(16, 3)

    def construct(self, x):
        return self.fc2(self.fc1(x))


@pytest.mark.parametrize("level", ["O1", "O2", "O3"])
def test_model_trains_with_amp_level_and_loss_scale_manager(mode, level):
    ms.set_seed(0)
    net = _Net()
    manager = ms.DynamicLossScaleManager(init_loss_scale=2 ** 12, scale_factor=2,
                                         scale_window=50)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), 0.05, 0.9), amp_level=level,
                  loss_scale_manager=manager, metrics={"acc": ms.train.Accuracy()})
    step = model.train_network
    assert isinstance(step, nn.TrainOneStepWithLossScaleCell)
    assert isinstance(step.loss_scaling_manager, nn.DynamicLossScaleUpdateCell)
    model.train(4, _model_data(), dataset_sink_mode=False)
    assert all(p.dtype == ms.float32 for p in net.trainable_params())
    assert model.eval(_model_data())["acc"] >= 0.9
    assert net.fc1._cast_dtype == ms.float16


def test_model_amp_defaults_and_fixed_manager():
    net = _Net()
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    o2 = Model(net, loss, opt, amp_level="O2").train_network
    assert isinstance(o2, nn.TrainOneStepWithLossScaleCell)     # O2's DynamicLossScaleManager
    assert float(o2.scale_sense.asnumpy()) == 2.0 ** 24
    o3 = Model(_Net(), loss, nn.SGD(_Net().trainable_params()), amp_level="O3").train_network
    assert type(o3) is nn.TrainOneStepCell
    fixed = Model(_Net(), loss, opt, amp_level="O2",
                  loss_scale_manager=ms.FixedLossScaleManager(64.0)).train_network
    assert isinstance(fixed.loss_scaling_manager, nn.FixedLossScaleUpdateCell)
    no_drop = Model(_Net(), loss, opt, loss_scale_manager=ms.FixedLossScaleManager(
        64.0, drop_overflow_update=False)).train_network
    assert type(no_drop) is nn.TrainOneStepCell and no_drop.sens == 64.0
    with pytest.raises(NotImplementedError, match="boost_level"):
        Model(_Net(), loss, opt, boost_level="O1")
    with pytest.raises(NotImplementedError, match="auto"):
        Model(_Net(), loss, opt, amp_level="auto")


def test_model_keep_batchnorm_fp32_is_honoured():
    def bn_net():
        return nn.SequentialCell([nn.Dense(4, 4), nn.BatchNorm1d(4), nn.Dense(4, 3)])

    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    for level, keep, want in (("O3", True, ms.float32), ("O2", True, ms.float32),
                              ("O2", False, ms.float16), ("O3", False, ms.float16)):
        net = bn_net()
        Model(net, loss, nn.SGD(net.trainable_params()), amp_level=level,
              keep_batchnorm_fp32=keep)
        bn = [c for _, c in net.cells_and_names() if isinstance(c, nn.BatchNorm1d)][0]
        assert bn._cast_dtype == want, (level, keep)


def test_loss_scale_cell_refuses_what_its_step_cannot_do():
    net = nn.Dense(3, 1)
    opt = nn.SGD(net.trainable_params(), 0.1)
    update = nn.FixedLossScaleUpdateCell(8.0)
    accumulated = nn.GradAccumulationCell(nn.WithLossCell(net, nn.MSELoss()), 2)
    with pytest.raises(NotImplementedError, match="GradAccumulationCell"):
        nn.TrainOneStepWithLossScaleCell(accumulated, opt, update)
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel")
    with pytest.raises(NotImplementedError, match="semi_auto_parallel"):
        nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), opt, update)
    with pytest.raises(NotImplementedError, match="bfloat16"):
        ms.amp.auto_mixed_precision(net, "O2", dtype="bfloat16")


def test_amp_on_a_whole_training_cell_keeps_the_optimizer_float32():
    ms.set_seed(0)
    net = nn.Dense(3, 1)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), 0.1))
    ms.amp.auto_mixed_precision(step, "O3")
    assert step.optimizer._cast_dtype == ms.float32 and net._cast_dtype == ms.float16
    x, y = Tensor(np.ones((4, 3), np.float32)), Tensor(np.full((4, 1), 2.0, np.float32))
    losses = [float(step(x, y).asnumpy()) for _ in range(5)]
    assert losses[-1] < losses[0] and net.weight.dtype == ms.float32
