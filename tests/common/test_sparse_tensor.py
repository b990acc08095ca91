"""CSRTensor, COOTensor and ops.dense_to_sparse_coo/csr: text and values recorded from
MindSpore 2.7.2; the CSR kernels MindSpore's CPU build cannot compile here (mv, mm, sum, mul,
div, to_coo, COO to_csr: its akg compiler is missing) checked against float64 numpy."""
import numpy as np
import pytest

import minispore as ms
from minispore import COOTensor, CSRTensor, Tensor, ops

I32, I64, F32 = ms.int32, ms.int64, ms.float32


def _csr(index_dtype=I32):
    # [[-2, 0, 0, 1.5], [0, 3, 0, 0]], columns of row 0 stored out of order
    return CSRTensor(Tensor([0, 2, 3], index_dtype), Tensor([3, 0, 1], index_dtype),
                     Tensor([1.5, -2, 3], F32), (2, 4))


def _dense_of_csr():
    return np.array([[-2, 0, 0, 1.5], [0, 3, 0, 0]], np.float64)


def test_tutorial_csr_text_and_properties():
    csr = CSRTensor(Tensor([0, 1, 2]), Tensor([0, 1]), Tensor([1, 2], dtype=F32), (2, 4))
    text = ("CSRTensor(shape=[2, 4], dtype=Float32, indptr=Tensor(shape=[3], dtype=Int64, "
            "value=[0 1 2]), indices=Tensor(shape=[2], dtype=Int64, value=[0 1]), "
            "values=Tensor(shape=[2], dtype=Float32, value=[ 1.00000000e+00  2.00000000e+00]))")
    assert repr(csr) == text and str(csr) == text
    assert str(csr.astype(ms.float64).dtype) == "Float64"
    assert repr(csr.dtype) == "mindspore.float32"
    assert (csr.shape, csr.size, csr.itemsize, csr.ndim) == ((2, 4), 2, 4, 2)
    assert repr(csr.indptr) == "Tensor(shape=[3], dtype=Int64, value= [0, 1, 2])"
    indptr, indices, values, shape = csr.to_tuple()
    assert indptr is csr.indptr and indices is csr.indices and values is csr.values
    assert shape == (2, 4)
    assert repr(csr.astype(I32)) == (
        "CSRTensor(shape=[2, 4], dtype=Int32, indptr=Tensor(shape=[3], dtype=Int64, "
        "value=[0 1 2]), indices=Tensor(shape=[2], dtype=Int64, value=[0 1]), "
        "values=Tensor(shape=[2], dtype=Int32, value=[1 2]))")
    np.testing.assert_array_equal(csr.to_dense().asnumpy(), [[1, 0, 0, 0], [0, 2, 0, 0]])
    assert CSRTensor(csr_tensor=csr).shape == (2, 4)


def test_tutorial_coo_text_and_properties():
    coo = COOTensor(Tensor([[0, 1], [1, 2]], dtype=I32), Tensor([1, 2], dtype=F32), (3, 4))
    assert str(coo.values) == "[1. 2.]"
    assert str(coo.indices) == "[[0 1]\n [1 2]]"
    assert coo.shape == (3, 4)
    assert str(coo.astype(ms.float64).dtype) == "Float64"
    assert repr(coo) == (
        "COOTensor(shape=[3, 4], dtype=Float32, indices=Tensor(shape=[2, 2], dtype=Int32, "
        "value=\n[[0 1]\n [1 2]]), values=Tensor(shape=[2], dtype=Float32, "
        "value=[ 1.00000000e+00  2.00000000e+00]))")
    assert (coo.size, coo.itemsize, coo.ndim) == (2, 4, 2)
    np.testing.assert_array_equal(coo.to_dense().asnumpy(),
                                  [[0, 1, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]])
    assert repr(-coo).endswith("value=[-1.00000000e+00 -2.00000000e+00]))")
    assert repr(abs_ := coo.abs()) == repr(coo) and isinstance(abs_, COOTensor)


