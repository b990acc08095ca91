"""The import graph follows DESIGN.md's layers: each rule is checked on every module's AST.

Rules (DESIGN.md "Layers", STYLE.md "Layers and state"):
- kernels/ imports only numpy, numba (llvmlite for intrinsics), the standard library and other
  kernel modules; never the rest of minispore.
- minispore/common imports no other minispore layer at module level (lazy imports inside
  functions are how Tensor reaches ops without a cycle).
- minispore/dataset imports only minispore.common at module level.
- minispore/ops imports none of nn, train, parallel, graph, dataset, anywhere.
- only minispore/communication imports mpi4py.
- only kernels/cuda and CUDA backend modules (a minispore module with 'cuda' in its file name)
  import numba.cuda.
"""
import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KERNEL_DEPS = {"numpy", "numba", "llvmlite"}
HIGHER_THAN_OPS = ("minispore.nn", "minispore.train", "minispore.parallel", "minispore.graph",
                   "minispore.dataset")


def source_modules():
    """(module name, path) for every module of the installed package (kernels -> minispore.kernels)."""
    for prefix, folder in (("minispore", "minispore"), ("minispore.kernels", "kernels")):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join((prefix,) + parts), path


class Import:
    """One imported name: `target` is the module (or module.attribute) it refers to."""

    def __init__(self, target, lineno, in_function):
        self.target, self.lineno, self.in_function = target, lineno, in_function


def imports_of(module, path):
    tree = ast.parse(path.read_text(), filename=str(path))
    is_package = path.name == "__init__.py"
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                      ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend(Import(a.name, child.lineno, in_function) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = resolve_from(module, is_package, child.level, child.module)
                found.append(Import(base, child.lineno, in_function))
                found.extend(Import(f"{base}.{a.name}", child.lineno, in_function)
                             for a in child.names if a.name != "*")
            elif (isinstance(child, ast.Attribute) and child.attr == "cuda"
                  and isinstance(child.value, ast.Name) and child.value.id == "numba"):
                found.append(Import("numba.cuda", child.lineno, in_function))
            visit(child, inner)

    visit(tree, False)
    return found


def resolve_from(module, is_package, level, name):
    if level == 0:
        return name
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[:len(package) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def within(target, prefix):
    return target == prefix or target.startswith(prefix + ".")


def top(target):
    return target.split(".")[0]


def violations(module, path, rel=None):
    rel = rel or path.relative_to(ROOT).as_posix()
    out, seen = [], set()
    for imp in imports_of(module, path):
        t = imp.target
        bad = None
        if within(module, "minispore.kernels"):
            if top(t) == "minispore" and not within(t, "minispore.kernels"):
                bad = "kernels/ must not import minispore (only numpy/numba/stdlib)"
            elif top(t) != "minispore" and top(t) not in KERNEL_DEPS | sys.stdlib_module_names:
                bad = "kernels/ imports only numpy, numba and the standard library"
        elif within(module, "minispore.common"):
            if (top(t) == "minispore" and not within(t, "minispore.common")
                    and not imp.in_function):
                bad = "minispore/common imports other minispore layers only inside functions"
        elif within(module, "minispore.dataset"):
            if (top(t) == "minispore" and not within(t, "minispore.common")
                    and not within(t, "minispore.dataset") and not imp.in_function):
                bad = "minispore/dataset depends only on minispore.common"
        elif within(module, "minispore.ops"):
            if any(within(t, layer) for layer in HIGHER_THAN_OPS):
                bad = "minispore/ops must not import nn/train/parallel/graph/dataset"
        if within(t, "mpi4py") and not within(module, "minispore.communication"):
            bad = "only minispore/communication imports mpi4py"
        if (within(t, "numba.cuda") and not within(module, "minispore.kernels.cuda")
                and "cuda" not in path.stem):
            bad = "only kernels/cuda and the CUDA backend import numba.cuda"
        if bad and (imp.lineno, bad) not in seen:
            seen.add((imp.lineno, bad))
            out.append(f"{rel}:{imp.lineno}: imports {t}: {bad}")
    return out


MODULES = list(source_modules())


def test_modules_found():
    names = {m for m, _ in MODULES}
    assert {"minispore.ops.primitive", "minispore.kernels.cpu.matmul"} <= names


@pytest.mark.parametrize("module,path", MODULES, ids=[m for m, _ in MODULES])
def test_imports_follow_layers(module, path):
    bad = violations(module, path)
    assert not bad, "layering violations:\n" + "\n".join(bad)


def test_checker_catches_violations(tmp_path):
    """The rules fire on known-bad sources (so a broken checker cannot pass everything)."""
    cases = [
        ("minispore.kernels.cpu.bad", "from minispore.common import dtype\nimport scipy\n"),
        ("minispore.common.bad", "from minispore.ops import functional\n"),
        ("minispore.ops.bad", "def f():\n    from .. import nn\n"),
        ("minispore.nn.bad", "import mpi4py\nfrom numba import cuda\n"),
    ]
    found = []
    for module, text in cases:
        path = tmp_path / f"{module}.py"
        path.write_text(text)
        found += [v.split(": ", 2)[2] for v in violations(module, path, rel=module)]
    assert found == [
        "kernels/ must not import minispore (only numpy/numba/stdlib)",
        "kernels/ imports only numpy, numba and the standard library",
        "minispore/common imports other minispore layers only inside functions",
        "minispore/ops must not import nn/train/parallel/graph/dataset",
        "only minispore/communication imports mpi4py",
        "only kernels/cuda and the CUDA backend import numba.cuda",
    ]
