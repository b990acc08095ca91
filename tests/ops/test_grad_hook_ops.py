"""InsertGradientOf and Reusing: identities forward; InsertGradientOf's gradient is f(dout),
eagerly and in compiled graphs, equal to MindSpore 2.7.2's."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops

X = Tensor(np.array([0.5, -2.0, 3.0], np.float32))


def _clip(d):
    return ops.clip_by_value(d, -1.0, 1.0)


def _loss(a):
    return (ops.InsertGradientOf(_clip)(a * 3.0) * a).sum()


def test_insert_gradient_of_clips_the_gradient_as_mindspore():
    # d/da sum(I(3a) * a) = 3a + 3 * clip(a): MindSpore 2.7.2 gives [3, -9, 12].
    assert ms.grad(_loss)(X).asnumpy().tolist() == [3.0, -9.0, 12.0]
    assert ms.jit(ms.grad(_loss))(X).asnumpy().tolist() == [3.0, -9.0, 12.0]
    assert ops.InsertGradientOf(_clip)(X).asnumpy().tolist() == [0.5, -2.0, 3.0]


def test_reusing_is_an_identity_with_its_gradient():
    assert ops.Reusing()(X).asnumpy().tolist() == [0.5, -2.0, 3.0]
    assert ms.grad(lambda a: (ops.Reusing()(a) * a).sum())(X).asnumpy().tolist() == [1.0, -4.0,
                                                                                       6.0]


def test_insert_gradient_of_needs_a_callable_for_the_backward():
    with pytest.raises(TypeError, match="'f' must be callable"):
        ms.grad(lambda a: ops.InsertGradientOf(1)(a).sum())(X)
