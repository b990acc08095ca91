"""Fault behaviour: an exception on one rank aborts the whole job with its traceback, and
collectives whose ranks disagree are reported (with every rank's shape) instead of hanging."""
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from minispore import Tensor, ops
from minispore import communication as comm
from tests.communication.conftest import job_environment

ROOT = Path(__file__).resolve().parents[2]
MPIRUN = Path(sys.executable).parent / "mpirun"

RAISE_ON_RANK_1 = """
import numpy as np
from minispore import Tensor, ops
from minispore.communication import init, get_rank
init()
if get_rank() == 1:
    {raise_stmt}
ops.AllReduce()(Tensor(np.ones(4, np.float32)))   # rank 0 would wait here forever
print("rank", get_rank(), "finished", flush=True)
"""
IN_MAIN = "raise ValueError('boom on rank one')"
IN_THREAD = ("import threading\n"
             "    def work(): raise ValueError('boom on rank one')\n"
             "    t = threading.Thread(target=work, name='worker'); t.start(); t.join()\n"
             "    import time; time.sleep(60)")


@pytest.mark.skipif("PMI_RANK" in os.environ,
                    reason="spawns its own mpirun; runs in the single-process suite")
@pytest.mark.parametrize("raise_stmt", [IN_MAIN, IN_THREAD], ids=["main", "thread"])
def test_exception_on_one_rank_aborts_the_job(raise_stmt):
    script = RAISE_ON_RANK_1.format(raise_stmt=raise_stmt)
    start = time.monotonic()
    proc = subprocess.run([str(MPIRUN), "-n", "2", sys.executable, "-c", script],
                          capture_output=True, text=True, timeout=60, env=job_environment(),
                          cwd=ROOT)
    elapsed = time.monotonic() - start
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output
    assert elapsed < 20, f"took {elapsed:.1f} s\n{output}"
    assert "[rank 1" in output and "ValueError: boom on rank one" in output, output
    assert "Traceback (most recent call last)" in output
    assert "finished" not in output


@pytest.mark.mpi(min_size=2)
@pytest.mark.mpi8
def test_divergent_shapes_are_reported_on_every_rank(world):
    me = comm.get_rank()
    shape = (2, 3) if me == 0 else (2, 4)
    with pytest.raises(RuntimeError, match=r"(?s)Collective mismatch in group .*"
                                           r"rank 0: AllReduce\(op=sum\) float32 shape=\(2, 3\) "
                                           r"at .*test_faults.py:\d+ .*"
                                           r"rank 1: AllReduce\(op=sum\) float32 shape=\(2, 4\)"):
        ops.AllReduce()(Tensor(np.ones(shape, np.float32)))
    # same byte count, other dtype; same call, other reduction: silently wrong without the check
    with pytest.raises(RuntimeError, match=r"(?s)rank 0: AllReduce\(op=sum\) float32 .*"
                                           r"rank 1: AllReduce\(op=sum\) int32"):
        ops.AllReduce()(Tensor(np.ones(4, np.float32 if me == 0 else np.int32)))
    with pytest.raises(RuntimeError, match=r"(?s)rank 0: AllReduce\(op=sum\) .*"
                                           r"rank 1: AllReduce\(op=max\)"):
        ops.AllReduce("sum" if me == 0 else "max")(Tensor(np.ones(4, np.float32)))
    # different collectives: rank 0 gathers while the others reduce
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(RuntimeError, match=r"(?s)rank 0: AllGather.*rank 1: AllReduce"):
        ops.AllGather()(x) if me == 0 else ops.AllReduce()(x)
    # the world is still usable afterwards
    assert ops.AllReduce()(x).asnumpy()[0, 0] == comm.get_group_size()


@pytest.mark.mpi(min_size=2)
def test_iallreduce_in_place_overlaps_and_completes(world):
    n, me = comm.get_group_size(), comm.get_rank()
    bufs = [np.full(1000, me + k, np.float32) for k in range(3)]
    handles = [comm.iallreduce(b) for b in bufs]
    for k, (h, b) in enumerate(zip(handles, bufs)):
        assert h.wait() is b
        np.testing.assert_array_equal(b, np.full(1000, n * (n - 1) / 2 + n * k, np.float32))
    assert handles[0].test()
    m = np.full(3, me, np.int64)
    comm.iallreduce(m, ops.ReduceOp.MAX).wait()
    np.testing.assert_array_equal(m, [n - 1] * 3)
    with pytest.raises(ValueError, match="must be C-contiguous"):
        comm.iallreduce(np.ones((4, 4), np.float32)[:, 0])


@pytest.mark.mpi(min_size=2)
@pytest.mark.mpi8
def test_shape_rules_and_errors_of_the_spec_examples(world):
    """mindspore_semantics.md §12.2 minimal tests, for any world size k."""
    k, me = comm.get_group_size(), comm.get_rank()
    ones = np.ones((2, 8), np.float32)
    np.testing.assert_array_equal(ops.AllReduce()(Tensor(ones)).asnumpy(), ones * k)
    assert ops.AllGather()(Tensor(ones * me)).shape == (2 * k, 8)
    rs = ops.ReduceScatter()(Tensor(np.ones((2 * k, 2), np.float32)))
    assert rs.shape == (2, 2) and (rs.asnumpy() == k).all()
    a2a = ops.AlltoAll(k, -2, -1)(Tensor(np.ones((1, 1, k, 1), np.float32) * me))
    np.testing.assert_array_equal(a2a.asnumpy(), np.arange(k, dtype=np.float32)
                                  .reshape(1, 1, 1, k))
    with pytest.raises(ValueError, match=rf"'split_count' \({k + 1}\) must be equal to the size "
                                         rf"of group .* \({k}\)"):
        ops.AlltoAll(k + 1, 0, 0)(Tensor(np.ones((k + 1, 2), np.float32)))
    with pytest.raises(ValueError, match=rf"split dimension 0 of 'x' \(shape \({k + 1}, 2\)\) "
                                         rf"must be divisible by 'split_count' {k}"):
        ops.AlltoAll(k, 0, 1)(Tensor(np.ones((k + 1, 2), np.float32)))
    with pytest.raises(ValueError, match=rf"first dimension of 'x' \({k + 1}, shape .*\) must be "
                                         rf"divisible by the group size {k}"):
        ops.ReduceScatter()(Tensor(np.ones((k + 1, 2), np.float32)))
    with pytest.raises(ValueError, match="must have rank >= 1"):
        ops.AllGather()(Tensor(np.float32(1)))
    with pytest.raises(ValueError, match=rf"'root_rank' must be in \[0, {k}\)"):
        ops.Broadcast(k)((Tensor(ones),))
    with pytest.raises(ValueError, match="must be another rank than this one"):
        ops.Send(0, me)(Tensor(ones))


@pytest.mark.mpi(min_size=2)
def test_reduce_scatter_with_non_sum_op_has_no_gradient(world):
    import minispore as ms
    k = comm.get_group_size()
    x = Tensor(np.ones((k, 2), np.float64))
    with pytest.raises(RuntimeError, match="The backward of 'ReduceScatter' only supports "
                                           "ReduceOp.SUM, but got op 'max'"):
        ms.grad(lambda t: ops.ReduceScatter(ops.ReduceOp.MAX)(t).sum())(x)
