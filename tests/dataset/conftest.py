"""Shared fixtures: tiny hand-built MNIST IDX folders."""
import numpy as np
import pytest

from minispore.common.registry import REGISTRY
from minispore.dataset.mnist_idx import write_idx


def make_mnist(folder, n=10, prefix="train", gz=False):
    """Write an n-image IDX pair whose image i is filled with value i and label i % 10."""
    images = np.repeat(np.arange(n, dtype=np.uint8)[:, None, None], 28, 1).repeat(28, 2)
    labels = (np.arange(n) % 10).astype(np.uint8)
    ext = ".gz" if gz else ""
    write_idx(str(folder / f"{prefix}-images-idx3-ubyte{ext}"), images)
    write_idx(str(folder / f"{prefix}-labels-idx1-ubyte{ext}"), labels)
    return images, labels


@pytest.fixture
def mnist10(tmp_path):
    make_mnist(tmp_path, 10)
    return str(tmp_path)


@pytest.fixture(autouse=True)
def _no_dataset_seed():
    # (a module fixture may have left a dataset seed: each dataset test starts without one;
    # tests/conftest.py puts every setting back afterwards)
    REGISTRY.reset("dataset")
