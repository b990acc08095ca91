"""multi_margin_loss, check_valid and intopk, composed from GatherD, comparisons and reductions
(multi_margin_loss differentiates through them; the other two return bool masks)."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.index_func import gather_d
from minispore.ops.function.nn_compose_func import reduce_loss
from minispore.ops.function.nn_func import relu
from minispore.ops.function.input_checks import check_tensor_dtype as _tensor

__all__ = ["multi_margin_loss", "check_valid", "intopk"]



def _all_true(*conds):
    """The elementwise AND of bool tensors (a product of 0/1 ints: no gradient is wanted)."""
    out = A.cast(conds[0], mstype.int32)
    for c in conds[1:]:
        out = M.mul(out, A.cast(c, mstype.int32))
    return A.cast(out, mstype.bool_)


def multi_margin_loss_impl(input, target, p, margin, weight, reduction):  # noqa: A002
    """The checked form nn.MultiMarginLoss calls (it allows a float margin)."""
    _tensor("MultiMarginLoss", "x", input, (mstype.float16, mstype.float32, mstype.float64))
    _tensor("MultiMarginLoss", "target", target, (mstype.int64,))
    if input.ndim != 2 or target.ndim != 1:
        raise ValueError(f"For MultiMarginLoss, the rank of input x and target should be 2 and 1, "
                         f"while rank of x is {input.ndim}, rank of target is {target.ndim}.")
    if target.shape[0] != input.shape[0]:
        raise ValueError(f"For MultiMarginLoss, target's length ({target.shape[0]}) must equal "
                         f"x's batch size ({input.shape[0]}).")
    if p not in (1, 2) or isinstance(p, bool):
        raise ValueError(f"For 'MultiMarginLoss', the 'p' must be int and must in {{1, 2}}, but "
                         f"got {p!r}.")
    c = input.shape[1]
    picked = gather_d(input, 1, A.reshape(target, (-1, 1)))
    hinge = relu(M.add(M.sub(input, picked), float(margin)))
    if p == 2:
        hinge = M.square(hinge)
    # the target's own column always contributes `margin`; the sum is over j != y
    others = A.cast(M.not_equal(A.reshape(Tensor(np.arange(c), mstype.int64), (1, c)),
                                A.reshape(target, (-1, 1))), input.dtype)
    hinge = M.mul(hinge, others)
    if weight is not None:
        hinge = M.mul(hinge, A.reshape(A.gather(A.cast(weight, input.dtype), target, 0), (-1, 1)))
    loss = M.div(M.reduce_sum(hinge, 1), float(c))
    return reduce_loss("MultiMarginLoss", loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction="mean"):  # noqa: A002
    """Multi-class hinge loss of x (N, C) for int64 class targets (N,):
    loss_i = sum_{j != y_i} w[y_i] max(0, margin - x[i, y_i] + x[i, j])^p / C, p in {1, 2};
    then 'mean', 'sum' or 'none'. MindSpore's functional form wants an int margin."""
    if isinstance(margin, bool) or not isinstance(margin, int):
        raise TypeError(f"For 'multi_margin_loss', the type of 'margin' must be int, but got "
                        f"{type(margin)}.")
    return multi_margin_loss_impl(input, target, p, margin, weight, reduction)


def check_valid(bboxes, img_metas):
    """Whether each box (x1, y1, x2, y2) of bboxes (N, 4) lies inside the image img_metas =
    (height, width, ratio): x1, y1 >= 0, x2 <= width * ratio - 1 and y2 <= height * ratio - 1
    (x1 > x2 is not checked, as in MindSpore)."""
    kinds = (mstype.float16, mstype.float32, mstype.int16, mstype.uint8)
    _tensor("CheckValid", "bboxes", bboxes, kinds)
    _tensor("CheckValid", "img_metas", img_metas, kinds)
    if bboxes.ndim != 2 or bboxes.shape[-1] != 4:
        raise ValueError(f"For 'CheckValid', the last dimension of 'bboxes' must equal to 4, "
                         f"but got: {bboxes.shape[-1] if bboxes.ndim else 0}.")
    if tuple(img_metas.shape) != (3,):
        raise ValueError(f"For 'CheckValid', 'img_metas' must have shape (3,), but got "
                         f"{tuple(img_metas.shape)}.")
    boxes = A.cast(bboxes, mstype.float32)
    metas = A.cast(img_metas, mstype.float32)
    h, w, ratio = (metas[i] for i in range(3))
    x1, y1, x2, y2 = (boxes[:, i] for i in range(4))
    return _all_true(M.greater_equal(x1, 0.0), M.greater_equal(y1, 0.0),
                     M.less_equal(x2, M.sub(M.mul(w, ratio), 1.0)),
                     M.less_equal(y2, M.sub(M.mul(h, ratio), 1.0)))


def intopk(x1, x2, k):
    """Whether each target x2[i] is among the k largest of x1[i] (N, C): fewer than k entries
    strictly greater than x1[i, x2[i]], so ties all count as in. False for a target out of
    [0, C), k <= 0, or a row holding NaN."""
    _tensor("InTopK", "x1", x1, (mstype.float16, mstype.float32))
    _tensor("InTopK", "x2", x2, (mstype.int32, mstype.int64))
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"For 'InTopK', 'k' must be an int, but got {type(k).__name__}.")
    if x1.ndim != 2 or x2.ndim != 1 or x2.shape[0] != x1.shape[0]:
        raise ValueError(f"For 'InTopK', 'x1' must be 2-D and 'x2' 1-D of x1's batch size, but "
                         f"got shapes {tuple(x1.shape)} and {tuple(x2.shape)}.")
    c = x1.shape[1]
    in_range = _all_true(M.greater_equal(x2, 0), M.less(x2, c))
    safe = M.select(in_range, x2, A.zeros_like(x2))
    picked = gather_d(x1, 1, A.reshape(A.cast(safe, mstype.int64), (-1, 1)))
    above = M.reduce_sum(A.cast(M.greater(x1, picked), mstype.int32), 1)
    nans = M.reduce_sum(A.cast(M.not_equal(x1, x1), mstype.int32), 1)
    return _all_true(in_range, M.less(above, k), M.equal(nans, 0),
                     A.fill(mstype.bool_, tuple(x2.shape), k > 0))
