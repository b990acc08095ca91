"""prod / cumprod / logcumsumexp (log-depth compositions), median, ops.max/min with indices,
diagonal placement, scatters, repeats and grids (ops/function/scan_compose_func.py and
array_compose_func.py): float64 references and finite-difference gradients."""
import numpy as np
import pytest

from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad

X = np.array([[-3.5, -2.5, 0.0, -0.5, 1.2], [0.5, 1.5, 2.5, 2.0, -0.7]])


def _logcumsumexp(a, axis):
    return np.logaddexp.accumulate(a, axis)


def _diagonal_scatter_ref(a):
    out = a.copy()
    out[[0, 1], [1, 2]] = a[0, :2] * 3
    return out


@pytest.mark.parametrize("op,ref", [
    (lambda a: ops.prod(a, 1), lambda a: a.prod(1)),
    (lambda a: ops.prod(a), lambda a: a.prod()),
    (lambda a: ops.cumprod(a, 1), lambda a: np.cumprod(a, 1)),
    (lambda a: ops.logcumsumexp(a * 10, 1), lambda a: _logcumsumexp(a * 10, 1)),
    (lambda a: ops.diag_embed(a, 1), lambda a: np.stack([np.diag(r, 1) for r in a])),
    (lambda a: ops.diagonal_scatter(a, a[0, :2] * 3, 1), _diagonal_scatter_ref),
    (lambda a: ops.slice_scatter(a, a[:, :2] * 2, 1, 1, 3),
     lambda a: np.concatenate([a[:, :1], a[:, :2] * 2, a[:, 3:]], 1)),
    (lambda a: ops.repeat_interleave(a, 2, 1), lambda a: np.repeat(a, 2, 1)),
    (lambda a: ops.cov(a), np.cov),
    (lambda a: ops.trapz(a, dx=0.5), lambda a: ((a[:, 1:] + a[:, :-1]) * 0.25).sum(1)),
    (lambda a: ops.vander(a[0], 3), lambda a: np.vander(a[0], 3)),
])
def test_forward_and_grad(op, ref):
    check_forward(op, ref, [X], rtol=1e-6, atol=1e-9)
    check_grad(op, [X], rtol=1e-4, atol=1e-6)


def test_order_statistics():
    x = Tensor(X.astype(np.float32))
    v, i = ops.median(x, 1)
    s = np.sort(X, 1)[:, 2]
    np.testing.assert_allclose(v.asnumpy(), s, rtol=1e-6)
    assert i.asnumpy().tolist() == [int(np.where(X[r] == s[r])[0][0]) for r in range(2)]
    v, i = ops.max(x)
    assert v.asnumpy() == np.float32(X.max()) and i.asnumpy() == X.argmax()
    v, i = ops.min(x, 1, True)
    assert i.shape == (2, 1) and i.asnumpy().ravel().tolist() == X.argmin(1).tolist()
    assert ops.NthElement(True)(x, 1).asnumpy().tolist() == np.sort(X, 1)[:, -2].astype(
        np.float32).tolist()


def test_grids_and_masks():
    a, b = Tensor(np.float32([1, 2, 3])), Tensor(np.float32([4, 5]))
    for got, want in zip(ops.meshgrid(a, b), np.meshgrid([1, 2, 3], [4, 5])):
        assert got.asnumpy().tolist() == want.tolist()
    assert ops.cartesian_prod(a, b).shape == (6, 2)
    assert ops.sequence_mask(Tensor(np.int32([1, 3])), 4).asnumpy().tolist() == \
        [[True, False, False, False], [True, True, True, False]]
    blocks = ops.block_diag(Tensor(np.ones((1, 2))), Tensor(np.ones((2, 1)))).asnumpy()
    assert blocks.tolist() == [[1, 1, 0], [0, 0, 1], [0, 0, 1]]
    img = np.arange(32.0).reshape(1, 2, 4, 4)
    got = ops.SpaceToDepth(2)(Tensor(img)).asnumpy()
    want = img.reshape(1, 2, 2, 2, 2, 2).transpose(0, 3, 5, 1, 2, 4).reshape(1, 8, 2, 2)
    assert got.tolist() == want.tolist()


def test_in_place_assign_add():
    x = Tensor(np.float32([1.0, 2.0]))
    out = ops.assign_add(x, Tensor(np.float32([0.5, 0.5])))
    assert out is x and x.asnumpy().tolist() == [1.5, 2.5]


def test_bucketize():
    x = np.float32([[0.5, 2.0, 3.5], [-1.0, 3.0, 9.0]])
    for right in (False, True):
        got = ops.bucketize(Tensor(x), [1.0, 2.0, 3.0], right=right).asnumpy()
        assert got.tolist() == np.searchsorted([1.0, 2.0, 3.0], x,
                                               "right" if right else "left").tolist()
