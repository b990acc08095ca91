"""AdjustHue, GaussianBlur, the sharpness family, RandomColor, RandomColorAdjust and
RandomLighting. Expected values were produced by MindSpore 2.7.2 (OpenCV) on A and B: uint8
results are bit-exact, float32 ones agree to float32 rounding."""
import numpy as np
import pytest

import minispore.dataset.vision as V
from minispore.dataset.vision._color_random import lighting
from minispore.dataset.vision._filter import fixed_point_kernel, gaussian_kernel

A = np.array([
        171, 206, 5, 206, 120, 131, 161, 73, 250, 13, 71, 98, 146, 104, 33, 11, 0, 12, 38, 255, 48,
        167, 192, 60, 72, 111, 67, 249, 45, 229, 204, 216, 29, 100, 160, 126], np.uint8).reshape(3,
        4, 3)
B = np.array([
        170, 173, 169, 15, 245, 142, 231, 69, 92, 225, 47, 16, 95, 173, 31, 222, 87, 58, 139, 229,
        226, 223, 78, 4, 199, 181, 197, 0, 9, 128, 85, 111, 238, 52, 135, 83, 75, 206, 39, 81, 30,
        38, 71, 178, 148, 114, 43, 204, 204, 60, 15, 81, 37, 204, 133, 129, 74, 129, 247, 60, 196,
        3, 80, 238, 223, 21, 215, 216, 116, 94, 250, 243, 173, 102, 53, 239, 68, 142, 172, 61, 80,
        189, 50, 172, 241, 175, 165, 118, 247, 56], np.uint8).reshape(5, 6, 3)

