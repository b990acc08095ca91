"""CUDA activation kernels against the CPU kernels of the same name: bias add, and the\nactivation bodies at saturating inputs."""
import numpy as np
import pytest

from minispore.kernels.cpu import activation as cpu
from minispore.kernels.cpu import elementwise as cpu_elementwise
from minispore.kernels.cuda import activation as gpu
from minispore.kernels.cuda import elementwise as gpu_elementwise

from .conftest import DTYPES, dev, empty, host, same_kernels, tol

NAMES = same_kernels(cpu, gpu, lambda obj: hasattr(obj, "py_func"))
# The activations are scalar bodies (kernels/scalar.py) run by the elementwise kernels, which
# tests/kernels/cuda/test_elementwise.py compares on normal inputs; these add the saturated
# ends (|x| = 40), where sigmoid's two branches and tanh/erf flatten out.
UNARY = ["relu", "sigmoid", "tanh", "gelu_tanh", "gelu_erf"]
# grad name -> which argument holds the forward output y (else x) and the position of dy.
GRADS = {"relu_grad": ("dy", "y"), "sigmoid_grad": ("y", "dy"), "tanh_grad": ("y", "dy"),
         "gelu_tanh_grad": ("dy", "x"), "gelu_erf_grad": ("dy", "x")}


def test_every_cpu_kernel_has_a_cuda_namesake():
    assert {"bias_add", "bias_add_relu", "bias_add_grad", "int_bias_add_grad"} == set(NAMES)


def _saturating(rng, dtype):
    x = (rng.standard_normal((4, 33)) * 3).astype(dtype)
    x[0, :3] = [0, -40, 40]
    return x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", UNARY)
def test_forward(name, dtype, rng):
    x = _saturating(rng, dtype)
    want = getattr(cpu_elementwise, name)(x)
    got = getattr(gpu_elementwise, name)(dev(x))
    np.testing.assert_allclose(host(got), want, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(GRADS))
def test_grad(name, dtype, rng):
    x = _saturating(rng, dtype)
    y = getattr(cpu_elementwise, name[:-len("_grad")])(x)
    dy = rng.standard_normal(x.shape).astype(dtype)
    values = {"x": x, "y": y, "dy": dy}
    args = [values[k] for k in GRADS[name]]
    want = getattr(cpu_elementwise, name)(*args)
    got = getattr(gpu_elementwise, name)(*dev(*args))
    np.testing.assert_allclose(host(got), want, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 5, 7), (6, 9, 1)], ids=["nck", "channel-last"])
@pytest.mark.parametrize("name", ["bias_add", "bias_add_relu"])
def test_bias_add(name, shape, dtype, rng):
    x = rng.standard_normal(shape).astype(dtype)
    b = rng.standard_normal(shape[1]).astype(dtype)
    want = np.empty_like(x)
    getattr(cpu, name)(x, b, want)
    got = empty(shape, dtype)
    getattr(gpu, name)(*dev(x, b), got)
    np.testing.assert_allclose(host(got), want, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 5, 23), (40, 3, 1)], ids=["nck", "channel-last"])
def test_bias_add_grad(shape, dtype, rng):
    dy = rng.standard_normal(shape).astype(dtype)
    want = np.empty(shape[1], dtype)
    cpu.bias_add_grad(dy, want)
    got = empty(shape[1], dtype)
    gpu.bias_add_grad(dev(dy), got)
    np.testing.assert_allclose(host(got), want, **tol(dtype))
    np.testing.assert_allclose(host(got), dy.astype(np.float64).sum(axis=(0, 2)), **tol(dtype))


@pytest.mark.parametrize("dtype", [np.int8, np.uint64])
def test_int_bias_add_grad_wraps_as_the_cpu_kernel(dtype, rng):
    """Each channel of 3 * 5 * 40 values sums past the type's range: both wrap alike."""
    dy = rng.integers(0, 100, (3, 5, 40)).astype(dtype) * dtype(1 if dtype == np.int8 else
                                                              2 ** 58)
    want = np.empty(5, dtype)
    cpu.int_bias_add_grad(dy, want)
    got = empty(5, dtype)
    gpu.int_bias_add_grad(dev(dy), got)
    np.testing.assert_array_equal(host(got), want)
    np.testing.assert_array_equal(want, dy.sum(axis=(0, 2), dtype=dtype))
