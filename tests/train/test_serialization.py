"""Checkpoint round trips, atomic replacement, corruption detection and loading into a net."""
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor
from minispore.train import serialization
from minispore.train.serialization import (CheckpointError, load_checkpoint,
                                           load_param_into_net, save_checkpoint)

ALL_DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
              np.uint8, np.bool_]


class ParamHolder:
    """The part of Cell that checkpoints use: parameters_and_names()."""

    def __init__(self, **params):
        self.params = params
        for name, p in params.items():
            p.name = name

    def parameters_and_names(self):
        return iter(self.params.items())


def _net(seed=0, w_shape=(3, 4)):
    rng = np.random.default_rng(seed)
    return ParamHolder(**{"fc.weight": Parameter(rng.standard_normal(w_shape).astype(np.float32)),
                          "fc.bias": Parameter(rng.standard_normal(w_shape[0]).astype(np.float32)),
                          "step": Parameter(np.array(7, np.int32), requires_grad=False)})


def test_save_checkpoint_round_trip_all_dtypes(tmp_path):
    rng = np.random.default_rng(1)
    entries = []
    for i, dt in enumerate(ALL_DTYPES):
        arr = (rng.standard_normal((2, 3, i + 1)) * 50).astype(dt)
        entries.append({"name": f"p{i}", "data": Tensor(arr)})
    entries.append({"name": "scalar", "data": Tensor(np.float32(2.5))})
    entries.append({"name": "empty", "data": Tensor(np.zeros((0, 4), np.float32))})
    path = str(tmp_path / "all.ckpt")
    save_checkpoint(entries, path)
    loaded = load_checkpoint(path)
    assert list(loaded) == [e["name"] for e in entries]
    for e in entries:
        p = loaded[e["name"]]
        assert isinstance(p, Parameter) and p.name == e["name"]
        assert p.dtype == e["data"].dtype and p.shape == e["data"].shape
        np.testing.assert_array_equal(p.asnumpy(), e["data"].asnumpy())


def test_save_checkpoint_cell_and_append_dict(tmp_path):
    net = _net()
    path = str(tmp_path / "net")               # '.ckpt' is appended, as in MindSpore
    save_checkpoint(net, path, append_dict={"epoch_num": 3, "lr": 0.5, "tag": "best",
                                            "flag": True})
    loaded = load_checkpoint(path + ".ckpt")
    assert set(loaded) == {"fc.weight", "fc.bias", "step", "epoch_num", "lr", "tag", "flag"}
    assert loaded["tag"] == "best"
    assert loaded["epoch_num"].dtype == ms.int64 and int(loaded["epoch_num"]) == 3
    assert float(loaded["lr"]) == 0.5 and bool(loaded["flag"]) is True
    np.testing.assert_array_equal(loaded["fc.weight"].asnumpy(),
                                  net.params["fc.weight"].asnumpy())


def test_save_checkpoint_bad_arguments(tmp_path):
    with pytest.raises(TypeError, match="save_obj"):
        save_checkpoint(42, str(tmp_path / "x.ckpt"))
    with pytest.raises(TypeError, match="ckpt_file_name"):
        save_checkpoint(_net(), 3)
    with pytest.raises(TypeError, match="async_save"):
        save_checkpoint(_net(), str(tmp_path / "x.ckpt"), async_save=1)
    with pytest.raises(TypeError, match="each element of the list"):
        save_checkpoint([{"name": "a"}], str(tmp_path / "x.ckpt"))
    with pytest.raises(TypeError, match="append_dict"):
        save_checkpoint(_net(), str(tmp_path / "x.ckpt"), append_dict=[1])
    with pytest.raises(TypeError, match="'obj'"):
        save_checkpoint(_net(), str(tmp_path / "x.ckpt"), append_dict={"obj": object()})


def test_save_checkpoint_async_snapshot(tmp_path):
    net = _net()
    expected = net.params["fc.weight"].asnumpy().copy()
    path = str(tmp_path / "async.ckpt")
    save_checkpoint(net, path, async_save=True)
    net.params["fc.weight"].set_data(np.zeros((3, 4), np.float32))   # must not leak in
    loaded = load_checkpoint(path)
    np.testing.assert_array_equal(loaded["fc.weight"].asnumpy(), expected)


