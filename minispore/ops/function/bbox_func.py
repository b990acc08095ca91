"""Detection box operators composed of elementwise ones: ops.iou / ops.IOU (overlap of two box
sets), ops.bounding_box_encode / BoundingBoxEncode and ops.bounding_box_decode /
BoundingBoxDecode (box deltas relative to anchors, as Faster R-CNN uses them).

Boxes are (x1, y1, x2, y2) with inclusive pixel corners, so a box spans x2 - x1 + 1 pixels,
as in MindSpore's kernels.
"""
import math

from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_func import stack
from minispore.ops.function.composite_prims import _composite

__all__ = ["iou", "bounding_box_encode", "bounding_box_decode", "IOU", "BoundingBoxEncode",
           "BoundingBoxDecode"]


def _boxes(name, arg, boxes):
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise ValueError(f"For '{name}', '{arg}' must have shape (N, 4), but got "
                         f"{tuple(boxes.shape)}.")
    return [A.squeeze(c, 1) for c in A.split(boxes, 1, 1)]


def iou(anchor_boxes, gt_boxes, mode="iou"):
    """(M, N) overlaps of the N anchor boxes with the M ground-truth boxes: intersection over
    union ('iou') or over the ground-truth box's area ('iof')."""
    if mode not in ("iou", "iof"):
        raise ValueError(f"For 'iou', 'mode' must be 'iou' or 'iof', but got {mode!r}.")
    ax1, ay1, ax2, ay2 = (A.expand_dims(c, 0) for c in _boxes("iou", "anchor_boxes",
                                                              anchor_boxes))
    gx1, gy1, gx2, gy2 = (A.expand_dims(c, 1) for c in _boxes("iou", "gt_boxes", gt_boxes))
    zero = A.zeros((), anchor_boxes.dtype)
    w = M.maximum(M.add(M.sub(M.minimum(ax2, gx2), M.maximum(ax1, gx1)), 1.0), zero)
    h = M.maximum(M.add(M.sub(M.minimum(ay2, gy2), M.maximum(ay1, gy1)), 1.0), zero)
    inter = M.mul(w, h)
    area_a = M.mul(M.add(M.sub(ax2, ax1), 1.0), M.add(M.sub(ay2, ay1), 1.0))
    area_g = M.mul(M.add(M.sub(gx2, gx1), 1.0), M.add(M.sub(gy2, gy1), 1.0))
    if mode == "iof":
        return M.div(inter, area_g)
    return M.div(inter, M.sub(M.add(area_a, area_g), inter))


def _centre_size(name, arg, boxes):
    x1, y1, x2, y2 = _boxes(name, arg, boxes)
    w, h = M.add(M.sub(x2, x1), 1.0), M.add(M.sub(y2, y1), 1.0)
    return M.mul(M.add(x1, x2), 0.5), M.mul(M.add(y1, y2), 0.5), w, h


def bounding_box_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0),
                        stds=(1.0, 1.0, 1.0, 1.0)):
    """Deltas (dx, dy, dw, dh) taking each anchor to its ground-truth box, normalised:
    ((gx - px) / pw, (gy - py) / ph, log(gw / pw), log(gh / ph)) - means, / stds."""
    px, py, pw, ph = _centre_size("BoundingBoxEncode", "anchor_box", anchor_box)
    gx, gy, gw, gh = _centre_size("BoundingBoxEncode", "groundtruth_box", groundtruth_box)
    deltas = [M.div(M.sub(gx, px), pw), M.div(M.sub(gy, py), ph),
              M.log(M.div(gw, pw)), M.log(M.div(gh, ph))]
    return stack([M.div(M.sub(d, float(m)), float(s)) for d, m, s in zip(deltas, means, stds)],
                 1)


def bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0),
                        stds=(1.0, 1.0, 1.0, 1.0), wh_ratio_clip=0.016):
    """Boxes from anchors and deltas (the inverse of encode): the size deltas clipped to
    |log(wh_ratio_clip)|, corners clipped to [0, max_shape[1]] in x and [0, max_shape[0]]
    in y (max_shape = (height, width))."""
    px, py, pw, ph = _centre_size("BoundingBoxDecode", "anchor_box", anchor_box)
    if deltas.ndim != 2 or deltas.shape[1] != 4:
        raise ValueError(f"For 'BoundingBoxDecode', 'deltas' must have shape (N, 4), but got "
                         f"{tuple(deltas.shape)}.")
    if not isinstance(max_shape, (tuple, list)) or len(max_shape) != 2:
        raise ValueError(f"For 'BoundingBoxDecode', 'max_shape' must be (height, width), but "
                         f"got {max_shape!r}.")
    dx, dy, dw, dh = (M.add(M.mul(A.squeeze(d, 1), float(s)), float(m)) for d, m, s in
                      zip(A.split(deltas, 1, 1), means, stds))
    limit = abs(math.log(wh_ratio_clip))
    dw = M.minimum(M.maximum(dw, -limit), limit)
    dh = M.minimum(M.maximum(dh, -limit), limit)
    cx, cy = M.add(px, M.mul(dx, pw)), M.add(py, M.mul(dy, ph))
    w, h = M.mul(pw, M.exp(dw)), M.mul(ph, M.exp(dh))
    zero = A.zeros((), anchor_box.dtype)

    def clip(v, top):
        return M.minimum(M.maximum(v, zero), float(top))

    height, width = max_shape
    x1 = clip(M.add(M.sub(cx, M.mul(w, 0.5)), 0.5), width)
    y1 = clip(M.add(M.sub(cy, M.mul(h, 0.5)), 0.5), height)
    x2 = clip(M.sub(M.add(cx, M.mul(w, 0.5)), 0.5), width)
    y2 = clip(M.sub(M.add(cy, M.mul(h, 0.5)), 0.5), height)
    return stack([x1, y1, x2, y2], 1)


def _iou_prim(anchor_boxes, gt_boxes, mode="iou"):
    return iou(anchor_boxes, gt_boxes, mode)


def _encode_prim(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0),
                 stds=(1.0, 1.0, 1.0, 1.0)):
    return bounding_box_encode(anchor_box, groundtruth_box, means, stds)


def _decode_prim(anchor_box, deltas, max_shape=None, means=(0.0, 0.0, 0.0, 0.0),
                 stds=(1.0, 1.0, 1.0, 1.0), wh_ratio_clip=0.016):
    return bounding_box_decode(anchor_box, deltas, max_shape, means, stds, wh_ratio_clip)


IOU = _composite("IOU", _iou_prim, (("mode", "iou"),), doc=iou.__doc__)
BoundingBoxEncode = _composite("BoundingBoxEncode", _encode_prim,
                               (("means", (0.0, 0.0, 0.0, 0.0)), ("stds", (1.0, 1.0, 1.0, 1.0))),
                               doc=bounding_box_encode.__doc__)
BoundingBoxDecode = _composite("BoundingBoxDecode", _decode_prim,
                               (("max_shape", None), ("means", (0.0, 0.0, 0.0, 0.0)),
                                ("stds", (1.0, 1.0, 1.0, 1.0)), ("wh_ratio_clip", 0.016)),
                               doc=bounding_box_decode.__doc__)
