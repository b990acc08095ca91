"""MatrixDeterminant, LogMatrixDeterminant and MatrixInverse on GPU equal the same operators on
CPU: forward values (a singular matrix and a 0-d determinant included) and input gradients,
on tiny shapes (the simulator pays per thread)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.gpu.conftest import on_both

RNG = np.random.default_rng(0)


def matrices(*shape, dtype=np.float32):
    return (RNG.standard_normal(shape) + 2 * np.eye(shape[-1])).astype(dtype)


SINGULAR = np.array([[[1., 2.], [2., 4.]], [[0., 1.], [0., 1.]]], np.float32)

CASES = {
    "det": (lambda x: ops.det(x), [matrices(2, 3, 3)]),
    "det_0d": (lambda x: ops.det(x), [matrices(3, 3, dtype=np.float64)]),
    "slogdet": (lambda x: ops.slogdet(x), [matrices(3, 4, 4)]),
    "logdet": (lambda x: ops.logdet(x), [matrices(2, 3, 3, dtype=np.float64)]),
    "inverse": (lambda x: ops.inverse(x), [matrices(2, 3, 3)]),
    "inverse_adjoint": (lambda x: ops.MatrixInverse(True)(x), [matrices(3, 3)]),
    "singular": (lambda x: (ops.inverse(x),) + ops.slogdet(x), [SINGULAR]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_equals_cpu(name):
    fn, inputs = CASES[name]
    cpu, gpu = on_both(fn, *inputs)
    if not isinstance(cpu, tuple):
        cpu, gpu = (cpu,), (gpu,)
    for c, g in zip(cpu, gpu):
        assert g.dtype == c.dtype and g.shape == c.shape
        np.testing.assert_allclose(g, c, rtol=2e-5, atol=2e-6)


def test_gradients_equal_cpu():
    x = matrices(2, 3, 3, dtype=np.float64)

    def loss(t):
        return ops.det(t).sum() + ops.slogdet(t)[1].sum() + ops.MatrixInverse(True)(t).sum()

    grads = []
    for target in ("CPU", "GPU"):
        ms.set_context(device_target=target)
        grads.append(ms.grad(loss)(Tensor(x)).asnumpy())
    ms.set_context(device_target="CPU")
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-10, atol=1e-12)
