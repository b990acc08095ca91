"""The operator registry seen from outside: every operator x {cpu, cuda, bprop, sharding, tested}.

Usage: python tools/op_matrix.py

Which classes count as operators: every Primitive subclass exported from minispore.ops, plus
every leaf Primitive subclass defined under minispore.ops.operations even if private or not
exported (such as a grad helper used by a public op's bprop: it runs kernels, so it is held to
the same contract). Private classes that other operators derive from (_Reduce, the elementwise
bases) are abstract and skipped.

Kernels are found statically: the calls `kernel(family, name)` in the operator's `impl`, in the
methods it calls on `self` and in the minispore.ops helper functions it calls (transitively),
with family and name given as string literals or class attributes (`self.kernel_name`).
Operators whose `impl` only builds a numpy view or a contiguous copy call no kernel; they are
listed, with the reason, in KERNEL_FREE.
"""
import ast
import importlib
import inspect
import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import minispore.ops as ops  # noqa: E402
from minispore.ops.primitive import Primitive  # noqa: E402

DEVICES = ("cpu", "cuda")

# Operators that move no data through a kernel: numpy views, or a contiguous copy of one.
KERNEL_FREE = {
    "Reshape": "a numpy reshape view",
    "ExpandDims": "a numpy reshape view",
    "Squeeze": "a numpy reshape view",
    "Flatten": "a numpy reshape view",
}
# Collectives move data through minispore.communication's MPI backend, not a compute kernel.
KERNEL_FREE.update({name: "an MPI collective in minispore.communication.collectives"
                    for name in ops.operations.comm_ops.__all__ if name != "ReduceOp"})
KERNEL_FREE.update({
    "UniformCandidateSampler": "draws a few class ids on the host with the operator's "
                               "generator (rejection for unique draws), as random_ops do",
    "AllReduceStart": "a non-blocking MPI all-reduce (minispore.communication.collectives)",
    "AllReduceWait": "completes an AllReduceStart's all-reduce; returns views of its buffer",
    "BucketView": "a numpy view of a reduced gradient bucket",
    "GetNext": "pops a batch of a host data queue and copies it to the active device",
})


def _all_subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _all_subclasses(sub)


def operator_classes():
    """{name: class} of the operators the registry holds to the contract (see module doc)."""
    # PrimitiveWithInfer / PrimitiveWithCheck are front ends that run another operator.
    public = {name: obj for name, obj in vars(ops).items()
              if inspect.isclass(obj) and issubclass(obj, Primitive) and obj is not Primitive
              and not issubclass(obj, ops.PrimitiveWithCheck) and not name.startswith("_")}
    seen = {cls for cls in public.values()}
    found = {cls.__name__: cls for cls in seen}
    for cls in _all_subclasses(Primitive):
        if (cls not in seen and cls.__module__.startswith("minispore.ops.operations")
                and not cls.__subclasses__()):
            found.setdefault(cls.__name__, cls)
    return dict(sorted(found.items()))


def _init_assignments(cls, attr):
    """String constants assigned to `self.<attr>` in the __init__ methods along cls's MRO."""
    found = []
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        tree = _function_ast(init) if inspect.isfunction(init) else None
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Attribute) and t.attr == attr
                    and isinstance(t.value, ast.Name) and t.value.id == "self"
                    for t in node.targets):
                found += _string_values(node.value)
    return tuple(found)


def _string_values(expr):
    """The strings an expression can evaluate to: literals and both arms of `a if c else b`."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return [expr.value]
    if isinstance(expr, ast.IfExp):
        return _string_values(expr.body) + _string_values(expr.orelse)
    return []


def _resolve(node, cls, bindings):
    """The strings a kernel() argument can be: a literal, a string class attribute, strings an
    __init__ assigns to that attribute, or a helper parameter bound by the caller; () if none."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, ast.Name):
        return bindings.get(node.id, ())
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls")):
        value = getattr(cls, node.attr, None)
        return (value,) if isinstance(value, str) else _init_assignments(cls, node.attr)
    return ()


def _function_ast(fn):
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return None
    return ast.parse(source)


def _bind(fn, call, cls, bindings):
    """{helper parameter: candidate strings} from the call's arguments."""
    params = list(inspect.signature(fn).parameters)
    if params and params[0] in ("self", "cls") and inspect.ismethod(fn) is False \
            and isinstance(call.func, ast.Attribute):
        params = params[1:]
    bound = {}
    for param, arg in zip(params, call.args):
        bound[param] = _resolve(arg, cls, bindings)
    for kw in call.keywords:
        if kw.arg:
            bound[kw.arg] = _resolve(kw.value, cls, bindings)
    return bound


def kernel_refs(cls):
    """[(family, name)] of the kernel calls reachable from cls.impl; None where not static."""
    refs, visited = [], set()

    def walk(fn, bindings):
        fn = inspect.unwrap(fn)
        key = (fn, tuple(sorted(bindings.items())))
        if key in visited or not hasattr(fn, "__code__"):
            return
        visited.add(key)
        tree = _function_ast(fn)
        if tree is None:
            return
        module_globals = getattr(fn, "__globals__", {})
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            if isinstance(f, ast.Name) and f.id == "kernel" and len(node.args) >= 2:
                families = _resolve(node.args[0], cls, bindings) or (None,)
                names = _resolve(node.args[1], cls, bindings) or (None,)
                refs.extend((fam, name) for fam in families for name in names)
            elif (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                  and f.value.id in ("self", "cls")):
                method = getattr(cls, f.attr, None)
                if inspect.isfunction(method):
                    walk(method, _bind(method, node, cls, bindings))
            elif isinstance(f, ast.Name):
                helper = module_globals.get(f.id)
                if (inspect.isfunction(helper)
                        and getattr(helper, "__module__", "").startswith("minispore.ops")):
                    walk(helper, _bind(helper, node, cls, bindings))

    walk(cls.impl, {})
    return list(dict.fromkeys(refs))