MINDSPORE = {
    "hue_0.2": ([3, 4, 3], "uint8", [
        5, 206, 81, 199, 206, 120, 250, 73, 123, 59, 13, 98, 52, 146, 33, 12, 1, 0, 38, 201, 255,
        60, 192, 113, 67, 107, 111, 249, 107, 45, 29, 216, 77, 100, 121, 160]),
    "hue_-0.25": ([3, 4, 3], "uint8", [
        206, 5, 62, 157, 120, 206, 73, 244, 250, 25, 98, 13, 146, 33, 126, 0, 6, 12, 255, 161, 38,
        192, 60, 94, 111, 85, 67, 45, 117, 249, 216, 29, 104, 160, 158, 100]),
    "blur_3": ([5, 6, 3], "uint8", [
        136, 183, 139, 148, 163, 120, 168, 110, 109, 135, 78, 101, 109, 108, 101, 117, 126, 98, 135,
        161, 109, 146, 142, 102, 145, 112, 123, 112, 77, 133, 104, 90, 125, 107, 107, 120, 115, 145,
        65, 122, 127, 74, 127, 112, 117, 135, 99, 131, 139, 102, 126, 125, 110, 140, 136, 147, 67,
        144, 127, 76, 165, 100, 92, 193, 127, 100, 184, 169, 123, 155, 184, 148, 169, 133, 82, 178,
        116, 88, 191, 86, 90, 209, 124, 105, 196, 193, 133, 165, 223, 143]),
    "blur_5x3_sigma": ([5, 6, 3], "uint8", [
        143, 170, 129, 146, 152, 121, 150, 121, 110, 141, 101, 97, 127, 106, 95, 118, 112, 92, 149,
        149, 108, 145, 135, 111, 135, 113, 123, 117, 93, 128, 104, 94, 132, 98, 93, 128, 115, 132,
        73, 116, 125, 85, 125, 113, 107, 131, 101, 125, 135, 100, 130, 135, 97, 129, 142, 134, 74,
        150, 129, 77, 170, 123, 86, 181, 138, 104, 179, 163, 123, 176, 179, 131, 179, 113, 87, 183,
        108, 90, 193, 106, 98, 196, 133, 113, 191, 174, 127, 187, 197, 134]),
    "blur_1x3": ([5, 6], "uint8", [
        163, 59, 224, 178, 93, 186, 136, 186, 189, 36, 99, 73, 88, 101, 98, 115, 193, 79, 131, 136,
        180, 220, 217, 95, 165, 216, 177, 199, 236, 113]),
    "blur_9_float": ([5, 6, 3], "float32", [
        140.50146484375, 153.06358337402344, 112.1076431274414, 142.85316467285156,
        141.16395568847656, 112.05213928222656, 141.06288146972656, 115.49581909179688,
        114.53401184082031, 128.28811645507812, 97.91316986083984, 116.42986297607422,
        116.72279357910156, 99.6684799194336, 115.45342254638672, 113.49713134765625,
        104.71807098388672, 114.56974029541016, 137.05361938476562, 146.92990112304688,
        102.50890350341797, 139.22000122070312, 136.51622009277344, 105.2378158569336,
        138.5503692626953, 114.70712280273438, 113.3068618774414, 129.79293823242188,
        100.10010528564453, 119.34857177734375, 121.33828735351562, 101.84788513183594,
        120.53572845458984, 118.51676177978516, 106.31932830810547, 120.59530639648438,
        134.4326629638672, 137.24009704589844, 85.78047943115234, 137.64691162109375,
        129.0931854248047, 91.87977600097656, 142.7536163330078, 114.93659973144531,
        106.25370025634766, 144.16172790527344, 110.5315170288086, 118.17717742919922,
        140.8059844970703, 118.0191421508789, 125.25535583496094, 137.67636108398438,
        123.6502685546875, 128.5347900390625, 145.17123413085938, 130.77467346191406,
        79.12492370605469, 150.06712341308594, 123.55985260009766, 84.66407012939453,
        161.12185668945312, 115.43338775634766, 97.51834106445312, 169.57289123535156,
        125.19808197021484, 111.46147155761719, 167.09413146972656, 146.49295043945312,
        124.8486328125, 162.11883544921875, 157.2340087890625, 131.6493682861328, 154.7543182373047,
        127.6396255493164, 79.60335540771484, 160.11842346191406, 120.5929946899414,
        84.0311279296875, 172.59278869628906, 114.70339965820312, 94.66473388671875,
        182.1659393310547, 131.3291015625, 108.77171325683594, 178.75013732910156,
        160.57818603515625, 124.52333068847656, 172.6964569091797, 174.6475372314453,
        132.4609832763672]),
    "sharpness_0.5": ([5, 6, 3], "uint8", [
        170, 173, 169, 15, 245, 142, 231, 69, 92, 225, 47, 16, 95, 173, 31, 222, 87, 58, 139, 229,
        226, 192, 104, 43, 174, 152, 166, 47, 40, 125, 97, 100, 193, 52, 135, 83, 75, 206, 39, 101,
        69, 58, 94, 154, 130, 126, 68, 178, 175, 81, 58, 81, 37, 204, 133, 129, 74, 133, 201, 66,
        183, 36, 88, 218, 184, 52, 198, 192, 122, 94, 250, 243, 173, 102, 53, 239, 68, 142, 172, 61,
        80, 189, 50, 172, 241, 175, 165, 118, 247, 56]),
    "sharpness_2": ([5, 6, 3], "uint8", [
        170, 173, 169, 15, 245, 142, 231, 69, 92, 225, 47, 16, 95, 173, 31, 222, 87, 58, 139, 229,
        226, 255, 25, 0, 248, 239, 255, 0, 0, 134, 61, 134, 255, 52, 135, 83, 75, 206, 39, 41, 0, 0,
        24, 225, 183, 91, 0, 255, 255, 18, 0, 81, 37, 204, 133, 129, 74, 121, 255, 47, 222, 0, 63,
        255, 255, 0, 249, 255, 104, 94, 250, 243, 173, 102, 53, 239, 68, 142, 172, 61, 80, 189, 50,
        172, 241, 175, 165, 118, 247, 56]),
    "sharpness_2_float": ([5, 6, 3], "float32", [
        56.66666793823242, 57.66666793823242, 56.33333206176758, 5.0, 81.66666412353516,
        47.33333206176758, 77.0, 23.0, 30.66666603088379, 75.0, 15.666666984558105,
        5.333333492279053, 31.66666603088379, 57.66666793823242, 10.333333015441895, 74.0, 29.0,
        19.33333396911621, 46.33333206176758, 76.33333587646484, 75.33333587646484,
        94.92308044433594, 8.38461685180664, -24.79487419128418, 82.53846740722656,
        79.5384521484375, 86.28204345703125, -31.38461685180664, -17.256410598754883,
        44.79487228393555, 20.307693481445312, 44.615386962890625, 109.20512390136719,
        17.33333396911621, 45.0, 27.66666603088379, 25.0, 68.66666412353516, 13.0,
        13.743587493896484, -15.923076629638672, -0.7692337036132812, 7.974353790283203,
        74.97435760498047, 60.92308044433594, 30.41025161743164, -2.000001907348633,
        85.66667175292969, 87.30769348144531, 6.051280975341797, -23.641029357910156, 27.0,
        12.333333015441895, 68.0, 44.33333206176758, 43.0, 24.66666603088379, 40.230770111083984,
        113.0769271850586, 15.538459777832031, 73.92308044433594, -21.461538314819336,
        20.89743423461914, 92.20513153076172, 99.92308044433594, -13.820514678955078,
        82.97434997558594, 88.4871826171875, 34.76923370361328, 31.33333396911621,
        83.33333587646484, 81.0, 57.66666793823242, 34.0, 17.66666603088379, 79.66666412353516,
        22.66666603088379, 47.33333206176758, 57.33333206176758, 20.33333396911621,
        26.66666603088379, 63.0, 16.66666603088379, 57.33333206176758, 80.33333587646484,
        58.33333206176758, 55.0, 39.33333206176758, 82.33333587646484, 18.66666603088379]),
    "color_0.5": ([3, 4, 3], "uint8", [
        172, 190, 89, 176, 134, 139, 140, 96, 184, 35, 64, 78, 127, 106, 70, 8, 2, 8, 102, 211, 108,
        168, 180, 114, 83, 102, 80, 188, 86, 178, 198, 204, 110, 119, 149, 132]),
    "color_1.7": ([3, 4, 3], "uint8", [
        170, 229, 0, 247, 101, 120, 190, 41, 255, 0, 81, 127, 173, 101, 0, 15, 0, 17, 0, 255, 0,
        166, 208, 0, 57, 123, 48, 255, 0, 255, 213, 234, 0, 73, 175, 118]),
    "color_0": ([3, 4, 3], "uint8", [
        173, 173, 173, 147, 147, 147, 119, 119, 119, 57, 57, 57, 108, 108, 108, 5, 5, 5, 167, 167,
        167, 169, 169, 169, 94, 94, 94, 127, 127, 127, 191, 191, 191, 138, 138, 138]),
    "random_sharpness_1.6": ([5, 6, 3], "uint8", [
        170, 173, 169, 15, 245, 142, 231, 69, 92, 225, 47, 16, 95, 173, 31, 222, 87, 58, 139, 229,
        226, 255, 46, 0, 228, 216, 234, 0, 0, 132, 71, 125, 255, 52, 135, 83, 75, 206, 39, 57, 0,
        14, 43, 206, 169, 100, 14, 236, 239, 35, 0, 81, 37, 204, 133, 129, 74, 124, 255, 52, 212, 0,
        70, 255, 255, 0, 235, 245, 109, 94, 250, 243, 173, 102, 53, 239, 68, 142, 172, 61, 80, 189,
        50, 172, 241, 175, 165, 118, 247, 56]),
}