def test_load_checkpoint_filter_and_specify_prefix(tmp_path):
    path = str(tmp_path / "f.ckpt")
    save_checkpoint(_net(), path)
    assert set(load_checkpoint(path, filter_prefix="fc.")) == {"step"}
    assert set(load_checkpoint(path, filter_prefix=["fc.b", "st"])) == {"fc.weight"}
    assert set(load_checkpoint(path, specify_prefix="fc.")) == {"fc.weight", "fc.bias"}
    assert set(load_checkpoint(path, choice_func=lambda n: n.endswith("bias"))) == {"fc.bias"}
    with pytest.raises(TypeError, match="filter_prefix"):
        load_checkpoint(path, filter_prefix=3)


def test_load_checkpoint_missing_or_misnamed_file(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        load_checkpoint(str(tmp_path / "nope.ckpt"))
    with pytest.raises(ValueError, match="end with '.ckpt'"):
        load_checkpoint(str(tmp_path / "nope.bin"))


def test_load_checkpoint_detects_flipped_byte(tmp_path):
    path = str(tmp_path / "c.ckpt")
    save_checkpoint(_net(), path)
    blob = bytearray(open(path, "rb").read())
    blob[len(blob) // 2] ^= 0x40
    open(path, "wb").write(bytes(blob))
    with pytest.raises(CheckpointError, match=r"c\.ckpt.*(checksum|corrupted)"):
        load_checkpoint(path)


def test_load_checkpoint_detects_flipped_index_byte(tmp_path):
    path = str(tmp_path / "i.ckpt")
    save_checkpoint(_net(), path)
    blob = bytearray(open(path, "rb").read())
    blob[30] ^= 0x01                       # inside the JSON index
    open(path, "wb").write(bytes(blob))
    with pytest.raises(CheckpointError, match=r"i\.ckpt"):
        load_checkpoint(path)


@pytest.mark.parametrize("keep", [0, 10, -33, -1])
def test_load_checkpoint_detects_truncation(tmp_path, keep):
    path = str(tmp_path / "t.ckpt")
    save_checkpoint(_net(), path)
    blob = open(path, "rb").read()
    open(path, "wb").write(blob[:keep] if keep >= 0 else blob[:len(blob) + keep])
    with pytest.raises(CheckpointError, match=r"t\.ckpt.*(truncated|bad magic|empty)"):
        load_checkpoint(path)


def test_load_checkpoint_wrong_magic(tmp_path):
    path = str(tmp_path / "m.ckpt")
    open(path, "wb").write(b"\x80\x04PICKLE-ish payload that must never be unpickled" * 4)
    with pytest.raises(CheckpointError, match=r"m\.ckpt.*bad magic"):
        load_checkpoint(path)


_KILLED_WRITER = r"""
import sys, numpy as np
from minispore import Tensor
from minispore.train.serialization import save_checkpoint
big = Tensor(np.ones((64, 1024, 1024), np.float32))          # 256 MiB: takes a while to write
print("ready", flush=True)
while True:
    save_checkpoint([{"name": "big", "data": big}], sys.argv[1])
"""


def test_save_checkpoint_killed_writer_leaves_old_file(tmp_path):
    path = str(tmp_path / "atomic.ckpt")
    net = _net(seed=5)
    save_checkpoint(net, path)
    before = open(path, "rb").read()
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, path],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        deadline = time.time() + 60
        # Kill it while a temporary file is being written next to the target.
        while time.time() < deadline:
            if any(f.endswith(".tmp") and os.path.getsize(tmp_path / f) > 0
                   for f in os.listdir(tmp_path)):
                break
            time.sleep(0.005)
        else:
            pytest.fail("the writer never started a temporary file")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    after = open(path, "rb").read()
    if after != before:           # the writer got a full file in before the kill: still valid
        assert set(load_checkpoint(path)) == {"big"}
    else:
        loaded = load_checkpoint(path)
        np.testing.assert_array_equal(loaded["fc.weight"].asnumpy(),
                                      net.params["fc.weight"].asnumpy())


def _kill_a_writer_midway(path, folder):
    """SIGKILL a process saving a checkpoint to `path` once its .tmp file exists in `folder`;
    its pid."""
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, path],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        assert _wait_for(lambda: _tmp_files(folder)), "the writer never started a tmp file"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    return proc.pid


