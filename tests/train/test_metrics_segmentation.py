"""HausdorffDistance, MeanSurfaceDistance, RootMeanSquareDistance and OcclusionSensitivity
against brute-force float64 references (mask edges by neighbour loops, distances by all pairs;
occlusion by re-scoring each occluded copy with a linear model by hand), the values MindSpore
2.7.2 prints for the same inputs, result types, and bad inputs."""
import itertools

import numpy as np
import pytest

from minispore import Tensor, nn
from minispore.train import metrics as M

X = np.array([[3, 0, 1], [1, 3, 0], [1, 0, 2]])
Y = np.array([[0, 2, 1], [1, 2, 1], [0, 0, 1]])
IMG = np.zeros((6, 7), np.int32)
IMG[1:4, 2:6] = 1
IMG2 = np.zeros((6, 7), np.int32)
IMG2[2:5, 1:4] = 1
NORMS = {"euclidean": lambda d: np.sqrt((d ** 2).sum(-1)), "chessboard": lambda d:
         np.abs(d).max(-1), "taxicab": lambda d: np.abs(d).sum(-1)}


def run(metric, *inputs):
    metric.clear()
    metric.update(*inputs)
    return metric.eval()


def edge_points(mask):
    """Points of `mask` with a 4-neighbour outside it (or outside the image)."""
    pts = []
    for p in itertools.product(*map(range, mask.shape)):
        if not mask[p]:
            continue
        for axis, step in itertools.product(range(mask.ndim), (-1, 1)):
            q = list(p)
            q[axis] += step
            if not 0 <= q[axis] < mask.shape[axis] or not mask[tuple(q)]:
                pts.append(p)
                break
    return np.array(pts, np.float64)


def nearest(a, b, metric):
    """Distance from each point of a to the nearest point of b."""
    return NORMS[metric](a[:, None, :] - b[None, :, :]).min(1)


@pytest.mark.parametrize("metric", ["euclidean", "chessboard", "taxicab"])
def test_surface_distances_match_brute_force(metric):
    a, b = edge_points(IMG == 1), edge_points(IMG2 == 1)
    ab, ba = nearest(a, b, metric), nearest(b, a, metric)
    hd = run(M.HausdorffDistance(metric, crop=False), IMG, IMG2, 1)
    assert hd == max(ab.max(), ba.max())
    assert run(M.HausdorffDistance(metric, directed=True, crop=False), IMG, IMG2, 1) == ab.max()
    assert run(M.HausdorffDistance(metric, percentile=90.0, crop=False), IMG, IMG2, 1) == \
        pytest.approx(max(np.percentile(ab, 90), np.percentile(ba, 90)), rel=1e-14)
    assert run(M.MeanSurfaceDistance(False, metric), IMG, IMG2, 1) == \
        pytest.approx(ab.mean(), rel=1e-14)
    assert run(M.MeanSurfaceDistance(True, metric), IMG, IMG2, 1) == \
        pytest.approx((ab.mean() + ba.mean()) / 2, rel=1e-14)
    # MindSpore's one-way RootMeanSquareDistance is the mean square: it takes no square root.
    assert run(M.RootMeanSquareDistance(False, metric), IMG, IMG2, 1) == \
        pytest.approx((ab ** 2).mean(), rel=1e-14)
    assert run(M.RootMeanSquareDistance(True, metric), IMG, IMG2, 1) == \
        pytest.approx(np.sqrt(((ab ** 2).mean() + (ba ** 2).mean()) / 2), rel=1e-14)


def test_surface_distances_mindspore_values_and_types():
    """The numbers MindSpore 2.7.2 prints for these inputs."""
    hd = run(M.HausdorffDistance(), Tensor(X), Tensor(Y), 0)
    assert type(hd) is np.float64 and hd == pytest.approx(1.4142135623730951, rel=1e-15)
    cheb = run(M.HausdorffDistance(distance_metric="chessboard"), X, Y, 1)
    assert type(cheb) is np.int32 and cheb == 2                  # scipy's chamfer transform
    assert run(M.HausdorffDistance(percentile=50.0), X, Y, 0) == 1.0
    assert run(M.HausdorffDistance(), X, Y, 2) == pytest.approx(2.23606797749979, rel=1e-15)
    assert run(M.HausdorffDistance(), IMG, IMG2, 1) == pytest.approx(2.23606797749979, rel=1e-15)
    assert run(M.HausdorffDistance(crop=False, percentile=90.0), IMG, IMG2, 1) == \
        pytest.approx(2.023606797749979, rel=1e-15)
    assert run(M.MeanSurfaceDistance(), Tensor(X), Tensor(Y), 0) == \
        pytest.approx(0.8047378541243649, rel=1e-15)
    assert run(M.MeanSurfaceDistance(symmetric=True), X, Y, 0) == \
        pytest.approx(0.7357022603955158, rel=1e-15)
    assert run(M.MeanSurfaceDistance(), IMG, IMG2, 1) == \
        pytest.approx(1.1650281539872887, rel=1e-15)
    assert run(M.RootMeanSquareDistance(), X, Y, 0) == pytest.approx(1.0000000000000002,
                                                                     rel=1e-15)
    assert run(M.RootMeanSquareDistance(symmetric=True), X, Y, 0) == \
        pytest.approx(0.9128709291752769, rel=1e-15)
    assert run(M.RootMeanSquareDistance(distance_metric="taxicab"), X, Y, 0) == \
        pytest.approx(1.6666666666666667, rel=1e-15)
    assert run(M.RootMeanSquareDistance(symmetric=True), IMG, IMG2, 1) == \
        pytest.approx(1.1779218989389746, rel=1e-15)


