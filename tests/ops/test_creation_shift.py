"""Creation (linspace, logspace, range, fills, Eye, FillV2), shifting (roll, rot90, narrow,
slice, expand, reverse, reverse_sequence) and Tensor's repeat / fill_ / zero_ / new_full ...:
float64 numpy references, finite-difference gradients, values recorded from MindSpore 2.7.2
and its errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand

X = np.array([[0.5, 0.2, 0.8], [0.3, 0.9, 0.1]], np.float32)
X3 = rand(2, 3, 4, dtype=np.float64, seed=1)


def test_linspace_logspace_match_mindspore_bits():
    # MindSpore 2.7.2's float32 outputs (start + i * step in float32; logspace in float64)
    np.testing.assert_array_equal(
        ops.linspace(-3.3, 11.9, 9).asnumpy(),
        np.array([-3.299999952316284, -1.399999976158142, 0.5, 2.3999998569488525,
                  4.300000190734863, 6.199999809265137, 8.09999942779541, 10.0,
                  11.899999618530273], np.float32))
    np.testing.assert_array_equal(
        ops.LogSpace()(Tensor(1.0), Tensor(2.0)).asnumpy(),
        np.array([10.0, 12.915496826171875, 16.681005477905273, 21.544347763061523,
                  27.825593948364258, 35.93813705444336, 46.415889739990234,
                  59.94842529296875, 77.4263687133789, 100.0], np.float32))
    out = ops.linspace(Tensor(1.0, ms.float64), Tensor(2.0, ms.float64), 3)
    assert out.dtype == ms.float64 and out.asnumpy().tolist() == [1.0, 1.5, 2.0]
    assert ops.linspace(1.0, 4.0, 1).asnumpy().tolist() == [1.0]
    out = ops.logspace(Tensor(1.0, ms.float16), Tensor(3.0, ms.float16), 3, 2, dtype=ms.float64)
    assert out.dtype == ms.float64 and out.asnumpy().tolist() == [2.0, 4.0, 8.0]
    assert ops.logspace(Tensor(1.0), Tensor(3.0), 0).shape == (0,)


def test_linspace_gradient():
    def f(a, b):
        return ops.linspace(a, b, 5)
    check_grad(f, [np.array(1.5), np.array(-2.0)])


@pytest.mark.parametrize("call,error,match", [
    (lambda: ops.linspace(1.0, 2.0, 0), ValueError, "num must be greater than 0"),
    (lambda: ops.linspace(Tensor(1, ms.int32), Tensor(2, ms.int32), 3), TypeError, "Float32"),
    (lambda: ops.linspace(Tensor(1.0, ms.float64), 2.0, 3), TypeError, "same"),
    (lambda: ops.linspace(Tensor([1.0]), 2.0, 3), ValueError, "rank of 'start'"),
    (lambda: ops.logspace(Tensor(1.0), Tensor(3.0), 3, -2), ValueError, "'base'"),
    (lambda: ops.logspace(Tensor(1.0), Tensor(3.0), 3, 2.5), TypeError, "'base'"),
    (lambda: ops.logspace(Tensor(1.0), Tensor(3.0), 3, dtype=ms.int32), TypeError, "dtype"),
    (lambda: ops.logspace(Tensor([1.0, 2.0]), Tensor(3.0), 3), ValueError, "dim of start"),
    (lambda: ops.range(Tensor(0), Tensor(10.0), Tensor(3)), TypeError, "must be the same"),
    (lambda: ops.range(Tensor(0), Tensor(10), Tensor(0)), ValueError, "equal to zero"),
    (lambda: ops.range(Tensor(10), Tensor(0), Tensor(3)), ValueError, "cannot be positive"),
    (lambda: ops.Eye()(-1, 3, ms.float32), ValueError, "negative"),
    (lambda: ops.fills(Tensor([1, 2]), 2.0), TypeError, "Fills"),
    (lambda: ops.FillV2()((2, 3), 1.5), TypeError, "must be Tensor"),
])
def test_creation_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_range_values_and_dtypes():
    out = ops.range(Tensor(0.1), Tensor(1.0), Tensor(0.1))     # MindSpore: 9 values
    np.testing.assert_array_equal(out.asnumpy(), np.float32(0.1) + np.arange(9, dtype=np.float32)
                                  * np.float32(0.1))
    assert ops.range(0, 10, 3).asnumpy().tolist() == [0, 3, 6, 9]
    out = ops.Range()(Tensor(10, ms.int32), Tensor(0, ms.int32), Tensor(-3, ms.int32))
    assert out.dtype == ms.int64 and out.asnumpy().tolist() == [10, 7, 4, 1]
    assert ops.range(Tensor(3), Tensor(3), Tensor(1)).shape == (0,)
    assert ops.range(Tensor(0.0, ms.float64), Tensor(5.0, ms.float64),
                     Tensor(2.0, ms.float64)).dtype == ms.float32


def test_eye_fills_fillv2():
    assert ops.Eye()(2, 3, ms.bool_).asnumpy().tolist() == [[True, False, False],
                                                           [False, True, False]]
    out = ops.FillV2()(Tensor([2, 3]), Tensor(1, ms.int32))
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [[1] * 3] * 2
    assert ops.fills(Tensor(X), 2).asnumpy().tolist() == [[2.0] * 3] * 2
    out = Tensor(np.array([1, 2], np.int32)).fills(2.7)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [2, 2]
    assert ops.Fills()(Tensor(X), Tensor(1.5)).asnumpy().tolist() == [[1.5] * 3] * 2


@pytest.mark.parametrize("op,ref", [
    (lambda a: ops.roll(a, 5), lambda a: np.roll(a, 5)),
    (lambda a: ops.roll(a, (1, -3), (0, 2)), lambda a: np.roll(a, (1, -3), (0, 2))),
    (lambda a: ops.Roll(7, 1)(a), lambda a: np.roll(a, 7, 1)),
    (lambda a: a.roll(-1, -1), lambda a: np.roll(a, -1, -1)),
    (lambda a: ops.rot90(a, 1, (0, 1)), lambda a: np.rot90(a, 1, (0, 1))),
    (lambda a: ops.rot90(a, -1, (1, 2)), lambda a: np.rot90(a, -1, (1, 2))),
    (lambda a: ops.rot90(a, 2, (2, 0)), lambda a: np.rot90(a, 2, (2, 0))),
    (lambda a: a.rot90(7, (0, 2)), lambda a: np.rot90(a, 7, (0, 2))),
    (lambda a: ops.narrow(a, -1, 1, 2), lambda a: a[..., 1:3]),
    (lambda a: a.narrow(1, 2, 1), lambda a: a[:, 2:3]),
    (lambda a: ops.slice(a, (0, 1, 1), (-1, 2, 3)), lambda a: a[:, 1:3, 1:4]),
    (lambda a: ops.reverse(a, (0, -1)), lambda a: a[::-1, :, ::-1]),
    (lambda a: ops.ReverseV2((1,))(a), lambda a: a[:, ::-1]),
    (lambda a: a.flip((2,)), lambda a: a[:, :, ::-1]),
    (lambda a: ops.expand(a[:, :1], Tensor([3, 2, 5, 4])),
     lambda a: np.broadcast_to(a[:, :1], (3, 2, 5, 4))),
    (lambda a: a[:1].expand(2, -1, 4), lambda a: np.broadcast_to(a[:1], (2, 3, 4))),
    (lambda a: a[:1].broadcast_to((2, 3, 4)), lambda a: np.broadcast_to(a[:1], (2, 3, 4))),
    (lambda a: a.repeat(2, 1, 1, 3), lambda a: np.tile(a, (2, 1, 1, 3))),
])
def test_shifts_forward_and_grad(op, ref):
    check_forward(op, ref, [X3], rtol=0, atol=0)
    check_grad(op, [X3])


def _reverse_sequence_ref(x, lengths, seq_dim, batch_dim):
    out = x.copy()
    for b, n in enumerate(lengths):
        src = [slice(None)] * x.ndim
        src[batch_dim], src[seq_dim] = b, slice(0, n)
        dst = list(src)
        dst[seq_dim] = slice(n - 1, None, -1) if n else slice(0, 0)
        out[tuple(src)] = x[tuple(dst)]
    return out


@pytest.mark.parametrize("lengths,seq_dim,batch_dim", [
    ([1, 2, 4], 2, 1), ([3, 0], 1, 0), ([2, 4, 1], 2, 1), ([2, 1, 0, 2], 0, 2)])
def test_reverse_sequence(lengths, seq_dim, batch_dim):
    lens = Tensor(np.array(lengths, np.int64))
    def op(a):
        return ops.reverse_sequence(a, lens, seq_dim, batch_dim)
    check_forward(op, lambda a: _reverse_sequence_ref(a, lengths, seq_dim, batch_dim), [X3],
                  rtol=0, atol=0)
    check_grad(op, [X3])


def test_reverse_sequence_mindspore_values_and_errors():
    xs = Tensor(np.arange(12).reshape(3, 4).astype(np.float32))
    out = ops.ReverseSequence(1)(xs, Tensor(np.array([4, 2, 3], np.int32)))
    assert out.asnumpy().tolist() == [[3, 2, 1, 0], [5, 4, 6, 7], [10, 9, 8, 11]]
    out = xs.reverse_sequence(Tensor([1, 2, 3, 0]), 0, 1)
    assert out.asnumpy().tolist() == [[0, 5, 10, 3], [4, 1, 6, 7], [8, 9, 2, 11]]
    with pytest.raises(TypeError, match="Int32"):
        ops.reverse_sequence(xs, Tensor([1.0, 2.0, 3.0]), 1)
    with pytest.raises(ValueError, match="vector size"):
        ops.reverse_sequence(xs, Tensor([1, 2]), 1)
    with pytest.raises(ValueError, match="!= seq_dim"):
        ops.reverse_sequence(xs, Tensor([1, 2, 3]), 1, 1)
    with pytest.raises(ValueError, match=r"seq_lengths\[2\]"):
        ops.reverse_sequence(xs, Tensor([1, 2, 5]), 1)


@pytest.mark.parametrize("call,error,match", [
    (lambda x: ops.rot90(x, 1, (0, 0)), ValueError, "must be different"),
    (lambda x: ops.rot90(x, 1, (0,)), ValueError, "must be 2"),
    (lambda x: ops.rot90(x, 1.0, (0, 1)), TypeError, "`k` must be int"),
    (lambda x: ops.narrow(x, 1, -2, 2), ValueError, r"\[0, 3\)"),
    (lambda x: ops.narrow(x, 1, 2, 2), ValueError, r"\[1, 1\]"),
    (lambda x: ops.narrow(x, 2, 0, 1), ValueError, "'axis'"),
    (lambda x: ops.slice(x, (0, 1), (2, 3)), ValueError, "no greater than"),
    (lambda x: ops.slice(x, (0, 1), (2,)), ValueError, "must be equal"),
    (lambda x: ops.reverse(x, (0, 0)), ValueError, "duplicate"),
    (lambda x: ops.ReverseV2(1)(x), TypeError, "list of int"),
    (lambda x: ops.expand(x, Tensor([2, 2])), ValueError, "expanded size"),
    (lambda x: ops.Expand()(x, (2, 3)), TypeError, "must be Tensor"),
    (lambda x: ops.roll(x, (1, 2), 0), ValueError, "one length"),
    (lambda x: x.repeat(2), RuntimeError, "number of dimensions"),
])
def test_shift_errors(call, error, match):
    with pytest.raises(error, match=match):
        call(Tensor(X))


def test_tensor_fill_zero_clone_new():
    t = Tensor(X.copy())
    assert t.fill_(2.5) is t and t.asnumpy().tolist() == [[2.5] * 3] * 2
    t.fill_(Tensor(np.array([3.0], np.float32)))
    assert t.asnumpy().tolist() == [[3.0] * 3] * 2
    t.zero_()
    assert t.asnumpy().tolist() == [[0.0] * 3] * 2
    ti = Tensor(np.array([1, 2], np.int32))
    ti.fill_(2.7)
    assert ti.dtype == ms.int32 and ti.asnumpy().tolist() == [2, 2]
    c = Tensor(X).clone()
    np.testing.assert_array_equal(c.asnumpy(), X)
    out = Tensor(X).new_full((2,), 3, dtype=ms.int32)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [3, 3]
    assert Tensor(X).new_full([1, 2], 1).dtype == ms.float32
    out = Tensor(X).new_empty(2, dtype=ms.int32)
    assert out.shape == (2,) and out.dtype == ms.int32
    out = Tensor.from_numpy(np.arange(3.0))
    assert out.dtype == ms.float64 and out.asnumpy().tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(TypeError, match="tuple of int"):
        Tensor(X).new_full(2, 1.0)


def test_fill_and_clone_gradients():
    def f(a):
        b = a.clone() * 2.0
        return b
    check_grad(f, [X3])

    def g(a):
        b = a * 1.0
        b.fill_(3.0)
        return b + a
    check_grad(g, [X3])


def test_roll_and_reverse_sequence_in_graph_mode():
    lens = Tensor(np.array([1, 3], np.int32))

    @ms.jit
    def f(a):
        return ops.roll(a, 2, 1) + ops.reverse_sequence(a, lens, 1)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    want = np.roll(a, 2, 1) + _reverse_sequence_ref(a, [1, 3], 1, 0)
    np.testing.assert_array_equal(f(Tensor(a)).asnumpy(), want)