def test_next_save_removes_the_tmp_file_of_the_killed_writer(tmp_path):
    path = str(tmp_path / "atomic.ckpt")
    _kill_a_writer_midway(path, tmp_path)
    assert _tmp_files(tmp_path)                # what the killed writer left
    save_checkpoint(_net(), path)
    assert _tmp_files(tmp_path) == []
    assert set(load_checkpoint(path)) == {"fc.weight", "fc.bias", "step"}


def _wait_for(condition, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return False


def _tmp_files(directory):
    return sorted(f for f in os.listdir(directory) if f.endswith(".tmp"))


def test_next_save_keeps_tmp_files_of_live_writers_and_other_hosts(tmp_path):
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead_pid = int(done.stdout)
    host = socket.gethostname()
    dead = f".w.ckpt.{host}.{dead_pid}.abc123_x.tmp"
    live = f".w.ckpt.{host}.{os.getpid()}.abc123_x.tmp"
    other_host = f".w.ckpt.{host}-b.{dead_pid}.abc123_x.tmp"
    old_style = ".w.ckpt.abc123_x.tmp"
    other_file = f".w.ckpt.{host}.{dead_pid}.ckpt.{host}.{os.getpid()}.abc123_x.tmp"
    for name in (dead, live, other_host, old_style, other_file):
        (tmp_path / name).write_bytes(b"partial")
    save_checkpoint(_net(), str(tmp_path / "w.ckpt"))
    assert _tmp_files(tmp_path) == sorted([live, other_host, old_style, other_file])


def _blocked_target(tmp_path, name):
    """A checkpoint path where a directory stands, so writing the file fails (in the writer
    thread for an async save) even for root."""
    (tmp_path / name).mkdir()
    return str(tmp_path / name)


def test_async_save_failure_is_raised_by_the_next_save(tmp_path):
    blocked = _blocked_target(tmp_path, "blocked.ckpt")
    save_checkpoint(_net(), blocked, async_save=True)
    with pytest.raises(RuntimeError, match=r"asynchronous save \(async_save=True\) of "
                                           r"'.*blocked\.ckpt' \(IsADirectoryError.*\) failed; "
                                           r"the file\(s\) were not written") as info:
        save_checkpoint(_net(), str(tmp_path / "next.ckpt"))
    assert isinstance(info.value.__cause__, IsADirectoryError)
    assert not os.path.exists(tmp_path / "next.ckpt")     # raised before writing anything
    save_checkpoint(_net(), str(tmp_path / "next.ckpt"))   # reported once, then saves go on
    assert _tmp_files(tmp_path) == []


def test_async_save_failure_is_raised_by_the_wait_and_by_loading(tmp_path):
    blocked = _blocked_target(tmp_path, "blocked.ckpt")
    save_checkpoint(_net(), blocked, async_save=True)
    with pytest.raises(RuntimeError, match=r"'.*blocked\.ckpt' \(IsADirectoryError"):
        serialization._wait_async()
    save_checkpoint(_net(), blocked, async_save=True)
    with pytest.raises(RuntimeError, match=r"'.*blocked\.ckpt' \(IsADirectoryError"):
        load_checkpoint(blocked)


_ASYNC_FAILS_AT_EXIT = r"""
import sys, numpy as np
from minispore import Tensor
from minispore.train.serialization import save_checkpoint
save_checkpoint([{"name": "w", "data": Tensor(np.ones(2, np.float32))}], sys.argv[1],
                async_save=True)
print("script ends normally", flush=True)
"""


def test_async_save_failure_nobody_waited_for_fails_the_exit(tmp_path):
    blocked = _blocked_target(tmp_path, "blocked.ckpt")
    proc = subprocess.run([sys.executable, "-c", _ASYNC_FAILS_AT_EXIT, blocked],
                          capture_output=True, text=True, timeout=120)
    assert proc.stdout == "script ends normally\n"
    assert proc.returncode == 1
    assert (f"minispore: the asynchronous save (async_save=True) of '{blocked}' "
            f"(IsADirectoryError") in proc.stderr
    assert "Exiting with status 1." in proc.stderr
    assert "Exception in thread" not in proc.stderr


def test_load_param_into_net_copies_values_and_reports(tmp_path):
    src, dst = _net(seed=1), _net(seed=2)
    path = str(tmp_path / "p.ckpt")
    save_checkpoint(src, path, append_dict={"extra": 1})
    param_dict = load_checkpoint(path)
    param_not_load, ckpt_not_load = load_param_into_net(dst, param_dict)
    assert param_not_load == [] and ckpt_not_load == ["extra"]
    for name in src.params:
        np.testing.assert_array_equal(dst.params[name].asnumpy(), src.params[name].asnumpy())


def test_load_param_into_net_warns_about_missing_parameters(tmp_path, caplog):
    path = str(tmp_path / "partial.ckpt")
    save_checkpoint(_net(seed=1), path, choice_func=lambda name: name != "fc.bias")
    net = _net(seed=2)
    with caplog.at_level(logging.WARNING, logger="minispore"):
        param_not_load, ckpt_not_load = load_param_into_net(net, load_checkpoint(path))
    assert param_not_load == ["fc.bias"] and ckpt_not_load == []
    assert "For 'load_param_into_net', 1 parameter(s) of 'net' are not loaded" in caplog.text
    assert "Not loaded: ['fc.bias']" in caplog.text
    np.testing.assert_array_equal(net.params["fc.bias"].asnumpy(), _net(seed=2).params[
        "fc.bias"].asnumpy())
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="minispore"):
        load_checkpoint(path, net=_net(seed=2), filter_prefix="fc.")
    assert "2 parameter(s) of 'net' are not loaded" in caplog.text
    assert "Not loaded: ['fc.weight', 'fc.bias']" in caplog.text


