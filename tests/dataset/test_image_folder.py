"""ImageFolderDataset: the rows, labels, class indexing and shards MindSpore 2.7.2 gives for the
same folder tree (recorded as literals), and its argument errors."""
import numpy as np
import pytest

import minispore.dataset as ds

FILES = {"bird/0.png": b"B0", "cat/0.png": b"C00", "cat/1.png": b"C1", "cat/2.png": b"C22",
         "cat/x.JPEG": b"CX", "dog/0.png": b"D0", "dog/1.png": b"D11", "dog/notes.txt": b"DN",
         "top.png": b"T"}


@pytest.fixture
def tree(tmp_path):
    for rel, data in FILES.items():
        (tmp_path / rel).parent.mkdir(exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    (tmp_path / "empty").mkdir()
    return tmp_path


def rows(data):
    return [(bytes(r["image"]).decode(), int(r["label"]))
            for r in data.create_dict_iterator(output_numpy=True, num_epochs=1)]


def test_classes_and_files_in_sorted_order(tree):
    data = ds.ImageFolderDataset(str(tree), shuffle=False)
    # MindSpore 2.7.2: bird/0.png, cat/0.png, cat/1.png, cat/2.png, cat/x.JPEG, dog/0.png,
    # dog/1.png, dog/notes.txt with labels 0 1 1 1 1 2 2 2; top.png is not read
    assert data.get_col_names() == ["image", "label"] and data.get_dataset_size() == 8
    assert rows(data) == [("B0", 0), ("C00", 1), ("C1", 1), ("C22", 1), ("CX", 1), ("D0", 2),
                          ("D11", 2), ("DN", 2)]
    assert data.get_class_indexing() == {"bird": 0, "cat": 1, "dog": 2, "empty": 3}
    row = next(data.create_dict_iterator(output_numpy=True))
    assert (row["image"].dtype, row["image"].shape, row["label"].dtype) == \
        (np.uint8, (2,), np.int32)
    assert data.output_types() == [np.uint8, np.int32]


def test_extensions_match_exactly(tree):
    data = ds.ImageFolderDataset(str(tree), shuffle=False, extensions=[".JPEG", ".txt"])
    assert rows(data) == [("CX", 1), ("DN", 2)]
    assert [lab for _, lab in rows(ds.ImageFolderDataset(str(tree), shuffle=False,
                                                         extensions=[".png"]))] == \
        [0, 1, 1, 1, 2, 2]
    for ext in (["png"], [".jpeg"]):
        with pytest.raises(RuntimeError, match="no data found"):
            ds.ImageFolderDataset(str(tree), extensions=ext)


def test_class_indexing_picks_and_labels_folders(tree):
    data = ds.ImageFolderDataset(str(tree), shuffle=False, class_indexing={"dog": 0, "cat": 5})
    assert rows(data) == [("C00", 5), ("C1", 5), ("C22", 5), ("CX", 5), ("D0", 0), ("D11", 0),
                          ("DN", 0)]
    assert data.get_class_indexing() == {"dog": 0, "cat": 5}
    data = ds.ImageFolderDataset(str(tree), shuffle=False, class_indexing={"dog": 1, "zebra": 0})
    assert [lab for _, lab in rows(data)] == [1, 1, 1]
    with pytest.raises(RuntimeError, match="no data found"):
        ds.ImageFolderDataset(str(tree), class_indexing={"zebra": 0})


def test_shards_samples_and_samplers(tree):
    shards = [rows(ds.ImageFolderDataset(str(tree), shuffle=False, num_shards=2, shard_id=s))
              for s in range(2)]
    assert shards == [[("B0", 0), ("C1", 1), ("CX", 1), ("D11", 2)],
                      [("C00", 1), ("C22", 1), ("D0", 2), ("DN", 2)]]
    assert rows(ds.ImageFolderDataset(str(tree), shuffle=False, num_samples=2)) == \
        [("B0", 0), ("C00", 1)]
    assert rows(ds.ImageFolderDataset(str(tree), sampler=ds.SequentialSampler(1, 2))) == \
        [("C00", 1), ("C1", 1)]
    assert [lab for _, lab in rows(ds.ImageFolderDataset(str(tree),
                                                         sampler=ds.PKSampler(1)))] == [0, 1, 2]
    ds.config.set_seed(0)
    shuffled = rows(ds.ImageFolderDataset(str(tree)))
    assert sorted(shuffled) == sorted(rows(ds.ImageFolderDataset(str(tree), shuffle=False)))


def test_subfolder_inside_a_class_is_an_error(tree):
    (tree / "bird" / "sub").mkdir()
    with pytest.raises(RuntimeError, match="should be file, but got directory"):
        ds.ImageFolderDataset(str(tree))


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(dataset_dir="nope"), ValueError, "does not exist or is not a directory"),
    (dict(extensions="png"), TypeError, "extensions"),
    (dict(class_indexing={"dog": "x"}), TypeError, "class_indexing"),
    (dict(decode=True), NotImplementedError, "decode"),
    (dict(decrypt=lambda p: p), NotImplementedError, "decrypt"),
    (dict(cache=object()), NotImplementedError, "cache"),
    (dict(sampler=ds.SequentialSampler(), shuffle=True), RuntimeError, "sampler and shuffle"),
])
def test_argument_errors(tree, kwargs, error, message):
    kwargs.setdefault("dataset_dir", str(tree))
    with pytest.raises(error, match=message):
        ds.ImageFolderDataset(**kwargs)


def test_empty_folder_has_no_data(tree):
    with pytest.raises(RuntimeError, match="no data found"):
        ds.ImageFolderDataset(str(tree / "empty"))
