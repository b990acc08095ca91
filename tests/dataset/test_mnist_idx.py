"""IDX reading/writing and MnistDataset's file handling, including corrupt inputs."""
import gzip

import numpy as np
import pytest

import minispore.dataset as ds
from minispore.dataset.mnist_idx import read_idx, write_idx
from tests.dataset.conftest import make_mnist


@pytest.mark.parametrize("ext", ["", ".gz"])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.float32, np.float64])
def test_idx_round_trip(tmp_path, ext, dtype):
    arr = (np.random.default_rng(0).standard_normal((3, 4, 5)) * 100).astype(dtype)
    path = str(tmp_path / f"a.idx{ext}")
    write_idx(path, arr)
    back = read_idx(path)
    assert back.dtype == np.dtype(dtype).newbyteorder("=") and np.array_equal(back, arr)


def test_idx_header_is_mnist_layout(tmp_path):
    path = str(tmp_path / "img")
    write_idx(path, np.zeros((2, 28, 28), np.uint8))
    raw = open(path, "rb").read()
    assert raw[:4] == b"\x00\x00\x08\x03"
    assert [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(3)] == [2, 28, 28]
    assert len(raw) == 16 + 2 * 784


def test_idx_wrong_magic(tmp_path):
    path = tmp_path / "bad"
    path.write_bytes(b"\x12\x34\x08\x03" + bytes(12 + 784))
    with pytest.raises(RuntimeError, match=r"bad' has an invalid magic number 0x12340803"):
        read_idx(str(path))


def test_idx_wrong_ndim(tmp_path):
    path = str(tmp_path / "labels")
    write_idx(path, np.zeros(5, np.uint8))
    with pytest.raises(RuntimeError, match=r"magic 0x00000801 \(1 dims\) but 3 dims"):
        read_idx(path, expected_ndim=3)


@pytest.mark.parametrize("ext", ["", ".gz"])
def test_idx_truncated(tmp_path, ext):
    path = str(tmp_path / f"img{ext}")
    write_idx(str(tmp_path / "full"), np.ones((4, 28, 28), np.uint8))
    raw = (tmp_path / "full").read_bytes()[:-100]
    with (gzip.open if ext else open)(path, "wb") as f:
        f.write(raw)
    with pytest.raises(RuntimeError, match=r"is truncated: dims \[4, 28, 28\] need 3136 data "
                                           r"bytes, found 3036"):
        read_idx(path)


def test_idx_truncated_header_and_too_long(tmp_path):
    (tmp_path / "h").write_bytes(b"\x00\x00\x08\x03\x00\x00")
    with pytest.raises(RuntimeError, match="truncated inside its header"):
        read_idx(str(tmp_path / "h"))
    write_idx(str(tmp_path / "l"), np.ones(3, np.uint8))
    (tmp_path / "l").write_bytes((tmp_path / "l").read_bytes() + b"\x00")
    with pytest.raises(RuntimeError, match="longer than its header says"):
        read_idx(str(tmp_path / "l"))


def forged(path, dims, data=b"", code=0x08):
    """An IDX file whose header declares `dims` over `data`."""
    path.write_bytes(bytes([0, 0, code, len(dims)]) +
                     b"".join(d.to_bytes(4, "big") for d in dims) + data)
    return str(path)


@pytest.mark.parametrize("dims, data", [
    ([2 ** 16, 2 ** 16, 2 ** 32 - 1], b""),      # ~2**64 pixels: an int64 count wraps
    ([2 ** 31, 2 ** 31, 4], b""),                 # exactly 2**64: wraps to 0, the data's size
    ([2 ** 32 - 1, 2 ** 32 - 1, 1], bytes(784)),
])
def test_idx_forged_huge_dims_name_the_file(tmp_path, dims, data):
    path = forged(tmp_path / "train-images-idx3-ubyte", dims, data)
    with pytest.raises(RuntimeError, match=rf"IDX file '.*train-images-idx3-ubyte' declares "
                                           rf"dims \[{dims[0]}, {dims[1]}, {dims[2]}\], too "
                                           rf"large for an array"):
        read_idx(path)


def test_idx_forged_dims_with_a_zero_name_the_file(tmp_path):
    path = forged(tmp_path / "imgs", [0, 2 ** 32 - 1, 2 ** 32 - 1])
    with pytest.raises(RuntimeError, match=r"imgs' declares dims \[0, 4294967295, 4294967295\]"
                                           r", too large"):
        read_idx(path)
    assert read_idx(forged(tmp_path / "empty", [0, 28, 28])).shape == (0, 28, 28)