def kernel_exists(device, family, name):
    """True when minispore.kernels.<device>.<family> defines `name` (any name when None)."""
    try:
        module = importlib.import_module(f"minispore.kernels.{device}.{family}")
    except ModuleNotFoundError:
        return False
    return name is None or hasattr(module, name)


def kernel_defined(device, family, name):
    """kernel_exists read from the source instead of importing it: kernels/cuda modules import
    numba.cuda, which must not happen before a test process has chosen the CUDA simulator."""
    path = ROOT / "kernels" / device / f"{family}.py"
    if not path.exists():
        return False
    if family == "elementwise":
        # Both devices' elementwise tables are generated from kernels/scalar.py's ELEMENTWISE.
        from minispore.kernels import scalar
        if name in scalar.ELEMENTWISE:
            return True
    return re.search(rf"^(def {re.escape(name)}\(|{re.escape(name)}\s*=)", path.read_text(),
                     re.MULTILINE) is not None


def overrides(cls, method):
    return getattr(cls, method) is not getattr(Primitive, method)


def has_bprop_or_opt_out(cls):
    return (overrides(cls, "bprop") or cls.differentiable is False
            or bool(getattr(cls, "no_bprop_reason", None)))


def functional_names():
    """{operator class name: [functional names]} from ops/function/*_func.py: a public function
    that uses a module-level singleton built from the class (`_add = M.Add()`)."""
    result = {}
    folder = ROOT / "minispore" / "ops" / "function"
    for path in sorted(folder.glob("*_func.py")):
        tree = ast.parse(path.read_text())
        singleton_class = {}
        for node in tree.body:
            if isinstance(node, ast.Assign):
                classes = [_called_name(c) for c in ast.walk(node.value)
                           if isinstance(c, ast.Call)]
                classes = [c for c in classes if c and c[0].isupper()]
                targets = [n.id for t in node.targets for n in ast.walk(t)
                           if isinstance(n, ast.Name)]
                # `_a, _b = M.A(), M.B()` pairs targets with calls; otherwise all to all.
                if len(targets) == len(classes) and len(targets) > 1:
                    for t, c in zip(targets, classes):
                        singleton_class.setdefault(t, set()).add(c)
                else:
                    for t in targets:
                        singleton_class.setdefault(t, set()).update(classes)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
                calls = {_called_name(c) for c in ast.walk(node) if isinstance(c, ast.Call)}
                for name in used:
                    for cls_name in singleton_class.get(name, ()):
                        result.setdefault(cls_name, []).append(node.name)
                for cls_name in calls:
                    if cls_name and cls_name[0].isupper():
                        result.setdefault(cls_name, []).append(node.name)
    return {k: sorted(set(v)) for k, v in result.items()}


def _called_name(call):
    f = call.func
    if isinstance(f, ast.Attribute):
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return None


def tests_text():
    """All test sources except the registry's own (which names every operator)."""
    skip = {"test_registry.py"}
    return "\n".join(p.read_text() for p in sorted((ROOT / "tests").rglob("*.py"))
                     if p.name not in skip)


def is_tested(cls_name, functional, text):
    if re.search(rf"\b{re.escape(cls_name)}\b", text):
        return True
    return any(re.search(rf"(\bops\.|\bF\.|\b){re.escape(f)}\(|\bops\.{re.escape(f)}\b", text)
               for f in functional)


def kernel_status(cls, device):
    """'y' (every kernel found), 'view' (KERNEL_FREE), 'MISSING', or '?' (not static)."""
    if cls.__name__ in KERNEL_FREE:
        return "view"
    refs = kernel_refs(cls)
    if not refs or any(family is None for family, _ in refs):
        return "?"
    exists = kernel_exists if device == "cpu" else kernel_defined
    if not all(exists(device, family, name) for family, name in refs):
        return "MISSING"
    return "y"


def rows():
    functional = functional_names()
    text = tests_text()
    for name, cls in operator_classes().items():
        cpu = kernel_status(cls, "cpu")
        cuda = kernel_status(cls, "cuda")
        if not has_bprop_or_opt_out(cls):
            bprop = "MISSING"
        else:
            # "none": differentiable but without a bprop (no_bprop_reason); a gradient raises
            bprop = ("y" if overrides(cls, "bprop") else
                     "n/a" if cls.differentiable is False else "none")
        sharding = sharding_status(cls)
        tested = "y" if is_tested(name, functional.get(name, ()), text) else "n"
        yield name, cpu, cuda, bprop, sharding, tested


def sharding_status(cls):
    """'y' (a sharding rule), 'repl' (declared replicate-only, with a reason) or 'MISSING'."""
    rule = getattr(cls, "sharding_rule", None)
    if rule is None or not hasattr(rule, "spec"):
        return "MISSING"
    return "repl" if rule.replicate_only else "y"


def main():
    header = ("operator", "cpu", "cuda", "bprop", "sharding", "tested")
    table = list(rows())
    width = max([len(header[0])] + [len(r[0]) for r in table])
    print(f"{header[0]:<{width}}  " + "  ".join(f"{h:<8}" for h in header[1:]))
    for r in table:
        print(f"{r[0]:<{width}}  " + "  ".join(f"{c:<8}" for c in r[1:]))
    counts = {col: sum(r[i] in ("y", "view", "n/a", "repl") for r in table)
              for i, col in enumerate(header[1:], 1)}
    print(f"\n{len(table)} operators; " + ", ".join(f"{c}: {n}" for c, n in counts.items()))


if __name__ == "__main__":
    main()
