"""Generated Numba kernels for fused elementwise chains: source generation, on-disk modules.

A chain's kernel is written to ``<dir>/minispore_fused_<hash>.py`` (the hash of its source, so
one file per chain signature: operators, dtypes, input kinds) and imported as a real module
registered in ``sys.modules``: Numba caches ``@njit(cache=True)`` functions only from such
modules, so a later process loads the machine code instead of compiling it again. ``<dir>`` is
``$MINISPORE_FUSED_DIR``, else ``$NUMBA_CACHE_DIR/minispore_fused``, else
``.numba_cache/minispore_fused`` next to the package (git-ignored).
"""
import hashlib
import importlib.util
import inspect
import os
import re
import string
import sys
import tempfile
from dataclasses import dataclass

from minispore.common.registry import REGISTRY
from minispore.kernels import scalar

# Scalar bodies of kernels/scalar.py are called as ``_s_<name>(...)`` in templates; a generated
# module binds each name it uses to the body, compiled inline into its kernel.
_PREFIX = "_s_"
_CALL = re.compile(_PREFIX + r"(\w+)\(")
# Numba's cache does not see a change in an inlined callee, so the bodies' source is part of
# every generated module's hash (an edit of kernels/scalar.py gives new modules).
_SCALAR_HASH = hashlib.sha1(inspect.getsource(scalar).encode()).hexdigest()[:16]


def call(name, *operands):
    """Template text calling the scalar body `name` of kernels/scalar.py on `operands`."""
    if name not in scalar.ELEMENTWISE:
        raise KeyError(f"kernels/scalar.py has no elementwise body {name!r}.")
    return f"{_PREFIX}{name}({', '.join(operands)})"


def arity(name):
    """How many operands the scalar body `name` takes."""
    return getattr(scalar, name).__code__.co_argcount


@dataclass
class KernelSpec:
    """What the generator needs. ``inputs``: (dtype name, kind) per kernel input, kind one of
    'scalar' (size 1, read once), 'full' (flat index), 'row' (the output's trailing dims,
    index % size), 'broadcast' (expanded to the output shape before the call). ``steps``: per
    node in order, (operator name, template or None for a layout-only node, operands,
    output dtype name, dtype name of ``{T}``); operands are ("temp", key), ("input", index) or
    ("const", value). ``temps``: the key of each step's output. ``shape_from``: the input whose
    shape is the output's, or None (the output shape is then passed as the last argument)."""
    inputs: list
    steps: list
    temps: list
    out_dtype: str
    shape_from: object


def _np_type(name):
    return "np.bool_" if name == "bool" else f"np.{name}"


def _literal(value, dtype):
    """A constant operand typed like the node's operands (a bare Python float would promote
    float32 math to float64)."""
    if isinstance(value, bool):
        return repr(value)
    value = float(value) if dtype.startswith("float") else int(value)
    if value != value:
        text = "math.nan"
    elif value in (float("inf"), float("-inf")):
        text = "math.inf" if value > 0 else "-math.inf"
    else:
        text = repr(value)
    return f"{_np_type(dtype)}({text})"


def _referenced(template):
    fields = set()
    for part in template:
        for _, field, _, _ in string.Formatter().parse(part):
            if field is not None:
                fields.add(field)
    return fields


