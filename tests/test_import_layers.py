"""The import graph follows DESIGN.md's layers: every import of every module, read from its AST.

Layers, lowest first (DESIGN.md "Layers"); a module imports only its own layer and those below:

    kernels <- device <- common <- communication <- ops <- graph <- parallel <- nn <- train <- ps
    <- api

- ps (the parameter server) hooks itself into the layers below at import (an init hook, a
  compile hook, the parameter-server optimizer calls, the update redirect), each a plug point
  of the settings registry (PLUG_POINTS).
- api is the top-level package: minispore/__init__.py, context.py, run.py, msrun.py,
  __main__.py, _mindspore_alias.py, amp.py (mindspore.amp, over train/amp.py) and _checkparam.py
  (mindspore._checkparam, the validator front ends call).
- dataset stands beside the stack: it imports only common and device, and only train and api
  import it.
- numpy (mindspore.numpy) stands beside the stack too: NumPy-style functions composed of ops, so
  it imports ops and what ops may import; only api imports it (`mindspore.numpy` after
  `import mindspore`), so no layer of the framework depends on it.
- kernels/ imports only numpy, numba (llvmlite for intrinsics) and the standard library.
- Imports inside functions count: a lazy upward import is still upward (Tensor's operators are
  installed by ops; Parameter gets graph's TraceError through a registration hook).
- Only minispore/communication imports mpi4py; only kernels/cuda and minispore/device/cuda.py
  (with its strict_simulator.py) import numba.cuda.
- No import circle, between modules or inside a package. Every import counts, at module level or
  inside a function: a lazy import only postpones the loop to the first call, and a package
  whose modules reach each other in a circle has no order to read, test or split it in.
  A package is a top-level subpackage of minispore with all its subpackages (minispore.ops is
  one package: ops.operations and ops.function inside it); the modules directly in minispore/
  (api) form one more. Imports between packages go one way by the layer rules above.
- No circle between the sub-packages of a package either (minispore.communication.cluster and
  minispore.communication.watch, ops.operations and ops.function, parallel's comm, pipeline,
  place, rules and strategy): taken whole, with every import of their modules, sub-packages of
  one package import each other one way (parallel: pipeline -> place, rules -> strategy; the
  strategy choosers propagation.py and search.py read rules, so they stay in parallel/ itself).
"""
import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KERNEL_DEPS = {"numpy", "numba", "llvmlite"}
STACK = ("kernels", "device", "common", "communication", "ops", "graph", "parallel", "nn", "train",
         "ps", "api")
API_MODULES = {"minispore", "minispore.context", "minispore.run", "minispore.msrun",
               "minispore.__main__", "minispore._mindspore_alias", "minispore.amp",
               "minispore._checkparam"}
DATASET_DEPS = {"dataset", "common", "device"}
DATASET_USERS = {"dataset", "train", "api"}
NUMPY_DEPS = {"numpy", "ops", "communication", "common", "device", "kernels"}
NUMPY_USERS = {"numpy", "api"}
# Modules kept at a lower package's path for MindSpore's import names, whose code belongs to the
# layer they re-export (nothing below that layer may import them).
FACADES = {"minispore.communication.comm_func": "ops", "minispore.common.api": "graph",
           # mindspore.mindrecord: FileWriter, kept beside MindDataset in the dataset layer
           "minispore.mindrecord": "dataset"}
CUDA_BACKEND = ("minispore.kernels.cuda", "minispore.device.cuda",
                "minispore.device.strict_simulator")

# Circles between sibling sub-packages that predate their check; the list only shrinks.
SUBPACKAGE_CIRCLES_ALLOWED = [["minispore.dataset.engine", "minispore.dataset.transforms"]]
# Sub-packages the circle check must see (a checker that missed a folder would pass it).
SUBPACKAGES_CHECKED = {"minispore.communication.cluster", "minispore.communication.watch",
                       "minispore.parallel.comm", "minispore.parallel.pipeline",
                       "minispore.parallel.place", "minispore.parallel.rules",
                       "minispore.parallel.strategy"}

# (importing module, imported module) pairs tolerated in modules being rewritten (issue 11):
# parallel/partition.py, graph/compile.py, graph/tracer.py, graph/jit.py, ops/primitive.py and
# ops/interpreter.py. None of them imports upward today, so the list is empty; it only shrinks.
ALLOWED = set()


def source_modules():
    """{module name: path} for every module of the installed package (kernels -> minispore.kernels)."""
    found = {}
    for prefix, folder in (("minispore", "minispore"), ("minispore.kernels", "kernels")):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((prefix,) + parts)] = path
    return found


