"""Compile the signature table with numba's own CUDA target, not numba-cuda's: run by
test_compile_kernels.py as `python -S -m tests.cuda_ptx.numba_builtin_target` with site-packages
on PYTHONPATH, so numba-cuda's .pth redirect of `numba.cuda` is not installed. That is what a
user gets from an install whose .pth files never run (pip --target + PYTHONPATH: the H200 run),
and numba 0.66-0.68's own target refuses what numba-cuda accepts (two-argument min/max: numba
issue #10753). Prints a JSON object: where numba.cuda came from and every failure."""
import importlib
import json
import sys

import numpy as np
import numba.cuda.dispatcher as dispatcher
from numba import cuda
from numba.core import sigutils

from tests.cuda_ptx.signatures import SIGNATURES


class _ComputeCapability:
    compute_capability = (9, 0)


# As in conftest.py: device-function compilation asks the current device (there is none) for
# its compute capability. The typing errors this run exists for do not depend on the target,
# so it compiles for sm_90 only.
dispatcher.get_current_device = lambda: _ComputeCapability()


def main():
    failures = []
    for key, signatures in SIGNATURES.items():
        module, expr = key.split(":", 1)
        namespace = vars(importlib.import_module(f"kernels.cuda.{module}"))
        kernel = eval(expr, {"np": np}, namespace)  # noqa: S307 - our own table
        for sig in signatures:
            args, _ = sigutils.normalize_signature(f"({sig},)")
            try:
                cuda.compile_ptx(kernel, args, cc=(9, 0))
            except Exception as exc:   # every failure is reported, not only the first
                failures.append(f"{key} ({sig}): {type(exc).__name__}: "
                                f"{str(exc).strip().splitlines()[-1] if str(exc) else ''}")
    json.dump({"numba_cuda_from": cuda.__file__, "failures": failures}, sys.stdout)


if __name__ == "__main__":
    main()
