"""ops.vmap's batching level against running the function once per slice (what vmap did before
the batching rules, and what an operator without a rule still does): per-example gradients of
an MLP loss, and the batched forward. Part of `make bench`; alone,

    python tools/bench_vmap.py [--update BENCHMARKS.md]

prints the table (and with --update replaces its section of the file)."""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import Table, compare  # noqa: E402

import minispore as ms  # noqa: E402
from minispore import Tensor, ops  # noqa: E402
from minispore.ops.function.composite_func import stack  # noqa: E402

TITLE = ("vmap: per-example gradients and forward of an MLP 784-128-10 (tanh, squared "
         "error), PYNATIVE, float32 (ms, lower is better)")


def _loss(w1, w2, x, y):
    h = ops.tanh(ops.matmul(x, w1))
    d = ops.matmul(h, w2) - y
    return (d * d).sum()


def _forward(w1, w2, x):
    return ops.matmul(ops.tanh(ops.matmul(x, w1)), w2)


def _numpy_grads(w1, w2, xs, ys):
    """The same per-example gradient of w1 written in numpy (batched by hand)."""
    h = np.tanh(xs[:, None, :] @ w1)                       # (B, 1, 128)
    d = h @ w2 - ys[:, None, :]                            # (B, 1, 10)
    dh = (2 * d @ w2.T) * (1 - h * h)
    return np.swapaxes(xs[:, None, :], 1, 2) @ dh          # (B, 784, 128)


def table(batches=(16, 64)):
    rng = np.random.default_rng(0)
    w1 = Tensor((rng.standard_normal((784, 128)) * 0.05).astype(np.float32))
    w2 = Tensor((rng.standard_normal((128, 10)) * 0.1).astype(np.float32))
    per_example = ms.grad(_loss, 0)
    t = Table(TITLE, ["batch", "what", "vmap (batched)", "per-slice loop", "loop / vmap",
                      "numpy by hand"])
    for b in batches:
        xs = Tensor(rng.standard_normal((b, 784)).astype(np.float32))
        ys = Tensor(rng.standard_normal((b, 10)).astype(np.float32))
        rows = [Tensor(r) for r in xs.asnumpy()]
        targets = [Tensor(r) for r in ys.asnumpy()]
        batched = ops.vmap(per_example, in_axes=(None, None, 0, 0))
        got = batched(w1, w2, xs, ys).asnumpy()
        want = _numpy_grads(w1.asnumpy(), w2.asnumpy(), xs.asnumpy(), ys.asnumpy())
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5)
        r = compare({
            "vmap": lambda: batched(w1, w2, xs, ys),
            "loop": lambda: stack([per_example(w1, w2, x, y) for x, y in zip(rows, targets)]),
            "numpy": lambda: _numpy_grads(w1.asnumpy(), w2.asnumpy(), xs.asnumpy(),
                                          ys.asnumpy()),
        }, rounds=3, min_time=0.2)
        t.add(str(b), "per-example grad of w1", r["vmap"] * 1e3, r["loop"] * 1e3,
              f"{r['loop'] / r['vmap']:.1f}", r["numpy"] * 1e3)
        forward = ops.vmap(_forward, in_axes=(None, None, 0))
        r = compare({
            "vmap": lambda: forward(w1, w2, xs),
            "loop": lambda: stack([_forward(w1, w2, x) for x in rows]),
        }, rounds=3, min_time=0.2)
        t.add(str(b), "forward", r["vmap"] * 1e3, r["loop"] * 1e3,
              f"{r['loop'] / r['vmap']:.1f}", "-")
    return t


def _update(path, section):
    """Replace this table's section in `path` (or put it before the GPU section)."""
    text = open(path).read()
    head = f"### {TITLE}"
    if head in text:
        before, rest = text.split(head, 1)
        after = rest[rest.find("\n#"):] if "\n#" in rest else ""
        text = before + section.rstrip("\n") + "\n" + after
    else:
        gpu = "## GPU (make bench-gpu)"
        before, sep, after = text.partition(gpu)
        text = before + section + "\n" + sep + after
    open(path, "w").write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", metavar="FILE", help="replace the table's section there")
    args = parser.parse_args()
    t = table()
    if args.update:
        _update(args.update, t.markdown())


if __name__ == "__main__":
    main()