def generate(spec):
    """The module source for `spec`: ``kernel(*inputs, out)`` (njit, cached) and
    ``run(*inputs[, shape])``, which allocates the output and calls it."""
    names = {key: f"t{k}" for k, key in enumerate(spec.temps)}
    invariant = set()
    reads = []
    for i, (_, kind) in enumerate(spec.inputs):
        if kind == "scalar":
            reads.append(f"s{i} = a{i}.reshape(a{i}.size)[0]")
            invariant.add(("input", i))
        else:
            reads.append(f"x{i} = a{i}.reshape(a{i}.size)")
    has_rows = any(kind == "row" for _, kind in spec.inputs)

    def operand(op, dtype):
        if op[0] == "temp":
            return names[op[1]]
        if op[0] == "input":
            i = op[1]
            kind = spec.inputs[i][1]
            return f"s{i}" if kind == "scalar" else (f"x{i}[q]" if kind == "row" else f"x{i}[i]")
        return _literal(op[1], dtype)

    before, inside = [], []
    for k, (_, template, operands, out_dtype, t_dtype) in enumerate(spec.steps):
        key = spec.temps[k]
        target = names[key]
        if template is None:
            used = {0}
            lines = [f"{target} = {operand(operands[0], t_dtype)}"]
        else:
            parts = (template,) if isinstance(template, str) else tuple(template)
            used = {int(f) for f in _referenced(parts) if f.isdigit()}
            args = [operand(op, t_dtype) if j in used else None for j, op in enumerate(operands)]
            fmt = dict(T=_np_type(t_dtype), L=f"{target}_")
            lines = [p.format(*args, **fmt) for p in parts[:-1]]
            lines.append(f"{target} = {_np_type(out_dtype)}({parts[-1].format(*args, **fmt)})")
        hoist = all(op[0] == "const" or op in invariant
                    for j, op in enumerate(operands) if j in used)
        (before if hoist else inside).extend(lines)
        if hoist:
            invariant.add(("temp", key))
    root = names[spec.temps[-1]]
    n_in = len(spec.inputs)
    params = ", ".join([f"a{i}" for i in range(n_in)] + ["out"])
    ops = "+".join(step[0] for step in spec.steps)
    body = ["o = out.reshape(out.size)"] + reads + before + ["n = np.uint64(out.size)"]
    store = inside + [f"o[i] = {root}"]
    if has_rows:
        r = next(i for i, (_, kind) in enumerate(spec.inputs) if kind == "row")
        body += [f"inner = np.uint64(a{r}.size)",
                 "outer = n // inner if inner else np.uint64(0)",
                 "for p in range(outer):",
                 "    base = p * inner",
                 "    for q in range(inner):",
                 "        i = base + q"] + ["        " + ln for ln in store]
    else:
        body += ["for i in range(n):"] + ["    " + ln for ln in store]
    kernel = (["@njit(cache=True, error_model=\"numpy\")", f"def kernel({params}):",
               f'    """{ops}: one pass over out (flat, C order); inputs per kind: '
               f'{", ".join(kind for _, kind in spec.inputs) or "none"}."""']
              + ["    " + ln for ln in body])
    run_params = [f"a{i}" for i in range(n_in)] + ([] if spec.shape_from is not None
                                                   else ["shape"])
    shape = f"a{spec.shape_from}.shape" if spec.shape_from is not None else "shape"
    call_args = []
    for i, (_, kind) in enumerate(spec.inputs):
        call_args.append(f"np.ascontiguousarray(np.broadcast_to(a{i}, out.shape))"
                         if kind == "broadcast" else f"np.asarray(a{i}, order='C')")
    run = [f"def run({', '.join(run_params + ['out=None'])}):",
           "    if out is None:",
           f"        out = np.empty({shape}, {_np_type(spec.out_dtype)})",
           f"    kernel({', '.join(call_args + ['out'])})",
           "    return out"]
    used = sorted(set(_CALL.findall("\n".join(kernel))))
    header = [f'"""Generated by minispore.graph.fusion (do not edit): {ops}."""',
              f"# kernels/scalar.py {_SCALAR_HASH}",
              "import math", "", "import numpy as np", "from numba import njit", ""]
    if used:
        header += ["from minispore.kernels import scalar", ""]
        header += [f'{_PREFIX}{name} = njit(inline="always")(scalar.{name})' for name in used]
    return "\n".join(header + ["", ""] + kernel + ["", ""] + run) + "\n"


def kernel_dir():
    """Where generated kernel modules are written (see the module docstring)."""
    path = REGISTRY.env("MINISPORE_FUSED_DIR")
    if not path:
        # The folder holding the minispore package (this file is minispore/graph/…).
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        base = REGISTRY.env("NUMBA_CACHE_DIR") or os.path.join(root, ".numba_cache")
        path = os.path.join(base, "minispore_fused")
    # Absolute, so a later chdir (or a relative NUMBA_CACHE_DIR) cannot split the cache.
    path = os.path.abspath(path)
    os.makedirs(path, exist_ok=True)
    return path


def load(spec):
    """The imported module for `spec` (generated, written and imported on first use)."""
    source = generate(spec)
    name = "minispore_fused_" + hashlib.sha1(source.encode()).hexdigest()[:16]
    module = sys.modules.get(name)
    if module is not None:
        return module
    folder = kernel_dir()
    path = os.path.join(folder, name + ".py")
    # Written once and never touched again: Numba's cache is invalidated by the file's mtime.
    # A temporary file plus rename keeps concurrent processes (MPI ranks) from reading half.
    if not os.path.exists(path):
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(source)
        try:
            os.link(tmp, path)      # fails if another process got there first: keep its file
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp)
    loader_spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[name] = module
    loader_spec.loader.exec_module(module)
    return module
