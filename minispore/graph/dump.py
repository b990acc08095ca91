"""save_graphs output: the IR after each pass, a Graphviz DOT of the final graph, the schedule."""
import itertools
import os

from minispore.common.context import context
from minispore.graph.ir import format_aval

_counter = itertools.count()


def dump_dir_for(name):
    """The folder this compilation writes to when save_graphs is on (else None):
    ``<save_graphs_path>/<name>_<n>/``, n counting compilations in this process, under a
    ``rank_<r>/`` folder per rank when several ranks run (as MindSpore lays them out)."""
    ctx = context()
    if not ctx.get("save_graphs"):
        return None
    root = ctx.get("save_graphs_path")
    from minispore.communication._comm import STATE
    if STATE.inited and STATE.world.size > 1:
        root = os.path.join(root, f"rank_{STATE.world.rank}")
    path = os.path.join(root, f"{name}_{next(_counter):04d}")
    os.makedirs(path, exist_ok=True)
    return path


def write_ir(folder, seq, pass_name, graph):
    with open(os.path.join(folder, f"{seq:02d}_{pass_name}.ir"), "w") as f:
        f.write(f"# IR after pass '{pass_name}': {len(graph.nodes)} nodes\n")
        f.write(graph.dump())


def write_final(folder, seq, graph, source):
    with open(os.path.join(folder, f"{seq:02d}_{graph.name}.dot"), "w") as f:
        f.write(to_dot(graph))
    with open(os.path.join(folder, f"{seq + 1:02d}_schedule.py"), "w") as f:
        f.write(source)


def to_dot(graph):
    """Graphviz DOT: boxes for nodes (operator, scope), ellipses for inputs and parameters,
    edges labelled with the Value's dtype and shape."""
    lines = [f'digraph "{graph.name}" {{', "  rankdir=TB;", "  node [fontsize=10];"]
    producer = {}
    for v in graph.inputs:
        lines.append(f'  "{v.name}" [shape=ellipse, label="{v.name}\\n{_esc(format_aval(v))}"];')
        producer[id(v)] = v.name
    for v in graph.parameters:
        lines.append(f'  "{v.name}" [shape=ellipse, style=filled, fillcolor=lightgrey, '
                     f'label="{_esc(v.param.name)}\\n{_esc(format_aval(v))}"];')
        producer[id(v)] = v.name
    for k, node in enumerate(graph.nodes):
        color = ', style=filled, fillcolor="#ffd8b0"' if node.side_effect else ""
        notes = "".join(f"\\n{k2}={_esc(str(v))}" for k2, v in node.annotations.items())
        lines.append(f'  "n{k}" [shape=box{color}, label="{node.prim.name}\\n'
                     f'{_esc(node.scope)}{notes}"];')
        for v in node.input_values():
            lines.append(f'  "{producer[id(v)]}" -> "n{k}" [label="{_esc(format_aval(v))}"];')
        for v in node.outputs:
            producer[id(v)] = f"n{k}"
    lines.append('  "return" [shape=doublecircle];')
    for v in graph.output_values():
        lines.append(f'  "{producer[id(v)]}" -> "return";')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _esc(text):
    return text.replace('"', '\\"')