def test_empty_edges_give_inf():
    # Label 3 is only in y_pred: no true edge to reach; with y_pred all 0, no predicted edge.
    for cls in (M.HausdorffDistance, M.MeanSurfaceDistance, M.RootMeanSquareDistance):
        assert run(cls(), X, Y, 3) == np.inf
        assert run(cls(), np.zeros_like(Y), Y, 2) == np.inf


def test_mean_and_rms_eval_before_any_update_is_inf_as_in_mindspore():
    for cls in (M.MeanSurfaceDistance, M.RootMeanSquareDistance):
        got = cls().eval()
        assert type(got) is float and got == np.inf
        m = cls()
        m.clear()
        with pytest.raises(RuntimeError, match="update"):
            m.eval()
    with pytest.raises(RuntimeError, match="update"):
        M.HausdorffDistance().eval()


def test_bool_masks():
    a = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 0]], bool)
    b = np.array([[0, 0, 0], [0, 1, 1], [0, 1, 1]], bool)
    assert run(M.HausdorffDistance(), a, b, 1) == pytest.approx(1.4142135623730951)
    assert run(M.MeanSurfaceDistance(), a, b, 1) == pytest.approx(0.8535533905932737)
    assert run(M.RootMeanSquareDistance(), a, b, 1) == 1.0


@pytest.mark.parametrize("cls", [M.HausdorffDistance, M.MeanSurfaceDistance,
                                 M.RootMeanSquareDistance])
def test_surface_distance_bad_inputs(cls):
    with pytest.raises(ValueError, match="distance_metric"):
        cls(distance_metric="l1")
    with pytest.raises(TypeError, match="distance_metric"):
        cls(distance_metric=3)
    with pytest.raises(ValueError, match="3 inputs"):
        cls().update(X, Y)
    with pytest.raises(ValueError, match="must be in predicted value"):
        cls().update(X, Y, 9)
    with pytest.raises(ValueError, match="same shape"):
        cls().update(X, Y[:2], 0)
    # MindSpore raises TypeError here only in RootMeanSquareDistance.
    err = TypeError if cls is M.RootMeanSquareDistance else ValueError
    with pytest.raises(err, match="int or float"):
        cls().update(X, Y, "0")


def test_hausdorff_bad_arguments():
    with pytest.raises(TypeError, match="percentile"):
        M.HausdorffDistance(percentile=50)
    with pytest.raises(TypeError, match="directed"):
        M.HausdorffDistance(directed=1)
    with pytest.raises(TypeError, match="symmetric"):
        M.MeanSurfaceDistance(symmetric=None)
    with pytest.raises(ValueError, match=r"\[0, 100\]"):
        run(M.HausdorffDistance(percentile=150.0), X, Y, 0)


class DenseNet(nn.Cell):
    """MindSpore's docstring model: scores = W x + b."""
    W = np.array([[0.1, 0.8, 0.1, 0.1], [1, 1, 1, 1]], np.float32)
    B = np.array([0.3, 0.6], np.float32)

    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 2, weight_init=Tensor(self.W), bias_init=Tensor(self.B))

    def construct(self, x):
        return self.dense(x)


def occlusion_reference(image, label, margin, pad_val, region):
    """score(label) on `image` minus score on each copy occluded around the region's points."""
    w, b = DenseNet.W.astype(np.float64), DenseNet.B.astype(np.float64)
    base = w[label] @ image + b[label]
    out = []
    for p in region:
        occluded = image.astype(np.float64).copy()
        occluded[max(0, p - margin):min(image.size, p + margin)] = pad_val
        out.append(base - (w[label] @ occluded + b[label]))
    return np.array(out)


