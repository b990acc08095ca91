"""ops.CheckNumerics against MindSpore 2.7.2 (its messages, dtypes and gradient, recorded from
the CPU wheel), eagerly and in a compiled graph, where it checks every run's values.

MindSpore's runtime is asynchronous: its error surfaces at a later synchronisation, and which
of NaN or Inf it names then depends on timing. minispore raises at the call, naming the first
non-finite element in row-major order."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_finite_values_pass_through(dtype):
    x = np.array([1.0, -2.0, 3.5], dtype)
    out = ops.CheckNumerics()(Tensor(x))
    assert out.dtype == Tensor(x).dtype
    np.testing.assert_array_equal(out.asnumpy(), x)


@pytest.mark.parametrize("values, kind", [
    ([1.0, np.nan], "NaN"), ([1.0, np.inf], "Inf"), ([np.inf, np.nan], "Inf"),
    ([2.0, -np.inf, np.nan], "Inf"), ([np.nan, np.inf], "NaN")])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_the_first_non_finite_element_is_named(values, kind, dtype):
    with pytest.raises(RuntimeError, match=f"^: Tensor had {kind} values$"):
        ops.CheckNumerics()(Tensor(np.array(values, dtype)))


def test_integers_are_refused_and_the_gradient_passes_through():
    with pytest.raises(TypeError, match=r"For primitive\[CheckNumerics\], the input "
                                        r"argument\[x\] must be a type of \{Tensor\[Float16\], "
                                        r"Tensor\[Float32\], Tensor\[Float64\]\}, but got "
                                        r"Tensor\[Int32\]"):
        ops.CheckNumerics()(Tensor(np.array([1, 2], np.int32)))
    check = ops.CheckNumerics()
    grad = ms.grad(lambda x: (check(x) * 3).sum())(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_array_equal(grad.asnumpy(), [3.0, 3.0])       # MindSpore's


def test_a_compiled_graph_checks_every_run():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.check = ops.CheckNumerics()

        def construct(self, x):
            return self.check(x) * 2

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Net()
        np.testing.assert_array_equal(net(Tensor(np.array([1.0, 2.0], np.float32))).asnumpy(),
                                      [2.0, 4.0])
        with pytest.raises(RuntimeError, match="Tensor had NaN values"):
            net(Tensor(np.array([1.0, np.nan], np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