MODULES = source_modules()


class Import:
    """One import: `raw` is the dotted name as written (`from m import name`: m.name); `target`
    is the minispore module it loads (the longest prefix of `raw` that is one), else `raw`."""

    def __init__(self, target, raw, lineno, in_function):
        self.target, self.raw, self.lineno, self.in_function = target, raw, lineno, in_function


def resolve(name, modules):
    """The longest prefix of `name` that is a known minispore module (None outside minispore)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def resolve_from(module, is_package, level, name):
    if level == 0:
        return name
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[:len(package) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def imports_of(module, path, modules=MODULES):
    """Every import in the module's source, at any depth (functions, classes, branches)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    is_package = path.name == "__init__.py"
    found = []

    def add(raw, lineno, in_function):
        found.append(Import(resolve(raw, modules) or raw, raw, lineno, in_function))

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                      ast.Lambda))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    add(alias.name, child.lineno, in_function)
            elif isinstance(child, ast.ImportFrom):
                base = resolve_from(module, is_package, child.level, child.module)
                for alias in child.names:
                    add(base if alias.name == "*" else f"{base}.{alias.name}", child.lineno,
                        in_function)
            elif (isinstance(child, ast.Attribute) and child.attr == "cuda"
                  and isinstance(child.value, ast.Name) and child.value.id == "numba"):
                add("numba.cuda", child.lineno, in_function)
            elif (isinstance(child, ast.Call) and child.args
                  and isinstance(child.args[0], ast.Constant) and isinstance(child.args[0].value, str)
                  and getattr(child.func, "attr", getattr(child.func, "id", None)) == "import_module"):
                add(child.args[0].value, child.lineno, True)
            visit(child, inner)

    visit(tree, False)
    return found


def within(target, prefix):
    return target == prefix or target.startswith(prefix + ".")


def layer_of(module):
    """The layer a minispore module belongs to (None for anything outside minispore)."""
    if module in FACADES:
        return FACADES[module]
    if module in API_MODULES:
        return "api"
    if not within(module, "minispore"):
        return None
    return module.split(".")[1]


def may_import(src, dst):
    if src == dst or src == "api":
        return True
    if src == "dataset":
        return dst in DATASET_DEPS
    if dst == "dataset":
        return src in DATASET_USERS
    if src == "numpy":
        return dst in NUMPY_DEPS
    if dst == "numpy":
        return src in NUMPY_USERS
    return STACK.index(dst) < STACK.index(src)


def violations(module, path, modules=MODULES, rel=None):
    rel = rel or path.relative_to(ROOT).as_posix()
    src = layer_of(module)
    out, seen = [], set()
    for imp in imports_of(module, path, modules):
        t, raw = imp.target, imp.raw
        dst = layer_of(t)
        where = " (inside a function)" if imp.in_function else ""
        bad = None
        if dst is not None and (module, t) not in ALLOWED and not may_import(src, dst):
            bad = f"{src} must not import {dst}{where}"
        elif src == "kernels" and dst is None and raw.split(".")[0] not in (
                KERNEL_DEPS | sys.stdlib_module_names):
            bad = "kernels/ imports only numpy, numba and the standard library"
        if within(raw, "mpi4py") and src != "communication":
            bad = "only minispore/communication imports mpi4py"
        if within(raw, "numba.cuda") and not any(within(module, m) for m in CUDA_BACKEND):
            bad = "only kernels/cuda and the device CUDA backend import numba.cuda"
        if bad and (imp.lineno, bad) not in seen:
            seen.add((imp.lineno, bad))
            out.append(f"{rel}:{imp.lineno}: imports {t}: {bad}")
    return out


def module_graph(modules=MODULES):
    """{module: {imported minispore module: line}} for module-level imports."""
    graph = {}
    for module, path in modules.items():
        edges = graph[module] = {}
        for imp in imports_of(module, path, modules):
            if not imp.in_function and imp.target in modules and imp.target != module:
                edges.setdefault(imp.target, imp.lineno)
    return graph


def package_of(module, modules=MODULES):
    """The package whose circles are checked: minispore.<top> (with every subpackage of it;
    minispore.kernels is one), or minispore for the modules directly in minispore/."""
    parts = module.split(".")
    if len(parts) > 2 or modules[module].name == "__init__.py":
        return ".".join(parts[:2])
    return "minispore"


