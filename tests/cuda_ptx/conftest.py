"""The real CUDA compiler (NVVM from the numba-cuda[cu13] wheels) on a machine without a GPU.

These tests need numba.cuda's real target, not the simulator that tests/gpu and
tests/kernels/cuda switch on, so they run in a process of their own (the Makefile's
`test` target); importing them after the simulator was switched on fails here, loudly.
"""
import os
import sys

if "numba.cuda" not in sys.modules:
    os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
    from numba.core import config
    config.reload_config()

from numba.core import config  # noqa: E402

if config.ENABLE_CUDASIM:
    raise RuntimeError("tests/cuda_ptx compiles with the real CUDA compiler, but numba.cuda "
                       "was already imported with the simulator on: run `python -m pytest "
                       "tests/cuda_ptx` in its own process (as `make test` does).")

import numba.cuda.dispatcher as _dispatcher  # noqa: E402


class _ComputeCapability:
    compute_capability = (9, 0)


# Compiling a kernel that calls a device function asks the *current device* for its compute
# capability. There is no device here, so for compilation only (nothing is loaded or run)
# the dispatcher is given one; compile_ptx still targets the cc each test names.
_dispatcher.get_current_device = lambda: _ComputeCapability()