def test_load_param_into_net_silent_when_everything_loads(tmp_path, caplog):
    path = str(tmp_path / "full.ckpt")
    save_checkpoint(_net(seed=1), path)
    with caplog.at_level(logging.WARNING, logger="minispore"):
        assert load_param_into_net(_net(seed=2), load_checkpoint(path)) == ([], [])
    assert caplog.text == ""


def test_load_checkpoint_with_net_loads(tmp_path):
    src, dst = _net(seed=1), _net(seed=2)
    path = str(tmp_path / "n.ckpt")
    save_checkpoint(src, path)
    load_checkpoint(path, net=dst)
    np.testing.assert_array_equal(dst.params["fc.bias"].asnumpy(),
                                  src.params["fc.bias"].asnumpy())


def test_load_param_into_net_shape_mismatch_names_param_and_file(tmp_path):
    path = str(tmp_path / "shape.ckpt")
    save_checkpoint(_net(w_shape=(3, 4)), path)
    with pytest.raises(RuntimeError, match=r"'fc\.weight'.*shape\.ckpt.*\[5, 4\].*\[3, 4\]"):
        load_param_into_net(_net(w_shape=(5, 4)), load_checkpoint(path))


def test_load_param_into_net_strict_load(tmp_path, caplog):
    prefixed = ParamHolder(**{"network.fc.weight": Parameter(np.ones((3, 4), np.float32)),
                              "network.fc.bias": Parameter(np.ones(3, np.float64))})
    path = str(tmp_path / "s.ckpt")
    save_checkpoint(prefixed, path)
    # Non-strict: a leading cell prefix is matched and float64 -> float32 is cast.
    net = _net()
    with caplog.at_level(logging.WARNING, logger="minispore"):
        not_loaded, unused = load_param_into_net(net, load_checkpoint(path))
    assert not_loaded == ["step"] and unused == []
    assert net.params["fc.bias"].dtype == ms.float32
    assert ("'network.fc.bias' in 'parameter_dict' (from checkpoint file "
            f"'{path}') has dtype Float64 but 'fc.bias' in 'net' has dtype Float32; the value "
            "is cast to Float32.") in caplog.text
    np.testing.assert_array_equal(net.params["fc.weight"].asnumpy(), np.ones((3, 4)))
    # Strict: names must match exactly.
    net = _net()
    not_loaded, unused = load_param_into_net(net, load_checkpoint(path), strict_load=True)
    assert sorted(not_loaded) == ["fc.bias", "fc.weight", "step"]
    assert sorted(unused) == ["network.fc.bias", "network.fc.weight"]
    # Strict: no dtype casting.
    same_names = str(tmp_path / "d.ckpt")
    save_checkpoint([{"name": "fc.bias", "data": Tensor(np.ones(3, np.float64))}], same_names)
    with pytest.raises(RuntimeError, match=r"'fc\.bias'.*Float64.*strict_load"):
        load_param_into_net(_net(), load_checkpoint(same_names), strict_load=True)


