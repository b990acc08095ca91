"""Every collective and its gradient on the world, a reversed world and the even ranks, against
numpy on all ranks' inputs (each rank rebuilds the others' data from their seeds).

Run under MPI: mpirun -n 2 (or 8) python -m pytest --with-mpi tests/communication
"""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from minispore.communication import get_rank
from tests.communication.conftest import data

pytestmark = pytest.mark.mpi(min_size=2)

NP_REDUCE = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}


def members_data(group, shape, dtype, salt=0, **kw):
    return [data(r, shape, dtype, salt, **kw) for r in group.ranks]


def grad_of(fn, x, w):
    """d/dx sum(fn(x) * w) on this rank (w: this rank's cotangent)."""
    return ms.grad(lambda t: (fn(t) * Tensor(w)).sum())(Tensor(x)).asnumpy()


def tol(dtype):
    return dict(rtol=1e-3, atol=1e-3) if np.dtype(dtype) == np.float16 else \
        dict(rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op,dtype", [
    ("sum", np.float32), ("sum", np.float64), ("sum", np.int32), ("sum", np.float16),
    ("max", np.float32), ("max", np.int64), ("min", np.float64), ("min", np.uint8),
    ("prod", np.float32), ("prod", np.int32), ("sum", np.bool_), ("min", np.bool_)])
def test_all_reduce_forward(group, op, dtype):
    if not group.member:
        return
    kw = dict(low=0.5, high=1.5) if op == "prod" else {}
    xs = members_data(group, (3, 5), dtype, **kw)
    if dtype == np.uint8 or (dtype == np.int32 and op == "prod"):
        xs = [np.abs(x) % 3 + 1 for x in xs]
    me = group.ranks.index(get_rank())
    out = ops.AllReduce(op, group.name)(Tensor(xs[me]))
    if dtype == np.bool_:    # bool reductions are logical: SUM/MAX = any, PROD/MIN = all
        want = np.any(xs, 0) if op in ("sum", "max") else np.all(xs, 0)
    else:
        want = NP_REDUCE[op](np.stack(xs).astype(np.float64), axis=0)
    assert out.dtype == Tensor(xs[me]).dtype and out.shape == (3, 5)
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), want, **tol(dtype))


@pytest.mark.parametrize("op", ["sum", "max", "min", "prod"])
def test_all_reduce_grad(group, op):
    if not group.member:
        return
    kw = dict(low=0.5, high=1.5) if op == "prod" else {}
    xs = members_data(group, (2, 4), np.float64, **kw)
    ws = members_data(group, (2, 4), np.float64, salt=1)
    me = group.ranks.index(get_rank())
    got = grad_of(ops.AllReduce(op, group.name), xs[me], ws[me])
    wsum = np.sum(ws, axis=0)
    out = NP_REDUCE[op](np.stack(xs), axis=0)
    want = {"sum": wsum, "prod": wsum * out / xs[me],
            "max": wsum * (xs[me] == out), "min": wsum * (xs[me] == out)}[op]
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.float16, np.bool_])
def test_all_gather_forward(group, dtype):
    if not group.member:
        return
    xs = members_data(group, (2, 3), dtype)
    me = group.ranks.index(get_rank())
    out = ops.AllGather(group.name)(Tensor(xs[me]))
    assert out.shape == (2 * len(group.ranks), 3)
    np.testing.assert_array_equal(out.asnumpy(), np.concatenate(xs))


@pytest.mark.mpi8
def test_all_gather_grad(group):
    if not group.member:
        return
    k = len(group.ranks)
    xs = members_data(group, (2, 3), np.float64)
    ws = members_data(group, (2 * k, 3), np.float64, salt=1)
    me = group.ranks.index(get_rank())
    got = grad_of(ops.AllGather(group.name), xs[me], ws[me])
    np.testing.assert_allclose(got, np.sum(ws, axis=0)[2 * me:2 * me + 2], rtol=1e-12)


@pytest.mark.parametrize("op", ["sum", "max"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_reduce_scatter_forward(group, op, dtype):
    if not group.member:
        return
    k = len(group.ranks)
    xs = members_data(group, (2 * k, 3), dtype)
    me = group.ranks.index(get_rank())
    out = ops.ReduceScatter(op, group.name)(Tensor(xs[me]))
    want = NP_REDUCE[op](np.stack(xs).astype(np.float64), axis=0)[2 * me:2 * me + 2]
    assert out.shape == (2, 3)
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), want, **tol(dtype))


@pytest.mark.mpi8
def test_reduce_scatter_grad(group):
    if not group.member:
        return
    k = len(group.ranks)
    xs = members_data(group, (2 * k, 3), np.float64)
    ws = members_data(group, (2, 3), np.float64, salt=1)
    me = group.ranks.index(get_rank())
    got = grad_of(ops.ReduceScatter("sum", group.name), xs[me], ws[me])
    np.testing.assert_allclose(got, np.concatenate(ws), rtol=1e-12)


def np_all_to_all(xs, split_dim, concat_dim):
    """Rank r receives block r (along split_dim) of every rank's x, concatenated on concat_dim."""
    k = len(xs)
    blocks = [np.split(x, k, axis=split_dim) for x in xs]
    return [np.concatenate([blocks[j][r] for j in range(k)], axis=concat_dim) for r in range(k)]


@pytest.mark.parametrize("dims,dtype", [((0, 0), np.float32), ((1, 0), np.int16),
                                        ((0, 2), np.float64), ((-2, -1), np.float32),
                                        ((2, 1), np.float16)])
