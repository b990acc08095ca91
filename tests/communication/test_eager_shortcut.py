"""The eager short path of AllReduce, AllGather and ReduceScatter (comm_ops._Collective.__call__):
once infer has accepted an input signature, plain eager calls of that signature skip the
generic dispatch. These tests prove it is taken (infer is not called again), that its results
and the collective counters equal the generic path's, and that anything new or watched (another
shape, a tape, the profiler) still goes through infer and the interpreter.

Run under MPI: mpirun -n 2 python -m pytest --with-mpi tests/communication
"""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from minispore.communication import get_group_size, get_rank
from minispore.parallel import comm_stats, reset_comm_stats
from tests.communication.conftest import data

pytestmark = pytest.mark.mpi(min_size=2)


def counting_infer(monkeypatch, prim):
    """Count prim.infer calls (the generic dispatch calls it; the short path does not)."""
    calls = []
    infer = prim.infer

    def counted(*args):
        calls.append(tuple(args[0].shape))
        return infer(*args)

    monkeypatch.setattr(prim, "infer", counted)
    return calls


def all_ranks(shape, dtype, salt=0):
    return [data(r, shape, dtype, salt) for r in range(get_group_size())]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_repeated_calls_skip_infer_and_stay_exact(world, monkeypatch, dtype):
    k, me = get_group_size(), get_rank()
    cases = [
        (ops.AllReduce(), (3, 5), lambda xs: np.sum(xs, axis=0)),
        (ops.AllGather(), (2, 3), lambda xs: np.concatenate(xs)),
        (ops.ReduceScatter(ops.ReduceOp.MAX), (2 * k, 3),
         lambda xs: np.max(xs, axis=0)[2 * me:2 * me + 2]),
    ]
    for prim, shape, reference in cases:
        calls = counting_infer(monkeypatch, prim)
        for salt in range(3):
            xs = all_ranks(shape, dtype, salt)
            out = prim(Tensor(xs[me]))
            assert out.dtype == Tensor(xs[me]).dtype, prim.name
            np.testing.assert_array_equal(out.asnumpy(), reference(xs))
        assert calls == [shape], f"{prim.name}: infer ran for {calls}, want once"
        # A new signature is checked again, then takes the short path in turn.
        wider = shape[:-1] + (shape[-1] + 1,)
        for salt in range(2):
            xs = all_ranks(wider, dtype, salt)
            np.testing.assert_array_equal(prim(Tensor(xs[me])).asnumpy(), reference(xs))
        assert calls == [shape, wider], prim.name


def test_a_new_signature_gets_infer_errors(world):
    k = get_group_size()
    scatter = ops.ReduceScatter()
    scatter(Tensor(np.ones((2 * k, 3), np.float32)))
    scatter(Tensor(np.ones((2 * k, 3), np.float32)))
    with pytest.raises(ValueError, match="ReduceScatter"):
        scatter(Tensor(np.ones((2 * k + 1, 3), np.float32)))
    gather = ops.AllGather()
    gather(Tensor(np.ones((2,), np.float32)))
    with pytest.raises(ValueError, match="AllGather.*rank >= 1"):
        gather(Tensor(np.float32(1.0)))


def test_short_path_calls_are_counted(world):
    prim = ops.AllReduce()
    x = Tensor(np.ones((256,), np.float32))
    prim(x)
    reset_comm_stats()
    for _ in range(4):
        prim(x)
    k = get_group_size()
    assert comm_stats() == {"AllReduce": {"count": 4, "bytes": 4 * 2 * (k - 1) * 1024 // k}}


def test_a_taped_call_takes_the_generic_path(world, monkeypatch):
    """Warm the short path, then differentiate through the same primitive: the tape must see
    the call (infer runs again) and the gradient is AllReduce(SUM) of the cotangents."""
    me = get_rank()
    prim = ops.AllReduce()
    xs, ws = all_ranks((2, 4), np.float64), all_ranks((2, 4), np.float64, salt=1)
    prim(Tensor(xs[me]))
    calls = counting_infer(monkeypatch, prim)
    got = ms.grad(lambda t: (prim(t) * Tensor(ws[me])).sum())(Tensor(xs[me])).asnumpy()
    np.testing.assert_allclose(got, np.sum(ws, axis=0), rtol=1e-12)
    assert calls, "the taped call skipped infer (and so the generic dispatch)"


def test_a_profiled_call_is_recorded_as_an_operator(world, tmp_path):
    prim = ops.AllReduce()
    x = Tensor(np.ones((64,), np.float32))
    prim(x)
    profiler = ms.Profiler(output_path=str(tmp_path))
    prim(x)
    profiler.stop()
    spans = {(name, category) for name, category, *_ in profiler.recorder.spans}
    # The operator span comes from the generic dispatch, the "mpi" one from the layer below.
    assert spans == {("AllReduce", "communication"), ("AllReduce", "mpi")}, spans


def test_short_path_without_the_full_check(world, monkeypatch):
    """The default (no set_collective_check): the short path still counts, equals the
    reference, and skips infer after the first call."""
    from minispore import communication as comm
    comm.set_collective_check(False)
    me = get_rank()
    prim = ops.AllReduce(ops.ReduceOp.MAX)
    calls = counting_infer(monkeypatch, prim)
    reset_comm_stats()
    for salt in range(3):
        xs = all_ranks((4, 2), np.float32, salt)
        np.testing.assert_array_equal(prim(Tensor(xs[me])).asnumpy(), np.max(xs, axis=0))
    assert calls == [(4, 2)]
    assert comm_stats()["AllReduce"]["count"] == 3


def test_a_destroyed_group_is_refused_after_the_short_path_was_taken(world):
    """The prepared call holds the group's communicator: once the group is destroyed, the call
    goes back to the generic path and its error, not to a freed communicator."""
    from minispore import communication as comm
    ranks = list(range(get_group_size()))
    comm.create_group("short_path_group", ranks)
    prim = ops.AllReduce(group="short_path_group")
    x = Tensor(np.ones((3,), np.float32))
    prim(x)
    np.testing.assert_array_equal(prim(x).asnumpy(), np.full(3, len(ranks), np.float32))
    comm.destroy_group("short_path_group")
    with pytest.raises(ValueError, match="short_path_group.*does not exist"):
        prim(x)
