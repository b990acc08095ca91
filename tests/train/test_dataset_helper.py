"""DatasetHelper, connect_network_with_dataset, Dataset.device_que, ops.GetNext and
nn.GetNextSingleOp (minispore/train/dataset_helper.py, minispore/dataset/engine/transfer.py).

The host mode's batches are what MindSpore 2.7.2 gives (recorded below); sink mode, which
MindSpore's CPU build refuses, is checked against a float64 SGD reference: training through
the queue equals training on the host batches, in both modes, one batch per step.
"""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore import dataset as ds

RNG = np.random.default_rng(0)
X = RNG.standard_normal((12, 4)).astype(np.float32)
Y = RNG.standard_normal((12, 1)).astype(np.float32)
W = RNG.standard_normal((1, 4)).astype(np.float32)
BATCH, LR = 3, 0.1


def _data():
    return ds.NumpySlicesDataset({"x": X, "y": Y}, shuffle=False).batch(BATCH)


def _train_step():
    net = nn.Dense(4, 1, weight_init=Tensor(W), bias_init="zeros")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), LR))
    return net, step


def sgd_reference(w, x, y, steps, lr, batch):
    """The weight of Dense(weight `w`, zero bias) under the mean squared error after `steps`
    SGD steps over the batches of (x, y) in order (epochs repeat), in float64."""
    w, b = w.astype(np.float64), 0.0
    for k in range(steps):
        i = k * batch % len(x)
        xb, yb = x[i:i + batch].astype(np.float64), y[i:i + batch].astype(np.float64)
        d = 2 * (xb @ w.T + b - yb) / batch
        w, b = w - lr * d.T @ xb, b - lr * d.sum()
    return w


def _reference(steps):
    return sgd_reference(W, X, Y, steps, LR, BATCH)


@pytest.fixture(params=["graph", "pynative"])
def mode(request):
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_host_mode_gives_the_batches_as_mindspore_does():
    # MindSpore 2.7.2: DatasetHelper(data, dataset_sink_mode=False) over (6, 4) / (6,) rows
    # batched by 2 gives three [Tensor (2, 4), Tensor (2,)]
    data = ds.NumpySlicesDataset({"x": np.arange(24, dtype=np.float32).reshape(6, 4),
                                  "y": np.arange(6, dtype=np.int32)}, shuffle=False).batch(2)
    helper = ms.DatasetHelper(data, dataset_sink_mode=False)
    got = [[t.shape for t in row] for row in helper]
    assert got == [[(2, 4), (2,)]] * 3
    assert helper.types_shapes() == ([ms.float32, ms.int32], [[2, 4], [2]])
    with pytest.raises(RuntimeError, match="should be called in dataset sink mode"):
        ms.connect_network_with_dataset(nn.Identity(), helper)


def test_get_next_single_op_takes_the_batches_in_order_then_says_the_queue_is_empty():
    data = _data()
    helper = ms.DatasetHelper(data, dataset_sink_mode=True)
    types, shapes = helper.types_shapes()
    assert (types, shapes) == ([ms.float32, ms.float32], [[BATCH, 4], [BATCH, 1]])
    queue = data.__transfer_dataset__.queue_name
    get_next = nn.GetNextSingleOp(types, shapes, queue)
    for i in range(0, len(X), BATCH):
        x, y = get_next()
        np.testing.assert_array_equal(x.asnumpy(), X[i:i + BATCH])
        np.testing.assert_array_equal(y.asnumpy(), Y[i:i + BATCH])
    with pytest.raises(RuntimeError, match=f"data queue '{queue}' is exhausted: all 4 batches "
                                           f"of its 1 epoch"):
        get_next()


@pytest.mark.parametrize("sink_size", [-1, 2])
def test_training_through_the_queue_equals_sgd_on_the_batches(mode, sink_size):
    net, step = _train_step()
    helper = ms.DatasetHelper(_data(), dataset_sink_mode=True, sink_size=sink_size,
                              epoch_num=2)
    per_sink = 4 if sink_size == -1 else 2
    assert helper.sink_size() == (per_sink if mode == "graph" else 1)
    sink_net = ms.connect_network_with_dataset(step, helper)
    assert ms.connect_network_with_dataset(step, helper) is sink_net
    calls = 0
    for _ in range(2):
        for inputs in helper:
            assert inputs == ()
            sink_net(*inputs)
            calls += 1
    # GRAPH: a call runs a whole sink of steps, compiled once; PYNATIVE: a call is a step
    assert calls == (2 if mode == "graph" else 2 * per_sink)
    np.testing.assert_allclose(net.weight.asnumpy(), _reference(2 * per_sink), rtol=1e-5,
                               atol=1e-6)
    if mode == "graph":
        assert sink_net.compile_cache_info()["compiles"] == 1


def test_a_dataset_feeds_one_network():
    helper = ms.DatasetHelper(_data(), dataset_sink_mode=True)
    ms.connect_network_with_dataset(nn.Identity(), helper)
    with pytest.raises(ValueError, match="connected to other network"):
        ms.connect_network_with_dataset(nn.Identity(), helper)


