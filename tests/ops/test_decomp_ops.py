"""Matrix decompositions (Svd, Qr, Geqrf, Cholesky, CholeskyInverse, Lstsq, LuUnpack and
ops.svd / qr / geqrf / cholesky / cholesky_inverse / lstsq / pinv / lu_unpack, their Tensor
methods): forward vs float64 numpy, MindSpore 2.7.2's values where it picks signs or a
solution (SVD/QR signs, the basic least-squares solution), gradients vs finite differences and
MindSpore's, errors, GRAPH mode, sharding of the batch dims."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad
from tests.parallel.test_rules import check_sharded


def _rand(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _spd(*shape, seed=0, dtype=np.float64):
    a = _rand(*shape, seed=seed)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _t(a):
    return np.swapaxes(a, -1, -2)


SHAPES = [(3, 3), (5, 3), (3, 5), (2, 4, 2), (2, 3, 2, 4)]


# -- Svd -------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("full", [False, True])
def test_svd_reconstructs_and_has_numpys_values(shape, dtype, full):
    x = _rand(*shape, seed=1, dtype=dtype)
    s, u, v = ops.svd(Tensor(x), full_matrices=full)
    ref_s = np.linalg.svd(x.astype(np.float64), compute_uv=False)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(s.asnumpy(), ref_s, **tol)
    u, v = u.asnumpy().astype(np.float64), v.asnumpy().astype(np.float64)
    m, n = shape[-2:]
    p = min(m, n)
    assert u.shape == shape[:-2] + ((m, m) if full else (m, p))
    assert v.shape == shape[:-2] + ((n, n) if full else (n, p))
    recon = (u[..., :p] * s.asnumpy()[..., None, :]) @ _t(v[..., :p])
    np.testing.assert_allclose(recon, x, **tol)
    for q in (u, v):
        np.testing.assert_allclose(_t(q) @ q, np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2]
                                                              + (q.shape[-1],) * 2), **tol)


# MindSpore 2.7.2's outputs (float64) for these inputs: its sign choices, which ours follow.
MS_SVD = {
    "tall": ([[0.8785, -0.0499], [-0.1849, -0.6809], [1.2225, -0.1545]],
             [1.5187944704005918, 0.6954889910563549],
             [[0.5793504873919834, 0.0025132600510127164],
              [-0.09521834037335297, -0.9929395680165776],
              [0.8094976716552161, -0.11859467859465213]],
             [[0.9982760718818595, 0.0586931368059714],
              [-0.0586931368059714, 0.9982760718818595]]),
    "wide": ([[0.1278, -0.3162, -0.0168], [-0.853, 0.8794, 0.7778]],
             [1.477632351995655, 0.1978038228543364],
             [[-0.1900772820664771, 0.981769131131256], [0.981769131131256, 0.1900772820664771]],
             [[-0.5831903614855283, -0.18536460071922523],
              [0.6249661556604591, -0.7243613159082182],
              [0.5189473061394251, 0.6640336202451775]]),
    "square": ([[-0.8138, 0.616, 1.129], [-0.1139, -0.8402, -0.8245],
                [0.6506, 0.7433, 0.5432]],
               [1.948760225388472, 1.0890112548608317, 0.04802604220954025],
               [[0.6920435755736318, -0.6475800798734032, -0.31892903545839146],
                [-0.5899182901327631, -0.2527336771482608, -0.7668911913706896],
                [0.4160193510812933, 0.7188641934234005, -0.5569220510445101]],
               [[-0.11562796479864135, 0.9398250702195191, -0.32149496285851986],
                [0.631773656677647, 0.3193440469575392, 0.7063153873454379],
                [0.7664804110247563, -0.12144223754385448, -0.6306818234701735]]),
}


@pytest.mark.parametrize("case", sorted(MS_SVD))
def test_svd_signs_are_mindspores(case):
    x, s, u, v = MS_SVD[case]
    got = ops.Svd()(Tensor(np.array(x)))
    for g, want in zip(got, (s, u, v)):
        np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-12, atol=1e-13)


def test_svd_full_matrices_completes_u_as_mindspore():
    x, _, u, _ = MS_SVD["tall"]
    _, got, _ = ops.svd(Tensor(np.array(x)), full_matrices=True)
    np.testing.assert_allclose(got.asnumpy()[:, :2], u, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(got.asnumpy()[:, 2], [-0.8150746568766493, -0.07074236300546616,
                                                     0.5750207142302051], rtol=1e-12)


def test_svd_edge_cases_as_mindspore():
    s, u, v = ops.svd(Tensor(np.array([[-2.0]], np.float32)))
    assert (s.asnumpy().tolist(), u.asnumpy().tolist(), v.asnumpy().tolist()) == \
        ([2.0], [[-1.0]], [[1.0]])
    s, u, v = ops.svd(Tensor(np.zeros((3, 2))))
    np.testing.assert_array_equal(s.asnumpy(), [0, 0])
    s, u, v = ops.Svd(compute_uv=False)(Tensor(np.eye(3)))
    assert u.shape == v.shape == (1,) and u.asnumpy().tolist() == [0.0]
    assert ops.svd(Tensor(np.eye(3)), compute_uv=False).shape == (3,)
    s, u, v = ops.svd(Tensor(np.array([[np.nan, 1.], [1., 1.]])))
    assert np.isnan(s.asnumpy()).all() and np.isnan(u.asnumpy()).all()


def test_svd_errors():
    with pytest.raises(TypeError, match="For 'Svd'.*Float16"):
        ops.svd(Tensor(np.eye(2, dtype=np.float16)))
    with pytest.raises(TypeError, match="For 'Svd'.*Int32"):
        ops.svd(Tensor(np.eye(2, dtype=np.int32)))
    with pytest.raises(ValueError, match="For 'Svd'.*rank.*greater than or equal to 2, but got 1"):
        ops.svd(Tensor(np.ones(2, np.float32)))
    with pytest.raises(RuntimeError, match="For 'Svd'.*empty"):
        ops.svd(Tensor(np.ones((0, 2, 2), np.float32)))
    with pytest.raises(TypeError, match="'full_matrices' must be bool"):
        ops.Svd(full_matrices=1)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 2)])
def test_svd_grad(shape):
    x = _rand(*shape, seed=3)
    for index in range(3):
        check_grad(ops.Svd(), [x], out_index=index, rtol=1e-5, atol=1e-7)
    check_grad(lambda t: ops.svd(t, compute_uv=False), [x])


def test_svd_grads_equal_mindspores():
    x = Tensor(np.array(MS_SVD["tall"][0]))
    got = ms.grad(lambda a: (ops.svd(a, compute_uv=False) * Tensor(np.array([1., 2.]))).sum())(x)
    np.testing.assert_allclose(got.asnumpy(), [[0.5786467510285161, -0.028986042672418735],
                                               [-0.21161166661033895, -1.9768669600733484],
                                               [0.7941807684670482, -0.28429241737369687]],
                               rtol=1e-12)
    w = Tensor(np.arange(6.).reshape(3, 2))

    def f(a):
        s, u, v = ops.svd(a)
        return (u * w).sum() + (v * Tensor(np.array([[1., -1], [2, 0.5]]))).sum() + \
            (s * Tensor(np.array([0.3, -0.7]))).sum()
    # MindSpore's agrees to 5e-8 (a different association of the same formula's terms).
    np.testing.assert_allclose(ms.grad(f)(x).asnumpy(),
                               [[-1.122295552100628, -2.1203464564192926],
                                [4.351898151213711, 0.25463059677413946],
                                [1.6831644473125484, 1.4931857191641071]], rtol=1e-6)


def test_svd_grad_with_full_matrices_refuses_rectangular_matrices():
    with pytest.raises(NotImplementedError, match="full_matrices=True is built for square"):
        ms.grad(lambda a: ops.Svd(True)(a)[1].sum())(Tensor(_rand(3, 2)))


# -- Qr, Geqrf -------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_is_numpys(shape, mode):
    x = _rand(*shape, seed=4)
    check_forward(lambda t: ops.qr(t, mode), lambda a: np.linalg.qr(a, mode), [x],
                  rtol=1e-12, atol=1e-12)
    check_forward(lambda t: ops.qr(t, mode), lambda a: np.linalg.qr(a, mode),
                  [x.astype(np.float32)], rtol=1e-5, atol=1e-5)


def test_qr_of_zeros_and_float16_as_mindspore():
    q, r = ops.qr(Tensor(np.zeros((2, 2), np.float32)))
    assert q.asnumpy().tolist() == [[1, 0], [0, 1]] and r.asnumpy().tolist() == [[0, 0], [0, 0]]
    q, r = ops.Qr()(Tensor(np.ones((2, 2), np.float16)))
    assert q.dtype == r.dtype == ms.float16
    np.testing.assert_allclose(q.asnumpy(), [[-0.70703125, -0.70703125],
                                             [-0.70703125, 0.70703125]], rtol=1e-3)
    np.testing.assert_allclose(r.asnumpy()[0], [-1.4140625, -1.4140625], rtol=1e-3)


@pytest.mark.parametrize("shape", SHAPES)
def test_geqrf_is_lapacks(shape):
    scipy_linalg = pytest.importorskip("scipy.linalg")
    x = _rand(*shape, seed=5)

    def ref(a):
        flat = [scipy_linalg.qr(m, mode="raw")[0] for m in a.reshape((-1,) + shape[-2:])]
        return (np.stack([f[0] for f in flat]).reshape(shape),
                np.stack([f[1] for f in flat]).reshape(shape[:-2] + (min(shape[-2:]),)))
    check_forward(ops.geqrf, ref, [x], rtol=1e-11, atol=1e-12)


def test_geqrf_as_mindspore():
    y, tau = ops.geqrf(Tensor(np.array([[1., 2], [3, 4], [5, 6]], np.float32)))
    np.testing.assert_allclose(y.asnumpy(), [[-5.916079521179199, -7.437358856201172],
                                             [0.4337717592716217, 0.8280805349349976],
                                             [0.7229529619216919, 0.8926230669021606]],
                               rtol=1e-5)
    np.testing.assert_allclose(tau.asnumpy(), [1.1690309047698975, 1.1131048202514648],
                               rtol=1e-5)


def test_qr_and_geqrf_errors():
    with pytest.raises(TypeError, match="mode must be 'reduced' or 'complete', but got r"):
        ops.qr(Tensor(np.eye(2)), mode="r")
    for fn, name in ((ops.qr, "Qr"), (ops.geqrf, "Geqrf")):
        with pytest.raises(ValueError, match=f"For '{name}'.*rank.*greater than or equal to 2"):
            fn(Tensor(np.ones(2, np.float32)))
        with pytest.raises(TypeError, match=f"For '{name}'.*Int32"):
            fn(Tensor(np.ones((2, 2), np.int32)))


# -- Cholesky, CholeskyInverse -----------------------------------------------------------------
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 4, 4)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_is_numpys(shape, upper):
    x = _spd(*shape, seed=6)

    def ref(a):
        low = np.linalg.cholesky(a)
        return _t(low) if upper else low
    check_forward(lambda t: ops.cholesky(t, upper), ref, [x], rtol=1e-12, atol=1e-12)
    check_forward(lambda t: ops.cholesky(t, upper), ref, [x.astype(np.float32)], rtol=1e-5,
                  atol=1e-5)


def test_cholesky_refuses_what_mindspore_refuses():
    with pytest.raises(RuntimeError, match="For 'Cholesky'.*symmetric positive definite.*"
                                           "matrix 1 of the batch"):
        ops.cholesky(Tensor(np.array([np.eye(2), [[1., 2.], [2., 1.]]])))
    with pytest.raises(RuntimeError, match="symmetric positive definite"):
        ops.cholesky(Tensor(np.array([[2., 0.5], [0.6, 3.]], np.float32)))
    # Eigen's isApprox: a float32 rounding of asymmetry passes, as in MindSpore.
    out = ops.cholesky(Tensor(np.array([[2., 0.5], [0.5000001, 3.]], np.float32)))
    np.testing.assert_allclose(out.asnumpy()[1], [0.3535534739494324, 1.6955825090408325],
                               rtol=1e-6)
    with pytest.raises(ValueError, match="For 'Cholesky'.*batch squares.*2 x 3"):
        ops.cholesky(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match="For 'Cholesky'.*rank.*but got 1"):
        ops.cholesky(Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="For 'Cholesky'.*Int32"):
        ops.cholesky(Tensor(np.eye(2, dtype=np.int32)))
    with pytest.raises(TypeError, match="'upper' must be bool"):
        ops.Cholesky(upper=1)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_grad(upper):
    # Through the symmetrisation (A + A^T) / 2, so finite differences stay on symmetric input.
    x = _spd(2, 3, 3, seed=7)
    check_grad(lambda t: ops.cholesky((t + ops.swapaxes(t, -1, -2)) * 0.5, upper), [x])
    check_grad(lambda t: ops.cholesky(t * t, upper), [np.array([[1.7]])])


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 4, 4)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_takes_the_whole_factor(shape, upper):
    x = _rand(*shape, seed=8) + 2 * np.eye(shape[-1])

    def ref(a):
        return np.linalg.inv(_t(a) @ a if upper else a @ _t(a))
    check_forward(lambda t: ops.cholesky_inverse(t, upper), ref, [x], rtol=1e-10, atol=1e-12)
    check_grad(lambda t: ops.cholesky_inverse(t, upper), [x])


def test_cholesky_inverse_as_mindspore():
    sq = np.array([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]])
    w = Tensor(np.arange(9.).reshape(3, 3))
    # MindSpore's gradient (rounded through float32), the same for upper=True and False. Ours
    # equals it for upper=True; for upper=False ours is its transpose, and ours is the one
    # finite differences confirm (test_cholesky_inverse_takes_the_whole_factor): MindSpore's
    # lower-case bprop multiplies by x on the upper case's side.
    ms_grad = np.array([[0.2998233139514923, -0.07605407387018204, -1.235571265220642],
                        [-0.08621247112751007, -0.06567863374948502, -1.2010053396224976],
                        [-0.6556097865104675, -0.22036446630954742, -4.1718339920043945]])
    got = ms.grad(lambda a: (ops.cholesky_inverse(a, True) * w).sum())(Tensor(sq))
    np.testing.assert_allclose(got.asnumpy(), ms_grad, rtol=1e-6)
    got = ms.grad(lambda a: (ops.cholesky_inverse(a) * w).sum())(Tensor(sq))
    np.testing.assert_allclose(got.asnumpy(), ms_grad.T, rtol=1e-6)
    out = ops.cholesky_inverse(Tensor(np.array([[1., 0.], [0., 0.]], np.float32))).asnumpy()
    assert np.isnan(out[0]).all() and np.isnan(out[1, 0]) and out[1, 1] == np.inf
    assert ops.cholesky_inverse(Tensor(np.array([[2.]], np.float32))).asnumpy().tolist() == \
        [[0.25]]


# -- Lstsq -----------------------------------------------------------------------------------
@pytest.mark.parametrize("m,n", [(5, 3), (3, 3), (2, 4)])
def test_lstsq_is_numpys_for_full_rank(m, n):
    x, a = _rand(m, n, seed=9), _rand(m, 2, seed=10)
    check_forward(ops.lstsq, lambda p, q: np.linalg.lstsq(p, q, rcond=None)[0], [x, a],
                  rtol=1e-10, atol=1e-12)
    check_forward(ops.lstsq, lambda p, q: np.linalg.lstsq(p, q[:, None], rcond=None)[0],
                  [x, a[:, 0]], rtol=1e-10, atol=1e-12)
    got = ops.lstsq(Tensor(x.astype(np.float16)), Tensor(a.astype(np.float16)))
    assert got.dtype == ms.float16


def test_lstsq_rank_deficient_as_mindspore():
    x = np.array([[1., 2], [2, 4], [3, 6]])
    got = ops.lstsq(Tensor(x), Tensor(np.array([[1.], [1], [2]])))
    np.testing.assert_allclose(got.asnumpy(), [[0.0], [0.32142857142857145]], rtol=1e-12)
    got = ops.lstsq(Tensor(np.array([[1., 2, 3], [2, 4, 6]])), Tensor(np.array([[1.], [1]])))
    assert np.isnan(got.asnumpy()).all()


def test_lstsq_errors_as_mindspore():
    x, a = Tensor(_rand(4, 2, dtype=np.float32)), Tensor(_rand(4, 3, dtype=np.float32))
    with pytest.raises(TypeError, match="'l2_regularizer' should be 0.0, but got '0.5'"):
        ops.Lstsq(l2_regularizer=0.5)
    with pytest.raises(TypeError, match="'fast' should be True, but got 'False'"):
        ops.Lstsq(fast=False)
    with pytest.raises(ValueError, match="For 'Lstsq'.*dimension of x must be equal to 2, but "
                                         "got x_dim: 3"):
        ops.lstsq(Tensor(_rand(2, 4, 2)), Tensor(_rand(2, 4, 3)))
    with pytest.raises(ValueError, match="x_dim\\[0\\]: 4, a_dims\\[0\\]: 3"):
        ops.lstsq(x, Tensor(_rand(3, 3, dtype=np.float32)))
    with pytest.raises(TypeError, match="For 'Lstsq'.*same"):
        ops.lstsq(Tensor(_rand(4, 2)), a)
    assert x.lstsq(a).shape == (2, 3)


# -- pinv --------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES)
def test_pinv_is_numpys(shape):
    x = _rand(*shape, seed=11)
    check_forward(ops.pinv, np.linalg.pinv, [x], rtol=1e-10, atol=1e-12)
    check_forward(ops.pinv, np.linalg.pinv, [x.astype(np.float32)], rtol=1e-4, atol=1e-5)


def test_pinv_tolerances_as_mindspore():
    x = np.array(MS_SVD["square"][0])
    np.testing.assert_allclose(
        ops.pinv(Tensor(x), atol=0.5).asnumpy(),
        [[-0.5999283722035186, -0.1831088227893675, 0.5957011752869145],
         [0.034457608691357916, -0.26535932538521095, 0.3456717092109962],
         [0.3444080372794333, -0.20384099514091075, 0.08346256068147256]], rtol=1e-10)
    rank1 = np.array([[1., 2], [2, 4], [3, 6]])
    np.testing.assert_allclose(ops.pinv(Tensor(rank1)).asnumpy(), np.linalg.pinv(rank1),
                               rtol=1e-10)
    rtol = Tensor(np.array([[0.1, 0.5], [0.0, 0.9]]))
    assert ops.pinv(Tensor(np.stack([x, x])), rtol=rtol).shape == (2, 2, 3, 3)


def test_pinv_grad():
    check_grad(ops.pinv, [_rand(3, 2, seed=12)])
    got = ms.grad(lambda a: (ops.pinv(a) * Tensor(np.arange(6.).reshape(2, 3))).sum())(
        Tensor(np.array(MS_SVD["tall"][0])))
    np.testing.assert_allclose(got.asnumpy(), [[-0.6803306616149924, 0.23730376109826218],
                                               [4.600059692300912, -9.89133610599418],
                                               [0.45029248297521113, -0.17408400749673578]],
                               rtol=1e-6)


def test_pinv_errors():
    with pytest.raises(TypeError, match="0-D input is not supported"):
        ops.pinv(Tensor(np.float32(1)))
    with pytest.raises(ValueError, match="2 or more dimensions, but got 1"):
        ops.pinv(Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="For 'pinv'.*Int32"):
        ops.pinv(Tensor(np.eye(2, dtype=np.int32)))
    with pytest.raises(NotImplementedError, match="hermitian=True"):
        ops.pinv(Tensor(np.eye(2)), hermitian=True)


# -- LuUnpack ----------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 4])
def test_lu_unpack_reassembles_scipys_lu_factor(n):
    scipy_linalg = pytest.importorskip("scipy.linalg")
    a = _rand(3, n, n, seed=13)
    packed = [scipy_linalg.lu_factor(mat) for mat in a]
    lu_data = np.stack([lu for lu, _ in packed])
    pivots = np.stack([piv + 1 for _, piv in packed]).astype(np.int32)   # getrf's 1-based
    p, lo, up = ops.lu_unpack(Tensor(lu_data), Tensor(pivots))
    np.testing.assert_array_equal(lo.asnumpy(), np.tril(lu_data, -1) + np.eye(n))
    np.testing.assert_array_equal(up.asnumpy(), np.triu(lu_data))
    np.testing.assert_allclose(p.asnumpy() @ lo.asnumpy() @ up.asnumpy(), a, rtol=1e-12,
                               atol=1e-12)


def test_lu_unpack_as_mindspore():
    x = Tensor(np.array([[0.5, 0.2, 0.8], [0.3, 0.9, 0.1]], np.float32))
    p, lo, up = ops.lu_unpack(x, Tensor(np.array([2, 2], np.int32)))
    assert p.asnumpy().tolist() == [[0, 1], [1, 0]]
    np.testing.assert_allclose(lo.asnumpy(), [[1, 0], [0.3, 1]], rtol=1e-7)
    np.testing.assert_allclose(up.asnumpy(), [[0.5, 0.2, 0.8], [0, 0.9, 0.1]], rtol=1e-7)
    p, lo, up = ops.lu_unpack(ops.swapaxes(x, 0, 1), Tensor(np.array([3, 3], np.int64)))
    assert p.asnumpy().tolist() == [[0, 1, 0], [0, 0, 1], [1, 0, 0]]
    assert lo.shape == (3, 2) and up.shape == (2, 2)
    p, lo, up = ops.LuUnpack()(Tensor(np.ones((3, 3), np.int32)),
                               Tensor(np.array([3, 2, 3], np.int32)))
    assert lo.dtype == ms.int32 and lo.asnumpy().tolist() == [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    assert ops.lu_unpack(x, Tensor(np.array([2, 2], np.int32)), unpack_data=False)[1:] == \
        (None, None)
    assert ops.lu_unpack(x, Tensor(np.array([2, 2], np.int32)), unpack_pivots=False)[0] is None


def test_lu_unpack_errors():
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="For 'LuUnpack'.*LU_pivots must be greater than or "
                                         "equal to 1.*\\[2, 0\\]"):
        ops.lu_unpack(x, Tensor(np.array([2, 0], np.int32)))
    with pytest.raises(ValueError, match="For 'LuUnpack'.*last dimension of LU_pivots"):
        ops.lu_unpack(x, Tensor(np.array([2, 2, 1], np.int32)))
    with pytest.raises(TypeError, match="For 'LuUnpack'.*Float32"):
        ops.lu_unpack(x, Tensor(np.array([2, 2], np.float32)))
    with pytest.raises(ValueError, match="For 'LuUnpack'.*rank.*but got 1"):
        ops.LuUnpack()(Tensor(np.ones(2, np.float32)), Tensor(np.array([2, 2], np.int32)))
    with pytest.raises(TypeError, match="'unpack_data' should be 'bool', but got type 'int'"):
        ops.LuUnpack(unpack_data=1)


def _lo_up(t, pivots):
    _, lo, up = ops.lu_unpack(t, Tensor(np.array(pivots, np.int32)))
    return lo, up


@pytest.mark.parametrize("m,n", [(2, 3), (3, 2), (3, 3)])
def test_lu_unpack_grad(m, n):
    pivots = [min(m, n)] * min(m, n)
    x = _rand(m, n, seed=14)
    check_grad(lambda t: _lo_up(t, pivots)[0], [x])
    check_grad(lambda t: _lo_up(t, pivots)[1], [x])


def test_lu_unpack_grad_as_mindspore():
    got = ms.grad(lambda t: (_lo_up(t, [2, 2])[0] * 2).sum() + _lo_up(t, [2, 2])[1].sum())(
        Tensor(np.ones((2, 3))))
    assert got.asnumpy().tolist() == [[1, 1, 1], [2, 1, 1]]


# -- Tensor methods, GRAPH mode, sharding -----------------------------------------------------
def test_tensor_methods_match_the_functional_ops():
    x = Tensor(_rand(2, 3, 2, seed=15))
    spd = Tensor(_spd(3, 3, seed=16))
    for got, want in zip(x.svd(), ops.svd(x)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    for got, want in zip(x.qr(some=False), ops.qr(x, "complete")):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    for got, want in zip(x.geqrf(), ops.geqrf(x)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    np.testing.assert_array_equal(spd.cholesky(True).asnumpy(),
                                  ops.cholesky(spd, True).asnumpy())
    np.testing.assert_array_equal(spd.cholesky_inverse().asnumpy(),
                                  ops.cholesky_inverse(spd).asnumpy())


def test_graph_mode_equals_pynative():
    x = Tensor(_rand(2, 3, 3, seed=17))
    spd = Tensor(_spd(2, 3, 3, seed=18))

    def f(a, b):
        s, u, v = ops.svd(a)
        q, r = ops.qr(a)
        return s, u, v, q, r, ops.cholesky(b), ops.cholesky_inverse(b), ops.pinv(a)

    for g, e in zip(ms.jit(f)(x, spd), f(x, spd)):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-12)

    def loss(a, b):
        return ops.svd(a)[0].sum() + (ops.cholesky(b) ** 2).sum()
    grad_fn = ms.grad(loss, grad_position=(0, 1))
    for g, e in zip(ms.jit(grad_fn)(x, spd), grad_fn(x, spd)):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-10)


@pytest.mark.parametrize("prim", [ops.Svd(), ops.Qr(), ops.Geqrf(), ops.Cholesky(),
                                  ops.CholeskyInverse()])
def test_sharding_cuts_the_batch_dims(prim):
    x = Tensor(_spd(4, 2, 3, 3, seed=19))
    check_sharded(prim, (x,), ((2, 2, 1, 1),), 4)


# -- MatrixSolve, CholeskySolve, Orgqr -----------------------------------------------------
_A = np.array([[2., 1, 0], [1, 3, 1], [0, 1, 4]])
_B = np.array([[1., 2], [0, 1], [3, 1]])
_W = np.array([[1., -1], [2, 0.5], [0.3, 0.7]])


@pytest.mark.parametrize("shape", [(3, 3, 2), (2, 4, 4, 1)])
@pytest.mark.parametrize("adjoint", [False, True])
def test_matrix_solve_is_numpys(shape, adjoint):
    n = shape[-2]
    a = _rand(*shape[:-1], n, seed=20) + 2 * np.eye(n)
    b = _rand(*shape, seed=21)

    def ref(m, r):
        return np.linalg.solve(_t(m) if adjoint else m, r)
    check_forward(lambda m, r: ops.matrix_solve(m, r, adjoint), ref, [a, b], rtol=1e-10,
                  atol=1e-12)
    check_grad(ops.MatrixSolve(adjoint), [a, b])
    got = ops.matrix_solve(Tensor(a.astype(np.float16)), Tensor(b.astype(np.float16)), adjoint)
    assert got.dtype == ms.float16          # through float32 (MindSpore's float16 gives inf)
    np.testing.assert_allclose(got.asnumpy(), ref(a, b), rtol=2e-2, atol=2e-2)


def test_matrix_solve_as_mindspore():
    got = ms.grad(lambda m, r: (ops.matrix_solve(m, r) * Tensor(_W)).sum(), grad_position=(0, 1))(
        Tensor(_A), Tensor(_B))
    np.testing.assert_allclose(got[0].asnumpy(), [[0.5787037014961243, 0.02592593990266323,
                                                   0.026851849630475044],
                                                  [-0.8796296715736389, 0.3925926089286804,
                                                   -0.664814829826355],
                                                  [-0.023148149251937866, -0.037037041038274765,
                                                   0.05092592164874077]], rtol=1e-6)
    np.testing.assert_allclose(got[1].asnumpy(), [[0.18333333730697632, -0.6833333373069763],
                                                  [0.6333333253860474, 0.36666667461395264],
                                                  [-0.0833333432674408, 0.0833333432674408]],
                               rtol=1e-6)
    with pytest.raises(ValueError, match="For 'MatrixSolve'.*not invertible"):
        ops.matrix_solve(Tensor(np.array([[1., 2], [2, 4]])), Tensor(np.ones((2, 1))))
    with pytest.raises(ValueError, match="For 'MatrixSolve'.*batch dims"):
        ops.matrix_solve(Tensor(np.stack([_A, _A])), Tensor(_B))
    with pytest.raises(ValueError, match="For 'MatrixSolve'.*M in the shape of 'matrix'"):
        ops.matrix_solve(Tensor(_A), Tensor(_B[:2]))
    with pytest.raises(TypeError, match="For 'MatrixSolve'.*same"):
        ops.matrix_solve(Tensor(_A), Tensor(_B.astype(np.float32)))
    assert ops.matrix_solve(Tensor(np.ones((0, 2, 2))), Tensor(np.ones((0, 2, 1)))).shape == \
        (0, 2, 1)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_reads_one_triangle(upper):
    a = _spd(2, 3, 3, seed=22) + np.triu(np.ones(3), 1) * 5     # junk in the upper triangle
    b = _rand(2, 3, 2, seed=23)

    def ref(r, m):
        low = np.swapaxes(np.triu(m), -1, -2) if upper else np.tril(m)
        return np.linalg.solve(low @ _t(low), r)
    check_forward(lambda r, m: ops.cholesky_solve(r, m, upper), ref, [b, a], rtol=1e-10,
                  atol=1e-12)
    check_grad(ops.CholeskySolve(upper), [b, a])
    np.testing.assert_array_equal(Tensor(b).cholesky_solve(Tensor(a), upper).asnumpy(),
                                  ops.cholesky_solve(Tensor(b), Tensor(a), upper).asnumpy())


def test_cholesky_solve_as_mindspore():
    b, a = Tensor(_B), Tensor(_A)
    np.testing.assert_allclose(ops.cholesky_solve(b, a).asnumpy(),
                               [[0.310764, 0.510417], [-0.121528, -0.020833],
                                [0.197917, 0.0625]], atol=1e-6)
    # MindSpore's gradients for a lower-triangular x2, on the triangle read (its bprop also
    # fills the other triangle, and multiplies by the whole x2, so it is off wherever x2's other
    # triangle is not zero; ours matches finite differences there too).
    got = ms.grad(lambda r, m: (ops.cholesky_solve(r, m) * Tensor(_W)).sum(),
                  grad_position=(0, 1))(b, Tensor(np.tril(_A)))
    np.testing.assert_allclose(got[0].asnumpy(), [[0.16458332538604736, -0.30173611640930176],
                                                  [0.17083333432674408, 0.10347222536802292],
                                                  [-0.01249999925494194, 0.02291666530072689]],
                               rtol=1e-6)
    np.testing.assert_allclose(got[1].asnumpy(),
                               np.tril([[0.3192708492279053, -0.29809027910232544, 0],
                                        [-0.13854168355464935, 0.09618054330348969, 0],
                                        [-0.08437500149011612, -0.12187500298023224,
                                         0.008333333767950535]]), rtol=1e-6, atol=1e-9)
    assert np.isnan(ops.cholesky_solve(b, Tensor(np.zeros((3, 3)))).asnumpy()).all()
    with pytest.raises(ValueError, match="For 'CholeskySolve'.*rank of x1 must be 2 or 3"):
        ops.cholesky_solve(Tensor(np.ones(3)), a)
    with pytest.raises(ValueError, match="same row number.*x1 is 2, row number of x2 is 3"):
        ops.cholesky_solve(Tensor(_B[:2]), a)
    with pytest.raises(TypeError, match="For 'CholeskySolve'.*Float16"):
        ops.cholesky_solve(Tensor(_B.astype(np.float16)), Tensor(_A.astype(np.float16)))


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 5, 2)])
def test_orgqr_of_geqrf_is_qrs_q(shape):
    x = _rand(*shape, seed=24)
    y, tau = ops.geqrf(Tensor(x))
    q = np.linalg.qr(x)[0]          # LAPACK's reflectors: the same signs as ours
    check_forward(ops.orgqr, lambda *_: q, [y.asnumpy(), tau.asnumpy()], rtol=1e-12,
                  atol=1e-13)
    np.testing.assert_array_equal(y.orgqr(tau).asnumpy(), ops.orgqr(y, tau).asnumpy())


def test_orgqr_as_mindspore():
    y, tau = ops.geqrf(Tensor(np.array([[1., 2], [3, 4], [5, 6]])))
    np.testing.assert_allclose(ops.orgqr(y, tau[:1]).asnumpy(),
                               [[-0.169031, -0.507093], [-0.507093, 0.780038],
                                [-0.845154, -0.366604]], atol=1e-6)
    with pytest.raises(ValueError, match="For 'Orgqr'.*x.shape\\[-2\\] is 2 and x.shape"):
        ops.orgqr(Tensor(np.ones((2, 3))), Tensor(np.ones(2)))
    with pytest.raises(TypeError, match="For 'Orgqr'.*same"):
        ops.orgqr(y, Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="For 'Orgqr'.*Float16"):
        ops.orgqr(Tensor(np.ones((3, 2), np.float16)), Tensor(np.ones(2, np.float16)))