@pytest.mark.parametrize("values, dtype, text", [
    ([0.5, -100.25, 1e-3], F32, "[ 5.00000000e-01 -1.00250000e+02  1.00000005e-03]"),
    ([0.1], ms.float16, "[ 9.9976e-02]"),
    ([1, -2, 300], I32, "[  1  -2 300]"),
    ([True, False], ms.bool_, "[ True False]"),
    ([np.nan, np.inf, -np.inf], F32, "[            nan             inf            -inf]"),
])
def test_value_text_matches_mindspore(values, dtype, text):
    n = len(values)
    idx = Tensor(np.stack([np.arange(n), np.arange(n)], 1), I64)
    coo = COOTensor(idx, Tensor(np.array(values), dtype), (n, n))
    assert repr(coo).endswith(f"values=Tensor(shape=[{n}], dtype={dtype}, value={text}))")


def test_long_tensors_are_elided_as_mindspore_does():
    # MindSpore writes '[...]' for a tensor of 30 items or more, rows '...' past 6
    def coo(n):
        idx = Tensor(np.stack([np.arange(n), np.arange(n)], 1), I32)
        return repr(COOTensor(idx, Tensor(np.arange(n, dtype=np.int32)), (100, 100)))
    assert "indices=Tensor(shape=[14, 2], dtype=Int32, value=\n[[ 0  0]\n [ 1  1]\n [ 2  2]\n " \
           "...\n [11 11]\n [12 12]\n [13 13]])" in coo(14)
    assert "indices=Tensor(shape=[15, 2], dtype=Int32, value=[...])" in coo(15)
    assert not coo(29).endswith("value=[...]))")
    assert coo(30).endswith("values=Tensor(shape=[30], dtype=Int32, value=[...]))")
    empty = COOTensor(Tensor(np.zeros((0, 2), np.int64)), Tensor(np.zeros(0, np.float32)),
                      (2, 2))
    assert repr(empty) == ("COOTensor(shape=[2, 2], dtype=Float32, indices=Tensor(shape=[0, 2], "
                           "dtype=Int64, value=\n), values=Tensor(shape=[0], dtype=Float32, "
                           "value=))")


def test_csr_to_dense_and_arithmetic_match_mindspore():
    csr = _csr()
    np.testing.assert_array_equal(csr.to_dense().asnumpy(), _dense_of_csr())
    assert repr(-csr) == (
        "CSRTensor(shape=[2, 4], dtype=Float32, indptr=Tensor(shape=[3], dtype=Int32, "
        "value=[0 2 3]), indices=Tensor(shape=[3], dtype=Int32, value=[3 0 1]), "
        "values=Tensor(shape=[3], dtype=Float32, value=[-1.50000000e+00  2.00000000e+00 "
        "-3.00000000e+00]))")
    doubled = csr + csr          # MindSpore 2.7.2: the values doubled
    np.testing.assert_array_equal(doubled.values.asnumpy(), [3, -4, 6])
    # a 0-d factor: MindSpore returns the scaled values as a dense Tensor
    np.testing.assert_array_equal((csr * Tensor(2.0)).asnumpy(), [3, -4, 6])


def test_csr_kernels_against_numpy():
    csr, dense = _csr(), _dense_of_csr()
    vec = np.arange(4, dtype=np.float32).reshape(4, 1)
    mat = np.arange(8, dtype=np.float32).reshape(4, 2)
    np.testing.assert_allclose(csr.mv(Tensor(vec)).asnumpy(), dense @ vec, rtol=1e-6)
    np.testing.assert_allclose(csr.mm(Tensor(mat)).asnumpy(), dense @ mat, rtol=1e-6)
    np.testing.assert_allclose(csr.sum(1).asnumpy(), dense.sum(1, keepdims=True), rtol=1e-6)
    factor = np.arange(1, 9, dtype=np.float32).reshape(2, 4)
    prod = csr * Tensor(factor)
    assert isinstance(prod, CSRTensor)
    np.testing.assert_allclose(prod.to_dense().asnumpy(), dense * factor, rtol=1e-6)
    row = np.arange(1, 5, dtype=np.float32)
    np.testing.assert_allclose((csr * Tensor(row)).to_dense().asnumpy(), dense * row, rtol=1e-6)
    np.testing.assert_allclose((csr / Tensor(factor)).to_dense().asnumpy(), dense / factor,
                               rtol=1e-6)
    coo = csr.to_coo()
    assert coo.indices.asnumpy().tolist() == [[0, 3], [0, 0], [1, 1]]
    assert coo.indices.dtype == I32
    np.testing.assert_array_equal(coo.to_dense().asnumpy(), dense)


