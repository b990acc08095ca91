"""Rotate, RandomRotation, Affine, RandomAffine, RandomResizedCrop, RandomResize and Resize's
AREA and uint8 LINEAR modes. Expected values were produced by MindSpore 2.7.2 (OpenCV warpAffine
and resize) on IMG; the warp is bit-exact for uint8 and float32."""
import math

import numpy as np
import pytest

import minispore.dataset as ds
import minispore.dataset.vision as V
from minispore.dataset.vision import Inter
from minispore.dataset.vision._random_resize import crop_box

IMG = np.array([
        171, 206, 5, 206, 120, 131, 161, 73, 250, 13, 71, 98, 146, 104, 33, 11, 0, 12, 38, 255, 48,
        167, 192, 60, 72, 111, 67, 249, 45, 229, 204, 216, 29, 100, 160, 126, 170, 173, 169, 15,
        245, 142, 231, 69, 92, 225, 47, 16, 95, 173, 31, 222, 87, 58, 139, 229, 226, 223, 78, 4],
        np.uint8).reshape(4, 5, 3)

MINDSPORE = {
    "rotate_30_nearest": ([4, 5, 3], [
        0, 0, 0, 161, 73, 250, 13, 71, 98, 249, 45, 229, 249, 45, 229, 206, 120, 131, 38, 255, 48,
        167, 192, 60, 15, 245, 142, 231, 69, 92, 11, 0, 12, 38, 255, 48, 170, 173, 169, 15, 245,
        142, 139, 229, 226, 204, 216, 29, 204, 216, 29, 95, 173, 31, 222, 87, 58, 0, 0, 0]),
    "rotate_30_linear_fill": ([4, 5, 3], [
        63, 38, 33, 124, 60, 165, 59, 83, 123, 156, 77, 134, 145, 36, 113, 179, 159, 69, 131, 175,
        106, 143, 173, 68, 65, 170, 115, 224, 75, 88, 22, 20, 13, 69, 199, 74, 151, 172, 152, 116,
        200, 157, 174, 158, 122, 103, 103, 18, 169, 164, 52, 125, 154, 56, 155, 78, 57, 51, 58,
        50]),
    "rotate_-75_cubic": ([4, 5, 3], [
        222, 46, 16, 209, 224, 55, 14, 156, 36, 199, 166, 99, 37, 16, 25, 67, 124, 11, 122, 153,
        122, 118, 237, 85, 191, 148, 190, 66, 21, 122, 99, 30, 14, 208, 156, 146, 90, 211, 115, 71,
        103, 76, 3, 46, 73, 26, 37, 39, 147, 240, 213, 111, 171, 128, 223, 63, 208, 140, 104, 30]),
    "rotate_40_expand": ([6, 6, 3], [
        0, 0, 0, 0, 0, 0, 1, 2, 3, 90, 67, 24, 56, 27, 29, 0, 0, 0, 0, 0, 0, 27, 13, 34, 64, 56,
        132, 82, 86, 94, 232, 44, 203, 44, 12, 24, 51, 50, 14, 183, 105, 129, 158, 147, 136, 100,
        158, 84, 109, 160, 123, 184, 60, 39, 114, 137, 4, 75, 134, 40, 82, 217, 77, 170, 174, 166,
        120, 206, 171, 138, 112, 81, 3, 2, 1, 78, 77, 16, 143, 177, 81, 135, 149, 65, 132, 65, 49,
        0, 0, 0, 0, 0, 0, 39, 34, 5, 208, 69, 17, 66, 69, 13, 0, 0, 0, 0, 0, 0]),
    "rotate_30_center": ([4, 5], [
        187, 154, 111, 126, 167, 50, 78, 160, 66, 201, 117, 133, 158, 153, 51, 67, 188, 45, 0, 0]),
    "rotate_30_float": ([4, 5, 3], [
        5.480189800262451, 3.1749441623687744, 3.6085376739501953, 16.36495590209961,
        7.746651649475098, 23.092634201049805, 8.368303298950195, 11.814732551574707,
        17.53348159790039, 22.227680206298828, 10.940848350524902, 19.0859375, 18.641183853149414,
        3.7566962242126465, 15.429966926574707, 25.618305206298828, 22.679967880249023,
        9.91238784790039, 18.761159896850586, 24.991069793701172, 15.1953125, 20.35714340209961,
        24.707590103149414, 9.71875, 9.2578125, 24.34151840209961, 16.36160659790039,
        32.00111770629883, 10.716238975524902, 12.628348350524902, 3.122767925262451,
        2.882533550262451, 1.8376116752624512, 9.844865798950195, 28.3671875, 10.612723350524902,
        21.62723159790039, 24.589284896850586, 21.703125, 16.508928298950195, 28.50223159790039,
        22.41183090209961, 24.92745590209961, 22.640907287597656, 17.389507293701172,
        12.735770225524902, 13.319196701049805, 1.958984375, 24.073659896850586, 23.359376907348633,
        7.386160850524902, 17.859375, 21.95758819580078, 8.044642448425293, 20.784597396850586,
        10.287946701049805, 7.758928298950195, 3.792689800262451, 6.015067100524902,
        5.9129462242126465]),
    "affine": ([4, 5, 3], [
        188, 111, 20, 149, 179, 75, 91, 193, 102, 145, 198, 77, 114, 131, 96, 157, 64, 17, 108, 162,
        51, 144, 156, 120, 142, 185, 145, 69, 165, 96, 23, 22, 7, 78, 89, 24, 211, 97, 63, 126, 192,
        153, 65, 206, 133, 1, 2, 3, 1, 2, 3, 80, 55, 47, 126, 193, 189, 175, 140, 100]),
    "affine_cubic_float": ([4, 5, 3], [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        -12.237680435180664, -2.454677104949951, -11.184428215026855, -18.708354949951172,
        -5.505539417266846, -7.863699436187744, -21.967565536499023, -7.734187126159668,
        -0.0182497501373291, 2.0609638690948486, 0.7208752632141113, 0.036967962980270386, 0.0, 0.0,
        0.0, 151.4231414794922, 71.80255126953125, 65.50557708740234, 232.06216430664062,
        27.650402069091797, 188.51708984375, 238.60003662109375, 69.8203125, 31.5242977142334,
        105.7506103515625, 42.15001678466797, 0.05117392539978027, -16.769371032714844,
        -8.304915428161621, -3.2565932273864746, 3.829406976699829, 41.583858489990234,
        78.54344177246094, 67.6277084350586, 102.73200988769531, 66.51465606689453,
        37.398895263671875, 232.5421600341797, 133.07965087890625, 177.62655639648438,
        191.75120544433594, 188.7586669921875, 4.725896835327148, 3.6061439514160156,
        3.6352317333221436]),
    "resize_linear_down": ([3, 4, 3], [
        148, 168, 20, 172, 124, 155, 75, 83, 140, 146, 92, 69, 103, 120, 29, 106, 198, 97, 90, 180,
        108, 215, 72, 153, 206, 87, 22, 140, 145, 58, 154, 183, 161, 211, 96, 43]),
    "resize_linear_up": ([7, 6], [
        171, 197, 180, 99, 46, 146, 114, 138, 156, 109, 71, 183, 22, 43, 118, 125, 111, 241, 108,
        79, 127, 116, 93, 240, 205, 126, 143, 111, 75, 230, 217, 127, 159, 158, 127, 226, 225, 127,
        169, 187, 160, 223]),
    "resize_area_down": ([3, 2, 3], [
        150, 144, 87, 112, 89, 109, 104, 163, 66, 147, 130, 129, 168, 125, 47, 175, 145, 110]),
}

