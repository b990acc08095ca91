"""Compares minispore's record of a case with MindSpore's: agree, differ (with the first
difference, in words) or missing (minispore lacks the API the case calls)."""
import math

RTOL = 1e-4
ATOL = 1e-5
# minispore raising one of these where MindSpore returned means the API is not there yet.
MISSING_ERRORS = {"AttributeError", "ImportError", "ModuleNotFoundError", "NotImplementedError"}


def compare(expected, actual):
    """(status, detail) for MindSpore's record `expected` and minispore's `actual`."""
    exp, act = expected["result"], actual["result"]
    if exp["kind"] == "tensor" and exp.get("note") and act["kind"] == "error" and \
            exp["note"] == act["type"]:
        # MindSpore's PYNATIVE errors are asynchronous: its call returned a tensor whose read
        # raised; minispore raises the same error at the call.
        return "agree", ""
    if exp["kind"] == "error" or act["kind"] == "error":
        if exp["kind"] == "error" and act["kind"] == "error":
            if exp["type"] == act["type"]:
                return "agree", ""
            return "differ", f"raises {act['type']}, MindSpore raises {exp['type']}"
        if act["kind"] == "error":
            status = "missing" if act["type"] in MISSING_ERRORS else "differ"
            return status, f"raises {act['type']}: {act['message'][:120]}"
        return "differ", f"returns, MindSpore raises {exp['type']}: {exp['message'][:120]}"
    detail = diff(exp, act, shape_only=expected.get("random", False))
    if detail:
        return "differ", detail
    if expected.get("stdout", "") != actual.get("stdout", ""):
        return "differ", (f"prints {actual.get('stdout', '')!r}, "
                          f"MindSpore prints {expected.get('stdout', '')!r}")
    return "agree", ""


def diff(exp, act, shape_only=False, where="out"):
    """The first difference between two descriptions, in words; '' when they agree."""
    if exp["kind"] != act["kind"]:
        return f"{where} is {_what(act)}, MindSpore: {_what(exp)}"
    kind = exp["kind"]
    if kind in ("tensor", "ndarray"):
        if exp["dtype"] != act["dtype"]:
            return f"{where} dtype {act['dtype']}, MindSpore {exp['dtype']}"
        if exp["shape"] != act["shape"]:
            return f"{where} shape {act['shape']}, MindSpore {exp['shape']}"
        if shape_only or exp["values"] is None:
            return ""
        return _values_diff(exp["values"], act["values"], where)
    if kind == "scalar":
        if exp["type"] != act["type"]:
            return f"{where} is a {act['type']}, MindSpore: a {exp['type']}"
        if shape_only or _close(exp["value"], act["value"]):
            return ""
        return f"{where} = {act['value']!r}, MindSpore {exp['value']!r}"
    if kind == "seq":
        if exp["type"] != act["type"] or len(exp["items"]) != len(act["items"]):
            return (f"{where} is a {act['type']} of {len(act['items'])}, "
                    f"MindSpore: a {exp['type']} of {len(exp['items'])}")
        for i, (e, a) in enumerate(zip(exp["items"], act["items"])):
            d = diff(e, a, shape_only, f"{where}[{i}]")
            if d:
                return d
        return ""
    if kind == "dict":
        if sorted(exp["items"]) != sorted(act["items"]):
            return f"{where} keys {sorted(act['items'])}, MindSpore {sorted(exp['items'])}"
        for k in exp["items"]:
            d = diff(exp["items"][k], act["items"][k], shape_only, f"{where}[{k!r}]")
            if d:
                return d
        return ""
    if kind == "dtype":
        return "" if exp["value"] == act["value"] else f"{where} {act['value']}, MindSpore {exp['value']}"
    if exp.get("type") != act.get("type"):
        return f"{where} is a {act.get('type')}, MindSpore: a {exp.get('type')}"
    return ""


def _what(d):
    if d["kind"] in ("tensor", "ndarray"):
        return f"a {d['kind']} {d['dtype']}{d['shape']}"
    if d["kind"] in ("scalar", "seq", "object"):
        return f"a {d.get('type')}"
    return d["kind"]


def _values_diff(exp, act, where):
    if act is None or len(exp) != len(act):
        return f"{where} has {len(act or [])} values, MindSpore {len(exp)}"
    worst = None
    for i, (e, a) in enumerate(zip(exp, act)):
        if not _close(e, a):
            worst = i
            break
    if worst is None:
        return ""
    return f"{where} values differ at flat index {worst}: {act[worst]!r}, MindSpore {exp[worst]!r}"


def _close(e, a):
    if isinstance(e, list) and isinstance(a, list):
        return len(e) == len(a) and all(_close(p, q) for p, q in zip(e, a))
    if isinstance(e, str) or isinstance(a, str) or e is None or a is None:
        return e == a
    if isinstance(e, bool) or isinstance(a, bool):
        return e == a
    return math.isclose(e, a, rel_tol=RTOL, abs_tol=ATOL)
