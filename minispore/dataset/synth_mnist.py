"""A synthetic, learnable MNIST stand-in: stroke-rendered digits written as real IDX files."""
import os

import numpy as np
from numba import njit

from minispore.dataset.mnist_idx import write_idx


def _arc(cx, cy, rx, ry, a0, a1, n=10):
    """Points on an elliptical arc; angles in degrees, y grows downwards (90 = bottom)."""
    t = np.radians(np.linspace(a0, a1, n))
    return [(cx + rx * np.cos(a), cy + ry * np.sin(a)) for a in t]


# Each digit: polylines in the unit square (x right, y down).
_TEMPLATES = {
    0: [_arc(0.5, 0.5, 0.3, 0.42, 0, 360, 16)],
    1: [[(0.32, 0.28), (0.52, 0.1), (0.52, 0.9)]],
    2: [_arc(0.5, 0.32, 0.27, 0.22, 190, 400, 9) + [(0.2, 0.9), (0.82, 0.9)]],
    3: [_arc(0.5, 0.3, 0.25, 0.2, 200, 450, 9), _arc(0.5, 0.7, 0.28, 0.2, 270, 520, 9)],
    4: [[(0.65, 0.9), (0.65, 0.1), (0.15, 0.65), (0.85, 0.65)]],
    5: [[(0.75, 0.1), (0.3, 0.1), (0.27, 0.45)] + _arc(0.5, 0.65, 0.27, 0.25, 220, 500, 10)],
    6: [[(0.7, 0.1), (0.4, 0.3), (0.26, 0.62)], _arc(0.48, 0.7, 0.23, 0.2, 0, 360, 12)],
    7: [[(0.2, 0.1), (0.8, 0.1), (0.4, 0.9)]],
    8: [_arc(0.5, 0.29, 0.2, 0.19, 0, 360, 12), _arc(0.5, 0.7, 0.25, 0.21, 0, 360, 12)],
    9: [_arc(0.5, 0.3, 0.23, 0.2, 0, 360, 12), [(0.73, 0.3), (0.65, 0.9)]],
}


def _template_arrays(digit):
    """(points (K, 2), segment endpoint indices (S, 2)) of a digit's template."""
    pts, segs = [], []
    for line in _TEMPLATES[digit]:
        start = len(pts)
        pts.extend(line)
        segs.extend((start + i, start + i + 1) for i in range(len(line) - 1))
    return np.asarray(pts, np.float64), np.asarray(segs, np.int64)


@njit(cache=True)
def _render(segs, nseg, radius, out):
    """for image n, pixel (y, x): d = min over its segments of the distance from the pixel centre;
    out = 255 * clip(radius[n] + 0.5 - d, 0, 1). segs (N, S, 4) = (x0, y0, x1, y1) in pixels."""
    n_img, size = out.shape[0], out.shape[1]
    for n in range(n_img):
        for y in range(size):
            for x in range(size):
                best = 1e9
                for s in range(nseg[n]):
                    x0, y0, x1, y1 = segs[n, s, 0], segs[n, s, 1], segs[n, s, 2], segs[n, s, 3]
                    dx, dy = x1 - x0, y1 - y0
                    ll = dx * dx + dy * dy
                    t = 0.0
                    if ll > 0:
                        t = min(max(((x - x0) * dx + (y - y0) * dy) / ll, 0.0), 1.0)
                    ex, ey = x0 + t * dx - x, y0 + t * dy - y
                    d = (ex * ex + ey * ey) ** 0.5
                    if d < best:
                        best = d
                out[n, y, x] = 255.0 * min(max(radius[n] + 0.5 - best, 0.0), 1.0)


def render_digits(labels, rng, size=28):
    """uint8 images (N, size, size) of the digits `labels`, each randomly shifted, scaled,
    rotated, sheared, jittered, with a random stroke width and pixel noise."""
    labels = np.asarray(labels, np.int64)
    n = len(labels)
    max_seg = max(len(_template_arrays(d)[1]) for d in range(10))
    segs = np.zeros((n, max_seg, 4), np.float64)
    nseg = np.zeros(n, np.int64)
    for d in range(10):
        sel = np.nonzero(labels == d)[0]
        if not len(sel):
            continue
        pts, seg_idx = _template_arrays(d)
        m = len(sel)
        p = pts[None] - 0.5 + rng.normal(0, 0.025, (m, len(pts), 2))
        ang = np.radians(rng.uniform(-12, 12, m))
        shear = rng.uniform(-0.25, 0.25, m)
        scale = size * rng.uniform(0.6, 0.78, m)
        aspect = rng.uniform(0.8, 1.1, m)
        cos, sin = np.cos(ang), np.sin(ang)
        a = np.stack([np.stack([cos * aspect, -sin + shear], -1),
                      np.stack([sin * aspect, cos], -1)], -2) * scale[:, None, None]
        centre = size / 2 - 0.5 + rng.uniform(-2.5, 2.5, (m, 2))
        q = np.einsum("mij,mkj->mki", a, p) + centre[:, None, :]
        segs[sel, :len(seg_idx)] = np.concatenate([q[:, seg_idx[:, 0]], q[:, seg_idx[:, 1]]], -1)
        nseg[sel] = len(seg_idx)
    radius = rng.uniform(0.7, 1.6, n)
    out = np.empty((n, size, size), np.float64)
    _render(segs, nseg, radius, out)
    out += rng.normal(0, 12, out.shape) * (out > 0)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def synth_mnist(directory, num_train=60000, num_test=10000, seed=0, compress=False):
    """Write a synthetic MNIST in MindSpore's MNIST_Data layout and return the two folders.

    directory/train/train-{images-idx3,labels-idx1}-ubyte and directory/test/t10k-… (with
    .gz when compress). Labels are balanced-random; images come from `render_digits`. The
    same seed gives byte-identical files.
    """
    rng = np.random.default_rng(seed)
    folders = []
    for part, prefix, count in (("train", "train", num_train), ("test", "t10k", num_test)):
        if not isinstance(count, int) or count < 0:
            raise ValueError(f"synth_mnist: the {part} count must be an int >= 0, got {count!r}.")
        folder = os.path.join(directory, part)
        os.makedirs(folder, exist_ok=True)
        labels = rng.integers(0, 10, count).astype(np.uint8)
        images = render_digits(labels, rng)
        ext = ".gz" if compress else ""
        write_idx(os.path.join(folder, f"{prefix}-images-idx3-ubyte{ext}"), images)
        write_idx(os.path.join(folder, f"{prefix}-labels-idx1-ubyte{ext}"), labels)
        folders.append(folder)
    return tuple(folders)
