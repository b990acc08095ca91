"""Run records in sharded checkpoints: every file names the run that wrote it (an id shared by
the ranks of one init(), or one process, and a hash of the strategy), and merging refuses the
files of two runs even when their values would merge (the silent case: both runs' halves of
the same parameters, equal step counts)."""
import logging
import subprocess
import sys

import numpy as np
import pytest

from minispore.common.layout import TensorLayout
from minispore.train import serialization
from minispore.train.serialization import save_checkpoint
from minispore.train.sharded_checkpoints import (load_distributed_checkpoint,
                                                 merge_sharded_checkpoints)
from tests.train.test_sharded_checkpoint import (N, ROOT, rank_net, read_index, run_tool,
                                                 save_ranks, whole_values)

_SAVE_RANKS_IN_ANOTHER_RUN = r"""
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from tests.train.test_sharded_checkpoint import rank_net, save_ranks
save_ranks(Path(sys.argv[2]), [rank_net(r) for r in range(int(sys.argv[3]))])
"""


def run_of(path):
    return serialization._read_index(path).run


@pytest.fixture
def two_runs(tmp_path):
    """(files of this process's run, files of another process's run): the same values, the
    same strategy, rank_<r>/net.ckpt under tmp_path/a and tmp_path/b."""
    mine = save_ranks(tmp_path / "a", [rank_net(r) for r in range(N)])
    subprocess.run([sys.executable, "-c", _SAVE_RANKS_IN_ANOTHER_RUN, ROOT, str(tmp_path / "b"),
                    str(N)], check=True, cwd=ROOT, timeout=300)
    return mine, [str(tmp_path / "b" / f"rank_{r}" / "net.ckpt") for r in range(N)]


def test_every_rank_file_records_the_same_run_and_strategy(tmp_path):
    files = save_ranks(tmp_path, [rank_net(r) for r in range(N)])
    runs = [run_of(path) for path in files]
    assert len({run["id"] for run in runs}) == 1 and len(runs[0]["id"]) == 32
    assert len({run["strategy"] for run in runs}) == 1 and len(runs[0]["strategy"]) == 64
    assert read_index(files[0])["fc.weight"]["layout"]["rank"] == 0      # per-rank part differs
    whole = str(tmp_path / "whole.ckpt")
    save_checkpoint(rank_net(0, layouts={}), whole)
    assert run_of(whole) == {"id": runs[0]["id"], "strategy": None}


def test_another_strategy_has_another_hash(tmp_path):
    layouts = {"fc.weight": TensorLayout((8,), (0, -1))}
    files = save_ranks(tmp_path, [rank_net(r, layouts=layouts) for r in range(2)])
    default = save_ranks(tmp_path / "default", [rank_net(0)])
    assert run_of(files[0])["strategy"] == run_of(files[1])["strategy"]
    assert run_of(files[0])["strategy"] != run_of(default[0])["strategy"]


def test_each_run_alone_merges(two_runs):
    for files in two_runs:
        merged = merge_sharded_checkpoints(files)
        np.testing.assert_array_equal(merged["fc.weight"].asnumpy(), whole_values()["fc.weight"])


def test_merge_refuses_the_halves_of_two_runs(two_runs):
    mine, other = two_runs
    mixed = mine[:N // 2] + other[N // 2:]
    mine_id, other_id = run_of(mine[0])["id"], run_of(other[0])["id"]
    assert mine_id != other_id
    with pytest.raises(ValueError) as info:
        merge_sharded_checkpoints(mixed)
    assert str(info.value) == (
        f"Cannot merge: the checkpoint files come from 2 different runs (run {mine_id} wrote "
        f"{mine[:N // 2]}; run {other_id} wrote {other[N // 2:]}); give the files of one run "
        f"only.")
    with pytest.raises(ValueError, match="come from 2 different runs"):
        load_distributed_checkpoint(rank_net(0, layouts={}), mixed)


def test_merge_tool_refuses_the_halves_of_two_runs(two_runs, tmp_path):
    mine, other = two_runs
    out = tmp_path / "merged.ckpt"
    failed = run_tool("-o", str(out), *mine[:2], *other[2:])
    assert failed.returncode == 1
    assert failed.stderr.startswith("merge_checkpoints: Cannot merge: the checkpoint files come "
                                    "from 2 different runs")
    assert all(path in failed.stderr for path in mine[:2] + other[2:])
    assert not out.exists()


def test_files_without_run_records(tmp_path, monkeypatch, caplog):
    recorded = save_ranks(tmp_path / "new", [rank_net(r) for r in range(N)])
    monkeypatch.setattr(serialization, "run_record", lambda layouts: None)  # as before runs
    old = save_ranks(tmp_path / "old", [rank_net(r) for r in range(N)])
    assert run_of(old[0]) is None
    with caplog.at_level(logging.WARNING, logger="minispore"):
        merged = merge_sharded_checkpoints(old)
    np.testing.assert_array_equal(merged["fc.bias"].asnumpy(), whole_values()["fc.bias"])
    assert "record no run id" in caplog.text
    with pytest.raises(ValueError, match=rf"run {run_of(recorded[0])['id']} wrote "
                                         rf"\[.*new/rank_0/net.ckpt'\]; run \(none recorded\) "
                                         rf"wrote \[.*old/rank_1/net.ckpt'"):
        merge_sharded_checkpoints([recorded[0]] + old[1:])
