"""Resolves `import mindspore` and every `mindspore.xxx` to the same-named minispore module."""
import importlib
import importlib.abc
import importlib.util
import sys
import types

ALIAS = "mindspore"
TARGET = "minispore"


class _AliasLoader(importlib.abc.Loader):
    """Hands back the already-imported minispore module, so both names share one object."""

    def __init__(self, target_name):
        self.target_name = target_name

    def create_module(self, spec):
        try:
            module = importlib.import_module(self.target_name)
        except ModuleNotFoundError as e:
            if e.name is None or not (e.name == self.target_name
                                      or self.target_name.startswith(e.name + ".")):
                raise
            raise ModuleNotFoundError(
                f"No module named '{spec.name}': minispore has no module '{self.target_name}' "
                f"to stand in for it", name=spec.name) from None
        package = spec.name[len(ALIAS) + 1:]
        if package in VIEWS and "__getattr__" not in vars(module):
            # `from mindspore.ops.operations import _inner_ops` looks the name up on the
            # package before importing it, and imports by the package's own (minispore) name.
            module.__getattr__ = _package_getattr(spec.name, package)
        for child in VIEWS:
            # `from mindspore.ops import function as F` takes minispore's own ops.function
            # package as an attribute of ops, never importing it by the mindspore name.
            sub = sys.modules.get(f"{TARGET}.{child}")
            if child.rpartition(".")[0] == package and sub is not None \
                    and "__getattr__" not in vars(sub):
                sub.__getattr__ = _package_getattr(f"{ALIAS}.{child}", child)
        if package in VIEWS:
            # `from mindspore.ops.operations import nn_ops` finds minispore's own nn_ops as an
            # attribute of the package and never imports it by the mindspore name, so it
            # gets the view's fallback to the whole namespace here.
            for leaf in VIEWS[package][1]:
                sub = sys.modules.get(f"{self.target_name}.{leaf}")
                if sub is not None and "__getattr__" not in vars(sub):
                    sub.__getattr__ = _view_getattr(f"{spec.name}.{leaf}", VIEWS[package][0])
        return module

    def exec_module(self, module):
        # The module was executed when minispore imported it; running it again would
        # rebuild its classes and break `mindspore.nn.Cell is minispore.nn.Cell`.
        pass


# MindSpore spreads its primitives over ops/operations/<topic>_ops.py and its functions over
# ops/function/<topic>_func.py; minispore groups them by its own topics. Code written for
# MindSpore (its own tests among it) imports them by MindSpore's module path, so each of these
# MindSpore modules resolves any name of its whole package: minispore's same-named module
# first where there is one, then the package namespace. Module names are MindSpore 2.7.2's.
VIEWS = {
    "ops.operations": ("minispore.ops.operations", frozenset(
        "_csr_ops _custom_grad _embedding_cache_ops _grad_ops _infer_ops _inner_ops "
        "_map_tensor_ops _ocr_ops _quant_ops _rl_inner_ops _scalar_ops _sequence_ops "
        "_sparse_grad_ops _thor_ops array_ops comm_ops control_ops custom_ops debug_ops "
        "image_ops inner_ops linalg_ops manually_defined math_ops nn_ops other_ops random_ops "
        "reshard_ops sparse_ops spectral_ops".split())),
    "ops.function": ("minispore.ops", frozenset(
        "array_func clip_func comm_func debug_func fft_func image_func linalg_func math_func "
        "nn_func other_func parameter_func random_func reshard_func sparse_func "
        "sparse_unary_func spectral_func vmap_func".split())),
    # mindspore.ops.primitive also holds constexpr, prim_attr_register, PrimitiveWithInfer
    "ops": ("minispore.ops", frozenset(["primitive"])),
}


def _view_getattr(module_name, namespace_name):
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        namespace = importlib.import_module(namespace_name)
        try:
            return getattr(namespace, name)
        except AttributeError:
            raise AttributeError(f"module '{module_name}' has no attribute '{name}' (minispore "
                                 f"defines no '{name}' in {namespace_name})") from None
    return __getattr__


def _package_getattr(package_name, package):
    """The fallback of a VIEWS package: its MindSpore-only module names import as views;
    other names come from its namespace when that is not the package itself
    (mindspore.ops.function holds every functional operator: minispore.ops's)."""
    namespace_name, view_names = VIEWS[package]
    if namespace_name == f"{TARGET}.{package}":
        namespace_name = None

    def __getattr__(name):
        aliased = any(isinstance(f, MindSporeAliasFinder) for f in sys.meta_path)
        if name in view_names and aliased:
            return importlib.import_module(f"{package_name}.{name}")
        if namespace_name is not None and aliased and not name.startswith("__"):
            try:
                return getattr(importlib.import_module(namespace_name), name)
            except AttributeError:
                pass
        raise AttributeError(f"module '{package_name}' has no attribute '{name}'")
    return __getattr__


class _ViewLoader(_AliasLoader):
    """A MindSpore module of VIEWS: minispore's same-named module (when it has one) with the
    package namespace behind it, or a module that is only that view."""

    def __init__(self, target_name, namespace_name):
        super().__init__(target_name)
        self.namespace_name = namespace_name

    def create_module(self, spec):
        try:
            module = importlib.import_module(self.target_name)
        except ModuleNotFoundError as e:
            if e.name != self.target_name:
                raise
            module = types.ModuleType(spec.name, f"MindSpore's {spec.name}: a view of "
                                                 f"{self.namespace_name}")
        if "__getattr__" not in vars(module):
            module.__getattr__ = _view_getattr(spec.name, self.namespace_name)
        return module


class MindSporeAliasFinder(importlib.abc.MetaPathFinder):
    """A meta-path finder mapping `mindspore[.sub]` to `minispore[.sub]`."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != ALIAS and not fullname.startswith(ALIAS + "."):
            return None
        target_name = TARGET + fullname[len(ALIAS):]
        package, _, leaf = fullname[len(ALIAS) + 1:].rpartition(".")
        if package in VIEWS and leaf in VIEWS[package][1]:
            return importlib.util.spec_from_loader(
                fullname, _ViewLoader(target_name, VIEWS[package][0]), is_package=False)
        # The import system replaces sys.modules[fullname] with whatever create_module
        # returns, and sets attributes on it; is_package keeps `mindspore.x.y` importable.
        return importlib.util.spec_from_loader(fullname, _AliasLoader(target_name),
                                               is_package=True)


def install():
    """Put the finder first on sys.meta_path (idempotent)."""
    if not any(isinstance(f, MindSporeAliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, MindSporeAliasFinder())


def uninstall():
    """Remove the finder and every `mindspore` entry it put in sys.modules."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, MindSporeAliasFinder)]
    for name in [n for n in sys.modules if n == ALIAS or n.startswith(ALIAS + ".")]:
        del sys.modules[name]
