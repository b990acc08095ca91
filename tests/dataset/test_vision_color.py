"""Invert, Posterize, Solarize, the Adjust* family, Equalize, AutoContrast and their Random*
forms. Expected values for the OpenCV-arithmetic ops were produced by MindSpore 2.7 on R8."""
import numpy as np
import pytest

import minispore.dataset as ds
import minispore.dataset.vision as V

R8 = np.array(
    [217, 163, 130, 69, 78, 10, 19, 4, 44, 208, 166, 233, 128, 155, 248, 186, 161, 139, 143,
    239, 71, 208, 171, 0, 100, 219, 141, 8, 195, 186, 216, 44, 22, 220, 5, 138], np.uint8).reshape(3, 4, 3)
IM = np.arange(48, dtype=np.uint8).reshape(4, 4, 3) * 5
G = np.arange(20, dtype=np.uint8).reshape(4, 5) * 12

MINDSPORE = {
    "contrast_0.5":
        [176, 148, 132, 102, 106, 72, 76, 69, 89, 171, 150, 184, 131, 144, 191, 160, 148, 136,
        138, 186, 102, 171, 152, 67, 117, 176, 138, 71, 164, 160, 175, 89, 78, 177, 70, 136],
    "contrast_3.3":
        [255, 230, 121, 0, 0, 0, 0, 0, 0, 255, 240, 255, 114, 203, 255, 255, 223, 150, 164, 255,
        0, 255, 255, 0, 22, 255, 157, 0, 255, 255, 255, 0, 0, 255, 0, 147],
    "saturation_0.5":
        [196, 169, 152, 68, 73, 39, 16, 8, 28, 197, 176, 210, 143, 156, 203, 176, 164, 152, 167,
        215, 131, 186, 167, 82, 138, 197, 158, 73, 166, 162, 154, 68, 58, 152, 44, 111],
    "saturation_1.7":
        [246, 155, 98, 70, 85, 0, 23, 0, 66, 223, 152, 255, 107, 153, 255, 200, 158, 120, 109,
        255, 0, 240, 177, 0, 47, 250, 117, 0, 235, 220, 255, 10, 0, 255, 0, 176],
    "brightness_0.5":
        [108, 82, 65, 34, 39, 5, 10, 2, 22, 104, 83, 116, 64, 78, 124, 93, 80, 70, 72, 120, 36,
        104, 86, 0, 50, 110, 70, 4, 98, 93, 108, 22, 11, 110, 2, 69],
    "gamma_0.5":
        [236, 204, 182, 133, 141, 50, 69, 32, 106, 231, 206, 244, 181, 199, 252, 218, 203, 189,
        191, 247, 135, 231, 209, 0, 160, 237, 190, 45, 223, 218, 235, 106, 75, 237, 35, 188],
    "gamma_0.5_gain2":
        [255, 255, 255, 255, 255, 101, 139, 64, 212, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 0, 255, 255, 255, 90, 255, 255, 255, 212, 150, 255, 71, 255],
    "equalize":
        [232, 139, 116, 46, 70, 23, 23, 0, 70, 185, 162, 232, 93, 93, 255, 139, 116, 162, 116,
        255, 93, 185, 185, 0, 70, 232, 185, 0, 209, 209, 209, 46, 46, 255, 23, 139],
    "autocontrast":
        [251, 172, 133, 73, 80, 10, 13, 0, 45, 240, 175, 239, 144, 163, 255, 214, 170, 142, 162,
        255, 73, 240, 181, 0, 110, 233, 144, 0, 207, 191, 250, 43, 22, 255, 1, 141],
    "autocontrast_10":
        [255, 188, 137, 64, 86, 0, 0, 0, 38, 243, 191, 254, 140, 178, 255, 215, 185, 147, 159,
        255, 69, 243, 197, 0, 104, 255, 149, 0, 226, 201, 253, 46, 13, 255, 0, 146],
    "autocontrast_7.5_ignore":
        [251, 172, 133, 73, 80, 10, 13, 0, 45, 240, 175, 239, 144, 163, 255, 214, 170, 142, 162,
        255, 73, 240, 181, 0, 110, 233, 144, 0, 207, 191, 250, 43, 22, 255, 1, 141],
    "solarize_50_150":
        [217, 163, 125, 186, 177, 10, 19, 4, 44, 208, 166, 233, 127, 155, 248, 186, 161, 116, 112,
        239, 184, 208, 171, 0, 155, 219, 114, 8, 195, 186, 216, 44, 22, 220, 5, 117],
    "solarize_100":
        [38, 92, 125, 69, 78, 10, 19, 4, 44, 47, 89, 22, 127, 100, 7, 69, 94, 116, 112, 16, 71,
        47, 84, 0, 155, 36, 114, 8, 60, 69, 39, 44, 22, 35, 5, 117],
    "posterize_1":
        [128, 128, 128, 0, 0, 0, 0, 0, 0, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128,
        0, 128, 128, 0, 0, 128, 128, 0, 128, 128, 128, 0, 0, 128, 0, 128],
}
OPS = {"contrast_0.5": V.AdjustContrast(0.5), "contrast_3.3": V.AdjustContrast(3.3),
       "saturation_0.5": V.AdjustSaturation(0.5), "saturation_1.7": V.AdjustSaturation(1.7),
       "brightness_0.5": V.AdjustBrightness(0.5), "gamma_0.5": V.AdjustGamma(0.5),
       "gamma_0.5_gain2": V.AdjustGamma(0.5, 2), "equalize": V.Equalize(),
       "autocontrast": V.AutoContrast(), "autocontrast_10": V.AutoContrast(10),
       "autocontrast_7.5_ignore": V.AutoContrast(7.5, [217]),
       "solarize_50_150": V.Solarize((50, 150)), "solarize_100": V.Solarize(100),
       "posterize_1": V.Posterize(1)}


