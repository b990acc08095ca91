"""Resolves `import mindspore` and every `mindspore.xxx` to the same-named minispore module."""
import importlib
import importlib.abc
import importlib.util
import sys

ALIAS = "mindspore"
TARGET = "minispore"


class _AliasLoader(importlib.abc.Loader):
    """Hands back the already-imported minispore module, so both names share one object."""

    def __init__(self, target_name):
        self.target_name = target_name

    def create_module(self, spec):
        try:
            return importlib.import_module(self.target_name)
        except ModuleNotFoundError as e:
            if e.name is None or not (e.name == self.target_name
                                      or self.target_name.startswith(e.name + ".")):
                raise
            raise ModuleNotFoundError(
                f"No module named '{spec.name}': minispore has no module '{self.target_name}' "
                f"to stand in for it", name=spec.name) from None

    def exec_module(self, module):
        # The module was executed when minispore imported it; running it again would
        # rebuild its classes and break `mindspore.nn.Cell is minispore.nn.Cell`.
        pass


class MindSporeAliasFinder(importlib.abc.MetaPathFinder):
    """A meta-path finder mapping `mindspore[.sub]` to `minispore[.sub]`."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != ALIAS and not fullname.startswith(ALIAS + "."):
            return None
        target_name = TARGET + fullname[len(ALIAS):]
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