OPS = {
    "rotate_30_nearest": (V.Rotate(30), IMG),
    "rotate_30_linear_fill": (V.Rotate(30, Inter.BILINEAR, fill_value=(10, 20, 30)), IMG),
    "rotate_-75_cubic": (V.Rotate(-75, Inter.BICUBIC), IMG),
    "rotate_40_expand": (V.Rotate(40, Inter.BILINEAR, expand=True), IMG),
    "rotate_30_center": (V.Rotate(30, Inter.BILINEAR, center=(0.5, 1.5)), IMG[..., 0]),
    "rotate_30_float": (V.Rotate(30, Inter.BILINEAR), IMG.astype(np.float32) / 7),
    "affine": (V.Affine(20, (0.2, -0.25), 1.3, (10, -15), Inter.BILINEAR, fill_value=(1, 2, 3)),
               IMG),
    "affine_cubic_float": (V.Affine(-120, (0, 0.5), 0.8, 25, Inter.BICUBIC),
                           IMG.astype(np.float32)),
    "resize_area_down": (V.Resize((3, 2), Inter.AREA), IMG),
    "resize_linear_down": (V.Resize((3, 4)), IMG),
    "resize_linear_up": (V.Resize((7, 6)), IMG[..., 0]),
}


@pytest.mark.parametrize("name", sorted(MINDSPORE))
def test_matches_mindspore(name):
    op, img = OPS[name]
    shape, values = MINDSPORE[name]
    out = op(img)
    assert list(out.shape) == shape and out.dtype == img.dtype
    np.testing.assert_array_equal(out.ravel(), np.asarray(values, img.dtype))


