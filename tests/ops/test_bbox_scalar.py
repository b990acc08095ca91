"""ops.iou / IOU, bounding_box_encode / BoundingBoxEncode, bounding_box_decode /
BoundingBoxDecode, is_nonzero and scalar_cast: MindSpore 2.7.2's recorded outputs, an
encode-decode round trip and errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops

A = Tensor(np.array([[0, 0, 2, 2], [1, 1, 3, 3], [0, 0, 1, 4]], np.float32))
B = Tensor(np.array([[0, 0, 2, 2], [2, 2, 4, 5]], np.float32))


def test_iou_equals_mindspore():
    np.testing.assert_allclose(ops.iou(A, B).asnumpy(), [[1.0, 0.28571, 0.46154],
                                                         [0.05, 0.23529, 0.0]], atol=1e-5)
    np.testing.assert_allclose(ops.IOU(mode="iof")(A, B).asnumpy(),
                               [[1.0, 0.44444, 0.66667], [0.08333, 0.33333, 0.0]], atol=1e-5)


def test_encode_and_decode_equal_mindspore():
    gt = Tensor(np.array([[0, 0, 3, 3], [1, 2, 2, 5], [0.5, 0.5, 1, 1]], np.float32))
    np.testing.assert_allclose(
        ops.bounding_box_encode(A, gt, (0.1, 0.2, 0.3, 0.4), (1.0, 2.0, 0.5, 0.5)).asnumpy(),
        [[0.06667, -0.01667, -0.02464, -0.22464], [-0.26667, 0.15, -1.41093, -0.22464],
         [0.025, -0.225, -1.17536, -3.20795]], atol=1e-5)
    deltas = Tensor(np.array([[0.1, 0.1, 0.2, 0.2], [0, 0, 0, 0], [1, -1, 2, -2]], np.float32))
    np.testing.assert_allclose(
        ops.bounding_box_decode(A, deltas, (3, 4), (0.1, 0.2, 0.3, 0.4), (1.0, 2.0, 0.5, 0.5),
                                0.5).asnumpy(),
        [[0.0, 0.22692, 3.33774, 3.0], [0.77521, 0.86226, 3.82479, 3.0], [1.2, 0.0, 4.0, 0.0]],
        atol=1e-5)
    got = ops.BoundingBoxDecode(max_shape=(3, 4), wh_ratio_clip=0.016)(
        A, Tensor(np.zeros((3, 4), np.float32)))
    np.testing.assert_allclose(got.asnumpy(), [[0, 0, 2, 2], [1, 1, 3, 3], [0, 0, 1, 3]])


def test_decode_inverts_encode_inside_the_image():
    rng = np.random.default_rng(0)

    def boxes_of(n):
        corner = rng.uniform(0, 40, (n, 2))
        return np.concatenate([corner, corner + rng.uniform(1, 40, (n, 2))], axis=1)

    anchors, boxes = boxes_of(8), boxes_of(8)
    deltas = ops.BoundingBoxEncode(means=(0.1, 0.0, 0.2, 0.0), stds=(0.5, 1.0, 2.0, 1.0))(
        Tensor(anchors), Tensor(boxes))
    back = ops.bounding_box_decode(Tensor(anchors), deltas, (100, 100), (0.1, 0.0, 0.2, 0.0),
                                   (0.5, 1.0, 2.0, 1.0), 1e-6)
    np.testing.assert_allclose(back.asnumpy(), boxes, rtol=1e-12, atol=1e-12)


def test_is_nonzero_and_scalar_cast_equal_mindspore():
    assert ops.is_nonzero(Tensor([0.0])) is False and ops.is_nonzero(Tensor(3)) is True
    assert ops.scalar_cast(1.5, ms.int64) == 1 and type(ops.scalar_cast(2, ms.float64)) is float
    assert ops.scalar_cast(0, ms.bool_) is False


@pytest.mark.parametrize("make,err,words", [
    (lambda: ops.is_nonzero(Tensor([1, 2])), ValueError, "numel of input must be 1"),
    (lambda: ops.scalar_cast(1.5, ms.int32), ValueError, "supported type"),
    (lambda: ops.scalar_cast(Tensor(1.5), ms.int64), TypeError, "'x' should be one of"),
    (lambda: ops.iou(A, B, mode="x"), ValueError, "'iou' or 'iof'"),
    (lambda: ops.iou(A[:, :3], B), ValueError, r"shape \(N, 4\)"),
])
def test_errors(make, err, words):
    with pytest.raises(err, match=words):
        make()
