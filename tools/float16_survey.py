"""Which operators of tools/op_matrix.py run on float16 inputs (eager CPU)?

Usage: python tools/float16_survey.py

Each operator is built with its default attributes and called on 1 to 3 random tensors of a
few shapes; the first call that runs in float32 is repeated in float16. Operators that need
specific arguments (attributes without defaults, axes, labels) are listed as not probed.
"""
import contextlib
import io
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from minispore.common.tensor import Tensor  # noqa: E402
from tools.op_matrix import operator_classes  # noqa: E402

SHAPES = [(2, 2), (1, 2, 3, 3), (2,)]


def attempt(cls, dtype, only=None):
    """("ok", (shape, arity)) for the first call of a default-built `cls` that runs on
    `dtype` tensors (only that call when `only` is given), else (why, message)."""
    try:
        prim = cls()
    except Exception as e:  # noqa: BLE001 - needs attributes: not probed
        return "ctor", repr(e)[:60]
    last = None
    for shape in SHAPES:
        for arity in (1, 2, 3):
            if only is not None and only != (shape, arity):
                continue
            args = [Tensor(np.random.rand(*shape).astype(dtype)) for _ in range(arity)]
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    prim(*args)
                return "ok", (shape, arity)
            except Exception as e:  # noqa: BLE001 - any refusal counts
                last = e
    return "fail", f"{type(last).__name__}: {str(last)[:90]}"


def main():
    res = {}
    for name, cls in operator_classes().items():
        if cls.__module__.endswith("comm_ops"):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s32 = attempt(cls, np.float32)
            s16 = attempt(cls, np.float16, s32[1]) if s32[0] == "ok" else ("n/a", "")
        res[name] = (s32, s16)
    accepted = [n for n, (a, b) in res.items() if b[0] == "ok"]
    refused = [(n, b[1]) for n, (a, b) in res.items() if a[0] == "ok" and b[0] != "ok"]
    unprobed = [n for n, (a, b) in res.items() if a[0] != "ok"]
    print(f"float16 accepted ({len(accepted)}):", " ".join(accepted))
    print(f"\nfloat16 refused though float32 runs ({len(refused)}):")
    for n, m in refused:
        print("  ", n, "--", m)
    print(f"\nnot probed: need specific arguments ({len(unprobed)}):", " ".join(unprobed))


if __name__ == "__main__":
    main()