@pytest.mark.parametrize("name", sorted(MINDSPORE))
def test_uint8_values_match_mindspore(name):
    out = OPS[name](R8)
    assert out.dtype == np.uint8 and out.shape == R8.shape
    assert out.ravel().tolist() == MINDSPORE[name]


def test_simple_maps_against_numpy():
    assert np.array_equal(V.Invert()(IM), 255 - IM)
    f = IM.astype(np.float32) / 255
    np.testing.assert_allclose(V.Invert()(f), 255 - f)
    assert np.array_equal(V.Posterize(3)(G), G & 0b11100000)
    assert not V.Posterize(0)(R8).any() and np.array_equal(V.Posterize(8)(R8), R8)
    np.testing.assert_allclose(V.AdjustBrightness(1.3)(f), f * np.float32(1.3), rtol=1e-6)
    assert np.array_equal(V.Solarize(2)(IM), np.where(IM >= 2, 255 - IM, IM))
    sol = V.Solarize(0.5)(f)
    assert sol.dtype == np.float32 and np.allclose(sol, np.where(f >= 0.5, 255 - f, f))


def test_contrast_rounds_a_half_mean_to_even():
    # MindSpore: the gray mean of IM is 116.5, taken as 116 (AdjustContrast(2)(IM)[1, 0])
    assert V.AdjustContrast(2)(IM)[1, 0].tolist() == [4, 14, 24]


def test_float_blends_are_unclipped():
    f = R8.astype(np.float32) / 255
    gray = (f[..., 0] * 0.299 + f[..., 1] * 0.587 + f[..., 2] * 0.114)[..., None]
    np.testing.assert_allclose(V.AdjustSaturation(1.7)(f), gray + 1.7 * (f - gray), atol=1e-6)
    mean = gray.mean()
    np.testing.assert_allclose(V.AdjustContrast(1.7)(f), mean + 1.7 * (f - mean), atol=1e-6)
    assert V.AdjustContrast(1.7)(f).min() < 0


