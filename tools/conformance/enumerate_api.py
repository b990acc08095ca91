"""Prints, as JSON, the public API the mechanical corpus is built from, read from MindSpore's own
`__all__` lists and the Tensor class. Runs only under the oracle venv (real MindSpore)."""
import inspect
import json
import sys

import mindspore as ms
from mindspore import Tensor, amp, nn, ops
import mindspore.dataset as ds
import mindspore.dataset.transforms as transforms
import mindspore.dataset.vision as vision


def _kind(obj):
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        if issubclass(obj, nn.Optimizer):
            return "optimizer"
        if issubclass(obj, ops.Primitive):
            return "primitive"
        if issubclass(obj, nn.LossBase) or obj.__name__.endswith("Loss"):
            return "loss"
        if issubclass(obj, nn.Cell):
            return "cell"
        return "class"
    if isinstance(obj, ops.Primitive):
        return "primitive_instance"
    if callable(obj):
        return "function"
    return "value"


def _names(module):
    out = {}
    # transforms and vision keep no __all__: their public classes stand in for it.
    names = getattr(module, "__all__", None) or [
        n for n in dir(module) if not n.startswith("_") and inspect.isclass(getattr(module, n))]
    for name in sorted(set(names)):
        obj = getattr(module, name, None)
        if obj is not None:
            out[name] = _kind(obj)
    return out


def tensor_members():
    out = {}
    for name in sorted(dir(Tensor)):
        if name.startswith("_"):
            continue
        attr = inspect.getattr_static(Tensor, name)
        out[name] = "property" if isinstance(attr, property) or not callable(attr) else "method"
    return out


def main():
    api = {"ops": _names(ops), "nn": _names(nn), "dataset": _names(ds),
           "transforms": _names(transforms), "vision": _names(vision), "amp": _names(amp),
           "tensor": tensor_members(), "version": ms.__version__}
    json.dump(api, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
