"""OcclusionSensitivity: how much a model's score for one label drops as each part of an input
image is occluded, as MindSpore's metric computes it."""
import numpy as np

from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.nn.metrics.metric import Metric, _check_type, rearrange_inputs

__all__ = ["OcclusionSensitivity"]


def _bounding_box(b_box, im_shape):
    """(lowest, highest) index per image dim from [min1, max1, min2, max2, ...]; a negative
    minimum means 0, a negative maximum the dim's last index. (None, None) without a box."""
    if b_box is None:
        return None, None
    if len(b_box) != 2 * len(im_shape):
        raise ValueError(f"For 'OcclusionSensitivity', the bounding box must contain upper and "
                         f"lower for all dimensions (except batch number), and the length of "
                         f"'b_box' must be twice as long as predicted value's (except batch "
                         f"number), but got 'b_box' length {len(b_box)}, predicted value length "
                         f"(except batch number) {len(im_shape)}.")
    low, high = np.array(b_box[::2]), np.array(b_box[1::2])
    low[low < 0] = 0
    high[high < 0] = im_shape[high < 0] - 1
    if np.any(high >= im_shape):
        raise ValueError("For 'OcclusionSensitivity', maximum bounding box must be smaller than "
                         "image size for all values.")
    if np.any(low > high):
        raise ValueError("For 'OcclusionSensitivity', minimum bounding box must be smaller than "
                         "maximum bounding box for all values.")
    return low, high


class OcclusionSensitivity(Metric):
    """``OcclusionSensitivity(pad_val=0.0, margin=2, n_batch=128, b_box=None)``:
    ``update(model, y_pred, label)`` runs the Cell `model` on the image batch y_pred (one image,
    shape (1, *dims)) and on one copy per pixel p of the image (or of the ``b_box`` region),
    whose hypercube [p - margin, p + margin) (clipped to the image; margin 0 occludes nothing)
    is set to ``pad_val``; copies are scored ``n_batch`` at a time.

    ``eval()`` -> numpy array of the model's dtype, shaped like the region with unit dims
    squeezed: score(label) on the image minus score(label) on each occluded copy.

    `label` must be a single class index as a 0-d array or Tensor; MindSpore 2.7.2 fails on a
    one-element 1-d label (its score arrays stop lining up), and on a list ``margin``.

    Raises TypeError for bad constructor argument types or a model that is no Cell,
    ValueError for a bad b_box, a label that is not 0-d, a list margin or other than 3 inputs,
    RuntimeError when y_pred holds more than one image or eval comes before update.
    """

    def __init__(self, pad_val=0.0, margin=2, n_batch=128, b_box=None):
        super().__init__()
        self.pad_val = _check_type("pad_val", pad_val, (float,))
        self.margin = _check_type("margin", margin, (int, list))
        self.n_batch = _check_type("n_batch", n_batch, (int,))
        self.b_box = None if b_box is None else _check_type("b_box", b_box, (list,))
        self.clear()

    def clear(self):
        self._baseline = 0
        self._sensitivity_im = 0
        self._is_update = False

    def _check_label(self, label, batch):
        if np.prod(label.shape) != batch:
            raise RuntimeError(f"For 'OcclusionSensitivity.update', the number of the label "
                               f"(input[2]) must be same as the batches, but got the label number "
                               f"{np.prod(label.shape)}, and batches {batch}.")
        if label.ndim != 0:
            raise ValueError(f"For 'OcclusionSensitivity.update', the label (input[2]) must be a "
                             f"0-d class index (MindSpore 2.7.2 fails on any other shape), but "
                             f"got shape {label.shape}.")
        if isinstance(self.margin, list):
            raise ValueError(f"For 'OcclusionSensitivity.update', a list 'margin' "
                             f"({self.margin}) is not supported (MindSpore 2.7.2 fails on it); "
                             f"pass an int.")

    def _scores(self, model, images, label):
        return model(Tensor(np.vstack(images))).asnumpy()[:, label]

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 3:
            raise ValueError(f"For 'OcclusionSensitivity.update', it needs 3 inputs "
                             f"(classification model, predicted value, label), but got "
                             f"{len(inputs)}.")
        model = _check_type("model", inputs[0], (Cell,))
        y_pred = self._convert_data(inputs[1])
        label = self._convert_data(inputs[2])
        if y_pred.shape[0] > 1:
            raise RuntimeError(f"For 'OcclusionSensitivity.update', the shape at index 0 of the "
                               f"predicted value (input[1]) must be 1, but got {y_pred.shape[0]}.")
        self._check_label(label, y_pred.shape[0])
        im_shape = np.array(y_pred.shape[1:])
        low, high = _bounding_box(self.b_box, im_shape)
        self._baseline = model(Tensor(y_pred)).asnumpy()[0, label].item()
        out_shape = im_shape if low is None else high - low + 1
        count = int(np.prod(out_shape))
        scores, images = [], []
        for i in range(count):
            idx = np.unravel_index(i, out_shape)
            if low is not None:
                idx = idx + low
            box = tuple(slice(max(0, p - self.margin), min(n, p + self.margin))
                        for p, n in zip(idx, im_shape))
            occluded = y_pred.copy()
            # The leading Ellipsis skips the batch dim: the box indexes the image dims.
            occluded[(...,) + box] = self.pad_val
            images.append(occluded)
            if len(images) == self.n_batch or i == count - 1:
                scores.append(self._scores(model, images, label))
                images = []
        self._sensitivity_im = np.concatenate(scores).reshape(out_shape)
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        return self._baseline - np.squeeze(self._sensitivity_im)