def test_equalize_and_autocontrast_gray_and_constant():
    # MindSpore's results on G (a 4 x 5 gray ramp)
    assert V.Equalize()(G).ravel().tolist() == [0, 13, 27, 40, 54, 67, 81, 94, 107, 121, 134, 148,
                                                161, 174, 188, 201, 215, 228, 242, 255]
    assert V.AutoContrast()(G).ravel().tolist() == [0, 13, 26, 40, 53, 67, 80, 93, 107, 120, 134,
                                                    147, 161, 174, 187, 201, 214, 228, 241, 255]
    flat = np.full((2, 2, 3), 7, np.uint8)
    assert np.array_equal(V.Equalize()(flat), flat) and np.array_equal(V.AutoContrast()(flat), flat)


def test_errors_match_mindspore_types():
    for op in (V.Invert(), V.AdjustContrast(2), V.AdjustSaturation(2)):
        with pytest.raises(RuntimeError):
            op(G)
    for op in (V.Posterize(2), V.Equalize(), V.AutoContrast()):
        with pytest.raises(RuntimeError):
            op(R8.astype(np.float32))
    with pytest.raises(NotImplementedError, match="float32"):
        V.AdjustGamma(2)(R8.astype(np.float32))
    for make in (lambda: V.AdjustBrightness(-1), lambda: V.AdjustGamma(-1),
                 lambda: V.Posterize(9), lambda: V.Solarize((150, 50)), lambda: V.Solarize(300),
                 lambda: V.AutoContrast(50), lambda: V.RandomPosterize((4, 3)),
                 lambda: V.RandomPosterize(0), lambda: V.RandomSolarize((3, 2)),
                 lambda: V.RandomInvert(1.5)):
        with pytest.raises(ValueError):
            make()
    for make in (lambda: V.AutoContrast(0, [np.uint8(3)]), lambda: V.RandomSolarize([1, 2]),
                 lambda: V.AdjustBrightness("1"), lambda: V.RandomEqualize("a")):
        with pytest.raises(TypeError):
            make()


def test_random_forms_at_prob_one_and_zero():
    for rand, det in ((V.RandomInvert, V.Invert()), (V.RandomEqualize, V.Equalize()),
                      (V.RandomAutoContrast, V.AutoContrast())):
        assert np.array_equal(rand(prob=1.0)(R8), det(R8))
        assert np.array_equal(rand(prob=0.0)(R8), R8)
    assert np.array_equal(V.RandomPosterize(3)(R8), V.Posterize(3)(R8))
    assert np.array_equal(V.RandomPosterize((2, 2))(R8), V.Posterize(2)(R8))
    assert np.array_equal(V.RandomPosterize()(R8), R8)
    assert np.array_equal(V.RandomSolarize((20, 20))(IM), V.Solarize(20)(IM))


def test_random_draws_are_seeded_and_in_range():
    def run(op):
        ds.config.set_seed(3)
        data = ds.NumpySlicesDataset({"x": np.stack([R8] * 32)}, shuffle=False).map(op, ["x"])
        return [r[0] for r in data.create_tuple_iterator(output_numpy=True)]
    outs = run(V.RandomPosterize((1, 8)))
    assert all(np.array_equal(a, b) for a, b in zip(outs, run(V.RandomPosterize((1, 8)))))
    choices = [next(b for b in range(1, 9) if np.array_equal(o, V.Posterize(b)(R8)))
               for o in outs]
    assert len(set(choices)) > 3
    outs = run(V.RandomInvert())
    inverted = [np.array_equal(o, 255 - R8) for o in outs]
    assert all(inv or np.array_equal(o, R8) for inv, o in zip(inverted, outs))
    assert 0 < sum(inverted) < 32
    for o in run(V.RandomSolarize((50, 200))):
        hit = o != R8
        assert np.array_equal(o[hit], 255 - R8[hit])