def test_idx_forged_dims_disagreeing_with_the_data(tmp_path):
    path = forged(tmp_path / "imgs", [2, 28, 29], bytes(2 * 28 * 28))
    with pytest.raises(RuntimeError, match=r"imgs' is truncated: dims \[2, 28, 29\] need 1624 "
                                           r"data bytes, found 1568"):
        read_idx(path)


def test_idx_more_dims_than_numpy_holds(tmp_path):
    path = forged(tmp_path / "deep", [1] * 65, b"\x07")
    with pytest.raises(RuntimeError, match=r"deep' declares 65 dims; at most 64 are supported"):
        read_idx(path)


def test_mnist_refuses_images_that_are_not_28x28(tmp_path):
    write_idx(str(tmp_path / "train-images-idx3-ubyte"), np.zeros((3, 27, 28), np.uint8))
    write_idx(str(tmp_path / "train-labels-idx1-ubyte"), np.zeros(3, np.uint8))
    with pytest.raises(RuntimeError, match=r"MnistDataset: '.*train-images-idx3-ubyte' holds "
                                           r"images of 27x28 pixels; MNIST images are 28x28"):
        ds.MnistDataset(str(tmp_path)).get_dataset_size()


def test_idx_corrupt_gzip(tmp_path):
    (tmp_path / "x.gz").write_bytes(b"this is not gzip data")
    with pytest.raises(RuntimeError, match=r"x.gz' could not be read"):
        read_idx(str(tmp_path / "x.gz"))


@pytest.mark.parametrize("gz", [False, True])
def test_mnist_reads_images_and_labels(tmp_path, gz):
    images, labels = make_mnist(tmp_path, 7, gz=gz)
    data = ds.MnistDataset(str(tmp_path), shuffle=False)
    assert data.get_col_names() == ["image", "label"]
    assert data.get_dataset_size() == 7
    rows = list(data.create_tuple_iterator(output_numpy=True))
    assert rows[3][0].shape == (28, 28, 1) and rows[3][0].dtype == np.uint8
    assert rows[3][1].dtype == np.uint32 and rows[3][1] == 3
    assert np.array_equal(np.stack([r[0][..., 0] for r in rows]), images)
    assert [int(r[1]) for r in rows] == labels.tolist()


def test_mnist_usage(tmp_path):
    make_mnist(tmp_path, 6, prefix="train")
    make_mnist(tmp_path, 4, prefix="t10k")
    assert ds.MnistDataset(str(tmp_path), usage="train").get_dataset_size() == 6
    assert ds.MnistDataset(str(tmp_path), usage="test").get_dataset_size() == 4
    assert ds.MnistDataset(str(tmp_path), usage="all").get_dataset_size() == 10
    assert ds.MnistDataset(str(tmp_path)).get_dataset_size() == 10
    with pytest.raises(ValueError, match="Input usage is not within the valid set"):
        ds.MnistDataset(str(tmp_path), usage="valid")


def test_mnist_missing_directory_and_files(tmp_path):
    with pytest.raises(ValueError, match="does not exist or is not a directory"):
        ds.MnistDataset(str(tmp_path / "nope"))
    with pytest.raises(RuntimeError, match="no MNIST IDX files"):
        ds.MnistDataset(str(tmp_path))
    make_mnist(tmp_path, 3)
    (tmp_path / "train-labels-idx1-ubyte").unlink()
    with pytest.raises(RuntimeError, match="'train-labels-idx1-ubyte' .* is missing"):
        ds.MnistDataset(str(tmp_path))
    with pytest.raises(RuntimeError, match="'t10k-images-idx3-ubyte' .* is missing"):
        ds.MnistDataset(str(tmp_path), usage="test")


def test_mnist_count_mismatch_and_bad_file(tmp_path):
    make_mnist(tmp_path, 5)
    write_idx(str(tmp_path / "train-labels-idx1-ubyte"), np.zeros(4, np.uint8))
    with pytest.raises(RuntimeError, match="holds 5 images but .* holds 4 labels"):
        ds.MnistDataset(str(tmp_path))
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(b"\x00\x00\x08\x01\x00\x00\x00\x09")
    with pytest.raises(RuntimeError, match="train-labels-idx1-ubyte' is truncated"):
        ds.MnistDataset(str(tmp_path))
