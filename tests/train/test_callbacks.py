"""Callbacks: hook order (new and old names), LossMonitor/TimeMonitor output, ModelCheckpoint
naming and pruning, History, EarlyStopping, LambdaCallback, ProgressBar."""
import io
import logging
import os
import re

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor
from minispore.train import (Callback, CheckpointConfig, EarlyStopping, History, LambdaCallback,
                             LossMonitor, ModelCheckpoint, ProgressBar, RunContext, TimeMonitor)
from minispore.train.callback._callback import CallbackManager, InternalCallbackParam

from tests.train._data import ArrayDataset, blobs, make_model


def _train_ds(n=64, batch=16):
    return ArrayDataset(*blobs(n, seed=0), batch_size=batch)


def _ctx(**fields):
    return RunContext(InternalCallbackParam(**fields))


def test_callback_hook_order_during_train_and_eval():
    calls = []

    class Recorder(Callback):
        pass

    for hook in ("on_train_begin", "on_train_epoch_begin", "on_train_step_begin",
                 "on_train_step_end", "on_train_epoch_end", "on_train_end", "on_eval_begin",
                 "on_eval_epoch_begin", "on_eval_step_begin", "on_eval_step_end",
                 "on_eval_epoch_end", "on_eval_end"):
        setattr(Recorder, hook, lambda self, rc, h=hook: calls.append(h))
    from minispore.train import Accuracy
    _, _, _, model = make_model(metrics={"acc": Accuracy()})
    model.train(2, _train_ds(32), callbacks=Recorder())
    step = ["on_train_step_begin", "on_train_step_end"]
    epoch = ["on_train_epoch_begin"] + step * 2 + ["on_train_epoch_end"]
    assert calls == ["on_train_begin"] + epoch * 2 + ["on_train_end"]
    calls.clear()
    model.eval(_train_ds(32), callbacks=[Recorder()])
    assert calls == ["on_eval_begin", "on_eval_epoch_begin"] + [
        "on_eval_step_begin", "on_eval_step_end"] * 2 + ["on_eval_epoch_end", "on_eval_end"]


def test_old_style_callback_names_still_run_with_a_warning(caplog):
    calls = []

    class OldStyle(Callback):
        def begin(self, run_context):
            calls.append("begin")

        def epoch_begin(self, run_context):
            calls.append("epoch_begin")

        def step_begin(self, run_context):
            calls.append("step_begin")

        def step_end(self, run_context):
            calls.append("step_end")

        def epoch_end(self, run_context):
            calls.append("epoch_end")

        def end(self, run_context):
            calls.append("end")

    _, _, _, model = make_model()
    with caplog.at_level(logging.WARNING, logger="minispore"):
        model.train(1, _train_ds(32), callbacks=[OldStyle()])
    assert calls == ["begin", "epoch_begin", "step_begin", "step_end", "step_begin", "step_end",
                     "epoch_end", "end"]
    assert "old-style" in caplog.text and "OldStyle" in caplog.text


def test_run_context_and_cb_params():
    params = InternalCallbackParam(cur_epoch_num=1)
    params.cur_step_num = 5
    rc = RunContext(params)
    assert rc.original_args() is params and params["cur_step_num"] == 5
    assert not rc.get_stop_requested()
    rc.request_stop()
    assert rc.get_stop_requested()
    with pytest.raises(AttributeError, match="no field 'nope'"):
        params.nope
    with pytest.raises(TypeError, match="original_args"):
        RunContext([1])


def test_model_train_cb_params_fields():
    seen = {}

    class Peek(Callback):
        def on_train_step_end(self, run_context):
            seen.update(run_context.original_args())

    net, loss, opt, model = make_model()
    model.train(1, _train_ds(32), callbacks=Peek())
    assert seen["train_network"] is model.train_network and seen["optimizer"] is opt
    assert seen["network"] is net and seen["loss_fn"] is loss
    assert seen["mode"] == "train" and seen["parallel_mode"] == "stand_alone"
    assert seen["epoch_num"] == 1 and seen["batch_num"] == 2 and seen["cur_step_num"] == 2
    assert isinstance(seen["net_outputs"], Tensor)
    assert len(seen["train_dataset_element"]) == 2


def test_loss_monitor_prints_exact_format(capsys):
    _, _, _, model = make_model()
    model.train(2, _train_ds(48), callbacks=[LossMonitor()])
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 6
    pattern = re.compile(r"^epoch: (\d+) step: (\d+), loss is (\S+)$")
    got = [pattern.match(line).groups() for line in lines]
    assert [(e, s) for e, s, _ in got] == [("1", "1"), ("1", "2"), ("1", "3"),
                                           ("2", "1"), ("2", "2"), ("2", "3")]
    assert all(np.isfinite(float(loss)) for _, _, loss in got)


