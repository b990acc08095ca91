"""Crops, flips, pads, Erase, ToTensor, ToNumpy and NormalizePad against numpy references and
values MindSpore 2.7 produced on the same inputs."""
import numpy as np
import pytest

import minispore.dataset as ds
import minispore.dataset.vision as V

IM = np.arange(48, dtype=np.uint8).reshape(4, 4, 3) * 5
ODD = np.arange(5 * 6 * 3, dtype=np.uint8).reshape(5, 6, 3)
G = np.arange(20, dtype=np.uint8).reshape(4, 5) * 12


def test_center_crop_offsets_and_padding():
    assert np.array_equal(V.CenterCrop((3, 2))(ODD), ODD[1:4, 2:4])
    assert np.array_equal(V.CenterCrop((2, 3))(ODD), ODD[1:3, 1:4])
    assert np.array_equal(V.CenterCrop(2)(G), G[1:3, 1:3])
    big = V.CenterCrop((7, 2))(ODD)  # pads 1 row above and below, then crops the columns
    assert big.shape == (7, 2, 3) and not big[0].any() and not big[6].any()
    assert np.array_equal(big[1:6], ODD[:, 2:4])
    assert np.array_equal(V.CenterCrop(6)(IM)[1:5, 1:5], IM)
    with pytest.raises(ValueError):
        V.CenterCrop(0)
    for bad in (True, 2.0, (2, 2, 2)):
        with pytest.raises(TypeError):
            V.CenterCrop(bad)


def test_flips():
    assert np.array_equal(V.HorizontalFlip()(IM), IM[:, ::-1])
    assert np.array_equal(V.HorizontalFlip()(G), G[:, ::-1])
    assert np.array_equal(V.VerticalFlip()(IM), IM[::-1])
    assert np.array_equal(V.RandomVerticalFlip(1)(IM), IM[::-1])
    assert np.array_equal(V.RandomVerticalFlip(0.0)(IM), IM)
    with pytest.raises(ValueError):
        V.RandomVerticalFlip(2)
    with pytest.raises(TypeError):
        V.RandomVerticalFlip("a")


def test_random_vertical_flip_is_seeded_and_per_image():
    def run():
        ds.config.set_seed(5)
        data = ds.NumpySlicesDataset({"x": np.stack([IM + i for i in range(16)])}, shuffle=False)
        data = data.map(V.RandomVerticalFlip(0.5), ["x"])
        return [r[0] for r in data.create_tuple_iterator(output_numpy=True)]
    first, second = run(), run()
    flipped = [np.array_equal(o, (IM + i)[::-1]) for i, o in enumerate(first)]
    kept = [np.array_equal(o, IM + i) for i, o in enumerate(first)]
    assert all(f != k for f, k in zip(flipped, kept)) and 0 < sum(flipped) < 16
    assert all(np.array_equal(a, b) for a, b in zip(first, second))


def test_pad_modes_match_mindspore():
    assert np.array_equal(V.Pad((1, 2), 7)(G), np.pad(G, ((2, 2), (1, 1)), constant_values=7))
    out = V.Pad([1, 2, 0, 1], (1, 2, 3))(IM)
    assert out.shape == (7, 5, 3) and out[0, 0].tolist() == [1, 2, 3]
    assert np.array_equal(out[2:6, 1:], IM)
    assert V.Pad(1, (1, 2, 3))(G)[0, 0] == 1  # a gray image takes the first fill value
    # MindSpore: Pad([2, 1, 0, 1], padding_mode=REFLECT / SYMMETRIC)(G), first row
    assert V.Pad([2, 1, 0, 1], padding_mode=V.Border.REFLECT)(G)[0].tolist() == \
        [84, 72, 60, 72, 84, 96, 108]
    assert V.Pad([2, 1, 0, 1], padding_mode=V.Border.SYMMETRIC)(G)[0].tolist() == \
        [12, 0, 0, 12, 24, 36, 48]
    assert np.array_equal(V.Pad([1, 2, 0, 1], padding_mode=V.Border.EDGE)(G),
                          np.pad(G, ((2, 1), (1, 0)), mode="edge"))
    assert V.Pad(1, 7)(IM.astype(np.float32) / 255)[0, 0].tolist() == [7.0] * 3
    with pytest.raises(RuntimeError):
        V.Pad(1)(np.zeros((2, 2, 4), np.uint8))
    with pytest.raises(ValueError):
        V.Pad(-1)
    with pytest.raises(ValueError):
        V.Pad((1, 2, 3))
    with pytest.raises(ValueError):
        V.Pad(1, 300)


def test_pad_to_size():
    assert np.array_equal(V.PadToSize((6, 7))(G), np.pad(G, ((1, 1), (1, 1))))
    assert np.array_equal(V.PadToSize((6, 7), (1, 2), 9)(G),
                          np.pad(G, ((1, 1), (2, 0)), constant_values=9))
    assert np.array_equal(V.PadToSize(6, 1, padding_mode=V.Border.EDGE)(G),
                          np.pad(G, ((1, 1), (1, 0)), mode="edge"))
    out = V.PadToSize(128)(IM)
    assert out.shape == (128, 128, 3) and np.array_equal(out[62:66, 62:66], IM)
    with pytest.raises(RuntimeError):
        V.PadToSize(3)(G)
    with pytest.raises(RuntimeError):
        V.PadToSize(6, 3)(G)
    with pytest.raises(ValueError):
        V.PadToSize(0)
    with pytest.raises(ValueError):
        V.PadToSize(5, -1)