def test_stop_and_continue_send():
    data = _data()
    helper = ms.DatasetHelper(data, dataset_sink_mode=True)
    get_next = ops.GetNext(*helper.types_shapes(), 2, data.__transfer_dataset__.queue_name)
    get_next()
    assert helper.get_mbuf_queue_size() >= 0
    helper.stop_send()
    with pytest.raises(RuntimeError, match="is stopped \\(stop_send\\)"):
        get_next()
    helper.continue_send()
    np.testing.assert_array_equal(get_next()[0].asnumpy(), X[BATCH:2 * BATCH])
    helper.release()
    with pytest.raises(RuntimeError, match="there is no data queue named"):
        get_next()


def test_a_batch_unlike_the_declared_types_and_shapes_is_refused():
    data = _data()
    ms.DatasetHelper(data, dataset_sink_mode=True)
    queue = data.__transfer_dataset__.queue_name
    with pytest.raises(RuntimeError, match=r"column 0 .* is Float32 of shape \(3, 4\), but "
                                           r"Float32 of shape \(2, 4\) was declared"):
        ops.GetNext([ms.float32, ms.float32], [(2, 4), (3, 1)], 2, queue)()


@pytest.mark.parametrize("args, exc, message", [
    (("f", [(1,)], 1, "q"), TypeError, "'types' must be a list or tuple"),
    (([ms.float32], [(1,), (2,)], 2, "q"), ValueError, "'types length' \\(1\\) must be equal"),
    (([ms.float32], [(1,)], 2, "q"), ValueError, "'output_num' \\(2\\)"),
    (([ms.float32], [(1,)], 1.0, "q"), TypeError, "'output_num' must be an int"),
    (([ms.float32], [(-1, 4)], 1, "q"), NotImplementedError, "dynamic dim"),
    (([ms.float32], [(1,)], 1, 3), TypeError, "'shared_name' must be a str"),
])
def test_get_next_arguments(args, exc, message):
    with pytest.raises(exc, match=message):
        ops.GetNext(*args)


@pytest.mark.parametrize("kwargs, exc, message", [
    ({"dataset_sink_mode": 1}, TypeError, "'dataset_sink_mode' must be a bool"),
    ({"sink_size": 0}, ValueError, "must be -1 or positive, but got sink_size 0"),
    ({"sink_size": 2.0}, TypeError, "'sink_size' must be an int"),
])
def test_helper_arguments(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        ms.DatasetHelper(_data(), **kwargs)


def test_transfer_dataset_stays_on_the_queue_side():
    transfer = _data().device_que(queue_name="fixed")
    assert transfer.queue_name == "fixed"
    with pytest.raises(RuntimeError, match="TransferDataset is not iterable"):
        iter(transfer)
    with pytest.raises(RuntimeError, match="was not sent"):
        transfer.get_mbuf_queue_size()
    with pytest.raises(NotImplementedError, match="get_data_info"):
        transfer.get_data_info()


def test_sink_mode_under_operator_parallel_is_refused():
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel")
    try:
        with pytest.raises(NotImplementedError, match="semi_auto_parallel"):
            ms.DatasetHelper(_data(), dataset_sink_mode=True)
    finally:
        ms.reset_auto_parallel_context()
        ms.set_context(mode=ms.PYNATIVE_MODE)


class _Steps(ms.train.Callback):
    def __init__(self):
        self.seen = []

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        self.seen.append((cb.cur_epoch_num, cb.cur_step_num, cb.batch_num))


def test_model_sink_mode_on_cpu_trains_unsunk_counting_sink_size_as_mindspore(caplog):
    # MindSpore 2.7.2 on CPU, Model.train(2, <10 batches>, dataset_sink_mode=True, sink_size=3):
    # every batch trains, step_end per batch with cur_step_num 1..20, batch_num 3
    data = ds.NumpySlicesDataset({"x": np.repeat(X, 5, 0)[:20], "y": np.repeat(Y, 5, 0)[:20]},
                                 shuffle=False).batch(2)
    net = nn.Dense(4, 1)
    model = ms.train.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01))
    steps = _Steps()
    model.train(2, data, callbacks=[steps], dataset_sink_mode=True, sink_size=3)
    assert [s[:2] for s in steps.seen] == [(1 + k // 10, k + 1) for k in range(20)]
    assert {s[2] for s in steps.seen} == {3}
    assert "has no effect on the CPU target" in caplog.text


def test_a_reconnected_network_runs_the_new_helpers_sink_size():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        data, (net, step) = _data(), _train_step()
        first = ms.connect_network_with_dataset(step, ms.DatasetHelper(data, sink_size=2))
        again = ms.connect_network_with_dataset(step, ms.DatasetHelper(data, sink_size=4))
        assert again is first and again.steps == 4
        again()
        np.testing.assert_allclose(net.weight.asnumpy(), _reference(4), rtol=1e-5, atol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
