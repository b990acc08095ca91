"""Stands in for the PyPI `download` package, which MindSpore's tutorials call to fetch
MNIST_Data.zip (no network here or in CI): ``download(url, path, kind="zip", replace=True)``
puts the folder named after the archive, taken from $TUTORIAL_DATA (a synthetic MNIST written
as real IDX files by the test), under `path`, and returns `path`, as the package does after
unzipping. Nothing of minispore is in it: the tutorials run unchanged around it."""
import os
import shutil


def download(url, path, kind="file", replace=False, **kwargs):
    name = url.rsplit("/", 1)[-1].split(".")[0]
    target = os.path.join(path, name)
    if replace and os.path.exists(target):
        shutil.rmtree(target)
    shutil.copytree(os.path.join(os.environ["TUTORIAL_DATA"], name), target)
    return path
