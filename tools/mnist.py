"""MNIST files for the examples: `download DIR` (the real data, checksummed) or `synth DIR`.

    python tools/mnist.py download MNIST_Data
    python tools/mnist.py synth MNIST_Data --train 60000 --test 10000 --seed 0

Both write MindSpore's MNIST_Data layout: DIR/train/train-*-ubyte and DIR/test/t10k-*-ubyte
(uncompressed, as MindSpore's zip has them; MnistDataset also reads .gz).
"""
import argparse
import gzip
import hashlib
import os
import shutil
import sys
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from minispore.dataset.mnist_idx import read_idx  # noqa: E402
from minispore.dataset.synth_mnist import synth_mnist  # noqa: E402

MIRRORS = ("https://ossci-datasets.s3.amazonaws.com/mnist/",
           "https://storage.googleapis.com/cvdf-datasets/mnist/")
# MD5 of the original gz files (the values torchvision checks), with the row count each holds.
FILES = {
    "train-images-idx3-ubyte.gz": ("f68b3c2dcbeaaa9fbdd348bbdeb94873", "train", 60000),
    "train-labels-idx1-ubyte.gz": ("d53e105ee54ea40749a09fcbcd1e9432", "train", 60000),
    "t10k-images-idx3-ubyte.gz": ("9fb629c4189551a2d022fa330f9573f3", "test", 10000),
    "t10k-labels-idx1-ubyte.gz": ("ec29112dd5afa0611ce80d1b7f02629c", "test", 10000),
}


def _fetch(name, dest, timeout):
    errors = []
    for mirror in MIRRORS:
        try:
            with urllib.request.urlopen(mirror + name, timeout=timeout) as r, \
                    open(dest, "wb") as f:
                shutil.copyfileobj(r, f)
            return
        except (urllib.error.URLError, OSError) as e:
            errors.append(f"{mirror}{name}: {e}")
    raise RuntimeError("could not download MNIST (no network?):\n  " + "\n  ".join(errors) +
                       "\nUse `python tools/mnist.py synth DIR` for a synthetic stand-in.")


def download(directory, timeout=30):
    """Fetch the 4 gz files, check their MD5 and IDX headers, unpack into DIR/{train,test}."""
    for name, (md5, part, count) in FILES.items():
        folder = os.path.join(directory, part)
        os.makedirs(folder, exist_ok=True)
        gz_path = os.path.join(folder, name)
        if not os.path.isfile(gz_path):
            _fetch(name, gz_path + ".part", timeout)
            os.replace(gz_path + ".part", gz_path)
        with open(gz_path, "rb") as f:
            digest = hashlib.md5(f.read()).hexdigest()
        if digest != md5:
            os.remove(gz_path)
            raise RuntimeError(f"{gz_path}: MD5 {digest} differs from the expected {md5}; "
                               f"the file was removed, try again.")
        arr = read_idx(gz_path)
        if len(arr) != count:
            raise RuntimeError(f"{gz_path}: {len(arr)} rows, expected {count}.")
        with gzip.open(gz_path, "rb") as src, open(gz_path[:-3], "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.remove(gz_path)
        print(f"{gz_path[:-3]}: ok ({count} rows, md5 verified)")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("download", help="fetch and verify the real MNIST")
    d.add_argument("dir")
    d.add_argument("--timeout", type=float, default=30)
    s = sub.add_parser("synth", help="write a learnable synthetic MNIST in IDX format")
    s.add_argument("dir")
    s.add_argument("--train", type=int, default=60000)
    s.add_argument("--test", type=int, default=10000)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--gz", action="store_true", help="write .gz files")
    args = p.parse_args(argv)
    try:
        if args.cmd == "download":
            download(args.dir, args.timeout)
        else:
            for folder in synth_mnist(args.dir, args.train, args.test, args.seed, args.gz):
                print(f"wrote {folder}")
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