def subpackage_of(module, modules=MODULES):
    """The sub-package (minispore.<package>.<sub>) a module is in, or None for the modules of
    a package's own folder."""
    parts = module.split(".")
    folder = parts if modules[module].name == "__init__.py" else parts[:-1]
    return ".".join(folder[:3]) if len(folder) >= 3 else None


def subpackage_graph(modules=MODULES):
    """{sub-package: {sibling sub-package it imports: line}} over every import, at any depth."""
    graph = {}
    for module, path in modules.items():
        sub = subpackage_of(module, modules)
        if sub is None:
            continue
        edges = graph.setdefault(sub, {})
        for imp in imports_of(module, path, modules):
            target = imp.target in modules and subpackage_of(imp.target, modules)
            if target and target != sub and \
                    target.rpartition(".")[0] == sub.rpartition(".")[0]:
                edges.setdefault(target, imp.lineno)
                graph.setdefault(target, {})
    return graph


def package_graph(modules=MODULES):
    """{module: {imported module of the same package: line}} for every import, at any depth."""
    graph = {}
    for module, path in modules.items():
        edges = graph[module] = {}
        for imp in imports_of(module, path, modules):
            if (imp.target in modules and imp.target != module
                    and package_of(imp.target, modules) == package_of(module, modules)):
                edges.setdefault(imp.target, imp.lineno)
    return graph


def cycles(graph):
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_modules_found():
    assert {"minispore.ops.primitive", "minispore.kernels.cpu.matmul", "minispore.device",
            "minispore.device.cuda", "minispore.common.tensor"} <= set(MODULES)
    assert {layer_of(m) for m in MODULES} == set(STACK) | {"dataset", "numpy"}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_follow_layers(module):
    bad = violations(module, MODULES[module])
    assert not bad, "layering violations:\n" + "\n".join(bad)


def test_allowed_violations_still_exist():
    """An allow-list entry whose import is gone must be deleted (the list only shrinks)."""
    present = {(m, imp.target) for m in {m for m, _ in ALLOWED}
               for imp in imports_of(m, MODULES[m])}
    assert ALLOWED <= present, f"stale allow-list entries: {sorted(ALLOWED - present)}"


def describe(graph, found):
    lines = []
    for component in found:
        lines.append(f"{len(component)} modules: " + " <-> ".join(component))
        lines += [f"    {MODULES[a].relative_to(ROOT)}:{graph[a][b]}: imports {b}"
                  for a in component for b in graph[a] if b in component]
    return "\n".join(lines)


def test_module_imports_have_no_cycles():
    graph = module_graph()
    found = cycles(graph)
    assert not found, "import cycles:\n" + describe(graph, found)


def test_packages_have_no_import_circles():
    """Within each package, imports inside functions included."""
    graph = package_graph()
    found = cycles(graph)
    assert not found, "import circles inside packages:\n" + describe(graph, found)


def test_subpackages_have_no_import_circles():
    """Sibling sub-packages of a package, each taken whole, import each other one way."""
    found = cycles(subpackage_graph())
    assert sorted(found) == SUBPACKAGE_CIRCLES_ALLOWED, \
        f"import circles between sub-packages: {found} (tolerated: {SUBPACKAGE_CIRCLES_ALLOWED})"
    assert SUBPACKAGES_CHECKED <= set(subpackage_graph())


def test_family_modules_live_in_their_subpackage():
    """A module beside a sub-package and named after it (parallel/pipeline_ops.py next to
    parallel/pipeline/) belongs inside it, where the circle checks take the family whole."""
    subs = {subpackage_of(m) for m in MODULES} - {None}
    stray = sorted(m for m in MODULES for s in subs
                   if subpackage_of(m) is None and m.rpartition(".")[0] == s.rpartition(".")[0]
                   and m.rpartition(".")[2].startswith(s.rpartition(".")[2] + "_"))
    assert not stray, f"modules outside the sub-package they are named after: {stray}"