OPS = {
    "hue_0.2": (V.AdjustHue(0.2), A), "hue_-0.25": (V.AdjustHue(-0.25), A),
    "blur_3": (V.GaussianBlur(3), B), "blur_5x3_sigma": (V.GaussianBlur((5, 3), (1.3, 0.7)), B),
    "blur_1x3": (V.GaussianBlur((1, 3)), B[..., 0]),
    "blur_9_float": (V.GaussianBlur(9, 1.2), B.astype(np.float32)),
    "sharpness_0.5": (V.AdjustSharpness(0.5), B), "sharpness_2": (V.AdjustSharpness(2.0), B),
    "sharpness_2_float": (V.AdjustSharpness(2.0), B.astype(np.float32) / 3),
    "color_0.5": (V.RandomColor((0.5, 0.5)), A), "color_1.7": (V.RandomColor((1.7, 1.7)), A),
    "color_0": (V.RandomColor((0.0, 0.0)), A),
    "random_sharpness_1.6": (V.RandomSharpness((1.6, 1.6)), B),
}


@pytest.mark.parametrize("name", sorted(MINDSPORE))
def test_matches_mindspore(name):
    op, img = OPS[name]
    shape, dtype, values = MINDSPORE[name]
    out = op(img)
    assert list(out.shape) == shape and out.dtype == np.dtype(dtype)
    expected = np.asarray(values, dtype).reshape(shape)
    if out.dtype == np.uint8:
        np.testing.assert_array_equal(out, expected)
    else:
        np.testing.assert_allclose(out, expected, rtol=2e-7, atol=2e-5)


def test_gaussian_fixed_point_taps_sum_to_256_and_follow_the_gaussian():
    for n, sigma in ((3, 0.8), (5, 1.3), (9, 1.7), (13, 3.0)):
        k = gaussian_kernel(n, sigma)
        x = np.arange(n) - n // 2
        ref = np.exp(-x ** 2 / (2 * sigma ** 2))
        np.testing.assert_allclose(k, ref / ref.sum(), rtol=1e-12)
        fixed = fixed_point_kernel(k)
        assert fixed.sum() == 256 and np.abs(fixed - k * 256).max() <= 1


