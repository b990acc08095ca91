"""PSROIPooling and PSROIPoolingGrad against MindSpore 2.7.2 (recorded below by running both on
its CPU: every output value and each gradient channel's sum) and against a float64 reference
of MindSpore's kernel rules written here independently; the gradient through PSROIPooling is
PSROIPoolingGrad, which equals central differences where MindSpore's rules agree (one roi per
batch row, away from the last row and column)."""
import math

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor
from minispore.ops.operations import PSROIPooling, PSROIPoolingGrad

X = np.random.default_rng(0).standard_normal((2, 2 * 3 * 3, 9, 11)).astype(np.float32)
# Four rois valid both as the forward reads them (flat rows of 5) and as the gradient does
# (rois[b, :, j]): flat positions 0, 1, 10 and 11 are batch indices for the gradient.
MULTI = np.array([[0, 1.0, 7.9, 100.2, 120.6], [1, 0, 0, 170, 140], [1, 0.0, 60.5, 52.0, 61.0],
                  [0, 30.0, 20.0, 10.0, 5.0]], np.float32).reshape(2, 5, 2)
SINGLE = np.array([[[0], [10.3], [7.9], [150.2], [120.6]], [[1], [20.0], [0], [170], [140]]],
                  np.float32)
ROIS = {"multi": MULTI, "single": SINGLE}
SCALE, GROUP, DIM = 1.0 / 16, 3, 2
RECORDED = {'multi': {'dx_nonzero': 96,
           'dx_sums': [1.22474, -0.25017, 1.2449, -0.02006, -1.24875, -0.3139, 0.0541, 0.27279,
                       -0.98219, -0.81324, 0.22801, 0.07996, 0.23551, 0.75952, -1.64879,
                       0.25439, 1.22465, -0.29753, -1.29591, -1.90527, 0.17561, -0.16659,
                       0.06671, 0.3235, -2.78321, -2.83376, -0.27304, -0.32671, 0.24923,
                       -0.28897, 2.71159, -0.22085, -0.05676, 1.22454, 1.37836, 0.16162],
           'out': [-0.433961, -0.101665, 0.061569, 0.028909, 0.283788, -0.000609, 0.261533,
                   0.157418, -0.359598, -0.47191, -0.567606, 0.494891, -0.324347, 0.579211,
                   0.319694, 0.593271, -0.665283, 0.577937, 0.164925, -0.113715, 0.351525,
                   -0.353919, -0.350183, 0.235494, 0.083932, -0.328398, -0.141963, -0.121023,
                   0.229279, -0.2706, 0.287701, 0.034534, 0.325784, 0.486076, 0.392964,
                   0.413388, 0.818523, 0.521928, 0.94977, -2.246132, -0.153238, 0.532572,
                   0.627126, -0.907614, -1.997691, -0.960629, 0.560722, 0.794706, 2.087352,
                   -2.547516, -0.036729, 0.861031, -1.78544, -0.138048, -0.218792, -0.075702,
                   2.310364, -0.263788, 0.158423, 0.721049, 0.782982, 0.152151, -0.634997,
                   1.041402, 0.265943, 0.937358, 0.30389, 0.241943, -0.800767, -1.472654,
                   -0.362626, -0.218874]},
 'single': {'dx_nonzero': 416,
            'dx_sums': [0.34558, 0.82162, 0.33044, -1.30316, 0.90536, 0.44637, -0.53695,
                        0.58112, 0.36457, 0.29413, 0.02842, 0.54671, -0.73645, -0.16291,
                        -0.48212, 0.59885, 0.03972, -0.29246, -0.78191, -0.25719, 0.00814,
                        -0.2756, 1.29406, 1.00672, -2.71116, -1.88901, -0.17477, -0.42219,
                        0.21364, 0.21732, 2.11784, -1.11202, -0.37761, 2.04277, 0.6467,
                        0.66306],
            'out': [-0.203058, -0.179663, 0.096484, -0.030663, 0.60176, -0.280717, -0.021053,
                    0.283284, 0.20779, -0.648808, -0.114862, 0.58492, -0.30882, -0.253349,
                    0.328745, 0.331315, -0.286103, 0.161794, 0.390122, 0.058173, 0.351525,
                    -0.047718, -0.436467, 0.235494, 0.466086, -0.48408, -0.141963, -0.097721,
                    0.400735, -0.2706, 0.119082, -0.108511, 0.325784, 0.185951, 0.466586,
                    0.413388]}}


