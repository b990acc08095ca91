"""CUDA kernel tests: on Numba's CUDA simulator unless NUMBA_ENABLE_CUDASIM=0 asks for a GPU.

numba reads NUMBA_ENABLE_CUDASIM when `numba` is first imported (numba.cuda's config is
numba.core.config), which in a full pytest run happened long before this file: so the variable
is set here and the config reloaded, and that takes effect as long as numba.cuda itself has not
been imported yet in this process (nothing in minispore imports it; kernels/cuda is only loaded
by these tests). If something did import it first, the check below fails loudly instead of
running the tests against a missing driver.
"""
import os
import sys

import numpy as np
import pytest

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

from numba.core import config  # noqa: E402

config.reload_config()

from numba import cuda  # noqa: E402

if not cuda.is_available():
    raise RuntimeError(
        "tests/kernels/cuda: numba.cuda has no device. Either numba.cuda was imported before "
        "this conftest set NUMBA_ENABLE_CUDASIM=1 (run `NUMBA_ENABLE_CUDASIM=1 python -m pytest "
        "tests/kernels/cuda` in its own process), or NUMBA_ENABLE_CUDASIM=0 was set on a "
        "machine without a usable GPU.")

DTYPES = [np.float32, np.float64]

if config.ENABLE_CUDASIM:
    # Device arrays refuse what real ones refuse, and every launch's signature must be in
    # the table tests/cuda_ptx compiles with the real CUDA compiler.
    from tests.cuda_kernels import install_launch_check  # noqa: E402
    LAUNCH_CHECK = install_launch_check()

    def pytest_sessionfinish(session):
        LAUNCH_CHECK.finish()


@pytest.fixture(autouse=True)
def fast_simulator_barriers():
    """The simulator runs each CUDA thread as a Python thread and polls them in a loop: a short
    GIL switch interval lets syncthreads() barriers complete several times faster."""
    if not config.ENABLE_CUDASIM:
        yield
        return
    saved = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    yield
    sys.setswitchinterval(saved)


def dev(*arrays):
    """Device copies of host arrays (one array -> one device array)."""
    out = [cuda.to_device(np.ascontiguousarray(a)) for a in arrays]
    return out[0] if len(out) == 1 else out


def empty(shape, dtype):
    """An uninitialised device array."""
    return cuda.device_array(shape, dtype=dtype)


def host(d):
    """A device array's contents on the host."""
    return d.copy_to_host()


def tol(dtype):
    """Comparison tolerance between the GPU and CPU kernels (summation order, FMA contraction
    on a real GPU)."""
    return dict(rtol=2e-6, atol=2e-6) if np.dtype(dtype) == np.float32 else dict(rtol=1e-12,
                                                                               atol=1e-12)


def same_kernels(cpu_module, cuda_module, is_kernel):
    """Assert every public kernel of cpu_module has a namesake in cuda_module with the same
    parameters; `is_kernel(obj)` says which public names of the CPU module are kernels."""
    import functools
    import inspect

    names = [n for n, obj in vars(cpu_module).items() if not n.startswith("_") and is_kernel(obj)]
    assert names
    for name in names:
        cpu_fn, gpu_fn = getattr(cpu_module, name), getattr(cuda_module, name, None)
        assert gpu_fn is not None, f"kernels/cuda lacks {name}"
        # A CPU kernel with bound leading arguments (functools.partial: the BLAS address of
        # kernels/cpu/matmul.py) compares by the parameters its callers pass.
        py = cpu_fn if isinstance(cpu_fn, functools.partial) else getattr(cpu_fn, "py_func", None)
        if py is not None:
            assert inspect.signature(py) == inspect.signature(gpu_fn), name
    return names


@pytest.fixture
def rng():
    return np.random.default_rng(0)
