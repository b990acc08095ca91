"""GPU-mode tests (device_target='GPU'): on Numba's CUDA simulator unless NUMBA_ENABLE_CUDASIM=0
asks for a real GPU.

numba reads NUMBA_ENABLE_CUDASIM when `numba` is first imported, which in a full pytest run
happened long before this file; numba.cuda takes the simulator from that config when it is
itself first imported. So the variable is set here and the config reloaded while numba.cuda
is not imported yet (importing minispore never imports it; tests/kernels/cuda/conftest.py
does the same, whichever of the two pytest collects first). If numba.cuda came in earlier
without the simulator, the check below fails loudly instead of testing against no device.

The simulator runs every CUDA thread as a Python thread and its scheduler polls them in a
loop: a short GIL switch interval lets barriers (syncthreads) complete several times faster,
so the tests set one and restore the default after each test.
"""
import os
import sys

import pytest

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

from numba.core import config  # noqa: E402

if "numba.cuda" not in sys.modules:
    config.reload_config()

from numba import cuda  # noqa: E402

import minispore as ms  # noqa: E402

if not cuda.is_available():
    raise RuntimeError(
        "tests/gpu: numba.cuda has no device. Either numba.cuda was imported before this "
        "conftest set NUMBA_ENABLE_CUDASIM=1 (run `NUMBA_ENABLE_CUDASIM=1 python -m pytest "
        "tests/gpu` in its own process), or NUMBA_ENABLE_CUDASIM=0 was set on a machine "
        "without a usable GPU.")

SIMULATOR = bool(config.ENABLE_CUDASIM)

if config.ENABLE_CUDASIM:
    # Device arrays refuse what real ones refuse, and every launch's signature must be in
    # the table tests/cuda_ptx compiles with the real CUDA compiler.
    from tests.cuda_kernels import install_launch_check  # noqa: E402
    LAUNCH_CHECK = install_launch_check()

    def pytest_sessionfinish(session):
        LAUNCH_CHECK.finish()


@pytest.fixture(autouse=True)
def fast_simulator_barriers():
    if not SIMULATOR:
        yield
        return
    saved = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    yield
    sys.setswitchinterval(saved)


@pytest.fixture
def gpu():
    """device_target='GPU' for the test (tests/conftest.py restores the context after it)."""
    ms.set_context(device_target="GPU")
    return ms


def on_both(fn, *host_args):
    """fn run on CPU and on GPU with fresh Tensors made from `host_args` on each device;
    returns (cpu result, gpu result) as numpy structures (the GPU one copied back)."""
    out = []
    for target in ("CPU", "GPU"):
        ms.set_context(device_target=target)
        args = [ms.Tensor(a) for a in host_args]
        out.append(_host(fn(*args)))
    ms.set_context(device_target="CPU")
    return out


def _host(x):
    if isinstance(x, (tuple, list)):
        return type(x)(_host(v) for v in x)
    if isinstance(x, ms.Tensor):
        assert ms.context.get_context("device_target") == "CPU" or \
            type(x._data).__name__ != "ndarray", "a GPU result was a host array"
        return x.asnumpy()
    return x
