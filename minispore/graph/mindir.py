"""``ms.export`` / ``ms.load`` / ``nn.GraphCell``: a network written as a graph file and run
again without its Python class, as MindSpore's MINDIR is used (the save/load tutorial:
``export(net, x, file_name="model", file_format="MINDIR")``, then
``nn.GraphCell(ms.load("model.mindir"))(x)``).

The file is minispore's own: the network traced for inference (graph/tracer.py) into its
primitives, constants and parameter values, pickled. MindSpore's MINDIR is a protobuf of
MindSpore's IR, which minispore does not write or read, so export warns that the file is for
minispore only, and load refuses a file that is not minispore's, naming it. Reading goes
through an unpickler that builds only minispore's, NumPy's and plain Python values, so a
crafted file cannot run arbitrary code. AIR and ONNX, and the encryption / obfuscation / dataset
options, raise NotImplementedError naming them.
"""
import io
import os
import pickle
import warnings

import numpy as np

from minispore.common.dtype import Type
from minispore.common.tensor import Tensor

__all__ = ["export", "load", "MindirGraph"]

_FORMATS = ("MINDIR", "AIR", "ONNX")
MAGIC = "minispore MINDIR"
VERSION = 1
# What a graph file may name besides minispore's primitives, tensors and dtypes: NumPy's
# array and scalar rebuilders and plain containers. Nothing else, so that a crafted file cannot
# call a function or build an object that acts (pickle's REDUCE calls what the file names).
_ALLOWED_GLOBALS = {
    ("numpy", "dtype"), ("numpy", "ndarray"),
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
    ("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer"),
    ("minispore.common.dtype", "pytype_to_dtype_by_name"),
    ("builtins", "slice"), ("builtins", "complex"), ("builtins", "set"),
    ("builtins", "frozenset"), ("collections", "OrderedDict"),
}