def _round(v):
    return math.copysign(math.floor(abs(v) + 0.5), v)


def _corners(row, scale):
    x1, y1, x2, y2 = (_round(float(np.float32(v) * np.float32(scale))) for v in row[1:])
    return int(row[0]), y1, x1, max(y2 - y1, 0.1), max(x2 - x1, 0.1)


def reference_forward(x, rois):
    """MindSpore's forward rules in float64: rois as flat rows of 5, bins clipped to H - 1."""
    flat = rois.reshape(-1, 5)
    n_rows, _, height, width = x.shape
    out = np.zeros((len(flat), DIM, GROUP, GROUP))
    for n, row in enumerate(flat):
        b, top, left, h, w = _corners(row, SCALE)
        for c in range(DIM):
            for i in range(GROUP):
                for j in range(GROUP):
                    h0 = min(max(math.floor(i * h / GROUP) + int(top), 0), height - 1)
                    h1 = min(max(math.ceil((i + 1) * h / GROUP) + int(top), 0), height - 1)
                    w0 = min(max(math.floor(j * w / GROUP) + int(left), 0), width - 1)
                    w1 = min(max(math.ceil((j + 1) * w / GROUP) + int(left), 0), width - 1)
                    if h1 > h0 and w1 > w0:
                        out[n, c, i, j] = x[b, (c * GROUP + i) * GROUP + j, h0:h1, w0:w1].mean()
    return out