def test_csr_mv_differentiates_through_values_and_vector():
    indptr, indices = Tensor([0, 2, 3], I32), Tensor([3, 0, 1], I32)

    def f(values, vec):
        return CSRTensor(indptr, indices, values, (2, 4)).mv(vec).sum()
    values = Tensor([1.5, -2, 3], F32)
    vec = Tensor(np.arange(4, dtype=np.float32).reshape(4, 1))
    dv, dx = ms.grad(f, grad_position=(0, 1))(values, vec)
    # d/dvalues = vec[indices]; d/dvec[j] = sum of values in column j
    np.testing.assert_allclose(dv.asnumpy(), [3, 0, 1])
    np.testing.assert_allclose(dx.asnumpy().ravel(), [-2, 3, 0, 1.5])


def test_coo_arithmetic_and_coalesce_match_mindspore():
    coo = COOTensor(Tensor([[1, 2], [0, 1], [1, 2]], I64), Tensor([1.0, 2.0, 4.0], F32), (3, 4))
    # repeated coordinates add up
    np.testing.assert_array_equal(coo.to_dense().asnumpy(),
                                  [[0, 2, 0, 0], [0, 0, 5, 0], [0, 0, 0, 0]])
    ones = Tensor(np.ones((3, 4), np.float32))
    np.testing.assert_array_equal((coo + ones).asnumpy(),
                                  [[1, 3, 1, 1], [1, 1, 6, 1], [1, 1, 1, 1]])
    np.testing.assert_array_equal((coo - ones).asnumpy(),
                                  [[-1, 1, -1, -1], [-1, -1, 4, -1], [-1, -1, -1, -1]])
    twos = Tensor(np.full((3, 4), 2, np.float32))
    assert (coo * twos).values.asnumpy().tolist() == [2, 4, 8]
    assert (coo / twos).values.asnumpy().tolist() == [0.5, 1, 2]
    assert repr(coo.coalesce()) == (
        "COOTensor(shape=[3, 4], dtype=Float32, indices=Tensor(shape=[2, 2], dtype=Int64, "
        "value=\n[[0 1]\n [1 2]]), values=Tensor(shape=[2], dtype=Float32, "
        "value=[ 2.00000000e+00  5.00000000e+00]))")
    with pytest.raises(ValueError, match="Input tensors should have the same shape"):
        coo + Tensor(np.ones((2, 2), np.float32))
    with pytest.raises(NotImplementedError, match="COOTensor \\+ COOTensor"):
        coo + coo
    with pytest.raises(TypeError, match="COOTensor add with"):
        coo + 1
    with pytest.raises(NotImplementedError, match="COOTensor.add"):
        coo.add(coo, Tensor(0.0))


def test_coo_to_csr_against_numpy():
    coo = COOTensor(Tensor([[2, 0], [0, 3], [2, 1], [0, 1]], I32),
                    Tensor([1.0, 2.0, 3.0, 4.0], F32), (3, 4))
    csr = coo.to_csr()
    assert csr.indptr.asnumpy().tolist() == [0, 2, 2, 4]
    assert csr.indices.asnumpy().tolist() == [3, 1, 0, 1]
    assert csr.values.asnumpy().tolist() == [2, 4, 1, 3]
    np.testing.assert_array_equal(csr.to_dense().asnumpy(), coo.to_dense().asnumpy())