def test_rotate_keeps_a_multiple_of_360_and_rotates_90_exactly():
    np.testing.assert_array_equal(V.Rotate(360)(IMG), IMG)
    sq = IMG[:4, :4]
    # counter-clockwise: the top row becomes the left column, read bottom-up
    np.testing.assert_array_equal(V.Rotate(90)(sq), np.rot90(sq))


def test_random_rotation_draws_within_degrees():
    sq = IMG[:4, :4]
    ds.config.set_seed(3)
    outs = [V.RandomRotation((90, 90))(sq) for _ in range(3)]
    for o in outs:
        np.testing.assert_array_equal(o, np.rot90(sq))
    expanded = V.RandomRotation(45, expand=True)
    shapes = {expanded(IMG).shape for _ in range(10)}
    assert all(s[2] == 3 and s[0] >= 4 and s[1] >= 5 for s in shapes)


def test_random_affine_pure_translation():
    img = np.arange(1, 65, dtype=np.uint8).reshape(8, 8)
    out = V.RandomAffine(degrees=0, translate=(0.25, 0.25, 0, 0))(img)
    np.testing.assert_array_equal(out[:, 2:], img[:, :6])
    assert not out[:, :2].any()


@pytest.mark.parametrize("kwargs, err", [
    (dict(degrees="a"), TypeError), (dict(degrees=30, resample=1), TypeError),
    (dict(degrees=30, expand=1), TypeError), (dict(degrees=30, center=(1,)), ValueError),
    (dict(degrees=30, fill_value=256), ValueError),
    (dict(degrees=30, fill_value=(1, 2)), TypeError),
])
def test_rotate_rejects(kwargs, err):
    with pytest.raises(err, match="Rotate"):
        V.Rotate(**kwargs)


@pytest.mark.parametrize("kwargs, err", [
    (dict(degrees=-1), ValueError), (dict(degrees=(2, 1)), ValueError),
    (dict(degrees=(1, 2, 3)), TypeError), (dict(degrees="x"), TypeError),
])
def test_random_rotation_rejects(kwargs, err):
    with pytest.raises(err, match="RandomRotation"):
        V.RandomRotation(**kwargs)


@pytest.mark.parametrize("kwargs, err", [
    (dict(translate=(0.1,)), TypeError), (dict(translate=(2, 0)), ValueError),
    (dict(scale=(2, 1)), ValueError),
    (dict(scale=(0, 0)), ValueError), (dict(scale=(1,)), TypeError),
    (dict(shear=-1), ValueError),
    (dict(shear=(1, 0)), ValueError), (dict(shear=(1, 2, 3)), TypeError),
    (dict(shear=(0, 1, 3, 2)), ValueError), (dict(resample=0), TypeError),
    (dict(fill_value=(1, 2)), TypeError), (dict(translate=[0.1, "a"]), TypeError),
])
def test_random_affine_rejects(kwargs, err):
    with pytest.raises(err, match="RandomAffine"):
        V.RandomAffine(degrees=0, **kwargs)


def test_unsupported_interpolation_and_dtype():
    with pytest.raises(RuntimeError, match="Rotate"):
        V.Rotate(30, Inter.PILCUBIC)(IMG)
    with pytest.raises(NotImplementedError, match="int32"):
        V.Rotate(30)(IMG.astype(np.int32))