def test_all_to_all_forward(group, dims, dtype):
    if not group.member:
        return
    k = len(group.ranks)
    xs = members_data(group, (2 * k, k, 2 * k), dtype)
    me = group.ranks.index(get_rank())
    out = ops.AlltoAll(k, dims[0], dims[1], group.name)(Tensor(xs[me]))
    want = np_all_to_all(xs, *dims)[me]
    assert out.shape == want.shape
    np.testing.assert_array_equal(out.asnumpy(), want)


@pytest.mark.parametrize("dims", [(1, 0), (-2, -1)])
def test_all_to_all_grad_is_the_inverse_permutation(group, dims):
    """Feed element ids through the numpy forward: the gradient of x_s[i] is the cotangent at
    the output position that id landed on (a check independent of the bprop's formula)."""
    if not group.member:
        return
    k = len(group.ranks)
    shape = (2 * k, k, 2)
    size = int(np.prod(shape))
    ids = [np.arange(size).reshape(shape) + j * size for j in range(k)]
    ws = members_data(group, np_all_to_all(ids, *dims)[0].shape, np.float64, salt=1)
    want = np.zeros(k * size)
    for r, out_ids in enumerate(np_all_to_all(ids, *dims)):
        want[out_ids.reshape(-1)] = ws[r].reshape(-1)
    me = group.ranks.index(get_rank())
    x = data(get_rank(), shape, np.float64)
    got = grad_of(ops.AlltoAll(k, dims[0], dims[1], group.name), x, ws[me])
    np.testing.assert_array_equal(got, want[me * size:(me + 1) * size].reshape(shape))


@pytest.mark.mpi8
def test_broadcast_forward_and_grad(group):
    if not group.member:
        return
    root = len(group.ranks) - 1
    me = group.ranks.index(get_rank())
    xs = members_data(group, (3, 2), np.float64)
    ids = members_data(group, (4,), np.int32, salt=2)
    y, n = ops.Broadcast(root, group.name)((Tensor(xs[me]), Tensor(ids[me])))
    np.testing.assert_array_equal(y.asnumpy(), xs[root])
    np.testing.assert_array_equal(n.asnumpy(), ids[root])
    assert n.dtype == ms.int32
    ws = members_data(group, (3, 2), np.float64, salt=1)
    got = grad_of(lambda t: ops.Broadcast(root, group.name)((t,))[0], xs[me], ws[me])
    want = np.sum(ws, axis=0) if me == root else np.zeros((3, 2))
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.mpi8
def test_reduce_forward_and_grad(group):
    if not group.member:
        return
    me = group.ranks.index(get_rank())
    xs = members_data(group, (3, 2), np.float32)
    out = ops.Reduce(0, ops.ReduceOp.SUM, group.name)(Tensor(xs[me])).asnumpy()
    want = np.sum(xs, axis=0) if me == 0 else np.zeros((3, 2))
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
    ws = members_data(group, (3, 2), np.float64, salt=1)
    got = grad_of(ops.Reduce(0, ops.ReduceOp.SUM, group.name), xs[me].astype(np.float64),
                  ws[me])
    np.testing.assert_allclose(got, ws[0], rtol=1e-12)


@pytest.mark.mpi8
def test_send_receive_forward_and_grad(world):
    """Ranks pair up (0, 1), (2, 3) ...: the even rank sends x, the odd one receives it and
    takes sum(y * w); backward sends w back, which becomes the even rank's gradient of x."""
    me = get_rank()
    peer = me ^ 1
    if peer >= world.get_group_size():
        return
    x = data(me - me % 2, (2, 3), np.float32)
    w = data(me - me % 2, (2, 3), np.float32, salt=1)
    if me % 2 == 0:
        send = ops.Send(7, peer)
        got = ms.grad(lambda t: send(t))(Tensor(x)).asnumpy()
        np.testing.assert_array_equal(got, w)
    else:
        recv = ops.Receive(7, peer, (2, 3), ms.float32)
        seen = []

        def loss(dummy):
            y = recv(dummy)
            seen.append(y.asnumpy())
            return (y * Tensor(w)).sum()

        g = ms.grad(loss)(Tensor(np.zeros(1, np.float32)))
        np.testing.assert_array_equal(seen[0], x)
        np.testing.assert_array_equal(g.asnumpy(), np.zeros(1, np.float32))


@pytest.mark.mpi8
def test_comm_func_functional_forms(group):
    """mindspore.communication.comm_func: src/dst are world ranks, mapped to group ranks."""
    from minispore.communication import comm_func as cf
    if not group.member:
        return
    k, me = len(group.ranks), group.ranks.index(get_rank())
    xs = members_data(group, (k, 2), np.float32)
    x = Tensor(xs[me])
    np.testing.assert_allclose(cf.all_reduce(x, group=group.name).asnumpy(), np.sum(xs, 0),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(cf.all_gather_into_tensor(x, group.name).asnumpy(),
                                  np.concatenate(xs))
    np.testing.assert_allclose(cf.reduce_scatter_tensor(x, group=group.name).asnumpy(),
                               np.sum(xs, 0)[me:me + 1], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(cf.all_to_all_single(x, group.name).asnumpy(),
                                  np.stack([xs[j][me] for j in range(k)]))
    src = group.ranks[-1]            # a world rank; its group rank differs in 'reversed'
    np.testing.assert_array_equal(cf.broadcast(x, src, group.name).asnumpy(), xs[-1])
    red = cf.reduce(x, src, group=group.name).asnumpy()
    np.testing.assert_allclose(red, np.sum(xs, 0) if get_rank() == src else 0 * red,
                               rtol=1e-5, atol=1e-6)
    cf.barrier(group.name)
