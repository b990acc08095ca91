"""Window functions, FFT grids and shifts, combinations, pdist, matrix_power
(ops/function/spectral_compose_func.py) and Tensor's bookkeeping methods."""
import itertools

import numpy as np

from minispore import Tensor, nn, ops
from tests.ops.harness import check_forward, check_grad

X = np.random.default_rng(3).standard_normal((4, 3))


def test_constants():
    np.testing.assert_allclose(ops.hann_window(5, False).asnumpy(), np.hanning(5))
    np.testing.assert_allclose(ops.hamming_window(6, False).asnumpy(), np.hamming(6), rtol=1e-6)
    np.testing.assert_allclose(ops.kaiser_window(5, False, 8.0).asnumpy(), np.kaiser(5, 8.0))
    assert ops.fftfreq(5, 0.5).asnumpy().tolist() == np.fft.fftfreq(5, 0.5).astype(
        np.float32).tolist()


def test_shifts_combinations_pdist_power():
    check_forward(ops.fftshift, np.fft.fftshift, [X])
    check_forward(lambda a: ops.ifftshift(a, 0), lambda a: np.fft.ifftshift(a, 0), [X])
    v = X[:, 0]
    check_forward(lambda a: ops.combinations(a, 3),
                  lambda a: np.array(list(itertools.combinations(a, 3))), [v])
    pairs = list(itertools.combinations(range(4), 2))
    check_forward(ops.pdist, lambda a: np.array([np.linalg.norm(a[i] - a[j]) for i, j in pairs]),
                  [X])
    sq = X[:3] / 2
    check_forward(lambda a: ops.matrix_power(a, 5), lambda a: np.linalg.matrix_power(a, 5),
                  [sq])
    check_forward(lambda a: ops.matrix_power(a, 0), lambda a: np.eye(3), [sq])
    check_grad(lambda a: ops.matrix_power(a, 3), [sq])


def test_tensor_bookkeeping():
    x = Tensor(np.float32([[1, 2], [3, 4]]))
    assert x.set_const_arg() is x and x.const_arg is True
    assert x.init is None and x.has_init is False and x.stride() == [2, 1]
    assert x.strides == (8, 4) and x.get_bytes() == x.asnumpy().tobytes()
    y = x.copy()
    assert y.assign_value(Tensor(np.float32([[0, 0], [0, 0]]))) is y
    assert y.asnumpy().sum() == 0 and x.asnumpy().sum() == 10
    assert nn.DenseBnAct(2, 3, activation="relu")(x).shape == (2, 3)
