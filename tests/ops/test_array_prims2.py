"""DepthToSpace, MatrixDiagV3, MatrixDiagPartV3, FillDiagonal, MaskedFill, Slice and PReLU
(minispore/ops/function/array_prims2.py): float64 references, finite-difference gradients,
a GRAPH run and MindSpore 2.7.2's values and errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand


def _i32(v):
    return Tensor(np.array(v, np.int32))


def test_depth_to_space_inverts_space_to_depth():
    x = rand(2, 12, 2, 3, seed=1)

    def ref(a):
        n, c, h, w = a.shape
        b = 2
        y = a.reshape(n, b, b, c // 4, h, w).transpose(0, 3, 4, 1, 5, 2)
        return y.reshape(n, c // 4, h * b, w * b)
    check_forward(lambda t: ops.DepthToSpace(2)(t), ref, [x])
    check_grad(lambda t: ops.DepthToSpace(2)(t), [x])
    back = ops.SpaceToDepth(2)(ops.DepthToSpace(2)(Tensor(x)))
    np.testing.assert_array_equal(back.asnumpy(), x)
    # MindSpore 2.7.2: channel (i*b + j)*C + c goes to pixel (i, j) of channel c
    xd = Tensor(np.arange(12, dtype=np.float32).reshape(1, 12, 1, 1))
    assert ops.DepthToSpace(2)(xd).asnumpy()[0, 0].tolist() == [[0, 3], [6, 9]]
    with pytest.raises(ValueError, match="'block_size' should be >= : 2, but got 1"):
        ops.DepthToSpace(1)
    with pytest.raises(ValueError, match="channel 3 must be divisible"):
        ops.DepthToSpace(2)(Tensor(rand(1, 3, 1, 1)))


def _np_matrix_diag(x, k0, k1, rows, cols, pad, align):
    """Loop reference of TensorFlow's MatrixDiagV3 for a band x of shape (..., nd, L)."""
    length = x.shape[-1]
    out = np.full(x.shape[:-2] + (rows, cols), pad, x.dtype)
    for d in range(k0, k1 + 1):
        size = min(rows + min(d, 0), cols - max(d, 0))
        right = align.split("_")[0 if d >= 0 else 1] == "RIGHT"
        off = length - size if right else 0
        for p in range(size):
            i, j = p + max(-d, 0), p + max(d, 0)
            out[..., i, j] = x[..., k1 - d, off + p]
    return out


@pytest.mark.parametrize("align", ["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"])
def test_matrix_diag_v3_band_and_alignment(align):
    x = rand(2, 3, 3, seed=2)       # diagonals 1, 0, -1 of 3 x 3 matrices
    op = ops.MatrixDiagV3(align)
    args = (_i32([-1, 1]), _i32(-1), _i32(-1), Tensor(np.float32(9)))
    check_forward(lambda t: op(t, *args),
                  lambda a: _np_matrix_diag(a, -1, 1, 3, 3, 9.0, align), [x])
    check_grad(lambda t: op(t, *args[:3], Tensor(np.float64(9))), [x])
    # Diagonals [0, 1] of a 3 x 4 matrix (MindSpore 2.7.2's LEFT_LEFT values)
    got = ops.MatrixDiagV3("LEFT_LEFT")(Tensor(np.array([[1, 2, 3], [4, 5, 0]], np.float32)),
                                        _i32([0, 1]), _i32(3), _i32(4), Tensor(np.float32(9)))
    assert got.asnumpy().tolist() == [[4, 1, 9, 9], [9, 5, 2, 9], [9, 9, 0, 3]]


def test_matrix_diag_v3_single_diagonal_sizes():
    x = np.array([1, 2], np.float32)
    got = ops.MatrixDiagV3()(Tensor(x), _i32(1), _i32(-1), _i32(-1), Tensor(np.float32(9)))
    np.testing.assert_array_equal(got.asnumpy(), [[9, 1, 9], [9, 9, 2], [9, 9, 9]])
    got = ops.MatrixDiagV3()(Tensor(np.ones((2, 3), np.int32)), _i32(0), _i32(-1), _i32(4),
                             Tensor(np.int32(0)))
    assert got.shape == (2, 3, 4) and got.dtype == ms.int32
    with pytest.raises(ValueError, match="not consistent with the specified k and x"):
        ops.MatrixDiagV3()(Tensor(x), _i32(0), _i32(5), _i32(5), Tensor(np.float32(0)))
    with pytest.raises(TypeError, match=r"argument\[k\] must be a type of \{Tensor\[Int32\]\}"):
        ops.MatrixDiagV3()(Tensor(x), Tensor(np.int64(0)), _i32(-1), _i32(-1),
                           Tensor(np.float32(0)))
    with pytest.raises(ValueError, match="'align' must be str and must be in"):
        ops.MatrixDiagV3("BAD")


