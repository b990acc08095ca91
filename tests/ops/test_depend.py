"""ops.depend / ops.Depend: the value, whatever the expression (MindSpore 2.7.2 prints [1. 1.]
for depend(a, a * 2) and the gradient [3. 3.] of depend(x * 3, x * x).sum())."""
import numpy as np

import minispore as ms
from minispore import Tensor, ops


def test_depend_returns_the_value_and_its_gradient_only():
    a = Tensor(np.ones(2, np.float32))
    assert ops.depend(a, a * 2).asnumpy().tolist() == [1.0, 1.0]
    assert ops.Depend()(a, a * 2) is a
    grad = ms.grad(lambda x: ops.depend(x * 3, x * x).sum())(a)
    assert grad.asnumpy().tolist() == [3.0, 3.0]


def test_depend_compiles_to_its_value():
    a = Tensor(np.array([1.0, 2.0], np.float32))

    @ms.jit
    def f(x):
        return ops.depend(x * 3, x * x) + 1
    assert f(a).asnumpy().tolist() == [4.0, 7.0]
