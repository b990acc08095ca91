"""Hand-written cases for public names that none of generate.py's mechanical call templates
can call under MindSpore (they need an index tensor, a shape, a Parameter, keyword arguments …).

Each topic module holds CASES = {area: [(name, snippet), ...]}; the case id is "<area>/<name>",
the same id the mechanical generator would give, so a name listed here replaces its mechanical
case. A snippet sets `out` and may use the shared inputs the driver defines (x, y, z, xi, yi,
xb, sq, v, x3, img, lbl, …: see driver.py's prelude)."""
from tools.conformance import (  # one topic a line: helpers add theirs
    cases_api_data,
    cases_api_index,
    cases_api_metrics,
    cases_api_misc,
    cases_api_misc2,
    cases_api_nn,
    cases_api_ops,
    cases_api_optim2,
    cases_api_prims2,
    cases_api_scatter,
    cases_api_sparse,
    cases_api_unchecked,
)

_TOPICS = (
    cases_api_data,
    cases_api_index,
    cases_api_metrics,
    cases_api_misc,
    cases_api_misc2,
    cases_api_nn,
    cases_api_ops,
    cases_api_optim2,
    cases_api_prims2,
    cases_api_scatter,
    cases_api_sparse,
    cases_api_unchecked,
)


def _merged():
    merged = {}
    for topic in _TOPICS:
        for area, table in topic.CASES.items():
            merged.setdefault(area, []).extend(table)
    return merged


API_CASES = _merged()
