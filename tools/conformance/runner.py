"""Runs conformance cases in this process and writes one JSON line per case: what it printed and
what its `out` was (described as plain data), or the exception it raised.

The same file runs under real MindSpore (`.venv-ms/bin/python runner.py ...`) and under minispore
(`python -m minispore runner.py ...`, where `import mindspore` resolves to minispore), so it
imports only the standard library and numpy, and reaches the framework only through the snippets.

    runner.py CASES.json OUT.jsonl [--probe]

CASES.json is a list of {"id", "code": [candidate snippets]}. A snippet runs in a fresh namespace
made by PRELUDE and sets `out`. With --probe (used when generating the corpus under MindSpore) the
first candidate that does not raise is kept and run twice, so a case whose values change from run
to run (random ops) is marked `random` and compared by dtype and shape only. Without --probe only
the first candidate runs. A line is flushed per case, so a driver can tell which case a crash hit.
"""
import contextlib
import io
import itertools
import json
import linecache
import math
import signal
import sys
import types

import numpy as np

# The inputs every snippet sees. Values are irregular (so sorts, argmax and top-k mean something)
# and inside (0, 1) where an op has a domain (log, sqrt, acos); `sq` is symmetric positive
# definite for the linear-algebra ops.
PRELUDE = """
import numpy as np
import mindspore as ms
from mindspore import Tensor, Parameter, ops, nn
x = Tensor(np.array([[0.5, 0.2, 0.8], [0.3, 0.9, 0.1]], np.float32))
y = Tensor(np.array([[0.4, 0.7, 0.6], [0.9, 0.1, 0.3]], np.float32))
z = Tensor(np.array([[0.25, 0.5, 0.75], [0.6, 0.35, 0.15]], np.float32))
v = Tensor(np.array([0.5, 0.2, 0.8, 0.3], np.float32))
xi = Tensor(np.array([[1, 4, 2], [3, 0, 5]], np.int32))
yi = Tensor(np.array([[2, 1, 3], [1, 2, 2]], np.int32))
xb = Tensor(np.array([[True, False, True], [False, True, True]]))
sq = Tensor(np.array([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.5]], np.float32))
x3 = Tensor(np.linspace(-1, 1, 24).reshape(2, 3, 4).astype(np.float32))
img = Tensor(np.linspace(-1, 1, 32).reshape(1, 2, 4, 4).astype(np.float32))
lbl = Tensor(np.array([2, 0], np.int32))

def _fix(net):
    # Deterministic weights that depend only on each parameter's shape, so layers compare by
    # value whatever the two frameworks draw at init or name their parameters.
    for p in net.get_parameters():
        n = int(np.prod(p.shape)) if len(p.shape) else 1
        vals = np.linspace(-0.5, 0.5, n).reshape(p.shape).astype(p.asnumpy().dtype)
        p.set_data(Tensor(vals))
    return net
"""

TIMEOUT_S = 20
CASE_MODULE = "conformance_case"
_COUNTER = itertools.count()
DTYPE_NAMES = {"Bool", "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
               "Float16", "Float32", "Float64", "BFloat16", "Complex64", "Complex128", "String"}
MAX_VALUES = 4096


def _values(arr):
    arr = np.asarray(arr)
    flat = arr.reshape(-1)[:MAX_VALUES]
    if np.iscomplexobj(flat):
        return [[_num(c.real), _num(c.imag)] for c in flat]
    if flat.dtype.kind in "biu":
        return [int(a) for a in flat]
    if flat.dtype.kind == "f" or flat.dtype.name == "bfloat16":
        return [_num(float(a)) for a in flat]
    return [str(a) for a in flat]


def _num(f):
    # JSON has no NaN or infinities; spell them as strings both sides read back the same way.
    return f if math.isfinite(f) else str(f)


def describe(value, depth=0):
    """A JSON-able description of a result: kind, type, dtype, shape and values."""
    if depth > 6:
        return {"kind": "object", "type": type(value).__name__}
    if hasattr(value, "asnumpy") and hasattr(value, "dtype") and hasattr(value, "shape"):
        try:
            arr = value.asnumpy()
        except Exception as e:  # a placeholder or lazily initialised tensor
            return {"kind": "tensor", "dtype": str(value.dtype), "shape": list(value.shape),
                    "values": None, "note": f"{type(e).__name__}"}
        return {"kind": "tensor", "dtype": str(value.dtype), "shape": list(arr.shape),
                "values": _values(arr)}
    if isinstance(value, np.ndarray):
        return {"kind": "ndarray", "dtype": str(value.dtype), "shape": list(value.shape),
                "values": _values(value)}
    if isinstance(value, np.generic):
        return {"kind": "ndarray", "dtype": str(value.dtype), "shape": [],
                "values": _values(value)}
    if value is None or isinstance(value, (bool, int, float, str)):
        v = _num(value) if isinstance(value, float) else value
        return {"kind": "scalar", "type": type(value).__name__, "value": v}
    if isinstance(value, (list, tuple)):
        return {"kind": "seq", "type": type(value).__name__,
                "items": [describe(v, depth + 1) for v in value]}
    if isinstance(value, dict):
        return {"kind": "dict", "items": {str(k): describe(v, depth + 1)
                                          for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}}
    text = _safe_str(value)
    if text in DTYPE_NAMES:
        return {"kind": "dtype", "value": text}
    return {"kind": "object", "type": type(value).__name__}


def _safe_str(value):
    try:
        return str(value)
    except Exception:
        return None


def _error(e):
    return {"kind": "error", "type": type(e).__name__, "message": str(e).strip()[:300]}


def _alarm(signum, frame):
    raise TimeoutError(f"case ran over {TIMEOUT_S} s")


def run_one(code):
    """Runs a snippet; returns (description of `out` or of the error, captured stdout)."""
    # A real module with the snippet's source in linecache: MindSpore's jit reads the source
    # of the functions it compiles and looks their module up in sys.modules.
    module = types.ModuleType(CASE_MODULE)
    sys.modules[CASE_MODULE] = module
    ns = module.__dict__
    filename = f"<conformance case {next(_COUNTER)}>"
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    buf = io.StringIO()
    signal.alarm(TIMEOUT_S)
    try:
        with contextlib.redirect_stdout(buf):
            exec(PRELUDE, ns)
            exec(compile(code, filename, "exec"), ns)
        result = describe(ns.get("out"))
    except BaseException as e:  # noqa: B036 - a case's SystemExit must not end the run
        if isinstance(e, KeyboardInterrupt):
            raise
        result = _error(e)
    finally:
        signal.alarm(0)
    return result, buf.getvalue()


def run_case(case, probe):
    candidates = case["code"] if isinstance(case["code"], list) else [case["code"]]
    if not probe:
        candidates = candidates[:1]
    for code in candidates:
        result, stdout = run_one(code)
        if result["kind"] != "error" or not probe:
            break
    record = {"id": case["id"], "code": code, "result": result, "stdout": stdout}
    if case.get("random"):
        record["random"] = True
    elif probe and result["kind"] != "error":
        again, _ = run_one(code)
        if json.dumps(again, sort_keys=True) != json.dumps(result, sort_keys=True):
            record["random"] = True
    return record


def main(argv):
    cases_path, out_path = argv[0], argv[1]
    probe = "--probe" in argv
    with open(cases_path) as f:
        cases = json.load(f)
    signal.signal(signal.SIGALRM, _alarm)
    with open(out_path, "a") as out:
        for case in cases:
            out.write(json.dumps(run_case(case, probe)) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
