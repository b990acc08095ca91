"""Hand-written cases for public names that none of generate.py's mechanical call templates
can call under MindSpore (they need an index tensor, a shape, a Parameter, keyword arguments …).

Each topic module holds CASES = {area: [(name, snippet), ...]}; the case id is "<area>/<name>",
the same id the mechanical generator would give, so a name listed here replaces its mechanical
case. A snippet sets `out` and may use the shared inputs the driver defines (x, y, z, xi, yi,
xb, sq, v, x3, img, lbl, …: see driver.py's prelude)."""
import importlib

# One topic module a line (tools/conformance/cases_api_<topic>.py).
_TOPIC_NAMES = (
    "data",
    "grad_cells",
    "image_cells",
    "index",
    "losses2",
    "metrics",
    "misc",
    "misc2",
    "nn",
    "nn_cells2",
    "ops",
    "optim2",
    "prims2",
    "scatter",
    "sparse",
    "unchecked",
)
_TOPICS = tuple(importlib.import_module(f"tools.conformance.cases_api_{name}")
                for name in _TOPIC_NAMES)


def _merged():
    merged = {}
    for topic in _TOPICS:
        for area, table in topic.CASES.items():
            merged.setdefault(area, []).extend(table)
    return merged


API_CASES = _merged()
