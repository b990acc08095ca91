"""mindspore.numpy array creation and shape manipulation against NumPy in float64."""
import numpy as np
import pytest

import minispore.numpy as mnp
from minispore import Tensor

RNG = np.random.default_rng(1)
A = RNG.standard_normal((2, 3, 4))
M = RNG.standard_normal((3, 4))


def same(got, want, rtol=1e-10, atol=1e-12):
    want = np.asarray(want)
    assert tuple(got.shape) == want.shape, f"shape {tuple(got.shape)} != {want.shape}"
    np.testing.assert_allclose(got.asnumpy().astype(np.float64), want, rtol=rtol, atol=atol)


def test_creation_values_match_numpy():
    same(mnp.zeros((2, 3)), np.zeros((2, 3)))
    same(mnp.ones(4), np.ones(4))
    same(mnp.full((2, 2), 7.5), np.full((2, 2), 7.5))
    same(mnp.full((2, 3), Tensor(np.array([1.0, 2.0, 3.0]))), np.full((2, 3), [1.0, 2.0, 3.0]))
    same(mnp.empty((3,)), np.zeros(3))
    same(mnp.arange(5), np.arange(5))
    same(mnp.arange(2, 11, 3), np.arange(2, 11, 3))
    same(mnp.arange(1.0, -1.0, -0.3), np.arange(1.0, -1.0, -0.3), rtol=1e-6, atol=1e-6)
    same(mnp.eye(3, 4, -1), np.eye(3, 4, -1))
    same(mnp.identity(3), np.identity(3))
    same(mnp.tri(3, 5, 1), np.tri(3, 5, 1))
    for like, ref in ((mnp.zeros_like, np.zeros_like), (mnp.ones_like, np.ones_like),
                      (mnp.empty_like, np.zeros_like)):
        same(like(Tensor(M)), ref(M))
    same(mnp.full_like(Tensor(M), 2.0), np.full_like(M, 2.0))
    same(mnp.zeros_like(Tensor(M), shape=(2,)), np.zeros(2))
    same(mnp.array([[1, 2], [3, 4]], ndmin=3), np.array([[1, 2], [3, 4]], ndmin=3))
    same(mnp.array([Tensor(np.array([1.0, 2.0])), Tensor(np.array([3.0, 4.0]))]),
         [[1.0, 2.0], [3.0, 4.0]])


@pytest.mark.parametrize("endpoint", [True, False])
def test_spaces_match_numpy(endpoint):
    same(mnp.linspace(-1, 2, 7, endpoint), np.linspace(-1, 2, 7, endpoint), rtol=1e-6, atol=1e-6)
    out, step = mnp.linspace(0, 1, 5, endpoint, retstep=True)
    want, wstep = np.linspace(0, 1, 5, endpoint, retstep=True)
    same(out, want, rtol=1e-6)
    same(step, wstep, rtol=1e-6)
    start, stop = np.array([0.0, 1.0]), np.array([1.0, 3.0])
    same(mnp.linspace(Tensor(start), Tensor(stop), 4, endpoint, axis=1),
         np.linspace(start, stop, 4, endpoint, axis=1), rtol=1e-6, atol=1e-6)
    same(mnp.logspace(0, 3, 4, endpoint, base=2.0), np.logspace(0, 3, 4, endpoint, base=2.0),
         rtol=1e-6)
    same(mnp.geomspace(1, 1000, 4, endpoint), np.geomspace(1, 1000, 4, endpoint), rtol=1e-5)