def test_matrix_diag_part_v3_inverts_matrix_diag_v3():
    x = rand(2, 3, 4, seed=3)
    x[..., 2, 0] = 0     # diagonal -1 has 3 elements, right-aligned: its first slot is padding
    op = ops.MatrixDiagV3("LEFT_RIGHT")
    m = op(Tensor(x), _i32([-1, 1]), _i32(4), _i32(5), Tensor(np.float32(0)))
    back = ops.MatrixDiagPartV3("LEFT_RIGHT")(m, _i32([-1, 1]), Tensor(np.float32(0)))
    np.testing.assert_array_equal(back.asnumpy(), x)
    with pytest.raises(ValueError, match="'align' must be str"):
        ops.MatrixDiagPartV3(align="UP")


def test_fill_diagonal():
    for shape, wrap in (((7, 3), True), ((7, 3), False), ((3, 5), False), ((3, 3, 3), False)):
        x = rand(*shape, seed=4)

        def ref(a, wrap=wrap):
            a = a.copy()
            np.fill_diagonal(a, 5.0, wrap=wrap)
            return a
        check_forward(lambda t, wrap=wrap: ops.FillDiagonal(5.0, wrap)(t), ref, [x])
    check_grad(lambda t: ops.FillDiagonal(5.0)(t), [rand(4, 3, seed=5)])
    assert ops.FillDiagonal(2.0)(Tensor(np.zeros((2, 2), np.int32))).dtype == ms.int32
    with pytest.raises(TypeError, match="'fill_value' should be 'float', but got type 'int'"):
        ops.FillDiagonal(2)
    with pytest.raises(ValueError, match="same size in all dimensions"):
        ops.FillDiagonal(2.0)(Tensor(rand(2, 3, 2)))
    with pytest.raises(ValueError, match=r"greater than or equal to 2, but got its dimension "
                                         r"\[1\]"):
        ops.FillDiagonal(2.0)(Tensor(rand(2)))


def test_masked_fill_slice_and_prelu():
    x = rand(3, 4, seed=6)
    mask = x > 0.2
    check_forward(lambda t: ops.MaskedFill()(t, Tensor(mask), Tensor(np.float32(0.5))),
                  lambda a: np.where(mask, 0.5, a), [x])
    check_forward(lambda t: ops.MaskedFill()(t, Tensor(mask), 0.5),
                  lambda a: np.where(mask, 0.5, a), [x])
    with pytest.raises(TypeError, match="'value' must have the dtype of 'input'"):
        ops.MaskedFill()(Tensor(x), Tensor(mask), Tensor(np.int32(2)))
    check_forward(lambda t: ops.Slice()(t, (1, 1), (2, -1)), lambda a: a[1:3, 1:], [x])
    check_grad(lambda t: ops.Slice()(t, (0, 1), (2, 2)), [x])
    w = np.array([0.5, 0.25, 0.1], np.float32)
    xp = rand(2, 3, 4, seed=7)
    check_forward(lambda t, u: ops.PReLU()(t, u),
                  lambda a, u: np.where(a > 0, a, a * u[None, :, None]), [xp, w])
    # Float16 / Float32 only (MindSpore's CPU types): the gradient against its closed form
    dx, dw = ms.grad(lambda t, u: ops.PReLU()(t, u).sum(), (0, 1))(Tensor(xp), Tensor(w))
    np.testing.assert_allclose(dx.asnumpy(), np.where(xp > 0, 1, w[None, :, None]), rtol=1e-6)
    np.testing.assert_allclose(dw.asnumpy(), np.where(xp > 0, 0, xp).sum((0, 2)), rtol=1e-5)
    # One weight keeps a 0-d x 0-d (MindSpore's test_prelu_single_weight_scalar)
    out = ops.PReLU()(Tensor(np.float32(-0.8)), Tensor(np.array([0.6], np.float32)))
    assert out.shape == () and np.isclose(out.asnumpy(), -0.48)
    with pytest.raises(TypeError, match=r"argument\[x\] must be a type of \{Float16, Float32\}"):
        ops.PReLU()(Tensor(np.array([-1, 2], np.int32)), Tensor(w[:1]))


def test_graph_mode_runs_the_compositions():
    x = rand(1, 8, 2, 2, seed=8)

    def fn(t):
        y = ops.reshape(ops.DepthToSpace(2)(t), (8, 4))
        y = ops.Slice()(ops.FillDiagonal(1.0, True)(y), (1, 0), (6, 3))
        return ops.MaskedFill()(y, y > 0.5, 0.0)
    eager = fn(Tensor(x))
    np.testing.assert_allclose(ms.jit(fn)(Tensor(x)).asnumpy(), eager.asnumpy())