def test_load_param_into_net_bad_arguments():
    with pytest.raises(TypeError, match="'net' must be a Cell"):
        load_param_into_net({}, {})
    with pytest.raises(TypeError, match="parameter_dict"):
        load_param_into_net(_net(), [1])
    with pytest.raises(TypeError, match="strict_load"):
        load_param_into_net(_net(), {}, strict_load="yes")


def test_load_param_into_net_changes_nothing_when_a_later_parameter_is_wrong(tmp_path):
    from minispore import nn
    net = nn.SequentialCell(nn.Dense(4, 3), nn.Dense(3, 2))
    names = [p.name for _, p in net.parameters_and_names()]
    before = {name: p.asnumpy().copy() for name, p in zip(names, net.get_parameters())}
    other = nn.SequentialCell(nn.Dense(4, 3), nn.Dense(3, 2))
    path = str(tmp_path / "other.ckpt")
    save_checkpoint(other, path)
    ckpt = load_checkpoint(path)
    # The 1st parameter would load; the 2nd has the wrong shape.
    assert not np.array_equal(ckpt[names[0]].asnumpy(), before[names[0]])
    ckpt[names[1]] = Parameter(np.ones(5, np.float32), name=names[1])
    with pytest.raises(RuntimeError, match=rf"'{re.escape(names[1])}' in the argument 'net' "
                                           rf"should have the same shape"):
        load_param_into_net(net, ckpt)
    after = {name: p.asnumpy() for name, p in zip(names, net.get_parameters())}
    assert after.keys() == before.keys()
    for name in names:
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)


def test_a_save_removes_every_stale_tmp_file_in_its_folder_with_a_log_line(tmp_path, caplog):
    killed = str(tmp_path / "killed.ckpt")
    writer = _kill_a_writer_midway(killed, tmp_path)
    [left] = _tmp_files(tmp_path)
    # A tmp file whose writer's pid this (newer) process took: written a day before it started.
    reused = tmp_path / f".old.ckpt.{socket.gethostname()}.{os.getpid()}.abc123_x.tmp"
    reused.write_bytes(b"partial")
    os.utime(reused, (time.time() - 86400, time.time() - 86400))
    caplog.set_level(logging.WARNING, logger="minispore")
    save_checkpoint(_net(), str(tmp_path / "another_name.ckpt"))
    assert _tmp_files(tmp_path) == []
    removed = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Removed ")]
    assert sorted(removed) == sorted([
        f"Removed {tmp_path / left}, the temporary file of a save of 'killed.ckpt' that was "
        f"killed midway (its writer, pid {writer} on this host, is gone).",
        f"Removed {reused}, the temporary file of a save of 'old.ckpt' that was killed midway "
        f"(its writer, pid {os.getpid()} on this host, is gone)."])
