"""ops.coo_* / ops.csr_*: values against float64 numpy on the dense equivalents, structure
(indices, indptr, shape) against what MindSpore 2.7.2 returned for the same inputs, its error
rules, and gradients through the values."""
import numpy as np
import pytest

import minispore as ms
from minispore import COOTensor, CSRTensor, Tensor, ops
from minispore.ops.function.sparse_unary_func import _UNARY

I32, I64, F32, F64 = ms.int32, ms.int64, ms.float32, ms.float64

# numpy float64 references for the table of elementwise ops
_REF = {
    "abs": np.abs, "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin,
    "asinh": np.arcsinh, "atan": np.arctan, "atanh": np.arctanh, "ceil": np.ceil,
    "cos": np.cos, "cosh": np.cosh, "exp": np.exp, "expm1": np.expm1, "floor": np.floor,
    "inv": lambda x: 1 / x, "isfinite": np.isfinite, "isinf": np.isinf, "isnan": np.isnan,
    "log": np.log, "log1p": np.log1p, "neg": np.negative, "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6), "round": np.round,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "sin": np.sin, "sinh": np.sinh,
    "softsign": lambda x: x / (1 + np.abs(x)), "sqrt": np.sqrt, "square": np.square,
    "tan": np.tan, "tanh": np.tanh,
}
# inside every function's domain except acosh's, which gets 1 + |x|
_X = np.array([-0.75, 0.5, 0.25, -0.4], np.float64)


def _csr():
    # [[0, -0.75, 0, 0.5], [0, 0, 0, 0], [0.25, 0, -0.4, 0]]
    return CSRTensor(Tensor([0, 2, 2, 4], I32), Tensor([1, 3, 0, 2], I32),
                     Tensor(_X.astype(np.float32)), (3, 4))


def _coo():
    return COOTensor(Tensor([[0, 1], [0, 3], [2, 0], [2, 2]], I64),
                     Tensor(_X.astype(np.float32)), (3, 4))


@pytest.mark.parametrize("name", sorted(_UNARY))
def test_unary_ops_apply_to_values_and_keep_structure(name):
    x = 1 + np.abs(_X) if name == "acosh" else _X
    csr, coo = _csr(), _coo()
    csr = CSRTensor(csr.indptr, csr.indices, Tensor(x.astype(np.float32)), csr.shape)
    coo = COOTensor(coo.indices, Tensor(x.astype(np.float32)), coo.shape)
    r_csr, r_coo = getattr(ops, f"csr_{name}")(csr), getattr(ops, f"coo_{name}")(coo)
    assert isinstance(r_csr, CSRTensor) and isinstance(r_coo, COOTensor)
    assert r_csr.indptr is csr.indptr and r_csr.indices is csr.indices
    assert r_coo.indices is coo.indices and r_csr.shape == r_coo.shape == (3, 4)
    for r in (r_csr, r_coo):
        np.testing.assert_allclose(r.values.asnumpy(), _REF[name](x), rtol=2e-6, atol=1e-7)


def test_unary_ops_refuse_the_other_format_and_keep_dense_dtype_rules():
    with pytest.raises(TypeError, match="Expects CSRTensor for csr_abs"):
        ops.csr_abs(_coo())
    with pytest.raises(TypeError, match="Expects COOTensor for coo_sin"):
        ops.coo_sin(Tensor(_X))
    ints = CSRTensor(Tensor([0, 1, 2, 2], I32), Tensor([1, 0], I32), Tensor([-1, 2], I32), (3, 4))
    # as MindSpore: relu keeps int32
    assert ops.csr_relu(ints).values.asnumpy().tolist() == [0, 2]
    assert ops.csr_relu(ints).values.dtype == I32
    assert ops.csr_isnan(_csr()).values.dtype == ms.bool_