def test_loss_monitor_per_print_times(capsys):
    _, _, _, model = make_model()
    model.train(2, _train_ds(48), callbacks=[LossMonitor(per_print_times=2)])
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split(",")[0] for line in lines] == ["epoch: 1 step: 2", "epoch: 2 step: 1",
                                                     "epoch: 2 step: 3"]
    model.train(1, _train_ds(48), callbacks=[LossMonitor(0)])
    assert capsys.readouterr().out == ""


def test_loss_monitor_tuple_output_and_nan(capsys):
    mon = LossMonitor()
    mon.on_train_step_end(_ctx(cur_epoch_num=1, cur_step_num=3, batch_num=2,
                               net_outputs=(Tensor(np.array([1.0, 2.0], np.float32)),
                                            Tensor(np.float32(9)))))
    assert capsys.readouterr().out == "epoch: 1 step: 1, loss is 1.5\n"
    with pytest.raises(ValueError, match=r"^epoch: 2 step: 3\. Invalid loss, terminating "
                                         r"training\.$"):
        mon.on_train_step_end(_ctx(cur_epoch_num=2, cur_step_num=7, batch_num=4,
                                   net_outputs=Tensor(np.float32(np.nan))))
    with pytest.raises(ValueError, match="Invalid loss"):
        mon.on_train_step_end(_ctx(cur_epoch_num=1, cur_step_num=1, batch_num=4,
                                   net_outputs=Tensor(np.float32(np.inf))))


@pytest.mark.parametrize("bad", [-1, 1.5, "2", True])
def test_loss_monitor_bad_per_print_times(bad):
    with pytest.raises(ValueError, match="per_print_times"):
        LossMonitor(bad)


def test_time_monitor_format(capsys):
    _, _, _, model = make_model()
    model.train(2, _train_ds(48), callbacks=[TimeMonitor()])
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    for line in lines:
        m = re.fullmatch(r"epoch time: ([ \d]+\.\d{3}) ms, per step time: ([ \d]+\.\d{3}) ms",
                         line)
        assert m, line
        assert float(m.group(2)) == pytest.approx(float(m.group(1)) / 3, abs=2e-3)


def test_time_monitor_data_size_and_errors(capsys):
    mon = TimeMonitor(data_size=4)
    mon.on_train_epoch_begin(_ctx())
    mon.on_train_epoch_end(_ctx())                 # no batch_num: data_size is used
    assert capsys.readouterr().out.startswith("epoch time: ")
    with pytest.raises(ValueError, match="step count"):
        TimeMonitor().on_train_epoch_end(_ctx())
    with pytest.raises(ValueError, match="data_size"):
        TimeMonitor(data_size=0)


def test_model_checkpoint_naming_and_pruning(tmp_path):
    _, _, _, model = make_model()
    config = CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=3)
    ckpt = ModelCheckpoint(prefix="net", directory=str(tmp_path), config=config)
    model.train(3, _train_ds(80), callbacks=[ckpt])     # 5 steps/epoch, 15 steps
    # saved at global steps 2,4,...,14 and 15 (train end) -> the newest three remain
    assert sorted(os.listdir(tmp_path)) == ["net-3_2.ckpt", "net-3_4.ckpt", "net-3_5.ckpt"]
    assert ckpt.latest_ckpt_file_name == str(tmp_path / "net-3_5.ckpt")
    params = ms.load_checkpoint(ckpt.latest_ckpt_file_name)
    net_names = {p.name for _, p in model.train_network.parameters_and_names()}
    assert net_names <= set(params)
    # A second callback with the same prefix in the same directory gets 'net_1'.
    ckpt2 = ModelCheckpoint(prefix="net", directory=str(tmp_path),
                            config=CheckpointConfig(append_info=["epoch_num", {"tag": "x"}]))
    _, _, _, model2 = make_model()
    model2.train(1, _train_ds(32), callbacks=ckpt2)
    assert os.path.basename(ckpt2.latest_ckpt_file_name) == "net_1-1_2.ckpt"
    extra = ms.load_checkpoint(ckpt2.latest_ckpt_file_name)
    assert int(extra["epoch_num"]) == 1 and extra["tag"] == "x"


def test_model_checkpoint_raises_a_failed_async_save_at_train_end(tmp_path):
    _, _, _, model = make_model()
    ckpt = ModelCheckpoint(directory=str(tmp_path),
                           config=CheckpointConfig(save_checkpoint_steps=1, async_save=True))
    (tmp_path / "CKP-1_2.ckpt").mkdir()         # the last step's file cannot be written
    with pytest.raises(RuntimeError, match=r"asynchronous save \(async_save=True\) of "
                                           r"'.*CKP-1_2\.ckpt' \(IsADirectoryError"):
        model.train(1, _train_ds(32), callbacks=ckpt)
    assert ms.load_checkpoint(str(tmp_path / "CKP-1_1.ckpt"))