def test_hue_of_half_a_turn_twice_is_close_to_identity():
    twice = V.AdjustHue(0.5)(V.AdjustHue(0.5)(A))
    # 0.5 * 255 truncates to 127, so two shifts move the hue by 254 of 256 steps
    assert np.abs(twice.astype(int) - A).max() <= 12


def test_random_color_adjust_is_one_of_the_orders():
    from minispore.dataset.vision import AdjustBrightness, AdjustContrast
    op = V.RandomColorAdjust((1.3, 1.3), (0.7, 0.7))
    outs = {op(A).tobytes() for _ in range(20)}
    orders = {AdjustContrast(0.7)(AdjustBrightness(1.3)(A)).tobytes(),
              AdjustBrightness(1.3)(AdjustContrast(0.7)(A)).tobytes()}
    assert outs == orders
    np.testing.assert_array_equal(V.RandomColorAdjust()(A), A)
    out = V.RandomColorAdjust(0.4, 0.4, 0.4, 0.1)(A)
    assert out.shape == A.shape and out.dtype == np.uint8


def test_random_lighting_adds_one_offset_per_image():
    np.testing.assert_array_equal(V.RandomLighting(0)(A), A)
    out = V.RandomLighting(0.5)(B).astype(int) - B
    inner = (B > 40) & (B < 215)  # away from saturation every pixel moves by the same offset
    for c in range(3):
        assert len(set(out[..., c][inner[..., c]].tolist())) == 1
    # the offset is eig @ rnd: rnd = (1, 0, 0) gives -0.5675 * 55.46 on red, rounded
    np.testing.assert_array_equal(lighting(np.full((1, 1, 3), 100, np.uint8),
                                           np.array([1, 0, 0], np.float32)).ravel(),
                                  [69, 68, 68])


def test_random_adjust_sharpness_probability():
    np.testing.assert_array_equal(V.RandomAdjustSharpness(2.0, prob=1.0)(B),
                                  V.AdjustSharpness(2.0)(B))
    np.testing.assert_array_equal(V.RandomAdjustSharpness(2.0, prob=0.0)(B), B)


def test_float_hue_and_lighting_are_not_implemented():
    with pytest.raises(NotImplementedError, match="AdjustHue: float32"):
        V.AdjustHue(0.1)(A.astype(np.float32))
    with pytest.raises(NotImplementedError, match="RandomLighting: float32"):
        V.RandomLighting()(A.astype(np.float32))
    with pytest.raises(RuntimeError, match="RandomColor"):
        V.RandomColor()(A[..., 0])


@pytest.mark.parametrize("make, err", [
    (lambda: V.AdjustHue(0.6), ValueError), (lambda: V.AdjustHue("a"), TypeError),
    (lambda: V.GaussianBlur(2), ValueError), (lambda: V.GaussianBlur(0), ValueError),
    (lambda: V.GaussianBlur((3,)), TypeError), (lambda: V.GaussianBlur((3, 4)), ValueError),
    (lambda: V.GaussianBlur(3, -1), ValueError), (lambda: V.GaussianBlur(3, (1, 2, 3)), TypeError),
    (lambda: V.GaussianBlur(3.0), TypeError), (lambda: V.GaussianBlur(3, "a"), TypeError),
    (lambda: V.AdjustSharpness(-1), ValueError), (lambda: V.AdjustSharpness("a"), TypeError),
    (lambda: V.RandomSharpness(1), TypeError), (lambda: V.RandomSharpness((1,)), ValueError),
    (lambda: V.RandomSharpness((2, 1)), ValueError), (lambda: V.RandomColor((-1, 1)), ValueError),
    (lambda: V.RandomColor((1, "a")), TypeError), (lambda: V.RandomLighting(-1), ValueError),
    (lambda: V.RandomLighting("a"), TypeError), (lambda: V.RandomAdjustSharpness(-1), ValueError),
    (lambda: V.RandomAdjustSharpness(1, prob=2), ValueError),
    (lambda: V.RandomColorAdjust(brightness=-1), ValueError),
    (lambda: V.RandomColorAdjust(brightness=(1,)), TypeError),
    (lambda: V.RandomColorAdjust(brightness=(2, 1)), ValueError),
    (lambda: V.RandomColorAdjust(hue=0.6), ValueError),
    (lambda: V.RandomColorAdjust(contrast="a"), TypeError),
    (lambda: V.RandomColorAdjust(saturation=(-1, 1)), ValueError),
])
def test_rejects(make, err):
    with pytest.raises(err):
        make()