def test_csr_mul_div_gather_the_dense_operand_at_stored_positions():
    csr = _csr()
    dense = np.arange(1, 13, dtype=np.float64).reshape(3, 4)
    rows, cols = [0, 0, 2, 2], [1, 3, 0, 2]
    out = ops.csr_mul(csr, Tensor(dense.astype(np.float32)))
    assert isinstance(out, CSRTensor) and out.indptr is csr.indptr
    np.testing.assert_allclose(out.values.asnumpy(), _X * dense[rows, cols], rtol=1e-6)
    out = ops.csr_div(csr, Tensor(dense.astype(np.float32)))
    np.testing.assert_allclose(out.values.asnumpy(), _X / dense[rows, cols], rtol=1e-6)
    # a row vector and a column broadcast to the dense shape; int32 dense promotes to float32
    row = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(ops.csr_mul(csr, Tensor(row.astype(np.float32))).values.asnumpy(),
                               _X * row[cols], rtol=1e-6)
    out = ops.csr_mul(csr, Tensor(np.array([[1], [2], [3]], np.int32)))
    assert out.values.dtype == F32
    np.testing.assert_allclose(out.values.asnumpy(), _X * np.array([1, 1, 3, 3]), rtol=1e-6)


def test_csr_mul_by_a_scalar_gives_dense_values():
    csr = _csr()
    for y in (2.0, Tensor(2.0), Tensor([2.0]), Tensor([[2.0]])):
        out = ops.csr_mul(csr, y)
        assert isinstance(out, Tensor) and out.shape == (4,)
        np.testing.assert_allclose(out.asnumpy(), 2 * _X, rtol=1e-6)
    assert ops.csr_mul(csr, Tensor(2.0, F64)).dtype == F64
    np.testing.assert_allclose(ops.csr_div(csr, 4).asnumpy(), _X / 4, rtol=1e-6)


def test_csr_mul_errors():
    csr = _csr()
    with pytest.raises(ValueError, match="dense tensor has 3 dimensions"):
        ops.csr_mul(csr, Tensor(np.ones((1, 3, 4), np.float32)))
    with pytest.raises(ValueError, match="Dense shape cannot broadcast to sparse shape"):
        ops.csr_mul(csr, Tensor(np.ones((2, 4), np.float32)))
    with pytest.raises(TypeError, match=r"CSRMul\] fail! Unsupported data type"):
        ops.csr_mul(csr, Tensor(np.ones((3, 4), np.float64)))
    with pytest.raises(TypeError, match="Indptr only support Int32"):
        ops.csr_div(CSRTensor(Tensor([0, 1], I64), Tensor([0], I64), Tensor([1.0]), (1, 2)),
                    Tensor(np.ones((1, 2), np.float32)))


def test_csr_mv_and_reduce_sum():
    csr = _csr()
    dense = np.zeros((3, 4))
    dense[[0, 0, 2, 2], [1, 3, 0, 2]] = _X
    vec = np.array([[1.0], [-2.0], [3.0], [0.5]])
    out = ops.csr_mv(csr, Tensor(vec.astype(np.float32)))
    assert out.shape == (3, 1) and out.dtype == F32
    np.testing.assert_allclose(out.asnumpy(), dense @ vec, rtol=1e-6)
    out = ops.csr_reduce_sum(csr, -1)
    np.testing.assert_allclose(out.asnumpy(), dense.sum(1, keepdims=True), rtol=1e-6)
    with pytest.raises(ValueError, match="only support 2-D inputs"):
        ops.csr_mv(csr, Tensor(vec.ravel().astype(np.float32)))
    with pytest.raises(ValueError, match=r"should be \(4, 1\)"):
        ops.csr_mv(csr, Tensor(np.ones((3, 1), np.float32)))
    with pytest.raises(TypeError, match=r"CSRMV\] fail"):
        ops.csr_mv(csr, Tensor(vec))
    with pytest.raises(ValueError, match="`axis` should be 1"):
        ops.csr_reduce_sum(csr, 0)
    with pytest.raises(TypeError, match="should be Scalar"):
        ops.csr_reduce_sum(csr, (1,))
    with pytest.raises(TypeError, match=r"CSRReduceSum\] fail"):
        ops.csr_reduce_sum(ops.csr_round(csr).astype(F64), 1)


