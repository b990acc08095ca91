"""Eager dispatch cost of one small operator call (issue 33, "eager path"): `ops.add` and
`Tensor + Tensor` on 4 floats against the bare kernel, numpy and (when importable) torch.
Run alone (`python tools/bench_dispatch.py [--rounds N]`) or from `make bench`."""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import Table, compare  # noqa: E402

from minispore import Tensor, ops  # noqa: E402
from minispore.ops.kernel_registry import kernel  # noqa: E402


def _torch():
    """(torch, None), or (None, why it is left out)."""
    try:
        import torch
    except ImportError as e:
        return None, f"torch is not importable ({e})"
    return torch, None


def measure(rounds=15, min_time=0.05):
    """Median µs per call of each candidate, interleaved rounds; and why torch is missing."""
    a = Tensor(np.ones(4, np.float32))
    b = Tensor(np.full(4, 2.0, np.float32))
    an, bn = a.asnumpy(), b.asnumpy()
    raw = kernel("elementwise", "add")
    cands = {"ops.add": lambda: ops.add(a, b), "Tensor + Tensor": lambda: a + b,
             "kernel": lambda: raw(an, bn), "numpy": lambda: np.add(an, bn)}
    torch, why = _torch()
    if torch is not None:
        ta, tb = torch.from_numpy(an), torch.from_numpy(bn)
        cands["torch"] = lambda: ta + tb
    r = compare(cands, rounds=rounds, min_time=min_time)
    return {k: v * 1e6 for k, v in r.items()}, why


def dispatch_table(rounds=15):
    us, why = measure(rounds)
    t = Table("Eager dispatch: one add on 4 float32 (µs per call, lower is better)",
              ["call", "µs", "/ numpy", "/ torch"])
    torch_us = us.get("torch")
    for name in ("ops.add", "Tensor + Tensor", "kernel", "numpy", "torch"):
        if name not in us:
            continue
        t.add(name if name != "kernel" else "the add kernel alone (ExactUfunc)", us[name],
              f"{us[name] / us['numpy']:.2f}",
              f"{us[name] / torch_us:.2f}" if torch_us else "-")
    t.add("minispore's own cost in ops.add (ops.add - numpy)", us["ops.add"] - us["numpy"], "-",
          "-")
    if why:
        t.add(f"torch: skipped, {why}", "-", "-", "-")
    return t


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    dispatch_table(args.rounds)


if __name__ == "__main__":
    main()
