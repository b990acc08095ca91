"""CumSum, Sort and TopK on GPU equal the same operators on CPU: forward values (ties
included) and input gradients, on tiny shapes (the simulator pays per thread)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.gpu.conftest import on_both

RNG = np.random.default_rng(0)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


TIES = RNG.integers(0, 3, (3, 5)).astype(np.float32)

CASES = {
    "cumsum": (lambda x: ops.cumsum(x, 1) + ops.CumSum(True, True)(x, 0), [f32(3, 4)]),
    "sort_ties": (lambda x: ops.sort(x, 0, True), [TIES]),
    "argsort_int": (lambda x: ops.argsort(x), [TIES.astype(np.int32)]),
    "topk": (lambda x: ops.topk(x, 2), [TIES]),
    "topk_dim0_smallest": (lambda x: ops.topk(x, 2, 0, False), [TIES]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_equals_cpu(name):
    fn, inputs = CASES[name]
    cpu, gpu = on_both(fn, *inputs)
    if not isinstance(cpu, tuple):
        cpu, gpu = (cpu,), (gpu,)
    for c, g in zip(cpu, gpu):
        assert g.dtype == c.dtype and g.shape == c.shape
        np.testing.assert_allclose(g, c, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("fn", [
    lambda x: ops.cumsum(x, 0) * ops.CumSum(False, True)(x, 1),
    lambda x: ops.sort(x, 1)[0] + ops.topk(x, 2, 0)[0].sum(),
], ids=["cumsum", "sort_topk"])
def test_gradients_equal_cpu(fn):
    x = f32(3, 4)
    w = f32(3, 4)
    grads = []
    for target in ("CPU", "GPU"):
        ms.set_context(device_target=target)
        g = ms.grad(lambda t: (fn(t) * Tensor(w)).sum())(Tensor(x))
        grads.append(g.asnumpy())
    ms.set_context(device_target="CPU")
    np.testing.assert_allclose(grads[1], grads[0], rtol=2e-5, atol=2e-6)
