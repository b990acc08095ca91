"""Plot the losses that LossMonitor printed, for one rank or many, into a PNG.

Usage:
    python tools/plot_losses.py LOG [LOG ...] [-o losses.png] [--title TEXT]

Each LOG is a file holding LossMonitor lines (``epoch: E step: S, loss is L``), e.g. msrun's
``worker_<rank>.log`` files or a captured stdout; a folder stands for every ``*.log`` in it.
One curve per file, labelled with the file's name, against the global step (epochs laid end to
end: the step count of an epoch is the largest step the file shows for it). Other lines are
ignored; a file with no loss line is an error naming it.
"""
import argparse
import os
import re
import sys

LINE = re.compile(r"epoch:\s*(\d+)\s+step:\s*(\d+),\s*loss is\s*([-+0-9.eEnaifNAIF]+)")


def read_losses(path):
    """[(global step, loss)] from the LossMonitor lines of `path`, in file order."""
    records = []
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.search(line)
            if m:
                records.append((int(m.group(1)), int(m.group(2)), float(m.group(3))))
    if not records:
        raise ValueError(f"plot_losses: {path} has no LossMonitor line ('epoch: E step: S, "
                         f"loss is L').")
    steps_in = {}
    for epoch, step, _ in records:
        steps_in[epoch] = max(step, steps_in.get(epoch, 0))
    offset, start = 0, {}
    for epoch in sorted(steps_in):
        start[epoch] = offset
        offset += steps_in[epoch]
    return [(start[epoch] + step, loss) for epoch, step, loss in records]


def expand(paths):
    """The files named, with a folder replaced by its *.log files (sorted)."""
    files = []
    for path in paths:
        if os.path.isdir(path):
            files += sorted(os.path.join(path, n) for n in os.listdir(path)
                            if n.endswith(".log"))
        else:
            files.append(path)
    return files


def plot(curves, output, title=None):
    """Write `curves` ({label: [(step, loss)]}) as a line plot PNG at `output`."""
    import matplotlib
    matplotlib.use("Agg")       # no display on a training machine
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    for label, points in curves.items():
        ax.plot([s for s, _ in points], [v for _, v in points], label=label, linewidth=1.2)
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    if len(curves) > 1:
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(output)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+", help="log files or folders of *.log files")
    parser.add_argument("-o", "--output", default="losses.png")
    parser.add_argument("--title", default=None)
    args = parser.parse_args(argv)
    files = expand(args.logs)
    if not files:
        parser.error(f"no log files in {args.logs}")
    try:
        curves = {os.path.basename(f): read_losses(f) for f in files}
    except (OSError, ValueError) as e:
        print(e, file=sys.stderr)
        return 1
    plot(curves, args.output, args.title)
    print(f"plot_losses: {sum(len(c) for c in curves.values())} losses of {len(curves)} "
          f"file(s) -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
