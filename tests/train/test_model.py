"""Model: argument validation, train/eval/predict/fit on a small synthetic problem."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore.train import Accuracy, Callback, History, Loss, LossMonitor, Model

from tests.train._data import MLP, ArrayDataset, blobs, make_model


def _datasets():
    x, y = blobs(160, seed=0)
    return ArrayDataset(x[:128], y[:128]), ArrayDataset(x[128:], y[128:])


def test_model_train_then_eval_reaches_high_accuracy():
    train_ds, eval_ds = _datasets()
    _, _, _, model = make_model(metrics={"Accuracy": Accuracy()})
    before = model.eval(eval_ds)
    model.train(5, train_ds, callbacks=[LossMonitor(0)], dataset_sink_mode=False)
    acc = model.eval(eval_ds, dataset_sink_mode=False)
    assert set(acc) == {"Accuracy"} and type(acc["Accuracy"]) is float
    assert before["Accuracy"] < 0.6 and acc["Accuracy"] >= 0.95
    assert repr(acc).startswith("{'Accuracy': 0.") or acc == {"Accuracy": 1.0}


def test_model_with_minispore_dataset_pipeline():
    ds = pytest.importorskip("minispore.dataset", reason="dataset package not importable")
    x, y = blobs(128, seed=3)
    train_ds = ds.NumpySlicesDataset((x, y), column_names=["data", "label"],
                                     shuffle=False).batch(16)
    eval_ds = ds.NumpySlicesDataset((x, y), column_names=["data", "label"],
                                    shuffle=False).batch(32)
    _, _, _, model = make_model(metrics={"acc": Accuracy(), "loss": Loss()})
    model.train(4, train_ds)
    result = model.eval(eval_ds)
    assert result["acc"] >= 0.95 and result["loss"] < 0.3


def test_model_metric_name_set_and_predict():
    train_ds, eval_ds = _datasets()
    net, _, _, model = make_model(metrics={"accuracy", "loss"})
    model.train(3, train_ds)
    result = model.eval(eval_ds)
    assert set(result) == {"accuracy", "loss"}
    x = eval_ds.x[:5]
    out = model.predict(Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), net(Tensor(x)).asnumpy())
    assert model.predict(x).shape == (5, 3)            # numpy input is wrapped


def test_model_train_updates_parameters_like_manual_loop():
    train_ds, _ = _datasets()
    net_a, loss_a, opt_a, model = make_model(seed=7)
    model.train(1, train_ds)
    ms.set_seed(7)
    net_b = MLP()
    step = nn.TrainOneStepCell(nn.WithLossCell(net_b, nn.SoftmaxCrossEntropyWithLogits(
        sparse=True, reduction="mean")), nn.Momentum(net_b.trainable_params(), 0.1, 0.9))
    step.set_train()
    for data, label in train_ds.create_tuple_iterator(num_epochs=1):
        step(data, label)
    for (_, pa), (_, pb) in zip(net_a.parameters_and_names(), net_b.parameters_and_names()):
        np.testing.assert_allclose(pa.asnumpy(), pb.asnumpy(), rtol=1e-6, atol=1e-7)


def test_model_builds_networks():
    net, loss, opt, model = make_model(metrics={"Accuracy": Accuracy()})
    assert isinstance(model.train_network, nn.TrainOneStepCell)
    assert isinstance(model.eval_network, nn.WithEvalCell)
    assert model.predict_network is net
    assert isinstance(Model(net, loss).train_network, nn.WithLossCell)
    assert Model(net).train_network is net
    assert Model(net).eval_network is None


def test_model_concatenates_placeholders_for_train_and_eval():
    net, loss, opt, _ = make_model()
    s0 = ms.Symbol(divisor=8)
    input_dyn = Tensor(shape=[s0, 4], dtype=ms.float32)
    label_dyn = Tensor(shape=[s0], dtype=ms.int32)
    net.set_inputs(input_dyn)
    loss.set_inputs(input_dyn, label_dyn)          # the first one is a dummy, as in the tutorial
    model = Model(net, loss, opt, metrics={"Accuracy": Accuracy()})
    assert model.train_network.get_inputs() == (input_dyn, label_dyn)
    assert model.eval_network.get_inputs() == (input_dyn, label_dyn)


def test_model_constructor_errors():
    net, loss, opt, _ = make_model()
    with pytest.raises(TypeError, match="'network' must be a Cell"):
        Model(lambda x: x)
    with pytest.raises(ValueError, match="'bogus' is not recognized"):
        Model(net, loss, opt, bogus=1)
    with pytest.raises(ValueError, match="'amp_level'.*needs an optimizer"):
        Model(net, loss, amp_level="O2")
    with pytest.raises(ValueError, match="amp_level"):
        Model(net, loss, opt, amp_level="O9")
    with pytest.raises(ValueError, match="loss_scale_manager"):
        Model(net, loss, loss_scale_manager=object())
    with pytest.raises(ValueError, match="'loss_fn' must not be None"):
        Model(net, metrics={"Accuracy": Accuracy()})
    with pytest.raises(TypeError, match="metrics"):
        Model(net, loss, opt, metrics=["accuracy"])
    with pytest.raises(ValueError, match="eval_indexes"):
        Model(net, loss, opt, eval_network=nn.WithEvalCell(net, loss), eval_indexes=[0, 1])


def test_model_train_argument_errors():
    train_ds, _ = _datasets()
    _, _, _, model = make_model()
    with pytest.raises(ValueError, match="'epoch' must be a positive int"):
        model.train(0, train_ds)
    with pytest.raises(ValueError, match="'epoch' must be a positive int"):
        model.train(1.5, train_ds)
    with pytest.raises(ValueError, match="'initial_epoch'.*less than 'epoch'"):
        model.train(2, train_ds, initial_epoch=2)
    with pytest.raises(ValueError, match="'initial_epoch' must be an int >= 0"):
        model.train(2, train_ds, initial_epoch=-1)
    with pytest.raises(ValueError, match="sink_size"):
        model.train(1, train_ds, sink_size=0)
    with pytest.raises(TypeError, match="dataset_sink_mode"):
        model.train(1, train_ds, dataset_sink_mode="no")
    with pytest.raises(ValueError, match="size is 0"):
        model.train(1, ArrayDataset(np.zeros((0, 4), np.float32), np.zeros(0, np.int32)))
    with pytest.raises(TypeError, match="create_tuple_iterator"):
        model.train(1, [1, 2, 3])
    with pytest.raises(TypeError, match="Callback"):
        model.train(1, train_ds, callbacks=[print])


def test_model_dataset_reuse_in_other_model_raises():
    train_ds, _ = _datasets()
    _, _, _, model_a = make_model()
    _, _, _, model_b = make_model()
    model_a.train(1, train_ds)
    model_a.train(1, train_ds)                       # same model: fine
    with pytest.raises(RuntimeError, match="used in other model"):
        model_b.train(1, train_ds)


def test_model_eval_without_metrics_raises():
    _, eval_ds = _datasets()
    _, _, _, model = make_model()
    with pytest.raises(ValueError, match="'metrics' can not be None"):
        model.eval(eval_ds)


def test_model_initial_epoch_and_step_numbers():
    train_ds, _ = _datasets()
    _, _, _, model = make_model()
    seen = []

    class Record(Callback):
        def on_train_step_end(self, run_context):
            p = run_context.original_args()
            seen.append((p.cur_epoch_num, p.cur_step_num, p.batch_num, p.epoch_num))

    model.train(3, train_ds, callbacks=Record(), initial_epoch=1)
    assert seen[0] == (2, 9, 8, 3) and seen[-1] == (3, 24, 8, 3) and len(seen) == 16


def test_model_request_stop_ends_training():
    train_ds, _ = _datasets()
    _, _, _, model = make_model()
    steps = []

    class StopAt3(Callback):
        def on_train_step_end(self, run_context):
            steps.append(run_context.original_args().cur_step_num)
            if len(steps) == 3:
                run_context.request_stop()

    model.train(4, train_ds, callbacks=[StopAt3()])
    assert steps == [1, 2, 3]


def test_model_fit_with_validation_feeds_history_and_eval_loss():
    train_ds, eval_ds = _datasets()
    _, _, _, model = make_model(metrics={"Accuracy": Accuracy()})
    history = History()
    eval_results = []

    class Peek(Callback):
        def on_train_epoch_end(self, run_context):
            eval_results.append(dict(run_context.original_args().get("eval_results") or {}))

    model.fit(4, train_ds, eval_ds, valid_frequency=2, callbacks=[history, Peek()])
    assert history.epoch == [1, 2, 3, 4]
    assert len(history.history["net_output"]) == 4
    assert len(history.history["Accuracy"]) == 2 and history.history["Accuracy"][-1] >= 0.95
    assert eval_results[0] == {} and set(eval_results[1]) == {"Accuracy", "eval_loss"}
    with pytest.raises(ValueError, match="'metrics' must be set"):
        make_model()[3].fit(1, ArrayDataset(*blobs(32)), eval_ds)
    with pytest.raises(ValueError, match="valid_frequency"):
        model.fit(1, train_ds, eval_ds, valid_frequency=0)


def test_model_custom_eval_network_without_indexes_feeds_all_outputs():
    train_ds, eval_ds = _datasets()
    net, loss, opt, _ = make_model()

    class Logits(nn.Cell):                     # outputs (logits, label), no loss
        def __init__(self, backbone):
            super().__init__()
            self.backbone = backbone

        def construct(self, data, label):
            return self.backbone(data), label

    model = Model(net, loss, opt, metrics={"top2": ms.train.TopKCategoricalAccuracy(2)},
                  eval_network=Logits(net))
    model.train(3, train_ds)
    assert model.eval(eval_ds)["top2"] == 1.0


def test_mindspore_module_paths_exist():
    import minispore.train.callback as callback
    import minispore.train.metrics as metrics
    import minispore.train.serialization as serialization
    from minispore.train.model import Model as ModelFromModule
    assert ms.Model is ModelFromModule is Model
    assert ms.save_checkpoint is serialization.save_checkpoint
    assert ms.load_checkpoint is serialization.load_checkpoint
    assert ms.load_param_into_net is serialization.load_param_into_net
    assert callback.LossMonitor is LossMonitor and metrics.Accuracy is Accuracy
    # mindspore.nn's metrics are the same classes (they live in nn, below train)
    assert ms.nn.Accuracy is Accuracy and ms.nn.Top1CategoricalAccuracy is \
        metrics.Top1CategoricalAccuracy and ms.nn.get_metric_fn is metrics.get_metric_fn
