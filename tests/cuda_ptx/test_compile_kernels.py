"""Every CUDA kernel in kernels/cuda compiled by the real CUDA compiler (NVVM), for every
argument signature minispore launches it with (tests/cuda_ptx/signatures.py), to PTX for
sm_80 and sm_90: typing errors the simulator never sees (it runs the Python) fail here, on a
machine without a GPU."""
import ast
import functools
import inspect
import textwrap

import pytest
from numba import cuda
from numba.core import sigutils

from tests import cuda_kernels

TABLE = cuda_kernels.load_table()
CASES = [(key, sig) for key in sorted(TABLE) for sig in sorted(TABLE[key])]
CCS = [(8, 0), (9, 0)]


@functools.lru_cache(maxsize=None)   # the device-function check reuses the sm_90 builds
def compile_ptx(key, sig, cc):
    args, _ = sigutils.normalize_signature(f"({sig},)")
    return cuda.compile_ptx(cuda_kernels.resolve(key), args, cc=cc)[0]


@pytest.mark.parametrize("cc", CCS, ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
@pytest.mark.parametrize("key,sig", CASES, ids=[f"{k}|{s}" for k, s in CASES])
def test_kernel_compiles_to_ptx(key, sig, cc):
    ptx = compile_ptx(key, sig, cc)
    assert f".target sm_{cc[0]}{cc[1]}" in ptx and ".entry" in ptx


def test_every_kernel_has_a_signature():
    """A kernel added without a table entry fails here (the simulator suites add entries
    for every launch: `make cuda-signatures`)."""
    kernels = {key for key, obj in cuda_kernels.discover().items()
               if not cuda_kernels.is_device_function(obj)}
    built = {key for key in TABLE if "(" in key}
    assert sorted(kernels - set(TABLE)) == [], "kernels without signatures"
    assert sorted(set(TABLE) - kernels - built) == [], "stale table entries"
    for prefix in cuda_kernels.factories():
        assert any(k.startswith(prefix + "(") for k in built), f"no entry built by {prefix}"


def test_every_device_function_is_compiled_through_a_kernel():
    """Device functions are compiled as part of the kernels calling them (their overloads
    fill then); one that no kernel in the table calls would never meet the compiler."""
    for key, sig in CASES:
        compile_ptx(key, sig, (9, 0))
    uncompiled = [key for key, obj in cuda_kernels.discover().items()
                  if cuda_kernels.is_device_function(obj) and not obj.overloads]
    assert uncompiled == []


def _two_argument_ranges(fn):
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "range"
            and len(node.args) == 2]


def test_no_two_argument_range_in_device_code():
    """On the H200 run, the CUDA compiler there refused every kernel with `range(a, b)` (see
    kernels/cuda/pool.py) while this machine's accepts it: device code spells the step."""
    found = {}
    for key, obj in cuda_kernels.discover().items():
        lines = _two_argument_ranges(obj.py_func)
        if lines:
            found[key] = lines
    assert found == {}