def test_model_checkpoint_saved_network_restores(tmp_path):
    net, _, _, model = make_model()
    ckpt = ModelCheckpoint(directory=str(tmp_path),
                           config=CheckpointConfig(saved_network=net))
    model.train(1, _train_ds(32), callbacks=ckpt)
    assert os.path.basename(ckpt.latest_ckpt_file_name) == "CKP-1_2.ckpt"
    fresh, _, _, _ = make_model(seed=99)
    not_loaded, unused = ms.load_param_into_net(fresh, ms.load_checkpoint(
        ckpt.latest_ckpt_file_name))
    assert not_loaded == [] and unused == []
    x = Tensor(blobs(8)[0])
    np.testing.assert_array_equal(fresh(x).asnumpy(), net(x).asnumpy())


def test_checkpoint_config_validation():
    with pytest.raises(ValueError, match="can't be all None or 0"):
        CheckpointConfig(save_checkpoint_steps=0, keep_checkpoint_max=0)
    with pytest.raises(ValueError, match="save_checkpoint_steps"):
        CheckpointConfig(save_checkpoint_steps=-1)
    cfg = CheckpointConfig(save_checkpoint_steps=10, save_checkpoint_seconds=5)
    assert cfg.save_checkpoint_seconds is None and cfg.keep_checkpoint_max == 5
    cfg = CheckpointConfig(keep_checkpoint_max=0, keep_checkpoint_per_n_minutes=0)
    assert cfg.keep_checkpoint_max == 1
    with pytest.raises(TypeError, match="config"):
        ModelCheckpoint(config={"save_checkpoint_steps": 1})
    with pytest.raises(ValueError, match="prefix"):
        ModelCheckpoint(prefix="a/b")
    with pytest.raises(ValueError, match="append_info"):
        CheckpointConfig(append_info=["lr"])


def test_history_records_net_output():
    history = History()
    _, _, _, model = make_model()
    model.train(3, _train_ds(32), callbacks=history)
    assert history.epoch == [1, 2, 3]
    losses = history.history["net_output"]
    assert len(losses) == 3 and all(isinstance(v, float) for v in losses)


def test_early_stopping_on_loss_stops_and_restores():
    stopper = EarlyStopping(monitor="loss", patience=1, min_delta=100.0,
                            restore_best_weights=True)
    epochs = []
    _, _, _, model = make_model()
    model.train(10, _train_ds(32), callbacks=[stopper, LambdaCallback(
        on_train_epoch_end=lambda rc: epochs.append(rc.original_args().cur_epoch_num))])
    # Epoch 1 sets the best; epoch 2 cannot improve by 100 -> stop after epoch 2.
    assert epochs == [1, 2] and stopper.stopped_epoch == 2 and stopper.best_epoch == 1


def test_early_stopping_eval_metric_mode_and_errors(caplog):
    stopper = EarlyStopping(monitor="acc", patience=2)
    assert stopper.op is np.greater
    stopper.on_train_begin(_ctx())
    values = [0.5, 0.6, 0.6, 0.55]
    for epoch, v in enumerate(values, 1):
        rc = _ctx(cur_epoch_num=epoch, net_outputs=None, eval_results={"acc": v})
        stopper.on_train_epoch_end(rc)
    assert rc.get_stop_requested() and stopper.best == 0.6
    with caplog.at_level(logging.WARNING, logger="minispore"):
        EarlyStopping().on_train_epoch_end(_ctx(cur_epoch_num=1, net_outputs=None))
    assert "eval_loss" in caplog.text and "not available" in caplog.text
    with pytest.raises(ValueError, match="mode"):
        EarlyStopping(mode="up")
    with pytest.raises(ValueError, match="patience"):
        EarlyStopping(patience=-1)


def test_lambda_callback_and_manager_validation():
    got = []
    cb = LambdaCallback(on_train_begin=lambda rc: got.append("b"),
                        on_eval_end=lambda rc: got.append("e"))
    manager = CallbackManager([cb])
    manager.on_train_begin(_ctx())
    manager.on_train_step_end(_ctx())               # not given: the default no-op
    manager.on_eval_end(_ctx())
    assert got == ["b", "e"]
    with pytest.raises(TypeError, match="callable"):
        LambdaCallback(on_train_end=3)
    with pytest.raises(TypeError, match="Callback"):
        CallbackManager([cb, "x"])


def test_progress_bar_writes_one_line_per_epoch():
    out = io.StringIO()
    _, _, _, model = make_model()
    model.train(2, _train_ds(48), callbacks=ProgressBar(width=10, file=out))
    text = out.getvalue()
    assert text.count("\n") == 2 and "epoch 2 [==========] 3/3 loss" in text
