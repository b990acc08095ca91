"""ops.cond and matrix_norm's spectral orders ('nuc', 2, -2) against float64 NumPy, gradients
against finite differences; MindSpore 2.7.2's values (ops.cond(a, p) for a = [[1, 2], [3, 4]]:
14.933031, 15.000001, 16.999998, 21, 6, 21, 6, 14.933031, 0.06696561); Tensor.to_coo /
to_csr as MindSpore returns them (Int32 indices)."""
import numpy as np
import pytest

from minispore import Tensor, ops
from minispore.common import dtype as mstype
from tests.ops.harness import check_forward, check_grad

RNG = np.random.default_rng(0)
BATCH = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
ORDS = [None, "fro", "nuc", np.inf, -np.inf, 1, -1, 2, -2]


@pytest.mark.parametrize("p", ORDS, ids=str)
def test_cond_is_numpys(p):
    check_forward(lambda a: ops.cond(a, p), lambda a: np.linalg.cond(a, p),
                  [BATCH.astype(np.float32)], rtol=2e-5)


def test_cond_values_are_mindspores():
    a = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    got = [float(ops.cond(a, p).asnumpy()) for p in ORDS]
    np.testing.assert_allclose(got, [14.933031, 15.000001, 16.999998, 21.0, 6.0, 21.0, 6.0,
                                     14.933031, 0.06696561], rtol=2e-6)


@pytest.mark.parametrize("ord_", ["nuc", 2, -2])
@pytest.mark.parametrize("keepdim", [False, True])
def test_spectral_matrix_norms_are_numpys(ord_, keepdim):
    x = RNG.standard_normal((3, 4, 2)).astype(np.float32)
    check_forward(lambda a: ops.matrix_norm(a, ord_, (0, 1), keepdim),
                  lambda a: np.linalg.norm(np.moveaxis(a, 2, 0), ord_, (1, 2), keepdim)
                  .reshape((1, 1, 2) if keepdim else (2,)), [x])


@pytest.mark.parametrize("ord_", ["nuc", 2])
def test_spectral_norm_gradients_match_finite_differences(ord_):
    check_grad(lambda a: ops.matrix_norm(a, ord_), [RNG.standard_normal((3, 3))])


def test_bad_orders_and_shapes_are_refused():
    with pytest.raises(ValueError, match="For 'matrix_norm', 'ord' must be 'fro', 'nuc'"):
        ops.matrix_norm(Tensor(np.ones((2, 2), np.float32)), 3)
    with pytest.raises(ValueError, match=r"For 'cond', 'A' must be .* square .* got \(2, 3\)"):
        ops.cond(Tensor(np.ones((2, 3), np.float32)))


def test_to_coo_and_to_csr_are_mindspores():
    x = Tensor(np.array([[0, 1.5, 0], [2, 0, -3]], np.float32))
    coo, csr = x.to_coo(), x.to_csr()
    assert coo.indices.dtype == mstype.int32 and coo.shape == (2, 3)
    np.testing.assert_array_equal(coo.indices.asnumpy(), [[0, 1], [1, 0], [1, 2]])
    np.testing.assert_array_equal(coo.values.asnumpy(), [1.5, 2.0, -3.0])
    np.testing.assert_array_equal(csr.indptr.asnumpy(), [0, 1, 3])
    np.testing.assert_array_equal(csr.indices.asnumpy(), [1, 0, 2])
    np.testing.assert_array_equal(csr.values.asnumpy(), [1.5, 2.0, -3.0])