def test_crop_box_area_and_ratio_within_bounds():
    rng = np.random.default_rng(0)
    scale, ratio = (0.2, 0.6), (0.5, 2.0)
    for _ in range(300):
        y, x, h, w = crop_box(rng, 60, 80, scale, ratio, 10)
        assert 0 <= y <= 60 - h and 0 <= x <= 80 - w
        # rounding the sides to whole pixels moves area and ratio by at most a pixel's worth
        assert scale[0] - 0.05 <= h * w / 4800 <= scale[1] + 0.05
        assert ratio[0] * (1 - 1 / h) - 1 / h <= w / h <= ratio[1] * (1 + 1 / h) + 1 / h


def test_crop_box_falls_back_to_centre_clamped_to_ratio():
    rng = np.random.default_rng(0)
    # no box of 4x the image's area fits: a centred box with the ratio bound
    assert crop_box(rng, 10, 40, (4.0, 4.0), (1.0, 2.0), 3) == (0, 10, 10, 20)
    assert crop_box(rng, 40, 10, (4.0, 4.0), (1.0, 2.0), 3) == (15, 0, 10, 10)


def test_random_resized_crop_of_the_whole_image_is_resize():
    op = V.RandomResizedCrop((3, 2), scale=(1.0, 1.0), ratio=(1.25, 1.25))
    np.testing.assert_array_equal(op(IMG), V.Resize((3, 2))(IMG))
    out = V.RandomResizedCrop(2)(IMG.astype(np.float32))
    assert out.shape == (2, 2, 3) and out.dtype == np.float32
    assert V.RandomResizedCrop((3, 5))(IMG[..., 0]).shape == (3, 5)


@pytest.mark.parametrize("kwargs, err", [
    (dict(size=0), ValueError), (dict(size=(2,)), TypeError), (dict(size="a"), TypeError),
    (dict(size=2, scale=(0.5, 0.1)), ValueError), (dict(size=2, scale=(0.1,)), TypeError),
    (dict(size=2, scale=(-1, 1)), ValueError), (dict(size=2, scale=(0, 0)), ValueError),
    (dict(size=2, ratio=(0, 1)), ValueError), (dict(size=2, ratio=(2, 1)), ValueError),
    (dict(size=2, interpolation=1), TypeError), (dict(size=2, max_attempts=0), ValueError),
    (dict(size=2, max_attempts=1.5), TypeError), (dict(size=2, scale=3), TypeError),
])
def test_random_resized_crop_rejects(kwargs, err):
    with pytest.raises(err, match="RandomResizedCrop"):
        V.RandomResizedCrop(**kwargs)


def test_random_resize_uses_the_four_interpolations():
    img = np.random.default_rng(1).integers(0, 256, (7, 9, 3)).astype(np.uint8)
    expected = {V.Resize((4, 5), m)(img).tobytes() for m in
                (Inter.LINEAR, Inter.NEAREST, Inter.CUBIC, Inter.AREA)}
    op = V.RandomResize((4, 5))
    seen = {op(img).tobytes() for _ in range(40)}
    assert seen == expected
    assert V.RandomResize(2)(np.zeros((4, 8, 3), np.uint8)).shape == (2, 4, 3)


@pytest.mark.parametrize("size, err", [(0, ValueError), ((2,), TypeError), ("a", TypeError),
                                       ((0, 2), ValueError), ((2, 2.5), TypeError)])
def test_random_resize_rejects(size, err):
    with pytest.raises(err, match="RandomResize"):
        V.RandomResize(size)


def test_random_rotation_expand_in_a_pipeline_gives_ragged_rows():
    data = np.random.default_rng(0).integers(0, 255, (4, 9, 7, 3)).astype(np.uint8)
    d = ds.NumpySlicesDataset({"image": data}, shuffle=False).map(
        V.RandomRotation((10, 80), expand=True))
    shapes = [r[0].shape for r in d.create_tuple_iterator(output_numpy=True)]
    # the bounding box of a 9 x 7 image turned by 10 to 80 degrees is larger than the image
    assert len(shapes) == 4 and all(s[0] * s[1] > 9 * 7 and s[2] == 3 for s in shapes)
