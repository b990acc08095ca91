"""A synthetic, learnable CIFAR-10 stand-in: coloured shapes written as real CIFAR-10 binary files."""
import os

import numpy as np

from minispore.dataset.engine.cifar import write_cifar10_bin

_SIDE = 32
# Class k draws shape k % 5 in colour _PALETTE[k]: both carry the label, neither alone does.
_SHAPES = ("disc", "square", "ring", "stripes", "cross")
_PALETTE = np.array([[230, 60, 50], [60, 190, 70], [60, 90, 230], [230, 200, 40],
                     [200, 60, 200], [40, 200, 210], [240, 140, 40], [150, 100, 60],
                     [235, 235, 235], [110, 110, 110]], np.float64)
LABEL_NAMES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship",
               "truck")


def _masks(shape_ids, rng):
    """Float masks (N, 32, 32) in [0, 1]: each image's shape at a random centre and size."""
    n = len(shape_ids)
    yy, xx = np.mgrid[0:_SIDE, 0:_SIDE].astype(np.float64)
    cx = rng.uniform(10, 22, (n, 1, 1))
    cy = rng.uniform(10, 22, (n, 1, 1))
    r = rng.uniform(6, 10, (n, 1, 1))
    dx, dy = xx - cx, yy - cy
    dist = np.sqrt(dx * dx + dy * dy)
    box = np.maximum(np.abs(dx), np.abs(dy))
    shapes = {
        "disc": dist < r,
        "square": box < r * 0.85,
        "ring": (dist < r) & (dist > r * 0.55),
        "stripes": (box < r) & (np.sin(yy * 1.3 + cy) > 0),
        "cross": (box < r) & ((np.abs(dx) < r * 0.3) | (np.abs(dy) < r * 0.3)),
    }
    out = np.zeros((n, _SIDE, _SIDE))
    for i, name in enumerate(_SHAPES):
        sel = shape_ids == i
        out[sel] = shapes[name][sel]
    return out


def render_cifar(labels, rng):
    """uint8 images (N, 32, 32, 3) HWC of the classes `labels`: a class shape in the class
    colour (jittered) on a random background with a gradient, plus pixel noise."""
    labels = np.asarray(labels, np.int64)
    n = len(labels)
    mask = _masks(labels % len(_SHAPES), rng)[..., None]
    colour = _PALETTE[labels][:, None, None, :] + rng.normal(0, 18, (n, 1, 1, 3))
    background = rng.uniform(0, 255, (n, 1, 1, 3)) * 0.5 + 40
    ramp = np.linspace(-1, 1, _SIDE)[None, :, None, None] * rng.normal(0, 20, (n, 1, 1, 3))
    img = mask * colour + (1 - mask) * (background + ramp)
    img += rng.normal(0, 10, img.shape)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def synth_cifar10(directory, num_train=50000, num_test=10000, seed=0, num_batches=5):
    """Write a synthetic CIFAR-10 in the layout of the extracted cifar-10-batches-bin folder and
    return `directory`: data_batch_1..num_batches.bin (the train rows split evenly),
    test_batch.bin and batches.meta.txt (the class names). Labels are balanced-random; the same
    seed gives byte-identical files.
    """
    for what, count in (("num_train", num_train), ("num_test", num_test)):
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"synth_cifar10: '{what}' must be an int >= 0, got {count!r}.")
    if isinstance(num_batches, bool) or not isinstance(num_batches, int) or num_batches < 1:
        raise ValueError(f"synth_cifar10: 'num_batches' must be a positive int, got "
                         f"{num_batches!r}.")
    rng = np.random.default_rng(seed)
    os.makedirs(directory, exist_ok=True)
    bounds = np.linspace(0, num_train, num_batches + 1).astype(np.int64)
    for b in range(num_batches):
        labels = rng.integers(0, 10, bounds[b + 1] - bounds[b])
        write_cifar10_bin(os.path.join(directory, f"data_batch_{b + 1}.bin"),
                          render_cifar(labels, rng), labels)
    labels = rng.integers(0, 10, num_test)
    write_cifar10_bin(os.path.join(directory, "test_batch.bin"), render_cifar(labels, rng),
                      labels)
    with open(os.path.join(directory, "batches.meta.txt"), "w") as f:
        f.write("\n".join(LABEL_NAMES) + "\n")
    return directory
