"""Names and argument signatures of every CUDA kernel in kernels/cuda, for the real-compiler test.

A kernel is named `module:expression`, the expression evaluated in the module's namespace:
`pool:_max_pool_kernel` (a module-level kernel), `elementwise:add._kernel` (the kernel of a
device ufunc), `matmul:_gemm_kernel(np.dtype('float32'), False, True, False, (64, 64, 8, 4, 4))`
(a kernel an lru_cache factory builds). A signature is the argument types as numba spells them
in a signature string (`float32[:, ::1], int64, boolean`).

`tests/cuda_ptx/signatures.py` holds the table: every kernel with every signature the
framework launches it with. `LaunchCheck` keeps it complete: installed as a launch observer of
the strict simulator (tests/gpu and tests/kernels/cuda), it fails a launch whose kernel or
signature is missing from the table, or, with MINISPORE_RECORD_CUDA_SIGNATURES=1, records it
and rewrites the table at the end of the session. tests/cuda_ptx compiles the table with the
real CUDA compiler.
"""
import functools
import importlib
import os
import pkgutil

import numpy as np

TABLE_PATH = os.path.join(os.path.dirname(__file__), "cuda_ptx", "signatures.py")
RECORD = os.environ.get("MINISPORE_RECORD_CUDA_SIGNATURES", "") not in ("", "0")


def modules():
    """Every module of minispore.kernels.cuda, by short name."""
    import minispore.kernels.cuda as pkg
    return {m.name: importlib.import_module(f"{pkg.__name__}.{m.name}")
            for m in pkgutil.iter_modules(pkg.__path__)}


def is_kernel(obj):
    """Whether obj is a @cuda.jit function (real dispatcher or simulated kernel)."""
    return type(obj).__name__ in ("CUDADispatcher", "FakeCUDAKernel")


def is_device_function(obj):
    if type(obj).__name__ == "FakeCUDAKernel":
        return obj._device
    return obj.targetoptions.get("device", False)


def resolve(key):
    """The kernel a table key names."""
    module, expr = key.split(":", 1)
    return eval(expr, {"np": np}, vars(modules()[module]))  # noqa: S307 - our own table


def discover():
    """{key: object} for every module-level kernel and device function and every device
    ufunc's kernel (kernels made by lru_cache factories are named by `FactoryCalls`)."""
    by_id = {}
    for name, module in modules().items():
        for attr, obj in vars(module).items():
            if is_kernel(obj):
                home = obj.py_func.__module__ == module.__name__
            elif is_kernel(getattr(obj, "_kernel", None)):
                obj, attr, home = obj._kernel, f"{attr}._kernel", True
            else:
                continue
            # A kernel imported into another module keeps the name of the module defining it.
            if id(obj) not in by_id or home:
                by_id[id(obj)] = (f"{name}:{attr}", obj)
    return dict(by_id.values())


def factories():
    """{key prefix: lru_cache factory} for the module-level kernel factories."""
    return {f"{name}:{attr}": obj for name, module in modules().items()
            for attr, obj in vars(module).items()
            if isinstance(obj, functools._lru_cache_wrapper)}


def _literal(v):
    if isinstance(v, np.dtype):
        return f"np.dtype({v.name!r})"
    return repr(v)


def factory_key(prefix, args):
    return f"{prefix}({', '.join(_literal(a) for a in args)})"


def arg_spec(a):
    """An argument's numba type as written in a signature string."""
    from numba import typeof
    ty = typeof(a)
    if getattr(ty, "ndim", None) is not None and hasattr(ty, "layout"):
        dims = [":"] * ty.ndim
        if ty.layout == "C" and ty.ndim:
            dims[-1] = "::1"
        return f"{_scalar(ty.dtype)}[{', '.join(dims)}]"
    return _scalar(ty)


def _scalar(ty):
    # numba prints its boolean type as `bool`, a name its signature strings do not know.
    return "boolean" if str(ty) == "bool" else str(ty)


def load_table():
    from tests.cuda_ptx.signatures import SIGNATURES
    return {k: set(v) for k, v in SIGNATURES.items()}


def write_table(table):
    lines = ['"""Every CUDA kernel with every argument signature minispore launches it with',
             "(see tests/cuda_kernels.py). Written by `make cuda-signatures`",
             "(MINISPORE_RECORD_CUDA_SIGNATURES=1 over the simulator suites); the suites",
             'fail a launch that is missing here."""', "", "SIGNATURES = {"]
    for key in sorted(table):
        lines.append(f"    {key!r}: (")
        lines += [f"        {sig!r}," for sig in sorted(table[key])]
        lines.append("    ),")
    lines.append("}")
    with open(TABLE_PATH, "w") as f:
        f.write("\n".join(lines) + "\n")


class LaunchCheck:
    """A strict-simulator launch observer that holds every launch to the table."""

    def __init__(self):
        self.table = load_table()
        self.names = {id(obj): key for key, obj in discover().items()}
        self.recorded = {}
        for prefix, factory in factories().items():
            self._name_factory_results(prefix, factory)
        for key in self.table:
            if "(" in key:
                self.names[id(resolve(key))] = key

    def _name_factory_results(self, prefix, factory):
        names = self.names

        @functools.wraps(factory)
        def named(*args):
            kernel = factory(*args)
            names.setdefault(id(kernel), factory_key(prefix, args))
            return kernel

        module, attr = prefix.split(":")
        setattr(modules()[module], attr, named)

    def __call__(self, kernel, args):
        if not kernel.fn.__module__.startswith("minispore.kernels.cuda."):
            return      # a test's own kernel
        key = self.names.get(id(kernel))
        sig = ", ".join(arg_spec(a) for a in args)
        if key is not None and sig in self.table.get(key, ()):
            return
        if RECORD:
            if key is None:
                raise AssertionError(f"kernel {kernel.fn.__qualname__} has no name: make it a "
                                     f"module-level kernel, a device ufunc or an lru_cache "
                                     f"factory's result in kernels/cuda")
            self.recorded.setdefault(key, set()).add(sig)
            return
        raise AssertionError(
            f"CUDA kernel {key or kernel.fn.__qualname__} launched with ({sig}), which "
            f"tests/cuda_ptx/signatures.py lacks, so the real CUDA compiler never checks it: "
            f"run `make cuda-signatures` and commit the table.")

    def finish(self):
        """With MINISPORE_RECORD_CUDA_SIGNATURES=1: merge what was recorded into the table."""
        # Under MPI every rank launches what rank 0 launches; one writer keeps the file whole.
        if RECORD and self.recorded and os.environ.get("PMI_RANK", "0") == "0":
            table = load_table()
            for key, sigs in self.recorded.items():
                table.setdefault(key, set()).update(sigs)
            write_table(table)


@functools.lru_cache(maxsize=None)
def install_launch_check():
    """Make the simulator strict and hold every launch to the table (once per process)."""
    from minispore.device import strict_simulator
    strict_simulator.install()
    check = LaunchCheck()
    strict_simulator.observe_launches(check)
    return check
