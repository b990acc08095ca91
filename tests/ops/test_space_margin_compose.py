"""Windows (bartlett/blackman), mirror_pad, padding, batch_to_space_nd / space_to_batch_nd,
select_scatter, ReflectionPad3d, multi_margin_loss, check_valid and intopk against float64 numpy
references, with gradients where they differentiate."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from tests.ops.harness import check_forward, check_grad, rand


def test_windows():
    n = Tensor(7, ms.int32)
    k = np.arange(7)
    np.testing.assert_allclose(ops.bartlett_window(n).asnumpy(), 1 - np.abs(2 * k / 7 - 1),
                               atol=1e-7)
    np.testing.assert_allclose(ops.bartlett_window(n, False, dtype=ms.float64).asnumpy(),
                               np.bartlett(7))
    np.testing.assert_allclose(ops.blackman_window(n, False, dtype=ms.float64).asnumpy(),
                               np.blackman(7), atol=1e-15)
    assert ops.blackman_window(Tensor(5, ms.int64), False).asnumpy()[0] == 0.0
    assert ops.bartlett_window(Tensor(1, ms.int32)).asnumpy().tolist() == [1.0]
    with pytest.raises(TypeError, match="Tensor"):
        ops.bartlett_window(5)
    with pytest.raises(ValueError, match="dim of window_length"):
        ops.blackman_window(Tensor([5], ms.int32))
    with pytest.raises(TypeError, match="dtype"):
        ops.blackman_window(n, dtype=ms.int32)


def test_mirror_pad_padding():
    x = rand(3, 4, seed=1)
    for mode, np_mode in (("REFLECT", "reflect"), ("SYMMETRIC", "symmetric")):
        pads = Tensor(np.array([[2, 1], [0, 3]], np.int64))
        check_forward(lambda a: ops.mirror_pad(a, pads, mode),
                      lambda a: np.pad(a, [(2, 1), (0, 3)], np_mode), [x])
        check_grad(lambda a: ops.mirror_pad(a, pads, mode), [x])
    with pytest.raises(ValueError, match="dimension size"):
        ops.mirror_pad(Tensor(x), Tensor(np.array([[3, 0], [0, 0]], np.int32)), "REFLECT")
    with pytest.raises(TypeError, match="Tensor"):
        ops.mirror_pad(Tensor(x), ((1, 0), (0, 1)), "REFLECT")
    with pytest.raises(ValueError, match="mode"):
        ops.mirror_pad(Tensor(x), Tensor(np.zeros((2, 2), np.int32)), "EDGE")
    check_forward(lambda a: ops.padding(a, 4), lambda a: np.pad(a, [(0, 0), (0, 3)]),
                  [rand(3, 1)])
    with pytest.raises(ValueError, match="last dimension"):
        ops.padding(Tensor(x), 4)
    v = np.arange(16, dtype=np.float32).reshape(1, 1, 2, 2, 4)
    out = nn.ReflectionPad3d((1, 0, 1, 1, 0, 1))(Tensor(v)).asnumpy()
    np.testing.assert_array_equal(out, np.pad(v, [(0, 0), (0, 0), (0, 1), (1, 1), (1, 0)],
                                              "reflect"))


def _space_to_batch_ref(x, block, pads):
    """TensorFlow's rule with the blocked dims last: out[(i0 * b1 + i1) * N + n, ..., s0, s1]
    = padded[n, ..., s0 * b0 + i0, s1 * b1 + i1]."""
    m = len(block)
    x = np.pad(x, [(0, 0)] * (x.ndim - m) + list(pads))
    n, mid, space = x.shape[0], x.shape[1:-m], x.shape[-m:]
    outs = [s // b for s, b in zip(space, block)]
    out = np.zeros((n * int(np.prod(block)),) + mid + tuple(outs), x.dtype)
    for flat, offs in enumerate(np.ndindex(*block)):
        sl = tuple(slice(o, None, b) for o, b in zip(offs, block))
        out[flat * n:(flat + 1) * n] = x[(Ellipsis,) + sl]
    return out


def test_space_batch_nd():
    x = rand(2, 3, 3, 4, seed=2)
    ref = lambda a: _space_to_batch_ref(a, (2, 2), [(1, 0), (0, 2)])  # noqa: E731
    check_forward(lambda a: ops.space_to_batch_nd(a, (2, 2), [[1, 0], [0, 2]]), ref, [x])
    check_grad(lambda a: ops.space_to_batch_nd(a, 2, [[1, 0], [0, 2]]), [x])
    # batch_to_space_nd undoes it (the crops remove the padding)
    y = ops.space_to_batch_nd(Tensor(x), (2, 2), [[1, 0], [0, 2]])
    back = ops.batch_to_space_nd(y, (2, 2), [[1, 0], [0, 2]])
    np.testing.assert_array_equal(back.asnumpy(), x)
    check_grad(lambda a: ops.batch_to_space_nd(a, (3,), [[1, 1]]), [rand(6, 2, 2, seed=3)])
    with pytest.raises(ValueError, match="divisible"):
        ops.space_to_batch_nd(Tensor(x), (2, 2), [[0, 0], [0, 0]])
    with pytest.raises(ValueError, match="block_shape_prod"):
        ops.batch_to_space_nd(Tensor(rand(3, 2, 2)), 2, [[0, 0]])


def test_select_scatter():
    x, src = rand(2, 3, 4, seed=4), rand(2, 4, seed=5)

    def ref(a, s):
        a = a.copy()
        a[:, -1] = s
        return a
    check_forward(lambda a, s: ops.select_scatter(a, s, 1, -1), ref, [x, src])
    check_grad(lambda a, s: ops.select_scatter(a, s, 1, -1), [x, src])
    np.testing.assert_array_equal(Tensor(x).select_scatter(Tensor(src), 1, 2).asnumpy(),
                                  np.concatenate([x[:, :2], src[:, None], x[:, 3:]], 1))
    with pytest.raises(ValueError, match="index"):
        ops.select_scatter(Tensor(x), Tensor(src), 1, 3)
    with pytest.raises(ValueError, match="src shape"):
        ops.select_scatter(Tensor(x), Tensor(rand(2, 3)), 1, 0)
    with pytest.raises(TypeError):
        ops.select_scatter(Tensor(x), Tensor(src.astype(np.float64)), 1, 0)


def _multi_margin_ref(x, y, p, margin, w):
    n, c = x.shape
    loss = np.zeros(n)
    for i in range(n):
        for j in range(c):
            if j != y[i]:
                loss[i] += w[y[i]] * max(0.0, margin - x[i, y[i]] + x[i, j]) ** p
    return loss / c


def test_multi_margin_loss():
    x, y = rand(4, 5, seed=6), np.array([1, 0, 4, 2], np.int64)
    w = rand(5, low=0.5, high=2.0, seed=7)
    check_forward(lambda a, t, ww: ops.multi_margin_loss(a, t, 2, 1, ww, "none"),
                  lambda a, t, ww: _multi_margin_ref(a, t, 2, 1, ww), [x, y, w])
    check_forward(lambda a, t: ops.multi_margin_loss(a, t),
                  lambda a, t: _multi_margin_ref(a, t, 1, 1, np.ones(5)).mean(), [x, y])
    check_grad(lambda a: ops.multi_margin_loss(a, Tensor(y), 2, 1, None, "sum"), [x])
    loss = nn.MultiMarginLoss(p=1, margin=0.5, reduction="sum")(Tensor(x), Tensor(y))
    np.testing.assert_allclose(loss.asnumpy(), _multi_margin_ref(x, y, 1, 0.5, np.ones(5)).sum(),
                               rtol=1e-6)
    with pytest.raises(TypeError, match="margin"):
        ops.multi_margin_loss(Tensor(x), Tensor(y), margin=0.5)
    with pytest.raises(TypeError, match="Int64"):
        ops.multi_margin_loss(Tensor(x), Tensor(y.astype(np.int32)))
    with pytest.raises(ValueError, match="'p'"):
        ops.multi_margin_loss(Tensor(x), Tensor(y), p=3)


def test_check_valid_intopk():
    boxes = np.array([[1, 1, 3, 3], [0, 0, 9, 9], [-1, 2, 3, 3], [2, 2, 1, 3], [0, 0, 4, 10]],
                     np.float32)
    metas = np.array([10, 5, 1], np.float32)
    want = ((boxes[:, 0] >= 0) & (boxes[:, 1] >= 0) & (boxes[:, 2] <= metas[1] * metas[2] - 1)
            & (boxes[:, 3] <= metas[0] * metas[2] - 1))
    assert ops.check_valid(Tensor(boxes), Tensor(metas)).asnumpy().tolist() == want.tolist()
    with pytest.raises(ValueError, match="equal to 4"):
        ops.check_valid(Tensor(boxes[:, :3]), Tensor(metas))
    with pytest.raises(TypeError, match="bboxes"):
        ops.check_valid(Tensor(boxes.astype(np.int32)), Tensor(metas))
    x = np.array([[1, 3, 3, 2], [5, 5, 1, 0], [1, 2, np.nan, 0]], np.float32)
    t = np.array([1, 3, 0], np.int32)
    assert ops.intopk(Tensor(x), Tensor(t), 1).asnumpy().tolist() == [True, False, False]
    assert ops.intopk(Tensor(x), Tensor(t), 4).asnumpy().tolist() == [True, True, False]
    out_of_range = Tensor(np.array([4, -1, 0], np.int32))
    assert ops.intopk(Tensor(x), out_of_range, 4).asnumpy().tolist() == [False] * 3
    assert ops.intopk(Tensor(x), Tensor(t), 0).asnumpy().tolist() == [False] * 3
    with pytest.raises(TypeError, match="x1"):
        ops.intopk(Tensor(x.astype(np.float64)), Tensor(t), 1)
