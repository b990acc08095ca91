"""AutoAugment, RandAugment, TrivialAugmentWide, RandomErasing and ToPIL: MindSpore 2.7.2's
argument checks, its search spaces (float32 linspace, rounded posterize bins), the op each
policy step composes, and seeded/statistical properties of the random draws."""
import collections

import numpy as np
import pytest

import minispore.dataset as ds
import minispore.dataset.vision as V
from minispore.dataset.vision import Inter
from minispore.dataset.vision._augment import (_POLICIES, _rand_int, _space, apply_augment,
                                               linspace)
from minispore.dataset.vision._erasing import erase_params

IM = np.arange(48, dtype=np.uint8).reshape(4, 4, 3) * 5
RNG_IMG = np.random.default_rng(3).integers(0, 256, (8, 10, 3)).astype(np.uint8)


def test_search_spaces_match_mindspore():
    space = _space(31, 8, 10)
    assert list(space)[:3] == ["AutoContrast", "Brightness", "Color"]  # std::map order
    assert "Identity" in space and "Invert" not in space
    post = space["Posterize"][0]
    assert post[0] == 8.0 and post[-1] == 4.0 and post[15] == 6.0
    assert space["TranslateX"][0][-1] == pytest.approx(150 / 331 * 10, rel=1e-6)
    assert space["Solarize"][0][0] == 255.0 and space["Solarize"][0][-1] == 0.0
    auto = _space(10, 8, 10, auto=True)
    assert "Invert" in auto and auto["Solarize"][0][0] == 256.0
    trivial = _space(31, 0, 0, trivial=True)
    assert trivial["Rotate"][0][-1] == 135.0 and trivial["Posterize"][0][-1] == 2.0
    assert linspace(0.0, 0.3, 4) == [0.0, float(np.float32(0.1)), float(np.float32(0.2)),
                                     float(np.float32(0.3))]
    assert len(_POLICIES[V.AutoAugmentPolicy.SVHN]) == 25


def test_rand_int_favours_the_low_end_like_mindspore():
    rng = np.random.default_rng(0)
    counts = collections.Counter(_rand_int(rng, 0, 2) for _ in range(6000))
    assert set(counts) == {0, 1} and abs(counts[0] / 6000 - 2 / 3) < 0.03


def test_apply_augment_composes_the_ops():
    mode = V.Inter.NEAREST
    img = RNG_IMG[None]
    same = {"Brightness": V.AdjustBrightness(1.5), "Color": V.AdjustSaturation(0.6),
            "Contrast": V.AdjustContrast(1.2), "Sharpness": V.AdjustSharpness(1.5),
            "Posterize": V.Posterize(5), "Solarize": V.Solarize(100.0),
            "AutoContrast": V.AutoContrast(), "Equalize": V.Equalize(), "Invert": V.Invert()}
    mags = {"Brightness": 0.5, "Color": -0.4, "Contrast": 0.2, "Sharpness": 0.5,
            "Posterize": 5.0, "Solarize": 100.0}
    for name, op in same.items():
        np.testing.assert_array_equal(
            apply_augment("t", img, name, mags.get(name, 0.0), mode, (0, 0, 0), (0, 0, 0))[0],
            op(RNG_IMG))
    np.testing.assert_array_equal(
        apply_augment("t", img, "Rotate", 20.0, mode, (1, 2, 3), (1, 2, 3))[0],
        V.Rotate(20.0, fill_value=(1, 2, 3))(RNG_IMG))
    np.testing.assert_array_equal(
        apply_augment("t", img, "ShearX", 0.2, mode, (0, 0, 0), (0, 0, 0))[0],
        V.Affine(0, (0, 0), 1.0, (float(np.float32(0.2) * np.float32(180) / np.float32(np.pi)),
                                  0.0))(RNG_IMG))
    # MindSpore scales the pixel translation by the width again: the image is filled
    out = apply_augment("t", img, "TranslateX", 2.9, mode, (7, 7, 7), (7, 7, 7))[0]
    assert (out == 7).all()
    np.testing.assert_array_equal(
        apply_augment("t", img, "TranslateY", 0.9, mode, (0, 0, 0), (0, 0, 0))[0], RNG_IMG)


@pytest.mark.parametrize("op", [V.AutoAugment(), V.AutoAugment(V.AutoAugmentPolicy.CIFAR10),
                                V.AutoAugment(V.AutoAugmentPolicy.SVHN, Inter.BILINEAR, 9),
                                V.RandAugment(), V.RandAugment(3, 30, 31, Inter.AREA, (1, 2, 3)),
                                V.TrivialAugmentWide(), V.TrivialAugmentWide(5, Inter.BICUBIC)])
def test_augment_output_shape_and_dtype(op):
    ds.config.set_seed(5)
    for _ in range(20):
        out = op(RNG_IMG)
        assert out.shape == RNG_IMG.shape and out.dtype == np.uint8