class _Ref:
    """A Value of the graph in the file: its name (inputs, parameters and node outputs)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __reduce__(self):
        return _Ref, (self.name,)


def _no_options(api, kwargs):
    if kwargs:
        raise NotImplementedError(
            f"For '{api}', the option(s) {sorted(kwargs)} (encryption, obfuscation, dataset "
            f"preprocessing, custom saving) are not implemented in minispore.")


def export(net, *inputs, file_name, file_format="MINDIR", **kwargs):
    """Write `net`, traced on `inputs` for inference, to ``file_name`` (``.mindir`` added when
    missing). Warns that the file is minispore's own graph file, not MindSpore's protobuf."""
    if file_format not in _FORMATS:
        raise ValueError(f"For 'export', 'file_format' must be one of {list(_FORMATS)}, but "
                         f"got {file_format!r}.")
    if file_format != "MINDIR":
        raise NotImplementedError(
            f"For 'export', writing {type(net).__name__} as a {file_format} file "
            f"({file_name!r}) is not implemented in minispore; file_format='MINDIR' is.")
    _no_options("export", kwargs)
    if not inputs or not all(isinstance(x, Tensor) for x in inputs):
        raise TypeError(f"For 'export', the inputs must be one or more Tensors, but got "
                        f"{[type(x).__name__ for x in inputs]}.")
    record = _record(net, inputs)
    path = file_name if file_name.endswith(".mindir") else file_name + ".mindir"
    with open(path, "wb") as f:
        pickle.dump(record, f, protocol=pickle.HIGHEST_PROTOCOL)
    warnings.warn(f"For 'export', {path!r} is minispore's own MINDIR (the traced graph and its "
                  f"parameters): minispore's ms.load reads it; MindSpore and MindSpore Lite "
                  f"do not.", UserWarning, stacklevel=2)


def _record(net, inputs):
    from minispore.graph.tracer import trace
    training = getattr(net, "training", False)
    if hasattr(net, "set_train"):
        net.set_train(False)
    try:
        graph, _ = trace(net, inputs, type(net).__name__)
    finally:
        if hasattr(net, "set_train"):
            net.set_train(training)

    def ref(v):
        return _Ref(v.name)

    from minispore.graph.ir import map_values
    if any(getattr(node.prim, "subgraphs", None) for node in graph.nodes):
        raise NotImplementedError(
            f"For 'export', {type(net).__name__} compiles Tensor-dependent control flow "
            f"(If/While nodes), which minispore's MINDIR does not hold yet.")
    return {
        "format": MAGIC, "version": VERSION, "name": graph.name,
        "inputs": [(v.name, tuple(v.shape), v.dtype) for v in graph.inputs],
        "parameters": [(v.name, v.param.name, v.param.asnumpy().copy(), v.param.requires_grad)
                       for v in graph.parameters],
        "nodes": [(node.prim, map_values(node.inputs, ref), [v.name for v in node.outputs],
                   node.tuple_output) for node in graph.nodes],
        "outputs": map_values(graph.outputs, ref),
    }


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        from minispore.ops.primitive import Primitive
        if module == __name__ and name == "_Ref":
            return _Ref
        if (module, name) in _ALLOWED_GLOBALS:
            return super().find_class(module, name)
        if module.startswith("minispore."):
            found = super().find_class(module, name)
            if isinstance(found, type) and issubclass(found, (Primitive, Tensor, Type)):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not something a minispore MINDIR "
                                     f"holds")


class MindirGraph:
    """What ``ms.load`` returns (MindSpore's FuncGraph): the graph of a MINDIR file, run by
    ``nn.GraphCell``."""

    def __init__(self, record, file_name):
        self.file_name = file_name
        self.name = record["name"]
        self.inputs = record["inputs"]
        self.parameters = record["parameters"]
        self.nodes = record["nodes"]
        self.outputs = record["outputs"]

    def run(self, args, parameters):
        """Run the graph's primitives in order on `args` (Tensors) and `parameters` ({value
        name: Parameter}); under GRAPH mode or ms.jit they are traced like any other call."""
        self._check(args)
        env = dict(parameters)
        env.update((name, x) for (name, _, _), x in zip(self.inputs, args))

        def value(obj):
            if isinstance(obj, _Ref):
                return env[obj.name]
            if isinstance(obj, tuple):
                return tuple(value(x) for x in obj)
            if isinstance(obj, list):
                return [value(x) for x in obj]
            return obj
        for prim, node_inputs, outputs, tuple_output in self.nodes:
            out = prim(*value(node_inputs))
            results = tuple(out) if tuple_output or len(outputs) > 1 else (out,)
            env.update(zip(outputs, results))
        return value(self.outputs)

    def _check(self, args):
        wanted = [(shape, dtype) for _, shape, dtype in self.inputs]
        got = [(tuple(x.shape), x.dtype) if isinstance(x, Tensor) else type(x).__name__
               for x in args]
        if got != wanted:
            raise ValueError(f"For 'GraphCell' of {self.file_name!r}, the inputs must be "
                             f"{len(wanted)} Tensor(s) of (shape, dtype) {wanted}, as exported, "
                             f"but got {got}.")


def load(file_name, **kwargs):
    """Read a MINDIR file that minispore's ``export`` wrote; ValueError for any other file."""
    _no_options("load", kwargs)
    if not isinstance(file_name, str) or not os.path.isfile(file_name):
        raise ValueError(f"For 'load', the file {file_name!r} does not exist.")
    with open(file_name, "rb") as f:
        data = f.read()
    record, why = None, None
    try:
        record = _Unpickler(io.BytesIO(data)).load()
    except Exception as e:      # a protobuf MINDIR or any other file fails to unpickle
        why = e
    if not isinstance(record, dict) or record.get("format") != MAGIC:
        detail = f" ({why})" if why is not None else ""
        raise ValueError(f"For 'load', {file_name!r} is not a MINDIR written by minispore's "
                         f"export{detail}: MindSpore's own MINDIR (a protobuf) cannot be read "
                         f"by minispore.")
    if record.get("version") != VERSION:
        raise ValueError(f"For 'load', {file_name!r} is minispore MINDIR version "
                         f"{record.get('version')}; this minispore reads version {VERSION}.")
    for _, _, array, _ in record["parameters"]:
        if not isinstance(array, np.ndarray):
            raise ValueError(f"For 'load', {file_name!r} holds a parameter that is not an array.")
    return MindirGraph(record, file_name)