def test_triangles_diagonals_trace_match_numpy():
    for k in (-1, 0, 2):
        same(mnp.tril(Tensor(M), k), np.tril(M, k))
        same(mnp.triu(Tensor(A), k), np.triu(A, k))
        same(mnp.diag(Tensor(M), k), np.diag(M, k))
        same(mnp.diag(Tensor(M[0]), k), np.diag(M[0], k))
        same(mnp.diagflat(Tensor(M[:2, :2]), k), np.diagflat(M[:2, :2], k))
        same(mnp.trace(Tensor(M), k), np.trace(M, k))
    same(mnp.diagonal(Tensor(A), 1, 1, 2), np.diagonal(A, 1, 1, 2))
    same(mnp.trace(Tensor(A), 0, 0, 2), np.trace(A, 0, 0, 2))
    for got, want in zip(mnp.tril_indices(4, 1, 3), np.tril_indices(4, 1, 3)):
        np.testing.assert_array_equal(got.asnumpy(), want)
    for got, want in zip(mnp.triu_indices_from(Tensor(M), -1), np.triu_indices_from(M, -1)):
        np.testing.assert_array_equal(got.asnumpy(), want)
    for got, want in zip(mnp.indices((2, 3)), np.indices((2, 3))):
        np.testing.assert_array_equal(got.asnumpy(), want)


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
def test_meshgrid_matches_numpy(indexing, sparse):
    xs = [np.arange(2.0), np.arange(3.0) + 10, np.arange(4.0) - 5]
    got = mnp.meshgrid(*[Tensor(x) for x in xs], sparse=sparse, indexing=indexing)
    for g, w in zip(got, np.meshgrid(*xs, sparse=sparse, indexing=indexing)):
        same(g, w)


def test_vander_matches_numpy():
    x = np.array([1.5, -2.0, 3.0])
    same(mnp.vander(Tensor(x)), np.vander(x))
    same(mnp.vander(Tensor(x), 4, increasing=True), np.vander(x, 4, increasing=True))


def test_reshape_transpose_axes_match_numpy():
    t = Tensor(A)
    same(mnp.reshape(t, (4, -1)), A.reshape(4, -1))
    same(mnp.ravel(t), A.ravel())
    same(mnp.transpose(t), A.transpose())
    same(mnp.transpose(t, (1, 0, 2)), A.transpose(1, 0, 2))
    same(mnp.swapaxes(t, 0, -1), np.swapaxes(A, 0, -1))
    same(mnp.moveaxis(t, 0, -1), np.moveaxis(A, 0, -1))
    same(mnp.moveaxis(t, (0, 1), (2, 0)), np.moveaxis(A, (0, 1), (2, 0)))
    for axis, start in ((2, 0), (0, 2), (1, 3), (-1, 1)):
        same(mnp.rollaxis(t, axis, start), np.rollaxis(A, axis, start))
    same(mnp.expand_dims(t, 1), np.expand_dims(A, 1))
    same(mnp.expand_dims(t, (0, -1)), np.expand_dims(A, (0, -1)))
    s = A.reshape(2, 1, 3, 1, 4)
    same(mnp.squeeze(Tensor(s)), np.squeeze(s))
    same(mnp.squeeze(Tensor(s), 3), np.squeeze(s, 3))
    with pytest.raises(ValueError, match="axis 0 has length 2"):
        mnp.squeeze(Tensor(s), 0)


def test_joining_matches_numpy():
    a, b = M, RNG.standard_normal((3, 4))
    v, w = M[0], b[0]
    same(mnp.concatenate((Tensor(a), Tensor(b)), 1), np.concatenate((a, b), 1))
    same(mnp.concatenate((Tensor(a), Tensor(b)), None), np.concatenate((a, b), None))
    same(mnp.append(Tensor(a), Tensor(b), 0), np.append(a, b, 0))
    same(mnp.append(Tensor(a), Tensor(v)), np.append(a, v))
    same(mnp.stack((Tensor(a), Tensor(b)), -1), np.stack((a, b), -1))
    for name in ("vstack", "hstack", "dstack", "column_stack"):
        same(getattr(mnp, name)((Tensor(a), Tensor(b))), getattr(np, name)((a, b)))
        same(getattr(mnp, name)((Tensor(v), Tensor(w))), getattr(np, name)((v, w)))


@pytest.mark.parametrize("name,arg,axis", [
    ("split", 2, 0), ("split", [1, 3], 2), ("array_split", 3, 2), ("array_split", [1], 1),
    ("hsplit", 3, None), ("vsplit", 2, None), ("dsplit", [1, 2], None)])
