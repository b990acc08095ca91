"""The cells over one tensor function each (nn/layer/function_cells.py): values recorded from
MindSpore 2.7.2 on the same inputs, float64 references, a gradient, and argument errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn

X = np.array([[0.5, 0.2, 0.8], [0.3, 0.9, 0.1]], np.float32)


def _run(cell, *args):
    return cell(*[Tensor(a) if isinstance(a, np.ndarray) else a for a in args]).asnumpy()


# (cell, inputs, MindSpore 2.7.2's output)
RECORDED = [
    (lambda: nn.Unflatten(1, (3, 1)), (X,), X.reshape(2, 3, 1)),
    (lambda: nn.OneHot(depth=3), (np.array([0, 2], np.int32),),
     [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]),
    (lambda: nn.OneHot(axis=0, depth=3, on_value=2.0, off_value=-1.0),
     (np.array([0, 2], np.int32),), [[2.0, -1.0], [-1.0, -1.0], [-1.0, 2.0]]),
    (lambda: nn.Pad(((1, 0), (0, 2))), (X,),
     [[0, 0, 0, 0, 0], [0.5, 0.2, 0.8, 0, 0], [0.3, 0.9, 0.1, 0, 0]]),
    (lambda: nn.Pad(((1, 1), (1, 1)), mode="REFLECT"), (X,),
     [[0.9, 0.3, 0.9, 0.1, 0.9], [0.2, 0.5, 0.2, 0.8, 0.2], [0.9, 0.3, 0.9, 0.1, 0.9],
      [0.2, 0.5, 0.2, 0.8, 0.2]]),
    (lambda: nn.Pad(((1, 1), (1, 1)), mode="SYMMETRIC"), (X,),
     [[0.5, 0.5, 0.2, 0.8, 0.8], [0.5, 0.5, 0.2, 0.8, 0.8], [0.3, 0.3, 0.9, 0.1, 0.1],
      [0.3, 0.3, 0.9, 0.1, 0.1]]),
    (lambda: nn.MatMul(), (X, np.ones((3, 2), np.float32)), [[1.5, 1.5], [1.3, 1.3]]),
    (lambda: nn.MatMul(transpose_x2=True), (X, X), [[0.93, 0.41], [0.41, 0.91]]),
    (lambda: nn.PixelShuffle(2), (np.arange(8, dtype=np.float32).reshape(1, 4, 1, 2),),
     [[[[0.0, 2.0, 1.0, 3.0], [4.0, 6.0, 5.0, 7.0]]]]),
    (lambda: nn.CentralCrop(0.5), (np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4),),
     [[[[5.0, 6.0], [9.0, 10.0]], [[21.0, 22.0], [25.0, 26.0]]]]),
    (lambda: nn.CentralCrop(0.6), (np.arange(50, dtype=np.float32).reshape(2, 5, 5),),
     [[[6, 7, 8], [11, 12, 13], [16, 17, 18]], [[31, 32, 33], [36, 37, 38], [41, 42, 43]]]),
    (lambda: nn.ClipByNorm(), (X, Tensor(0.5)),
     [[0.1843, 0.07372, 0.29488], [0.11058, 0.33174, 0.03686]]),
    (lambda: nn.IGamma(), (X, X), [[0.68269, 0.76443, 0.64703], [0.72696, 0.639, 0.82755]]),
    (lambda: nn.LBeta(), (X, X), [[1.14473, 2.25145, 0.41671], [1.79336, 0.20383, 2.98136]]),
]


@pytest.mark.parametrize("make,inputs,want", RECORDED)
def test_function_cells_equal_mindspore(make, inputs, want):
    np.testing.assert_allclose(_run(make(), *inputs), np.asarray(want, np.float64),
                               rtol=1e-4, atol=1e-5)


def test_range_is_int32_for_ints_and_float32_otherwise():
    r = nn.Range(1, 8, 2)()
    assert r.dtype == ms.int32 and r.asnumpy().tolist() == [1, 3, 5, 7]
    r = nn.Range(1.0, 3, 0.5)()
    assert r.dtype == ms.float32 and r.asnumpy().tolist() == [1.0, 1.5, 2.0, 2.5]
    assert nn.Range(5)().asnumpy().tolist() == [0, 1, 2, 3, 4]


def test_clip_by_norm_per_row_is_the_documented_formula():
    # MindSpore 2.7.2's CPU kernel gives [0.832, 1.109] for the second row (it divides by the
    # norm of [6, 4]); the documented x * c / max(||x||, c) is [0.6, 0.8].
    x = np.array([[3.0, 4.0], [6.0, 8.0], [0.3, 0.4]], np.float32)
    got = _run(nn.ClipByNorm(axis=1), x, Tensor(1.0))
    norms = np.linalg.norm(x.astype(np.float64), axis=1, keepdims=True)
    np.testing.assert_allclose(got, x / np.maximum(norms, 1.0), rtol=1e-6)


def test_time_distributed_equals_the_layer_on_each_step():
    dense = nn.Dense(4, 2)
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    got = _run(nn.TimeDistributed(dense, time_axis=1), x)
    w, b = (p.asnumpy().astype(np.float64) for p in dense.trainable_params())
    # float32 sums of terms up to ~20: an absolute tolerance for outputs near zero, whose
    # relative error depends on the random weights (it failed at 2.7e-5 for one draw).
    np.testing.assert_allclose(got, x @ w.T + b, rtol=1e-5, atol=1e-5)
    got0 = _run(nn.TimeDistributed(dense, time_axis=0), x.transpose(1, 0, 2))
    np.testing.assert_allclose(got0, (x @ w.T + b).transpose(1, 0, 2), rtol=1e-5, atol=1e-5)


def test_reflect_pad_gradient_sums_the_mirrored_cells():
    x = Tensor(np.arange(6, dtype=np.float64).reshape(2, 3))
    pad = nn.Pad(((0, 0), (2, 1)), mode="REFLECT")
    weights = Tensor(np.arange(12, dtype=np.float64).reshape(2, 6))
    grad = ms.grad(lambda t: (pad(t) * weights).sum())(x).asnumpy()
    # Padded row [x2, x1, x0, x1, x2, x1] takes weights [w0..w5] in each row.
    w = weights.asnumpy()
    want = np.stack([w[:, 2], w[:, 1] + w[:, 3] + w[:, 5], w[:, 0] + w[:, 4]], axis=1)
    np.testing.assert_allclose(grad, want)


@pytest.mark.parametrize("make,err,words", [
    (lambda: nn.Pad(((1, 1),), mode="EDGE"), ValueError, "'mode' must be one of"),
    (lambda: nn.Pad((1, 1)), TypeError, "'paddings' must be a tuple of"),
    (lambda: _run(nn.Pad(((3, 0),), mode="REFLECT"), np.ones(3, np.float32)), ValueError,
     "at most 2"),
    (lambda: nn.CentralCrop(1.5), ValueError, r"\(0.0, 1.0\]"),
    (lambda: _run(nn.Unflatten(1, (2, 2)), X), ValueError, "must equal the length 3"),
    (lambda: nn.Range(1, 5, 0), ValueError, "can not be zero"),
    (lambda: nn.MatMul(transpose_x1=1), TypeError, "'transpose_x1' must be bool"),
    (lambda: nn.TimeDistributed(np.ones, 1), TypeError, "must be Cell or Primitive"),
    (lambda: _run(nn.TimeDistributed(nn.ReLU(), 1), np.ones((2, 3), np.float32)), ValueError,
     "at least 3D"),
])
def test_function_cells_refuse_bad_arguments(make, err, words):
    with pytest.raises(err, match=words):
        make()
