"""The import paths MindSpore's own tests (tests/st/ops/cpu) spell resolve to working minispore
objects: mindspore.common.api, mindspore.common's Tensor/Parameter, ops.composite,
ops.operations._grad_ops and every primitive class under ops.operations. Values were printed by
MindSpore 2.7.2 for the same calls."""
import numpy as np
import pytest

import minispore
from minispore._mindspore_alias import install, uninstall


@pytest.fixture
def ms():
    install()
    import mindspore
    yield mindspore
    uninstall()


def f32(values):
    return minispore.Tensor(np.array(values, np.float32))


def test_common_names(ms):
    from mindspore.common import Parameter, ParameterTuple, Tensor, dtype
    from mindspore.common.api import _pynative_executor, jit
    assert Tensor is ms.Tensor and Parameter is ms.Parameter and ParameterTuple is ms.ParameterTuple
    assert dtype is ms.common.dtype and jit is ms.jit
    assert _pynative_executor.sync() is None   # eager operators have already run


def test_composite_grad_operation(ms):
    from mindspore.ops import composite as C
    grad = C.GradOperation()(lambda x: x * x)(f32([3.0, -1.5]))
    np.testing.assert_allclose(grad.asnumpy(), [6.0, -3.0])


def test_grad_ops(ms):
    from mindspore.ops.operations import _grad_ops as G
    y, dy = f32([1.0, 2.0, 4.0]), f32([1.0, 1.0, 2.0])
    np.testing.assert_allclose(G.SqrtGrad()(y, dy).asnumpy(), [0.5, 0.25, 0.25])
    np.testing.assert_allclose(G.RsqrtGrad()(y, dy).asnumpy(), [-0.5, -4.0, -64.0])
    d = minispore.Tensor(np.arange(4, dtype=np.float32).reshape(2, 2))
    np.testing.assert_allclose(G.StridedSliceGrad()(d, (3, 4), (1, 0), (3, 4), (1, 2)).asnumpy(),
                               [[0, 0, 0, 0], [0, 0, 1, 0], [2, 0, 3, 0]])
    x = minispore.Tensor(np.arange(12, dtype=np.float32).reshape(2, 3, 2))
    np.testing.assert_allclose(G.BiasAddGrad()(x).asnumpy(), [14.0, 22.0, 30.0])


def test_composed_primitives_under_operations(ms):
    import mindspore.ops.operations as P
    from mindspore.ops.operations import Acosh, Unique
    assert P.Stack is ms.ops.Stack and P.Shape is ms.ops.Shape and Acosh is ms.ops.Acosh
    np.testing.assert_allclose(Acosh()(f32([1.0, 2.0])).asnumpy(), [0.0, np.arccosh(2.0)],
                               rtol=1e-6)
    out, idx = Unique()(minispore.Tensor(np.array([3, 1, 3, 2], np.int32)))
    assert out.asnumpy().tolist() == [3, 1, 2] and idx.asnumpy().tolist() == [0, 1, 0, 2]
    assert not hasattr(P, "GradOperation") and not hasattr(P, "Primitive")


def test_mindspore_module_paths_resolve_the_whole_package(ms):
    """MindSpore's ops/operations/<topic>_ops.py and ops/function/<topic>_func.py modules
    resolve any primitive or function minispore defines, whichever of its modules holds it;
    a module minispore lacks is a view of the package; unknown names and modules still fail."""
    from mindspore.ops.function.math_func import approximate_equal
    from mindspore.ops.function.random_func import random_poisson
    from mindspore.ops.operations import _inner_ops as inner
    from mindspore.ops.operations.array_ops import TensorScatterElements
    from mindspore.ops.operations.math_ops import Lerp
    assert TensorScatterElements is ms.ops.TensorScatterElements and Lerp is inner.Lerp
    assert random_poisson is ms.ops.random_poisson
    np.testing.assert_array_equal(approximate_equal(f32([1.0, 2.0]), f32([1.0, 2.5]), 0.1)
                                  .asnumpy(), [True, False])
    import mindspore.ops.operations.sparse_ops as sparse_ops
    with pytest.raises(AttributeError, match="no attribute 'NoSuchOp'"):
        sparse_ops.NoSuchOp
    with pytest.raises(ModuleNotFoundError, match="nonexistent_ops"):
        import mindspore.ops.operations.nonexistent_ops  # noqa: F401