def test_splits_match_numpy(name, arg, axis):
    kw = {} if axis is None else {"axis": axis}
    got = getattr(mnp, name)(Tensor(A), arg, **kw)
    want = getattr(np, name)(A, arg, **kw)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        same(g, w)


def test_split_refuses_uneven_sections():
    with pytest.raises(ValueError, match="does not split into 3 equal sections"):
        mnp.split(Tensor(A), 3, axis=2)


def test_flips_rolls_rotations_match_numpy():
    t = Tensor(A)
    same(mnp.flip(t), np.flip(A))
    same(mnp.flip(t, (0, 2)), np.flip(A, (0, 2)))
    same(mnp.fliplr(Tensor(M)), np.fliplr(M))
    same(mnp.flipud(Tensor(M)), np.flipud(M))
    same(mnp.roll(t, 5), np.roll(A, 5))
    same(mnp.roll(t, -1, 2), np.roll(A, -1, 2))
    same(mnp.roll(t, (1, 7), (0, 1)), np.roll(A, (1, 7), (0, 1)))
    for k in range(-1, 5):
        same(mnp.rot90(t, k, (2, 1)), np.rot90(A, k, (2, 1)))


def test_tile_repeat_where_select_match_numpy():
    same(mnp.tile(Tensor(M), 2), np.tile(M, 2))
    same(mnp.tile(Tensor(M), (2, 1, 3)), np.tile(M, (2, 1, 3)))
    same(mnp.repeat(Tensor(M), 2), np.repeat(M, 2))
    same(mnp.repeat(Tensor(M), [1, 0, 3], 0), np.repeat(M, [1, 0, 3], 0))
    same(mnp.where(Tensor(M > 0), Tensor(M), 0.0), np.where(M > 0, M, 0.0))
    same(mnp.where(Tensor(M[0] > 0), Tensor(M), Tensor(-M)), np.where(M[0] > 0, M, -M))
    for g, w in zip(mnp.where(Tensor(M > 0)), np.where(M > 0)):
        np.testing.assert_array_equal(g.asnumpy(), w)
    conds = [M < -0.5, M > 0.5]
    same(mnp.select([Tensor(c) for c in conds], [Tensor(M * 2), Tensor(M * 3)], -1.0),
         np.select(conds, [M * 2, M * 3], -1.0))


def test_atleast_broadcast_take_size_match_numpy():
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        for x in (np.array(2.0), np.arange(3.0), M):
            same(getattr(mnp, name)(Tensor(x)), getattr(np, name)(x))
    same(mnp.broadcast_to(Tensor(M[0]), (2, 3, 4)), np.broadcast_to(M[0], (2, 3, 4)))
    for g, w in zip(mnp.broadcast_arrays(Tensor(M[:, :1]), Tensor(M[0])),
                    np.broadcast_arrays(M[:, :1], M[0])):
        same(g, w)
    idx = np.array([[0, 3], [2, 1]], np.int32)
    same(mnp.take(Tensor(M), Tensor(idx)), np.take(M, idx))
    same(mnp.take(Tensor(M), Tensor(idx), axis=1), np.take(M, idx, axis=1))
    same(mnp.take(Tensor(M), Tensor(np.array([-5, 7], np.int32)), mode="wrap"),
         np.take(M, [-5, 7], mode="wrap"))
    order = np.argsort(M, axis=1).astype(np.int32)
    same(mnp.take_along_axis(Tensor(M), Tensor(order), 1), np.take_along_axis(M, order, 1))
    first = np.argsort(A, axis=0)[:1].astype(np.int32)
    same(mnp.take_along_axis(Tensor(A), Tensor(first), 0), np.take_along_axis(A, first, 0))
    assert mnp.size(Tensor(A)) == 24 and mnp.size(Tensor(A), -1) == 4
    assert mnp.isscalar(3.0) and not mnp.isscalar(Tensor(M))
