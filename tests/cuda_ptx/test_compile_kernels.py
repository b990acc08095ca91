"""Every CUDA kernel in kernels/cuda compiled by the real CUDA compiler (NVVM), for every
argument signature minispore launches it with (tests/cuda_ptx/signatures.py), to PTX for
sm_80 and sm_90 by numba-cuda, and by numba's own CUDA target: typing errors the simulator
never sees (it runs the Python) fail here, on a machine without a GPU."""
import functools
import json
import os
import subprocess
import sys
import sysconfig

import pytest
from numba import cuda
from numba.core import sigutils

from tests import cuda_kernels

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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


def test_every_kernel_compiles_with_numbas_own_cuda_target():
    """numba's own (deprecated) CUDA target is what `import numba.cuda` gives where
    numba-cuda's .pth redirect never ran (pip --target + PYTHONPATH, as on the H200 run). Its
    numba 0.66-0.68 versions refuse two-argument min/max ("Signature mismatch: 2 argument
    types given, but function takes 1 arguments", numba issue #10753), which failed every
    pooling and sorting kernel there while numba-cuda compiles them: both must accept every
    kernel. A process without site (-S) keeps the redirect out."""
    import numba
    if not os.path.exists(os.path.join(os.path.dirname(numba.__file__), "cuda", "__init__.py")):
        pytest.skip(f"numba {numba.__version__} ships no CUDA target of its own (numba-cuda's "
                    f"is then the only one a user can get)")
    site_packages = sysconfig.get_paths()["purelib"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([site_packages, ROOT]),
               NUMBA_ENABLE_CUDASIM="0")
    run = subprocess.run([sys.executable, "-S", "-m", "tests.cuda_ptx.numba_builtin_target"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout)
    assert os.path.join("numba", "cuda") in report["numba_cuda_from"] and \
        "numba_cuda" not in report["numba_cuda_from"], report["numba_cuda_from"]
    assert report["failures"] == []
