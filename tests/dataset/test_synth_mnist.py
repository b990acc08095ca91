"""Synthetic MNIST (learnable, deterministic, real IDX files) and tools/mnist.py."""
import importlib.util
import io
import os
import urllib.error

import numpy as np
import pytest

import minispore.dataset as ds
from minispore.dataset.synth_mnist import render_digits

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _tool():
    spec = importlib.util.spec_from_file_location("mnist_tool",
                                                  os.path.join(ROOT, "tools", "mnist.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_synth_writes_mindspore_layout_deterministically(tmp_path):
    train, test = ds.synth_mnist(str(tmp_path / "a"), 50, 20, seed=3)
    ds.synth_mnist(str(tmp_path / "b"), 50, 20, seed=3)
    assert sorted(os.listdir(train)) == ["train-images-idx3-ubyte", "train-labels-idx1-ubyte"]
    assert sorted(os.listdir(test)) == ["t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"]
    for part, name in (("train", "train-images-idx3-ubyte"), ("test", "t10k-labels-idx1-ubyte")):
        assert (tmp_path / "a" / part / name).read_bytes() == \
            (tmp_path / "b" / part / name).read_bytes()
    data = ds.MnistDataset(train, shuffle=False)
    assert data.get_dataset_size() == 50
    image, label = next(data.create_tuple_iterator(output_numpy=True))
    assert image.shape == (28, 28, 1) and image.max() > 200 and label < 10
    gz_train, _ = ds.synth_mnist(str(tmp_path / "c"), 5, 5, seed=0, compress=True)
    assert ds.MnistDataset(gz_train).get_dataset_size() == 5


def test_synth_digits_are_learnable():
    """A linear softmax classifier on 3000 images already separates the classes well, so LeNet
    has a real signal to learn (it is not asserted here: nn lives above dataset)."""
    rng = np.random.default_rng(0)
    ytr, yte = rng.integers(0, 10, 3000), rng.integers(0, 10, 1000)
    xtr = render_digits(ytr, rng).reshape(3000, -1) / 255.0
    xte = render_digits(yte, rng).reshape(1000, -1) / 255.0
    w, b = np.zeros((784, 10)), np.zeros(10)
    for _ in range(20):
        for i in range(0, 3000, 100):
            x, y = xtr[i:i + 100], ytr[i:i + 100]
            z = x @ w + b
            p = np.exp(z - z.max(1, keepdims=True))
            p /= p.sum(1, keepdims=True)
            p[np.arange(len(y)), y] -= 1
            w -= 0.1 * x.T @ p / len(y)
            b -= 0.1 * p.mean(0)
    accuracy = ((xte @ w + b).argmax(1) == yte).mean()
    assert accuracy > 0.85, accuracy
    # and the images vary within a class (shift, stroke, noise)
    sevens = render_digits(np.full(20, 7), rng)
    assert len({s.tobytes() for s in sevens}) == 20


def test_tool_synth_cli(tmp_path, capsys):
    assert _tool().main(["synth", str(tmp_path), "--train", "12", "--test", "4", "--seed",
                         "1"]) == 0
    assert ds.MnistDataset(str(tmp_path / "test")).get_dataset_size() == 4
    assert "wrote" in capsys.readouterr().out


def test_tool_download_without_network_fails_clearly(tmp_path, monkeypatch, capsys):
    tool = _tool()

    def offline(url, timeout):
        raise urllib.error.URLError("Name or service not known")
    monkeypatch.setattr(tool.urllib.request, "urlopen", offline)
    assert tool.main(["download", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "could not download MNIST (no network?)" in err and "synth" in err


def test_tool_download_rejects_a_bad_checksum(tmp_path, monkeypatch):
    tool = _tool()

    class Fake(io.BytesIO):
        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False
    monkeypatch.setattr(tool.urllib.request, "urlopen", lambda url, timeout: Fake(b"junk"))
    with pytest.raises(RuntimeError, match="MD5 .* differs from the expected "
                                           "f68b3c2dcbeaaa9fbdd348bbdeb94873"):
        tool.download(str(tmp_path))
    assert not (tmp_path / "train" / "train-images-idx3-ubyte.gz").exists()