@pytest.mark.parametrize("kwargs,label,region", [
    ({}, 1, range(4)),
    ({"pad_val": 1.0, "margin": 1, "n_batch": 3}, 0, range(4)),
    ({"b_box": [1, 2]}, 1, range(1, 3)),
    ({"b_box": [-1, -1]}, 1, range(4)),
])
def test_occlusion_matches_linear_reference(kwargs, label, region):
    image = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    got = run(M.OcclusionSensitivity(**kwargs), DenseNet(), image[None], np.array(label))
    assert got.dtype == np.float32
    want = occlusion_reference(image, label, kwargs.get("margin", 2), kwargs.get("pad_val", 0.0),
                               region)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_occlusion_mindspore_values():
    got = run(M.OcclusionSensitivity(), DenseNet(), Tensor(np.array([[0.1, 0.2, 0.3, 0.4]],
                                                                    np.float32)),
              Tensor(np.array(1, np.int32)))
    np.testing.assert_allclose(got, [0.29999995, 0.6, 1.0, 0.9], rtol=1e-5)   # MindSpore 2.7.2


class FlatNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flat = nn.Flatten()
        w = np.arange(36, dtype=np.float32).reshape(3, 12) / 20 - 0.5
        self.dense = nn.Dense(12, 3, weight_init=Tensor(w), bias_init='zeros')

    def construct(self, x):
        return self.dense(self.flat(x))


def test_occlusion_2d_image_and_box():
    """MindSpore 2.7.2's numbers for a (1, 3, 4) image: margin occludes [p - m, p + m)."""
    img = np.arange(12, dtype=np.float32).reshape(1, 3, 4) / 10
    got = run(M.OcclusionSensitivity(margin=1), FlatNet(), img, np.array(2))
    assert got.shape == (3, 4)
    np.testing.assert_allclose(got, [[0.0, 0.075, 0.235, 0.415], [0.36, 0.91, 1.31, 1.75],
                                     [1.24, 2.75, 3.31, 3.91]], atol=2e-6)
    boxed = run(M.OcclusionSensitivity(margin=1, n_batch=4, b_box=[0, 1, 1, -1]), FlatNet(),
                img, np.array(0))
    np.testing.assert_allclose(boxed, [[-0.045, -0.125, -0.185], [-0.29, -0.37, -0.41]],
                               atol=2e-6)
    # margin 0 occludes nothing; a box one row high is squeezed.
    assert not run(M.OcclusionSensitivity(pad_val=-1.0, margin=0), FlatNet(), img,
                   np.array(1)).any()
    np.testing.assert_allclose(run(M.OcclusionSensitivity(n_batch=5, b_box=[0, 0, 1, 3]),
                                   FlatNet(), img, np.array(1)), [0.59, 0.98, 0.86], atol=2e-6)


def test_occlusion_bad_inputs():
    net, image = DenseNet(), np.array([[0.1, 0.2, 0.3, 0.4]], np.float32)
    for kwargs, name in (({"pad_val": 0}, "pad_val"), ({"margin": 2.0}, "margin"),
                         ({"margin": True}, "margin"), ({"n_batch": True}, "n_batch"),
                         ({"b_box": (1, 2)}, "b_box")):
        with pytest.raises(TypeError, match=name):
            M.OcclusionSensitivity(**kwargs)
    for kwargs, match in (({"b_box": [1, 2, 3]}, "twice as long"),
                          ({"b_box": [1, 4]}, "maximum bounding box"),
                          ({"b_box": [3, 1]}, "minimum bounding box"),
                          ({"margin": [1]}, "list 'margin'")):
        with pytest.raises(ValueError, match=match):
            M.OcclusionSensitivity(**kwargs).update(net, image, np.array(1))
    with pytest.raises(RuntimeError, match="must be 1"):
        M.OcclusionSensitivity().update(net, np.ones((2, 4), np.float32), np.array(1))
    with pytest.raises(RuntimeError, match="same as the batches"):
        M.OcclusionSensitivity().update(net, image, np.array([1, 0]))
    with pytest.raises(ValueError, match="0-d class index"):
        M.OcclusionSensitivity().update(net, image, np.array([1]))
    with pytest.raises(TypeError, match="model"):
        M.OcclusionSensitivity().update(lambda t: t, image, np.array(1))
    with pytest.raises(ValueError, match="3 inputs"):
        M.OcclusionSensitivity().update(net, image)
    with pytest.raises(RuntimeError, match="update"):
        M.OcclusionSensitivity().eval()
