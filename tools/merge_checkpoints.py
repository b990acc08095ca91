"""Merge the per-rank checkpoints of a parallel run into one single-device checkpoint.

    python tools/merge_checkpoints.py -o merged.ckpt ckpt/rank_0/net.ckpt ckpt/rank_1/net.ckpt
    python tools/merge_checkpoints.py -o merged.ckpt --dir ckpt --name net.ckpt   # rank_*/net.ckpt

Exits 1 with the reason (missing rank, files of different runs, mismatched layouts or shapes,
corrupt file) on failure.
"""
import argparse
import glob
import os
import re
import sys


def _rank_files(directory, name):
    """<directory>/rank_<r>/<name> for every r present, ordered by r."""
    found = []
    for path in glob.glob(os.path.join(glob.escape(directory), "rank_*", name)):
        match = re.fullmatch(r"rank_(\d+)", os.path.basename(os.path.dirname(path)))
        if match:
            found.append((int(match.group(1)), path))
    return [path for _, path in sorted(found)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="per-rank checkpoint files")
    parser.add_argument("-o", "--out", required=True, help="merged checkpoint to write")
    parser.add_argument("--dir", help="directory holding rank_<r>/<name> per rank")
    parser.add_argument("--name", default="net.ckpt",
                        help="file name inside each rank_<r> directory (default net.ckpt)")
    parser.add_argument("--rtol", type=float, default=1e-6,
                        help="relative tolerance for replicated copies to agree")
    parser.add_argument("--atol", type=float, default=1e-7,
                        help="absolute tolerance for replicated copies to agree")
    args = parser.parse_args(argv)
    files = list(args.files)
    if args.dir is not None:
        files += _rank_files(args.dir, args.name)
        if not files:
            parser.error(f"no {os.path.join(args.dir, 'rank_*', args.name)} found")
    if not files:
        parser.error("give the per-rank checkpoint files or --dir")

    from minispore.train.sharded_checkpoints import merge_sharded_checkpoints
    try:
        merged = merge_sharded_checkpoints(files, args.out, rtol=args.rtol, atol=args.atol)
    except (ValueError, TypeError) as exc:       # CheckpointError is a ValueError
        print(f"merge_checkpoints: {exc}", file=sys.stderr)
        return 1
    tensors = sum(1 for v in merged.values() if not isinstance(v, str))
    print(f"merged {len(files)} files into {args.out}: {tensors} tensors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
