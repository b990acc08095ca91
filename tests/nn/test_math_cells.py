"""nn.MatrixDiag/MatrixDiagPart/MatrixSetDiag, MatDet, MatInverse, Roll and PSNR against
numpy float64 references (MindSpore 2.7.2's CPU build refuses these cells, so the references
are their documented formulas), with their argument errors."""
import numpy as np
import pytest

from minispore import Tensor, nn
from tests.ops.harness import rand


def test_matrix_cells():
    x = rand(2, 3, 3, seed=1)
    v = rand(2, 3, seed=2)
    np.testing.assert_allclose(nn.MatrixDiag()(Tensor(v)).asnumpy(),
                               np.stack([np.diag(r) for r in v]), rtol=1e-6)
    np.testing.assert_allclose(nn.MatrixDiagPart()(Tensor(x)).asnumpy(),
                               np.diagonal(x, axis1=-2, axis2=-1), rtol=1e-6)
    want = x.copy()
    for b in range(2):
        np.fill_diagonal(want[b], v[b])
    np.testing.assert_allclose(nn.MatrixSetDiag()(Tensor(x), Tensor(v)).asnumpy(), want)
    a = (rand(2, 3, 3, seed=3) + 3 * np.eye(3)).astype(np.float32)
    np.testing.assert_allclose(nn.MatDet()(Tensor(a)).asnumpy(), np.linalg.det(a), rtol=1e-5)
    np.testing.assert_allclose(nn.MatInverse()(Tensor(a)).asnumpy(), np.linalg.inv(a),
                               rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="For 'MatDet', 'a' must have rank at least 2"):
        nn.MatDet()(Tensor(v[0]))


def test_roll_and_psnr():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(nn.Roll(1, 0)(Tensor(x)).asnumpy(), np.roll(x, 1, 0))
    np.testing.assert_array_equal(nn.Roll([2, -1], [1, 0])(Tensor(x)).asnumpy(),
                                  np.roll(x, (2, -1), (1, 0)))
    with pytest.raises(ValueError, match="the length of 'shift' 2 and the length of 'axis' 1"):
        nn.Roll([1, 2], 0)
    a, b = rand(2, 3, 4, 4, seed=4, low=0, high=1), rand(2, 3, 4, 4, seed=5, low=0, high=1)
    mse = ((a.astype(np.float64) - b) ** 2).mean(axis=(1, 2, 3))
    np.testing.assert_allclose(nn.PSNR()(Tensor(a), Tensor(b)).asnumpy(),
                               10 * np.log10(1.0 / mse), rtol=1e-5)
    u1, u2 = np.full((1, 1, 2, 2), 100, np.uint8), np.full((1, 1, 2, 2), 90, np.uint8)
    np.testing.assert_allclose(nn.PSNR(255)(Tensor(u1), Tensor(u2)).asnumpy(),
                               [10 * np.log10(255.0 ** 2 / 100.0)], rtol=1e-5)
    with pytest.raises(ValueError, match="'max_val' must be > 0"):
        nn.PSNR(0)
    with pytest.raises(ValueError, match="the dimension of 'img1' must be 4"):
        nn.PSNR()(Tensor(a[0]), Tensor(b[0]))
