"""load_distributed_checkpoint reshards in one process: the 8 per-rank files of
tests/train/test_sharded_checkpoint.py (LAYOUTS) load into nets sliced under other layouts,
each reading only the source blocks that meet its region (counted in bytes), and say which
blocks are missing when the files do not cover it.
"""
import numpy as np
import pytest

from minispore import Parameter
from minispore.common.layout import TensorLayout
from minispore.train.reshard_load import last_load_stats
from minispore.train.serialization import CheckpointError
from minispore.train.sharded_checkpoints import load_distributed_checkpoint
from tests.train.test_serialization import ParamHolder
from tests.train.test_sharded_checkpoint import (N, read_index, rank_files,  # noqa: F401
                                                 rank_net, whole_values)

# Another plan for the same tensors: fc.weight's rows over 8 (its source blocks are 2 x 4),
# fc.bias whole, head.weight's columns over 4 (its source blocks are 2 columns each).
OTHER = {"fc.weight": TensorLayout((8,), (0, -1)),
         "fc.bias": None,
         "head.weight": TensorLayout((4, 2), (-1, 1)),
         "steps": None}


def zeros_net(rank, layouts=OTHER):
    return rank_net(rank, {k: np.zeros_like(v) for k, v in whole_values().items()}, layouts)


def test_whole_net_reads_each_block_once(rank_files):
    net = ParamHolder(**{n: Parameter(np.zeros_like(v)) for n, v in whole_values().items()})
    load_distributed_checkpoint(net, rank_files)
    for name, want in whole_values().items():
        np.testing.assert_array_equal(net.params[name].asnumpy(), want)
    stats = last_load_stats()
    # 8 fc.weight blocks, 4 of the bias (each saved twice), 2 of head.weight (each saved 4
    # times), steps (saved 8 times) once: the logical bytes, not the files'
    assert stats["entries_read"] == 8 + 4 + 2 + 1
    assert stats["bytes_read"] == sum(v.nbytes for v in whole_values().values())
    assert stats["bytes_in_files"] > 4 * stats["bytes_read"]


def test_other_layout_reads_only_overlapping_blocks(rank_files):
    whole = whole_values()
    net = zeros_net(5)
    load_distributed_checkpoint(net, rank_files)
    np.testing.assert_array_equal(net.params["fc.weight"].asnumpy(), whole["fc.weight"][5:6])
    np.testing.assert_array_equal(net.params["fc.bias"].asnumpy(), whole["fc.bias"])
    np.testing.assert_array_equal(net.params["head.weight"].asnumpy(),
                                  whole["head.weight"][:, 2:3])
    # row 5 of fc.weight meets the four 4x3 blocks of rows 4:8; column 2 of head.weight meets
    # one 3x2 block; the bias (4 blocks) and steps are read whole, once
    assert last_load_stats()["bytes_read"] == 4 * 48 + 48 + 48 + 20


def test_files_this_rank_does_not_need_may_be_absent(rank_files):
    net = zeros_net(5)
    load_distributed_checkpoint(net, [rank_files[r] for r in (4, 5, 6, 7, 0)])
    np.testing.assert_array_equal(net.params["fc.bias"].asnumpy(), whole_values()["fc.bias"])


def test_uncovered_region_names_missing_blocks_and_ranks(rank_files):
    with pytest.raises(ValueError, match=r"the files do not cover 'fc.weight': this rank needs "
                                         r"its slices \[\[5, 6\], \[0, 12\]\] of logical shape "
                                         r"\[8, 12\], which meet the source block\(s\) "
                                         r"\[\[4, 8\], \[0, 3\]\] \(saved by rank\(s\) \[4\]\), in "
                                         r"none of the given files \(they hold the blocks of "
                                         r"rank\(s\) \[0, 5, 6, 7\]\)"):
        load_distributed_checkpoint(zeros_net(5), [rank_files[r] for r in (5, 6, 7, 0)])
    with pytest.raises(ValueError, match=r"'fc.bias'.*\[\[3, 6\]\] \(saved by rank\(s\) \[1, 5\]\)"
                                         r"; \[\[9, 12\]\] \(saved by rank\(s\) \[3, 7\]\)"):
        load_distributed_checkpoint(ParamHolder(**{"fc.bias": Parameter(np.zeros(12))}),
                                    [rank_files[r] for r in (0, 2, 4, 6)])


def _corrupt(path, name):
    """Flip the first byte of entry `name`'s buffer."""
    entry = read_index(path)[name]
    with open(path, "rb") as f:
        blob = bytearray(f.read())
    index_len = int.from_bytes(blob[12:20], "little")
    at = 20 + index_len + (-(20 + index_len)) % 64 + entry["offset"]
    blob[at] ^= 0xFF
    with open(path, "wb") as f:
        f.write(blob)


def test_corrupt_block_fails_only_the_ranks_that_read_it(rank_files):
    _corrupt(rank_files[4], "fc.weight")
    load_distributed_checkpoint(zeros_net(0), rank_files)      # needs rows 0:4 only
    with pytest.raises(CheckpointError, match=r"'fc.weight' .*rank_4/net.ckpt'.*corrupted"):
        load_distributed_checkpoint(zeros_net(5), rank_files)


def test_dtypes_cast_as_load_param_into_net_does(rank_files):
    values = dict(whole_values(), **{"head.weight": np.zeros((3, 4), np.float32)})
    net = rank_net(5, values, OTHER)
    load_distributed_checkpoint(net, rank_files)        # float64 in the files: cast
    np.testing.assert_allclose(net.params["head.weight"].asnumpy(),
                               whole_values()["head.weight"][:, 2:3], rtol=1e-6)
    with pytest.raises(RuntimeError, match=r"'head.weight' has dtype Float32 in the net but "
                                           r"Float64 in the files \(strict_load=True"):
        load_distributed_checkpoint(net, rank_files, strict_load=True)
    steps_float = rank_net(5, dict(whole_values(), steps=np.zeros(5, np.float32)), OTHER)
    with pytest.raises(RuntimeError, match=r"'steps' has dtype Float32 in the net but Int32"):
        load_distributed_checkpoint(steps_float, rank_files)


def test_parameters_missing_from_the_files(rank_files):
    values = dict(whole_values(), extra=np.full(2, 7, np.float32))
    net = rank_net(5, values, OTHER)
    load_distributed_checkpoint(net, rank_files)
    np.testing.assert_array_equal(net.params["extra"].asnumpy(), [7, 7])
    with pytest.raises(RuntimeError, match=r"hold no value for \['extra'\] \(strict_load=True\)"):
        load_distributed_checkpoint(net, rank_files, strict_load=True)


def test_a_corrupt_second_parameter_leaves_the_net_as_it_was(rank_files):
    for path in rank_files:      # every replica of fc.bias, the net's 2nd parameter
        _corrupt(path, "fc.bias")
    net = ParamHolder(**{n: Parameter(v + 1) for n, v in whole_values(seed=1).items()})
    before = {n: p.asnumpy().copy() for n, p in net.params.items()}
    assert list(before)[:2] == ["fc.weight", "fc.bias"]
    with pytest.raises(CheckpointError, match=r"'fc.bias' .*corrupted"):
        load_distributed_checkpoint(net, rank_files)
    for name, want in before.items():
        np.testing.assert_array_equal(net.params[name].asnumpy(), want, err_msg=name)