def test_rand_augment_zero_ops_is_identity_and_inputs_are_checked():
    np.testing.assert_array_equal(V.RandAugment(num_ops=0)(RNG_IMG), RNG_IMG)
    for op in (V.AutoAugment(), V.RandAugment(), V.TrivialAugmentWide()):
        with pytest.raises(RuntimeError, match="<H, W, 3> uint8"):
            op(RNG_IMG.astype(np.float32))
        with pytest.raises(RuntimeError, match="<H, W, 3> uint8"):
            op(RNG_IMG[..., 0])
    with pytest.raises(RuntimeError, match="Invalid InterpolationMode"):
        V.RandAugment(interpolation=Inter.PILCUBIC)(RNG_IMG)


def test_rand_augment_translation_fills_like_mindspore():
    # MindSpore 2.7.2 on this image: about 2/15 of single-op draws fill it entirely
    im = np.full((40, 40, 3), 100, np.uint8)
    op = V.RandAugment(num_ops=1, magnitude=30, num_magnitude_bins=31)
    filled = sum(bool((op(im) == 0).all()) for _ in range(300))
    assert 15 <= filled <= 65


@pytest.mark.parametrize("make, err", [
    (lambda: V.AutoAugment(policy=1), TypeError),
    (lambda: V.AutoAugment(interpolation=0), TypeError),
    (lambda: V.AutoAugment(fill_value=300), ValueError),
    (lambda: V.RandAugment(num_ops=-1), ValueError),
    (lambda: V.RandAugment(magnitude=31), ValueError),
    (lambda: V.RandAugment(num_magnitude_bins=1), ValueError),
    (lambda: V.RandAugment(num_ops=1.0), TypeError),
    (lambda: V.TrivialAugmentWide(num_magnitude_bins=1), ValueError),
    (lambda: V.TrivialAugmentWide(fill_value=(1, 2)), TypeError),
])
def test_augment_rejects(make, err):
    with pytest.raises(err):
        make()


def test_random_erasing_box_within_scale_and_ratio():
    rng = np.random.default_rng(0)
    for _ in range(300):
        params = erase_params(rng, 3, 40, 50, (0.05, 0.3), (0.5, 2.0), 0, 10)
        if params is None:
            continue
        top, left, h, w, fill = params
        assert 0 <= top <= 40 - h and 0 <= left <= 50 - w and h < 40 and w < 50
        assert 0.05 * 0.8 <= h * w / 2000 <= 0.3 * 1.2
    assert erase_params(rng, 3, 4, 4, (2.0, 2.0), (1.0, 1.0), 0, 5) is None


def test_random_erasing_on_chw_images():
    img = np.full((3, 20, 30), 200, np.uint8)
    out = V.RandomErasing(prob=1.0, value=(1, 2, 3))(img)
    assert out.shape == img.shape and out.dtype == np.uint8
    erased = out[0] != 200
    assert erased.any()
    rows, cols = np.nonzero(erased)
    box = out[:, rows.min():rows.max() + 1, cols.min():cols.max() + 1]
    np.testing.assert_array_equal(box, np.broadcast_to(np.array([1, 2, 3])[:, None, None],
                                                       box.shape))
    np.testing.assert_array_equal(V.RandomErasing(prob=0.0)(img), img)
    noisy = V.RandomErasing(prob=1.0, value="random")(img.astype(np.float32))
    assert noisy.dtype == np.float32 and (noisy != 200).any()
    # the conformance image: (4, 4, 3) read as <C=4, H=4, W=3>
    assert V.RandomErasing(prob=1.0)(IM).shape == (4, 4, 3)
    with pytest.raises(ValueError, match="RandomErasing"):
        V.RandomErasing(prob=1.0)(IM[..., 0])


@pytest.mark.parametrize("kwargs, err", [
    (dict(prob=2), ValueError),
    (dict(scale=(0.5, 0.1)), ValueError), (dict(scale=(0.1,)), TypeError),
    (dict(ratio=(0, 1)), ValueError), (dict(value="x"), ValueError), (dict(value=300), ValueError),
    (dict(value=(1, 2)), ValueError),
    (dict(value=1.5), TypeError), (dict(max_attempts=0), ValueError),
    (dict(inplace=1), TypeError), (dict(scale=(0, 0)), ValueError),
])
def test_random_erasing_rejects(kwargs, err):
    with pytest.raises(err, match="RandomErasing"):
        V.RandomErasing(**kwargs)


def test_to_pil():
    pil = pytest.importorskip("PIL.Image")
    out = V.ToPIL()(IM)
    assert isinstance(out, pil.Image) and out.size == (4, 4) and out.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(out), IM)
    assert V.ToPIL()(out) is out
    assert V.ToPIL()(IM[..., 0]).mode == "L"
    with pytest.raises(TypeError, match="not supported"):
        V.ToPIL()(IM.astype(np.float32))
    with pytest.raises(ValueError, match="dimension"):
        V.ToPIL()(IM[None])
    with pytest.raises(TypeError, match="numpy.ndarray or PIL"):
        V.ToPIL()([1, 2])


def test_to_pil_without_pillow_names_the_package(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_pil(name, *args, **kwargs):
        if name == "PIL" or name.startswith("PIL."):
            raise ImportError("No module named 'PIL'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pil)
    with pytest.raises(ImportError, match="Pillow"):
        V.ToPIL()(IM)
