"""Sort and scan operators (CumSum, Sort, TopK): forward vs float64 numpy (ties included, for
stability), backward vs finite differences, errors, graph mode vs eager, sharding rules."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.parallel.rules import apply_strategy
from tests.ops.harness import check_forward, check_grad, rand
from tests.parallel.test_rules import check_sharded


def _np_cumsum(x, axis, exclusive=False, reverse=False):
    if reverse:
        x = np.flip(x, axis)
    out = np.cumsum(x, axis)
    if exclusive:
        out = out - x
    return np.flip(out, axis) if reverse else out


def _np_sort(x, axis=-1, descending=False):
    # A stable descending order is a stable ascending sort of the negated values (no NaN here).
    idx = np.argsort(-x if descending else x, axis=axis, kind="stable")
    return np.take_along_axis(x, idx, axis), idx.astype(np.int32)


def _np_topk(x, k):
    v, i = _np_sort(x, -1, True)
    return v[..., :k], i[..., :k]


def _ties(*shape, seed=0, dtype=np.float32):
    """Few distinct values: many ties, which a stable order must keep in input order."""
    return np.random.default_rng(seed).integers(-2, 3, shape).astype(dtype)


# -- CumSum ----------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,axis", [((7,), 0), ((3, 5), 1), ((3, 5), -2), ((2, 4, 3), 1)])
@pytest.mark.parametrize("exclusive,reverse", [(False, False), (True, False), (False, True),
                                               (True, True)])
def test_cumsum_forward_and_grad(shape, axis, exclusive, reverse):
    op = ops.CumSum(exclusive, reverse)
    x = rand(*shape, seed=1)
    check_forward(op, lambda a, ax: _np_cumsum(a, ax, exclusive, reverse), [x], consts=(axis,))
    check_grad(op, [x], consts=(axis,))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.float64])
def test_cumsum_keeps_integer_and_double_dtypes(dtype):
    x = np.arange(12).reshape(3, 4).astype(dtype)
    out = ops.cumsum(Tensor(x), 1)
    assert out.asnumpy().dtype == dtype
    np.testing.assert_array_equal(out.asnumpy(), np.cumsum(x, 1).astype(dtype))


def test_cumsum_functional_dtype_and_tensor_method_flatten():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = ops.cumsum(Tensor(x), 0, dtype=ms.float64)
    assert out.dtype == ms.float64
    np.testing.assert_array_equal(out.asnumpy(), np.cumsum(x, 0))
    # Tensor.cumsum with axis None scans the flattened tensor (MindSpore).
    np.testing.assert_array_equal(Tensor(x).cumsum().asnumpy(), np.cumsum(x))
    np.testing.assert_array_equal(Tensor(x).cumsum(1).asnumpy(), np.cumsum(x, 1))


def test_cumsum_float32_accumulates_in_double():
    x = np.full(100000, 0.1, np.float32)
    got = ops.cumsum(Tensor(x), 0).asnumpy()[-1]
    np.testing.assert_allclose(got, np.cumsum(x.astype(np.float64))[-1], rtol=1e-7)


def test_cumsum_errors():
    x = Tensor(rand(2, 3))
    with pytest.raises(ValueError, match=r"For 'CumSum'.*'axis' must be in \[-2, 2\).*5"):
        ops.cumsum(x, 5)
    with pytest.raises(TypeError, match=r"For 'CumSum'.*'axis' must be an int.*float"):
        ops.CumSum()(x, 1.0)
    with pytest.raises(TypeError, match=r"For 'CumSum', 'exclusive' must be bool.*int"):
        ops.CumSum(exclusive=1)
    with pytest.raises(TypeError, match=r"For 'CumSum'.*dtype of 'x'.*Float16"):
        ops.cumsum(Tensor(rand(2, 3).astype(np.float16)), 0)
    with pytest.raises(ValueError, match=r"For 'CumSum'.*rank >= 1"):
        ops.cumsum(Tensor(np.float32(1.0)), 0)


# -- Sort ------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,axis", [((9,), 0), ((3, 6), -1), ((3, 6), 0), ((2, 5, 3), 1)])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_forward_and_grad(shape, axis, descending):
    op = ops.Sort(axis, descending)
    x = rand(*shape, seed=3)
    check_forward(op, lambda a: _np_sort(a, axis, descending), [x])
    check_grad(op, [x], out_index=0)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_is_stable_on_ties(dtype, descending):
    x = _ties(4, 40, seed=5, dtype=dtype)
    values, indices = ops.sort(Tensor(x), 1, descending)
    want_v, want_i = _np_sort(x, 1, descending)
    np.testing.assert_array_equal(indices.asnumpy(), want_i)
    np.testing.assert_array_equal(values.asnumpy(), want_v)
    assert indices.dtype == ms.int32 and values.asnumpy().dtype == dtype
    np.testing.assert_array_equal(ops.argsort(Tensor(x), 1, descending).asnumpy(), want_i)
    np.testing.assert_array_equal(Tensor(x).argsort(1, descending).asnumpy(), want_i)
    np.testing.assert_array_equal(Tensor(x).sort(1, descending)[1].asnumpy(), want_i)


def test_sort_nan_is_the_largest():
    x = np.array([2.0, np.nan, -1.0, np.nan, 0.5], np.float32)
    v, i = ops.sort(Tensor(x))
    np.testing.assert_array_equal(i.asnumpy(), np.argsort(x, kind="stable"))
    v, i = ops.sort(Tensor(x), descending=True)
    assert i.asnumpy().tolist() == [1, 3, 0, 4, 2]
    assert np.isnan(v.asnumpy()[:2]).all()


def test_sort_errors():
    with pytest.raises(ValueError, match=r"For 'Sort'.*'axis' must be in \[-2, 2\).*2"):
        ops.sort(Tensor(rand(2, 3)), 2)
    with pytest.raises(TypeError, match=r"For 'Sort', 'descending' must be bool.*str"):
        ops.Sort(descending="yes")
    with pytest.raises(TypeError, match=r"For 'Sort'.*dtype of 'x'.*Bool"):
        ops.sort(Tensor(np.array([True, False])))


# -- TopK ------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,k", [((8,), 3), ((3, 7), 1), ((3, 7), 7), ((2, 3, 5), 2)])
def test_topk_forward_and_grad(shape, k):
    op = ops.TopK()
    x = rand(*shape, seed=4)
    check_forward(op, lambda a, kk: _np_topk(a, kk), [x], consts=(k,))
    check_grad(op, [x], consts=(k,), out_index=0)


def test_topk_ties_take_the_earlier_position():
    x = _ties(5, 30, seed=6)
    v, i = ops.TopK()(Tensor(x), 10)
    want_v, want_i = _np_topk(x, 10)
    np.testing.assert_array_equal(i.asnumpy(), want_i)
    np.testing.assert_array_equal(v.asnumpy(), want_v)
    assert i.dtype == ms.int32


@pytest.mark.parametrize("dim", [None, -1, 0, 1])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_functional_dim_and_smallest(dim, largest):
    x = _ties(6, 5, 4, seed=7)
    axis = -1 if dim is None else dim
    k = 3
    v, i = ops.topk(Tensor(x), k, dim, largest)
    idx = np.argsort(-x if largest else x, axis=axis, kind="stable")
    idx = np.take(idx, range(k), axis=axis)
    np.testing.assert_array_equal(i.asnumpy(), idx)
    np.testing.assert_array_equal(v.asnumpy(), np.take_along_axis(x, idx, axis))
    np.testing.assert_array_equal(Tensor(x).topk(k, dim, largest)[1].asnumpy(), idx)


@pytest.mark.parametrize("dim,largest", [(0, True), (1, False)])
def test_topk_functional_grad(dim, largest):
    check_grad(lambda t: ops.topk(t, 2, dim, largest)[0], [rand(4, 3, seed=8)])


def test_topk_errors():
    x = Tensor(rand(2, 4))
    with pytest.raises(ValueError, match=r"For 'TopK'.*'k' must be in \[1, 4\].*\(2, 4\).*5"):
        ops.TopK()(x, 5)
    with pytest.raises(ValueError, match=r"For 'TopK'.*'k' must be in \[1, 4\].*got 0"):
        ops.topk(x, 0)
    with pytest.raises(ValueError, match=r"For 'topk'.*'k' must be in \[1, 2\].*got 3"):
        ops.topk(x, 3, dim=0, largest=False)
    with pytest.raises(TypeError, match=r"For 'TopK'.*'k' must be an int.*float"):
        ops.TopK()(x, 2.0)
    with pytest.raises(TypeError, match=r"For 'TopK', 'sorted' must be bool"):
        ops.TopK(sorted=None)
    with pytest.raises(ValueError, match=r"For 'topk', 'dim' must be in \[-2, 2\).*3"):
        ops.topk(x, 1, dim=3)


# -- graph mode --------------------------------------------------------------------------------
class _SortNet(nn.Cell):
    def construct(self, x):
        v, i = ops.sort(x, 0, True)
        top, _ = ops.topk(x, 2)
        return ops.cumsum(v, 1) * 2.0 + ops.cast(i, ms.float32), top.sum() + \
            ops.CumSum(True, True)(x, 0)


def test_graph_mode_equals_pynative_forward_and_grad():
    x = Tensor(rand(4, 5, seed=9))
    net = _SortNet()
    eager = [o.asnumpy() for o in net(x)]
    grad_fn = ms.value_and_grad(lambda t: net(t)[0].sum() + net(t)[1].sum())
    eager_loss, eager_grad = grad_fn(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = [o.asnumpy() for o in net(x)]
    for g, e in zip(graph, eager):
        np.testing.assert_allclose(g, e, rtol=1e-6)
    loss, grad = ms.jit(grad_fn)(x)
    np.testing.assert_allclose(loss.asnumpy(), eager_loss.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(grad.asnumpy(), eager_grad.asnumpy(), rtol=1e-6)


# -- sharding ----------------------------------------------------------------------------------
def _f64(*shape, seed=10):
    return Tensor(np.random.default_rng(seed).standard_normal(shape))


@pytest.mark.parametrize("prim,make,strategy", [
    (ops.CumSum(), lambda: (_f64(8, 6), 1), ((4, 1),)),
    (ops.CumSum(reverse=True), lambda: (_f64(4, 6), 0), ((1, 2),)),
    (ops.Sort(axis=0), lambda: (_f64(6, 8),), ((1, 4),)),
    (ops.Sort(), lambda: (_f64(4, 2, 6),), ((2, 2, 1),)),
    (ops.TopK(), lambda: (_f64(8, 6), 3), ((4, 1),)),
])
def test_sharding_cuts_the_other_axes(prim, make, strategy):
    check_sharded(prim, make(), strategy, 4)


def test_sort_grad_sharding_cuts_the_other_axes():
    x = _f64(8, 6)
    _, idx = ops.TopK()(x, 3)
    check_sharded(ops.operations.sort_ops.SortGrad(-1), (x, idx, _f64(8, 3, seed=11)),
                  ((2, 1), (2, 1), (2, 1)), 2)


@pytest.mark.parametrize("prim,args,strategy,match", [
    (ops.CumSum(), lambda: (_f64(8, 6), 1), ((1, 2),), r"cumulative sum.*scanned axis"),
    (ops.Sort(axis=0), lambda: (_f64(8, 6),), ((2, 1),), r"sorted axis whole"),
    (ops.TopK(), lambda: (_f64(8, 6), 3), ((1, 2),), r"sorted axis whole"),
])
def test_sharding_refuses_a_cut_of_the_sorted_or_scanned_axis(prim, args, strategy, match):
    with pytest.raises(RuntimeError, match=rf"For '{prim.name}'.*cannot be split.*{match}"):
        apply_strategy(prim, args(), strategy, 2)


def test_topk_unsorted_and_integer_inputs():
    x = np.array([[4, 9, 1, 9, 3]], np.int32)
    v, i = ops.TopK(sorted=False)(Tensor(x), 3)
    # sorted=False leaves the order open; the set of the k largest is what is promised.
    assert sorted(v.asnumpy()[0].tolist()) == [4, 9, 9] and v.dtype == ms.int32
    assert sorted(i.asnumpy()[0].tolist()) == [0, 1, 3]


def test_topk_checks_k_against_a_dynamic_last_dim_when_it_runs():
    class Net(nn.Cell):
        def construct(self, x):
            return ops.topk(x, 2)[0]

    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    net.set_inputs(Tensor(shape=[3, None], dtype=ms.float32))
    x = rand(3, 6, seed=12)
    np.testing.assert_array_equal(net(Tensor(x)).asnumpy(), -np.sort(-x, 1)[:, :2])
    with pytest.raises(ValueError, match=r"For 'TopK'.*'k' must be in \[1, 1\].*\(3, 1\)"):
        net(Tensor(rand(3, 1)))
