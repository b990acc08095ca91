"""Strategy checkpoints (``strategy_ckpt_config={"save_file": ..., "load_file": ...,
"only_trainable_params": ...}``): the strategies a compile chose, saved, and loaded to pin the
operators of a later compile.

MindSpore writes protobuf; minispore writes JSON, readable and diffable::

    {"format": "minispore-strategy/1", "device_num": 8,
     "operators": {"FFN.dense1.matmul": {"op": "MatMul", "strategy": [[2, 1], [1, 4]],
                                         "from": "user"}, ...},
     "parameters": {"dense1.weight": {"dev_matrix": [2, 1, 4], "tensor_map": [-1, 0],
                                      "global_shape": [784, 64]}, ...}}

Operators are keyed by their scope (the cell path the script gives them), with ``#k`` appended
to the k-th repeat of a scope (a cell called twice). Loading pins every operator the file names
to its strategy, over the data-parallel default or propagation, so a later run (or a run after
a change of search mode) compiles the same plan; a strategy the script also sets on the
operator and that differs is reported with a warning and the file wins. Only tuple strategies
are saved: an operator sharded with a Layout is refused with NotImplementedError.
"""
import json
import logging
import os
import tempfile

from minispore.common.layout import TensorLayout
from minispore.graph.ir import FORWARD, Value

__all__ = ["operator_keys", "read_strategy_file", "parameter_layouts", "load_strategies",
           "save_strategies", "FORMAT"]

FORMAT = "minispore-strategy/1"
logger = logging.getLogger("minispore")


def operator_keys(graph):
    """{id(node): key} for the forward nodes: the scope, then scope#1, scope#2 … on repeats."""
    seen, keys = {}, {}
    for node in graph.nodes:
        if node.phase != FORWARD:
            continue
        k = seen.get(node.scope, 0)
        seen[node.scope] = k + 1
        keys[id(node)] = node.scope if k == 0 else f"{node.scope}#{k}"
    return keys


def read_strategy_file(path):
    """The parsed strategy checkpoint at `path`.

    Raises:
        ValueError: the file is missing, not JSON (MindSpore's protobuf), or not of FORMAT.
    """
    try:
        with open(path) as f:
            data = json.load(f)
    except FileNotFoundError:
        raise ValueError(f"The strategy checkpoint {path!r} does not exist.") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"The strategy checkpoint {path!r} is not minispore's JSON strategy "
                         f"format ({e}); MindSpore's protobuf files cannot be read.") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"The strategy checkpoint {path!r} has format "
                         f"{data.get('format') if isinstance(data, dict) else None!r}, "
                         f"expected {FORMAT!r}.")
    return data


def parameter_layouts(data):
    """{parameter name: (TensorLayout, global shape)} of a parsed strategy checkpoint."""
    layouts = {}
    for name, entry in data["parameters"].items():
        tmap = tuple(tuple(m) if isinstance(m, list) else m for m in entry["tensor_map"])
        layouts[name] = (TensorLayout(entry["dev_matrix"], tmap), tuple(entry["global_shape"]))
    return layouts


def load_strategies(path, device_num):
    """{operator key: strategy (tuples)} from a strategy checkpoint written for `device_num`
    devices.

    Raises:
        ValueError: the file is not a minispore strategy checkpoint, or was written for
            another number of devices.
    """
    data = read_strategy_file(path)
    if data["device_num"] != device_num:
        raise ValueError(f"The strategy checkpoint {path!r} was saved for "
                         f"{data['device_num']} devices, but this compile has {device_num}.")
    return {key: tuple(tuple(s) for s in entry["strategy"])
            for key, entry in data["operators"].items()}


def save_strategies(path, graph, results, origins, device_num, tensor_positions,
                    only_trainable_params=True):
    """Write the plan (`results`: {id(node): RuleResult}, `origins`: {id(node): where the
    strategy came from}) to `path`, atomically; `tensor_positions(node)` lists the arguments
    the rule sees. Parameters get the layout of their first reader (the one they are sliced
    to)."""
    keys = operator_keys(graph)
    operators, parameters = {}, {}
    for node in graph.nodes:
        result = results.get(id(node))
        if result is None:
            continue
        strategy = result.strategy
        if not all(isinstance(s, tuple) for s in strategy):
            raise NotImplementedError(
                f"Saving the strategy of '{node.prim.name}' (in {node.scope}) to a strategy "
                f"checkpoint: Layout strategies are not supported in the file format yet; "
                f"shard it with tuples, or unset strategy_ckpt_config's save_file.")
        operators[keys[id(node)]] = {"op": node.prim.name,
                                     "strategy": [list(s) for s in strategy],
                                     "from": origins.get(id(node), "user")}
        for k, i in enumerate(tensor_positions(node)):
            x = node.inputs[i]
            param = x.param if isinstance(x, Value) else None
            if param is None or param.name in parameters:
                continue
            if only_trainable_params and not param.requires_grad:
                continue
            layout = param.layout or result.in_layouts[k]
            parameters[param.name] = {"dev_matrix": list(layout.dev_matrix),
                                      "tensor_map": [list(m) if isinstance(m, tuple) else m
                                                     for m in layout.tensor_map],
                                      "global_shape": list(x.shape)}
    data = {"format": FORMAT, "device_num": device_num, "operators": operators,
            "parameters": parameters}
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)
