"""OpenCV 4.5's uint8 RGB <-> HSV_FULL conversions (the arithmetic AdjustHue runs through):
RGB2HSV in 12-bit fixed point with hue over 256 steps, HSV2RGB in float32 with hue over 255."""
import numpy as np

_SHIFT = 12


def _tables():
    i = np.arange(256, dtype=np.float64)
    with np.errstate(divide="ignore"):
        sdiv = np.where(i > 0, np.rint((255 << _SHIFT) / i), 0).astype(np.int64)
        hdiv = np.where(i > 0, np.rint((256 << _SHIFT) / (6.0 * i)), 0).astype(np.int64)
    return sdiv, hdiv


_SDIV, _HDIV = _tables()


def rgb_to_hsv_full(img):
    """uint8 (..., 3) RGB -> uint8 (..., 3) HSV, hue in [0, 256) (COLOR_RGB2HSV_FULL)."""
    x = img.astype(np.int64)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    v = np.maximum(np.maximum(r, g), b)
    diff = v - np.minimum(np.minimum(r, g), b)
    half = 1 << (_SHIFT - 1)
    s = (diff * _SDIV[v] + half) >> _SHIFT
    h = np.where(v == r, g - b, np.where(v == g, b - r + 2 * diff, r - g + 4 * diff))
    h = (h * _HDIV[diff] + half) >> _SHIFT
    h = np.where(h < 0, h + 256, h)
    return np.stack([np.clip(h, 0, 255), s, v], axis=-1).astype(np.uint8)


_SECTORS = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])


def hsv_full_to_rgb(hsv):
    """uint8 (..., 3) HSV (hue over 255 steps, as OpenCV's HSV2RGB_FULL reads it) -> RGB."""
    f = np.float32
    h = hsv[..., 0].astype(np.float32)
    s = hsv[..., 1].astype(np.float32) * f(1 / 255.0)
    v = hsv[..., 2].astype(np.float32) * f(1 / 255.0)
    h = np.fmod(h * f(6.0 / 255), f(6.0)).astype(np.float32)
    sector = np.floor(h).astype(np.int64)
    h = (h - sector.astype(np.float32)).astype(np.float32)
    bad = (sector < 0) | (sector >= 6)
    sector = np.where(bad, 0, sector)
    h = np.where(bad, f(0), h)
    one = f(1)
    tab = np.stack([v, v * (one - s), v * (one - s * h), v * (one - s * (one - h))], axis=-1)
    idx = _SECTORS[sector]  # (..., 3): which tab entry feeds b, g, r
    bgr = np.take_along_axis(tab, idx, axis=-1).astype(np.float32)
    gray = (s == 0)[..., None]
    bgr = np.where(gray, v[..., None], bgr)
    rgb = bgr[..., ::-1] * f(255)
    return np.clip(np.rint(rgb), 0, 255).astype(np.uint8)
