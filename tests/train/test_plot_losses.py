"""tools/plot_losses.py: LossMonitor output of two training runs (two 'ranks') becomes one
PNG with a curve per log, steps laid end to end over epochs."""
import numpy as np
import pytest

import minispore as ms
from minispore import nn
from minispore.train import LossMonitor, Model
from tests.train._data import MLP, ArrayDataset, blobs
from tools import plot_losses

mpimg = pytest.importorskip("matplotlib.image", reason="tools/plot_losses.py draws with "
                            "matplotlib, which `make test` installs (setup.cfg [test])")


def _train_log(tmp_path, capsys, seed):
    ms.set_seed(seed)
    net = MLP()
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), 0.1, 0.9))
    capsys.readouterr()
    model.train(2, ArrayDataset(*blobs(seed=seed)), callbacks=[LossMonitor(1)])
    path = tmp_path / f"worker_{seed}.log"
    path.write_text(capsys.readouterr().out)
    return path


def test_two_ranks_logs_become_one_png(tmp_path, capsys):
    logs = [_train_log(tmp_path, capsys, seed) for seed in (0, 1)]
    points = plot_losses.read_losses(logs[0])
    # 96 samples / batch 16 = 6 steps per epoch, 2 epochs: global steps 1..12 in order
    assert [s for s, _ in points] == list(range(1, 13))
    assert points[-1][1] < points[0][1]
    out = tmp_path / "losses.png"
    assert plot_losses.main([str(tmp_path), "-o", str(out), "--title", "2 ranks"]) == 0
    image = mpimg.imread(out)
    assert image.shape[:2] == (400, 700)
    rgb = (image[..., :3] * 255).round().astype(int).reshape(-1, 3)
    colours = {tuple(c) for c in np.unique(rgb, axis=0)}
    assert (31, 119, 180) in colours and (255, 127, 14) in colours   # one curve per log


def test_a_log_without_losses_is_named(tmp_path, capsys):
    empty = tmp_path / "worker_3.log"
    empty.write_text("no losses here\n")
    assert plot_losses.main([str(empty), "-o", str(tmp_path / "x.png")]) == 1
    assert "worker_3.log has no LossMonitor line" in capsys.readouterr().err
