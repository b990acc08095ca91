"""No module-level mutable state outside the settings registry and the world object (issue 27,
DESIGN.md "The execution context and the interpreter stack"), read from every module's AST: a
function that rebinds a module global (``global x``), writes an item of a module-level
container or calls a mutating method on one (``_cache[k] = v``, ``_hooks.append(f)``), or
assigns an attribute of a module-level class (``_Compiler.passes = ...``) holds state behind
the registry's back.

Process state that is not a setting (caches of compiled kernels and primitive instances, the
active profiler, async checkpoint writers) is registry-owned (``REGISTRY.owned``). What is left
is listed in REMAINING with why; the list only shrinks."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OWNERS = {"minispore/common/registry.py"}     # the registry holds the settings
MUTATORS = {"append", "update", "clear", "add", "pop", "setdefault", "extend", "remove",
            "discard", "insert", "popitem", "appendleft", "move_to_end"}
CONTAINERS = {"dict", "list", "set", "defaultdict", "OrderedDict", "deque", "Counter",
              "WeakKeyDictionary", "WeakValueDictionary", "WeakSet"}

# (module, name): what it is. Shrinks as the renovation moves each into the registry, the
# world object, or removes it.
REMAINING = {
    # below the registry's layer (kernels <- device <- common): kernels/ imports only numpy and
    # numba, and device/ sits under common
    ("kernels/cuda/launch.py", "_meta_cache"): "launch metadata per kernel signature",
    ("minispore/device/__init__.py", "_target"): "device_target source (set by common)",
    ("minispore/device/strict_simulator.py", "_OBSERVERS"): "launch observers of the tests",
}


def _is_container(value):
    if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
        return True
    if isinstance(value, ast.Call):
        name = getattr(value.func, "id", getattr(value.func, "attr", None))
        return name in CONTAINERS
    return False


def _module_state_written_in_functions(path):
    """{name: kind} of the module's globals that its functions write."""
    tree = ast.parse(path.read_text(), filename=str(path))
    containers, classes = set(), set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            classes.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if _is_container(node.value):
                containers.update(t.id for t in targets if isinstance(t, ast.Name))
    written = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Global):
                written.update((name, "rebound") for name in node.names)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and isinstance(node.func.value, ast.Name)
                  and node.func.value.id in containers and node.func.attr in MUTATORS):
                written[node.func.value.id] = "mutated"
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
                targets = node.targets if not isinstance(node, ast.AugAssign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and \
                            t.value.id in containers:
                        written[t.value.id] = "item written"
                    elif isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and \
                            t.value.id in classes:
                        written[t.value.id] = "class attribute written"
    return written


def _found():
    found = {}
    for folder in ("minispore", "kernels"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            module = str(path.relative_to(ROOT))
            if module in OWNERS:
                continue
            for name, kind in _module_state_written_in_functions(path).items():
                found[(module, name)] = kind
    return found


def test_no_module_state_written_in_functions_beyond_the_known_list():
    found = _found()
    new = {key: kind for key, kind in found.items() if key not in REMAINING}
    assert not new, ("module globals written in functions (move them into the settings "
                     "registry or the world object): " +
                     "; ".join(f"{m}: {n} ({k})" for (m, n), k in sorted(new.items())))


def test_the_known_list_only_shrinks():
    gone = sorted(set(REMAINING) - set(_found()))
    assert not gone, f"no longer module state, remove from REMAINING: {gone}"