def test_checker_catches_violations(tmp_path):
    """The rules fire on known-bad sources (so a broken checker cannot pass everything)."""
    cases = [
        ("minispore.kernels.cpu.bad", "from minispore.common import dtype\nimport scipy\n"),
        ("minispore.device.bad", "from minispore.common.context import context\n"),
        ("minispore.common.bad", "def f():\n    from minispore.ops import functional\n"),
        ("minispore.communication.bad", "from minispore.ops.function import comm_func\n"),
        ("minispore.ops.bad", "def f():\n    from .. import graph\n"),
        ("minispore.graph.bad", "import minispore\n"),
        ("minispore.dataset.bad", "from minispore.ops import functional\n"),
        ("minispore.ops.bad2", "from minispore.dataset import GeneratorDataset\n"),
        ("minispore.nn.bad", "import mpi4py\nfrom numba import cuda\n"),
        ("minispore.numpy.bad", "from minispore.graph import jit\n"),
        ("minispore.nn.bad3", "import minispore.numpy\n"),
    ]
    modules = dict(MODULES)
    modules.update({m: tmp_path / f"{m}.py" for m, _ in cases})
    found = []
    for module, text in cases:
        path = modules[module]
        path.write_text(text)
        found += [v.split(": ", 2)[2] for v in violations(module, path, modules, rel=module)]
    assert found == [
        "kernels must not import common",
        "kernels/ imports only numpy, numba and the standard library",
        "device must not import common",
        "common must not import ops (inside a function)",
        "communication must not import ops",
        "ops must not import graph (inside a function)",
        "graph must not import api",
        "dataset must not import ops",
        "ops must not import dataset",
        "only minispore/communication imports mpi4py",
        "only kernels/cuda and the device CUDA backend import numba.cuda",
        "numpy must not import graph",
        "nn must not import numpy",
    ]


def _write_modules(folder, files):
    """{module name: path} of `files` ({module name: source}) written into `folder`."""
    modules = {}
    for module, text in files.items():
        modules[module] = folder / f"{module}.py"
        modules[module].write_text(text)
    return modules


def test_checker_finds_cycles_and_ignores_parent_packages(tmp_path):
    files = {
        "minispore.graph.a": "from minispore.graph import b\n",
        "minispore.graph.b": "from minispore.graph.c import thing\n",
        "minispore.graph.c": "import minispore.graph.a\n",
        "minispore.graph.d": "def f():\n    from minispore.graph import a\n",
        "minispore.graph.e": "from minispore.graph import d\n",
    }
    modules = _write_modules(tmp_path, files)
    graph = module_graph(modules)
    assert graph["minispore.graph.d"] == {}
    assert cycles(graph) == [["minispore.graph.a", "minispore.graph.b", "minispore.graph.c"]]


def test_checker_finds_subpackage_circles(tmp_path):
    """Two sub-packages whose modules import each other's without a module circle form a
    circle; a sub-package importing its package's own modules does not."""
    files = {
        "minispore.graph.x.__init__": "",
        "minispore.graph.x.a": "from minispore.graph.y import b\n",
        "minispore.graph.x.c": "from minispore.graph import f\n",
        "minispore.graph.y.__init__": "",
        "minispore.graph.y.b": "x = 1\n",
        "minispore.graph.y.d": "def g():\n    from minispore.graph.x import c\n",
        "minispore.graph.f": "from minispore.graph.x import a\n",
    }
    modules = {}
    for module, text in files.items():
        path = tmp_path.joinpath(*module.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        modules[module.removesuffix(".__init__")] = path
    assert cycles(module_graph(modules)) == []
    assert cycles(subpackage_graph(modules)) == [["minispore.graph.x", "minispore.graph.y"]]


def test_checker_finds_package_circles(tmp_path):
    """Imports inside functions and import_module calls close a circle inside a package (one
    package with its subpackages); an import into another package never does."""
    files = {
        "minispore.graph.a": "from minispore.graph.sub import b\n",
        "minispore.graph.sub.b": "def f():\n    from minispore.graph import a\n",
        "minispore.graph.c": "import importlib\n"
                             "def f():\n    importlib.import_module('minispore.graph.d')\n",
        "minispore.graph.d": "from minispore.graph import c\nfrom minispore.nn import e\n",
        "minispore.nn.e": "def f():\n    from minispore.graph import d\n",
    }
    modules = _write_modules(tmp_path, files)
    graph = package_graph(modules)
    assert graph["minispore.nn.e"] == {} and "minispore.nn.e" not in graph["minispore.graph.d"]
    assert sorted(cycles(graph)) == [["minispore.graph.a", "minispore.graph.sub.b"],
                                     ["minispore.graph.c", "minispore.graph.d"]]


def test_importing_minispore_loads_no_kernel_module():
    """Operators reach their kernels through ops/kernel_registry when they first run: a kernel
    module imported by `import minispore` creates Numba dispatchers in every process, and one
    that did (window_ops importing kernels/cpu/window.py) kept dynamic-cluster processes from
    exiting (tests/launch/test_listeners.py)."""
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", "import minispore, sys; print(sorted(m for m in "
                          "sys.modules if m.startswith(('minispore.kernels.cpu', "
                          "'minispore.kernels.cuda'))))"], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]", out