def test_csr_add_unions_patterns_with_sorted_columns():
    # MindSpore 2.7.2: columns of each row ascending, values alpha * a + beta * b, zeros kept
    a = CSRTensor(Tensor([0, 1, 2, 3], I32), Tensor([3, 1, 0], I32), Tensor([1.0, 2.0, 3.0]),
                  (3, 4))
    b = CSRTensor(Tensor([0, 1, 2, 3], I64), Tensor([1, 1, 0], I64), Tensor([10.0, 20.0, 30.0]),
                  (3, 4))
    out = ops.csr_add(a, b, Tensor(1.0), Tensor(2))
    assert out.indptr.asnumpy().tolist() == [0, 2, 3, 4] and out.indptr.dtype == I64
    assert out.indices.asnumpy().tolist() == [1, 3, 1, 0]
    np.testing.assert_allclose(out.values.asnumpy(), [20, 1, 42, 63])
    zero = ops.csr_add(a, a, Tensor(1.0), Tensor(-1.0))
    assert zero.values.asnumpy().tolist() == [0, 0, 0]
    with pytest.raises(TypeError, match="alpha and beta must be Tensor"):
        ops.csr_add(a, b, 1.0, 2.0)
    with pytest.raises(TypeError, match=r"SparseMatrixAdd\].*Tensor\[Int32\]"):
        ops.csr_add(ops.csr_round(a).astype(I32), a.astype(I32), Tensor(1), Tensor(1))


def test_coo_add_merges_and_thresholds_only_sums():
    x1 = COOTensor(Tensor([[0, 1], [1, 2]], I64), Tensor([1.0, 2.0]), (3, 4))
    x2 = COOTensor(Tensor([[0, 0], [1, 2], [2, 3]], I64), Tensor([3.0, -2.0, 0.5]), (3, 4))
    out = ops.coo_add(x1, x2, Tensor(0.0))
    assert out.indices.asnumpy().tolist() == [[0, 0], [0, 1], [1, 2], [2, 3]]
    assert out.values.asnumpy().tolist() == [3, 1, 0, 0.5]
    out = ops.coo_add(x1, x2, Tensor(0.6))  # 0.5 is kept: it is not a sum
    assert out.indices.asnumpy().tolist() == [[0, 0], [0, 1], [2, 3]]
    # an unsorted input is merged head by head, as MindSpore's walk does
    x3 = COOTensor(Tensor([[1, 0], [0, 3]], I64), Tensor([3.0, 4.0]), (3, 4))
    out = ops.coo_add(x3, x1, Tensor(0.0))
    assert out.indices.asnumpy().tolist() == [[0, 1], [1, 0], [0, 3], [1, 2]]
    assert out.values.asnumpy().tolist() == [1, 3, 4, 2]
    with pytest.raises(TypeError, match=r"SparseAdd\].*Int64.*Int32"):
        int32 = COOTensor(Tensor([[0, 1]], I32), Tensor([1.0]), (3, 4))
        ops.coo_add(int32, int32, Tensor(0.0))


def test_coo_concat_offsets_and_sorts():
    u = COOTensor(Tensor([[1, 3], [0, 2], [1, 0], [0, 1]], I64), Tensor([1.0, 2.0, 3.0, 4.0]),
                  (2, 4))
    w = COOTensor(Tensor([[1, 1], [0, 3]], I64), Tensor([5.0, 6.0]), (2, 4))
    out = ops.coo_concat((u, w), 1)
    assert out.shape == (2, 8)
    assert out.indices.asnumpy().tolist() == [[0, 1], [0, 2], [0, 7], [1, 0], [1, 3], [1, 5]]
    assert out.values.asnumpy().tolist() == [4, 2, 6, 3, 1, 5]
    out = ops.coo_concat((u, w, w), -2)
    assert out.shape == (6, 4) and out.indices.asnumpy()[-1].tolist() == [5, 1]
    with pytest.raises(ValueError, match="input number < 2"):
        ops.coo_concat((u,))
    with pytest.raises(TypeError, match="input type must be same"):
        ops.coo_concat((u, w.astype(F64)))
    with pytest.raises(TypeError, match=r"indices0\] must be a type of \{Tensor\[Int64\]\}"):
        ops.coo_concat((COOTensor(Tensor([[0, 1]], I32), Tensor([1.0]), (2, 4)), w))
    with pytest.raises(IndexError):
        ops.coo_concat((u, w), 2)
    with pytest.raises(RuntimeError, match="shape"):
        ops.coo_concat((u, COOTensor(Tensor([[0, 1]], I64), Tensor([1.0]), (3, 4))), 1)