def reference_grad(dy, rois, size):
    """MindSpore's gradient rules in float64: roi r at rois[r // n, :, r % n], clipped to H."""
    rows = rois.shape[2]
    dx = np.zeros((rois.shape[0], DIM * GROUP * GROUP) + size)
    for r in range(dy.shape[0]):
        b, top, left, h, w = _corners(rois[r // rows, :, r % rows], SCALE)
        for c in range(DIM):
            for i in range(GROUP):
                for j in range(GROUP):
                    h0 = min(max(math.floor(i * h / GROUP + top), 0), size[0])
                    h1 = min(max(math.ceil((i + 1) * h / GROUP + top), 0), size[0])
                    w0 = min(max(math.floor(j * w / GROUP + left), 0), size[1])
                    w1 = min(max(math.ceil((j + 1) * w / GROUP + left), 0), size[1])
                    if h1 > h0 and w1 > w0:
                        dx[b, (c * GROUP + i) * GROUP + j, h0:h1, w0:w1] += \
                            dy[r, c, i, j] / ((h1 - h0) * (w1 - w0))
    return dx


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    return request.param


@pytest.mark.parametrize("case", ["multi", "single"])
def test_forward_and_gradient_equal_mindspore(mode, case):
    rois = ROIS[case]
    pool = ms.jit(PSROIPooling(SCALE, GROUP, DIM)) if mode == ms.GRAPH_MODE else \
        PSROIPooling(SCALE, GROUP, DIM)
    out = pool(Tensor(X), Tensor(rois)).asnumpy()
    np.testing.assert_allclose(out.reshape(-1), RECORDED[case]["out"], atol=2e-6)
    np.testing.assert_allclose(out, reference_forward(X.astype(np.float64), rois), atol=1e-5)
    dy = np.random.default_rng(1).standard_normal(out.shape).astype(np.float32)
    grad = PSROIPoolingGrad((9, 11), SCALE, GROUP, DIM)
    grad = ms.jit(grad) if mode == ms.GRAPH_MODE else grad
    dx = grad(Tensor(dy), Tensor(rois)).asnumpy()
    np.testing.assert_allclose(dx.sum((2, 3)).reshape(-1), RECORDED[case]["dx_sums"],
                               atol=2e-5)
    assert int((dx != 0).sum()) == RECORDED[case]["dx_nonzero"]
    np.testing.assert_allclose(dx, reference_grad(dy.astype(np.float64), rois, (9, 11)),
                               atol=1e-6)


def test_the_gradient_through_the_forward_equals_central_differences():
    """One roi per batch row whose bins stay clear of the last row and column, where
    MindSpore's gradient rules are the forward's derivative. float32, as MindSpore's gradient
    takes no float64; the loss is linear in x, so wide steps leave only rounding."""
    x = np.random.default_rng(2).standard_normal((2, 18, 9, 11)).astype(np.float32)
    rois = np.array([[[0], [16.0], [20.0], [120.0], [100.0]], [[1], [0.0], [0.0], [90.0],
                                                               [60.0]]], np.float32)
    cotangent = np.random.default_rng(3).standard_normal((2, DIM, GROUP, GROUP)).astype(
        np.float32)
    pool = PSROIPooling(SCALE, GROUP, DIM)

    def loss(t):
        return (pool(t, Tensor(rois)) * Tensor(cotangent)).sum()
    grad = ms.grad(loss)(Tensor(x)).asnumpy()
    numeric = np.zeros_like(x)
    for index in zip(*np.nonzero(np.ones_like(x))):
        bumped = [x.copy(), x.copy()]
        bumped[0][index] += 0.5
        bumped[1][index] -= 0.5
        numeric[index] = (float(loss(Tensor(bumped[0])).asnumpy())
                          - float(loss(Tensor(bumped[1])).asnumpy()))
    np.testing.assert_allclose(grad, numeric, atol=2e-5)
    assert np.count_nonzero(grad) > 100


def test_bad_shapes_raise_mindspores_errors_and_bad_batch_indices_are_named():
    pool = PSROIPooling(SCALE, GROUP, DIM)
    with pytest.raises(RuntimeError, match=r"second dimension\(17\) of the input 'features'"):
        pool(Tensor(np.ones((2, 17, 9, 11), np.float32)), Tensor(SINGLE))
    with pytest.raises(RuntimeError, match="batch number of input 'features' and 'rois'"):
        pool(Tensor(np.ones((3, 18, 9, 11), np.float32)), Tensor(SINGLE))
    grad = PSROIPoolingGrad((9, 11), SCALE, GROUP, DIM)
    with pytest.raises(RuntimeError, match=r"input\[0\].shape\[0\]\(3\) should be equal"):
        grad(Tensor(np.ones((3, 2, 3, 3), np.float32)), Tensor(SINGLE))
    wild = SINGLE.copy()
    wild[1, 0, 0] = 7
    with pytest.raises(ValueError, match=r"batch index of roi 1 is 7, out of range \[0, 2\)"):
        pool(Tensor(X), Tensor(wild))
    with pytest.raises(ValueError, match=r"batch index of roi 1 is 7, out of range \[0, 2\)"):
        grad(Tensor(np.ones((2, 2, 3, 3), np.float32)), Tensor(wild))


@pytest.mark.parametrize("input_size, error", [(1.1, TypeError), ((1, 1.1), TypeError),
                                               ([2, 2], TypeError), (-1, ValueError),
                                               ((100, -1), ValueError), ((0, 100), ValueError)])
def test_gradient_attributes_are_checked_as_mindspore_checks_them(input_size, error):
    with pytest.raises(error, match="'input_size'"):
        PSROIPoolingGrad(input_size, SCALE, GROUP, DIM)


def test_the_gradient_takes_float16_and_float32_only():
    with pytest.raises(TypeError, match="the dtype of 'dy' must be one of"):
        PSROIPoolingGrad(100, SCALE, GROUP, DIM)(Tensor(np.ones(1)), Tensor(np.ones(1)))