def test_to_tensor_and_to_numpy():
    out = V.ToTensor()(IM)
    ref = (IM.astype(np.float64) / 255).transpose(2, 0, 1)
    assert out.dtype == np.float32 and out.shape == (3, 4, 4)
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    assert V.ToTensor()(G).shape == (1, 4, 5)
    # MindSpore: ToTensor(np.float64)(IM)[0, 0, 2] is float32(30 * float32(1/255)), not 30/255
    assert V.ToTensor(np.float64)(IM)[0, 0, 2] == np.float64(np.float32(0.11764707))
    assert not V.ToTensor(np.int32)(IM).any()
    with pytest.raises(RuntimeError):
        V.ToTensor()(IM[None])
    with pytest.raises(TypeError):
        V.ToTensor("x")
    assert np.array_equal(V.ToNumpy()(G), G)


def test_normalize_pad_reproduces_mindspore_layout():
    imf = IM.astype(np.float32)
    norm = (IM.astype(np.float64) - 0.5) / 0.2
    out = V.NormalizePad([0.5] * 3, [0.2] * 3)(imf)
    # MindSpore 2.7: the normalized values in HWC order, then 16 zeros, viewed as (4, 4, 4)
    assert out.shape == (4, 4, 4) and out.dtype == np.float32
    np.testing.assert_allclose(out.ravel()[:48], norm.ravel(), rtol=1e-6)
    assert not out.ravel()[48:].any()
    chw = V.NormalizePad([0.5] * 3, [0.2] * 3, is_hwc=False)(imf.transpose(2, 0, 1))
    np.testing.assert_allclose(chw[:3], norm.transpose(2, 0, 1), rtol=1e-6)
    assert not chw[3].any()
    assert V.NormalizePad([0.5] * 3, [0.2] * 3, "float16")(IM).dtype == np.float16
    with pytest.raises(ValueError):
        V.NormalizePad([0.5] * 3, [0.2] * 3, "int8")
    with pytest.raises(ValueError):
        V.NormalizePad([300] * 3, [0.2] * 3)
    with pytest.raises(ValueError):
        V.NormalizePad([0.5] * 3, [0] * 3)
    with pytest.raises(RuntimeError):
        V.NormalizePad([0.5] * 2, [0.2] * 2)(IM)


def test_erase():
    out = V.Erase(1, 1, 2, 2, (1, 2, 3))(IM)
    ref = IM.copy()
    ref[1:3, 1:3] = (1, 2, 3)
    assert np.array_equal(out, ref)
    assert V.Erase(0, 1, 2, 2, 7.6)(IM)[0, 1].tolist() == [8, 8, 8]  # MindSpore rounds
    assert np.allclose(V.Erase(0, 1, 2, 2, 7.6)(IM.astype(np.float32))[0, 1], 7.6)
    for bad in ((0, 1, 2, 5), (3, 1, 5, 2), (5, 1, 1, 1)):
        with pytest.raises(RuntimeError):
            V.Erase(*bad)(IM)
    with pytest.raises(RuntimeError):
        V.Erase(0, 1, 2, 2)(G)
    with pytest.raises(ValueError):
        V.Erase(-1, 1, 2, 2)
    with pytest.raises(ValueError):
        V.Erase(0, 1, 2, 2, 300)


def test_cutout_zeroes_clipped_boxes():
    ds.config.set_seed(11)
    for _ in range(20):
        out = V.CutOut(2, 2)(IM)
        zeroed = (out != IM).any(axis=-1) | ((out == 0).all(axis=-1) & (IM == 0).all(axis=-1))
        assert out.dtype == IM.dtype and np.array_equal(out[~zeroed], IM[~zeroed])
        assert not out[zeroed].any() and zeroed.sum() <= 8
    assert not V.CutOut(4, 50)(IM).any()  # MindSpore: 50 boxes of the image's size blank it
    chw_in = np.ascontiguousarray(IM.transpose(2, 0, 1)) + 1
    chw = V.CutOut(2, 3, False)(chw_in)
    hit = (chw != chw_in).any(axis=0)
    assert chw.shape == (3, 4, 4) and hit.any() and not chw[:, hit].any()
    with pytest.raises(RuntimeError):
        V.CutOut(5)(IM)
    with pytest.raises(RuntimeError):
        V.CutOut(2)(G)
    with pytest.raises(ValueError):
        V.CutOut(0)
    with pytest.raises(TypeError):
        V.CutOut(2, 1, 1)


def test_cutout_is_seeded_in_a_pipeline():
    def run():
        ds.config.set_seed(2)
        data = ds.NumpySlicesDataset({"x": np.stack([IM + 1] * 8)}, shuffle=False)
        return [r[0] for r in data.map(V.CutOut(2), ["x"]).create_tuple_iterator(
            output_numpy=True)]
    first, second = run(), run()
    assert all(np.array_equal(a, b) for a, b in zip(first, second))
    assert len({a.tobytes() for a in first}) > 1