def test_csr_softmax_per_row():
    csr = CSRTensor(Tensor([0, 3, 3, 5], I32), Tensor([3, 0, 1, 2, 0], I32),
                    Tensor([1.0, 2.0, 3.0, -1.0, 5.0]), (3, 4))
    out = ops.csr_softmax(csr, F32)
    e = np.exp([1.0, 2, 3])
    np.testing.assert_allclose(out.values.asnumpy()[:3], e / e.sum(), rtol=1e-6)
    np.testing.assert_allclose(out.values.asnumpy()[3:], [np.exp(-6) / (1 + np.exp(-6)),
                                                          1 / (1 + np.exp(-6))], rtol=1e-6)
    with pytest.raises(NotImplementedError, match="dtype Float64"):
        ops.csr_softmax(csr, F64)
    with pytest.raises(TypeError, match="logits must be type of CSRTensor"):
        ops.csr_softmax(_coo(), F32)


def test_csr_to_coo_and_to_dense():
    csr = _csr()
    coo = ops.csr_to_coo(CSRTensor(Tensor([0, 2, 2, 4], I64),
                                   Tensor([1, 3, 0, 2], I64), csr.values, (3, 4)))
    assert coo.indices.dtype == I32
    assert coo.indices.asnumpy().tolist() == [[0, 1], [0, 3], [2, 0], [2, 2]]
    dense = np.zeros((3, 4))
    dense[[0, 0, 2, 2], [1, 3, 0, 2]] = _X
    np.testing.assert_allclose(ops.csr_to_dense(csr).asnumpy(), dense, rtol=1e-6)
    # a position stored twice: the later value wins
    twice = CSRTensor(Tensor([0, 2, 2, 2], I32), Tensor([1, 1], I32), Tensor([-1.0, 2.0]), (3, 4))
    assert ops.csr_to_dense(twice).asnumpy()[0].tolist() == [0, 2, 0, 0]
    with pytest.raises(TypeError, match=r"x_values\] must be"):
        ops.csr_to_dense(ops.csr_round(csr).astype(I32))
    with pytest.raises(TypeError, match=r"x_row_pointers\].*Int16"):
        ops.csr_to_coo(CSRTensor(Tensor([0, 1], ms.int16), Tensor([0], ms.int16),
                                 Tensor([1.0]), (1, 2)))
    with pytest.raises(TypeError, match="must be a CSRTensor"):
        ops.csr_to_dense(_coo())


def test_csr_mm_is_refused_as_on_mindspore_cpu():
    with pytest.raises(TypeError, match="must be type of CSRTensor"):
        ops.csr_mm(_csr(), Tensor(np.ones((4, 2), np.float32)))
    with pytest.raises(NotImplementedError, match="SparseMatrixSparseMatMul"):
        ops.csr_mm(_csr(), _csr(), trans_b=True)


def _numeric_grad(f, x, eps=1e-6):
    x = x.copy()
    g = np.zeros_like(x)
    for i in range(x.size):
        old = x[i]
        x[i] = old + eps
        hi = f(x)
        x[i] = old - eps
        lo = f(x)
        x[i] = old
        g[i] = (hi - lo) / (2 * eps)
    return g


def test_gradients_flow_through_values():
    indptr, indices = Tensor([0, 3, 3, 5], I32), Tensor([3, 0, 1, 2, 0], I32)
    weights = np.array([0.3, -1.0, 2.0, 0.5, 1.5])
    w = Tensor(weights)

    def softmax_loss(values):
        out = ops.csr_softmax(CSRTensor(indptr, indices, values, (3, 4)), F64)
        return (ops.csr_sin(out).values * w).sum()
    x0 = np.array([1.0, 2.0, 3.0, -1.0, 5.0])
    got = ms.grad(softmax_loss)(Tensor(x0)).asnumpy()
    want = _numeric_grad(lambda v: float(softmax_loss(Tensor(v)).asnumpy()), x0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-8)

    other = CSRTensor(Tensor([0, 1, 2, 3], I32), Tensor([2, 3, 0], I32), Tensor([1.0, 2.0, 3.0],
                                                                              F64), (3, 4))

    def add_loss(values):
        out = ops.csr_add(CSRTensor(indptr, indices, values, (3, 4)), other, Tensor(2.0),
                          Tensor(1.0))
        return (ops.csr_to_dense(out) ** 2).sum()
    got = ms.grad(add_loss)(Tensor(x0)).asnumpy()
    want = _numeric_grad(lambda v: float(add_loss(Tensor(v)).asnumpy()), x0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