def test_dense_to_sparse_match_mindspore():
    x = Tensor(np.array([[0, 1.5, 0], [2, 0, -3]], np.float32))
    assert repr(ops.dense_to_sparse_coo(x)) == (
        "COOTensor(shape=[2, 3], dtype=Float32, indices=Tensor(shape=[3, 2], dtype=Int32, "
        "value=\n[[0 1]\n [1 0]\n [1 2]]), values=Tensor(shape=[3], dtype=Float32, "
        "value=[ 1.50000000e+00  2.00000000e+00 -3.00000000e+00]))")
    assert repr(ops.dense_to_sparse_csr(x)) == (
        "CSRTensor(shape=[2, 3], dtype=Float32, indptr=Tensor(shape=[3], dtype=Int32, "
        "value=[0 1 3]), indices=Tensor(shape=[3], dtype=Int32, value=[1 0 2]), "
        "values=Tensor(shape=[3], dtype=Float32, value=[ 1.50000000e+00  2.00000000e+00 "
        "-3.00000000e+00]))")
    zeros = Tensor(np.zeros((2, 2), np.float32))
    assert repr(ops.dense_to_sparse_coo(zeros)) == (
        "COOTensor(shape=[2, 2], dtype=Float32, indices=Tensor(shape=[0, 2], dtype=Int32, "
        "value=\n), values=Tensor(shape=[0], dtype=Float32, value=))")
    with pytest.raises(ValueError, match="The element of shape must be positive, but got 0"):
        ops.dense_to_sparse_csr(zeros)
    with pytest.raises(ValueError, match="only support 2-D Tensor when converting to COOTensor"):
        ops.dense_to_sparse_coo(Tensor(np.zeros((2, 2, 2), np.float32)))
    with pytest.raises(ValueError, match="only support 2-D Tensor when converting to CSRTensor"):
        ops.dense_to_sparse_csr(Tensor(np.ones((2, 2, 2), np.float32)))
    with pytest.raises(TypeError, match="dense_to_sparse_coo, input argument must be a Tensor"):
        ops.dense_to_sparse_coo(np.zeros((2, 2)))


def test_errors_match_mindspore():
    csr64 = _csr(I64)
    for call in (csr64.to_coo, lambda: csr64.mv(Tensor(np.ones((4, 1), np.float32))),
                 lambda: csr64.mm(Tensor(np.ones((4, 3), np.float32))), lambda: csr64.sum(1)):
        with pytest.raises(TypeError, match="The dtype of Indptr only support Int32 for now, "
                                            "but got Int64."):
            call()
    with pytest.raises(ValueError, match="For CSRReduceSum, `axis` should be 1"):
        _csr().sum(0)
    with pytest.raises(NotImplementedError, match="CSRTensor.mm of two CSRTensors"):
        _csr().mm(_csr())
    coo32 = COOTensor(Tensor([[0, 1]], I32), Tensor([1.0], F32), (2, 2))
    with pytest.raises(TypeError, match=r"\[x_indices\] must be a type of \{Tensor\[Int64\]\}"):
        coo32.coalesce()
    with pytest.raises(TypeError, match="row_indices only support Int32 for now, but got Int64"):
        COOTensor(Tensor([[0, 1]], I64), Tensor([1.0], F32), (2, 2)).to_csr()
    with pytest.raises(ValueError, match=r"the length of 'shape' must be 2, but got \(2, 3, 4\)"):
        COOTensor(Tensor([[0, 1, 2]], I64), Tensor([7.0], F32), (2, 3, 4))
    with pytest.raises(ValueError, match=r"'indices.shape\[1\]' must be 2, but got 3"):
        COOTensor(Tensor([[0, 1, 2]], I64), Tensor([7.0], F32), (2, 3))
    with pytest.raises(TypeError, match="the type of 'indices' must be one of"):
        COOTensor(Tensor([[0, 1]], F32), Tensor([7.0], F32), (2, 3))
    with pytest.raises(TypeError, match="'shape' must be tuple"):
        COOTensor(Tensor([[0, 1]], I32), Tensor([7.0], F32), [2, 3])
    with pytest.raises(ValueError, match=r"indptr must have length \(1 \+ shape\[0\]\), but "
                                         r"got: 2"):
        CSRTensor(Tensor([0, 1], I32), Tensor([0], I32), Tensor([1.0], F32), (2, 2))
    with pytest.raises(ValueError, match="indices and values must equal in their shape"):
        CSRTensor(Tensor([0, 1, 2], I32), Tensor([0, 1], I32), Tensor([1.0], F32), (2, 2))
    with pytest.raises(TypeError, match="indptr must have int16 or int32 or int64"):
        CSRTensor(Tensor([0, 1, 1], F32), Tensor([0], I32), Tensor([1.0], F32), (2, 2))
    with pytest.raises(TypeError, match="'indptr' must be Tensor"):
        CSRTensor([0, 1, 1], Tensor([0], I32), Tensor([1.0], F32), (2, 2))
