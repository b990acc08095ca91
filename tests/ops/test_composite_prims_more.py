"""The Primitive forms of the composed ops (composite_prims_more.py) agree with their functional
forms and check their attributes."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import rand


def _same(a, b):
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_prims_match_functions():
    x, img = Tensor(rand(2, 3, seed=1)), Tensor(rand(1, 2, 4, 4, seed=2))
    pads = Tensor(np.array([[1, 1], [2, 2]], np.int64))
    _same(ops.MirrorPad("SYMMETRIC")(x, pads), ops.mirror_pad(x, pads, "SYMMETRIC"))
    _same(ops.Padding(3)(x[:, :1]), ops.padding(x[:, :1], 3))
    _same(ops.SpaceToBatchND(2, [[1, 1], [0, 2]])(img),
          ops.space_to_batch_nd(img, 2, [[1, 1], [0, 2]]))
    y = ops.space_to_batch_nd(img, 2, [[1, 1], [0, 2]])
    _same(ops.BatchToSpaceND((2, 2), [[1, 1], [0, 2]])(y), img)
    _same(ops.BartlettWindow(False, ms.float64)(Tensor(6, ms.int32)),
          ops.bartlett_window(Tensor(6, ms.int32), False, dtype=ms.float64))
    _same(ops.BlackmanWindow()(Tensor(5, ms.int64)), ops.blackman_window(Tensor(5, ms.int64)))
    boxes, metas = Tensor(np.float32([[1, 1, 3, 3], [0, 0, 9, 9]])), Tensor([10.0, 5.0, 1.0])
    _same(ops.CheckValid()(boxes, metas), ops.check_valid(boxes, metas))
    scores, target = Tensor(rand(3, 4, seed=3)), Tensor(np.array([0, 3, 1], np.int32))
    _same(ops.InTopK(2)(scores, target), ops.intopk(scores, target, 2))
    lbl = Tensor(np.array([2, 0], np.int64))
    _same(ops.MultiMarginLoss(2, 1, "none")(x, lbl), ops.multi_margin_loss(x, lbl, 2, 1, None,
                                                                            "none"))
    theta = Tensor(rand(1, 2, 3, seed=4))
    _same(ops.AffineGrid(True)(theta, (1, 1, 2, 3)), ops.affine_grid(theta, (1, 1, 2, 3), True))
    grid = Tensor(rand(1, 2, 3, 2, seed=5))
    _same(ops.GridSampler2D("nearest", "border", True)(img, grid),
          ops.grid_sample(img, grid, "nearest", "border", True))
    with pytest.raises(ValueError, match="GridSampler3D"):
        ops.GridSampler3D()(img, grid)
    cols, size = Tensor(rand(2, 1, 4, 9, seed=6)), Tensor(np.array([4, 4], np.int32))
    _same(ops.Col2Im(2)(cols, size), ops.col2im(cols, size, 2, 1, 0, 1))


def test_conv3d_prim():
    v, w = Tensor(rand(1, 4, 3, 4, 5, seed=7)), Tensor(rand(2, 2, 2, 3, 2, seed=8))
    out = ops.Conv3D(2, (2, 3, 2), pad_mode="pad", pad=(1, 0, 1, 1, 0, 1), stride=2, group=2)(v, w)
    from minispore.ops.function.conv_compose_func import conv3d_padded
    _same(out, conv3d_padded(v, w, None, (2, 2, 2), "pad", (1, 0, 1, 1, 0, 1), (1, 1, 1), 2))
    with pytest.raises(ValueError, match="out_channel"):
        ops.Conv3D(3, (2, 3, 2), group=2)(v, w)
    with pytest.raises(TypeError, match="stride"):
        ops.Conv3D(2, (2, 3, 2), stride=(1, 1, 1, 2, 1), group=2)(v, w)
