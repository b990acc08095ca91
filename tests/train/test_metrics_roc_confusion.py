"""ROC, ConfusionMatrix and ConfusionMatrixMetric against brute-force float64 references (counts
by loops over thresholds, samples and channels), result types as MindSpore returns them, and
bad inputs."""
import math

import numpy as np
import pytest

from minispore import Tensor, nn
from minispore.train import metrics as M


def roc_reference(preds, y, pos):
    """(fpr, tpr, thresholds): a point per distinct score (highest first) after (0, 0)."""
    scores = sorted(set(preds.tolist()), reverse=True)
    n_pos = sum(1 for t in y if t == pos)
    n_neg = len(y) - n_pos
    fpr, tpr = [0.0], [0.0]
    for s in scores:
        hit = [p >= s for p in preds]
        tpr.append(sum(h and t == pos for h, t in zip(hit, y)) / n_pos)
        fpr.append(sum(h and t != pos for h, t in zip(hit, y)) / n_neg)
    return np.array(fpr), np.array(tpr), np.array([scores[0] + 1] + scores)


def check_curve(got, want):
    for g, w in zip(got, want):
        assert isinstance(g, np.ndarray)
        np.testing.assert_allclose(g, w, rtol=1e-12)


@pytest.mark.parametrize("preds,y,pos", [
    ([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], None),
    ([0.5, 0.5, 0.2, 0.9, 0.2, 0.7], [1, 0, 0, 1, 1, 0], None),     # tied scores
    ([3, 1, 4, 2], [0, 1, 2, 3], 2),
])
def test_roc_binary(preds, y, pos):
    roc = M.ROC(pos_label=pos)
    roc.clear()
    roc.update(Tensor(np.array(preds)), Tensor(np.array(y)))
    fpr, tpr, thr = roc.eval()
    check_curve((fpr, tpr, thr), roc_reference(np.array(preds), y, 1 if pos is None else pos))
    assert fpr.dtype == tpr.dtype == np.float64 and thr.dtype == np.array(preds).dtype


def test_roc_int_inputs_keep_their_dtype_in_thresholds():
    """The recorded conformance case: int32 scores and labels, 2-D, flattened."""
    xi = np.array([[1, 4, 2], [3, 0, 5]], np.int32)
    yi = np.array([[2, 1, 3], [1, 2, 2]], np.int32)
    fpr, tpr, thr = nn.ROC()(Tensor(xi), Tensor(yi))
    assert thr.dtype == np.int32
    check_curve((fpr, tpr, thr), roc_reference(xi.ravel(), yi.ravel().tolist(), 1))


def test_roc_multi_class_square_scores():
    """One curve per class c (class c positive); with as many samples as classes MindSpore's
    reshape of the scores is the identity, so column c holds class c's scores."""
    scores = np.array([[0.28, 0.55, 0.15, 0.05], [0.10, 0.20, 0.05, 0.05],
                       [0.20, 0.05, 0.15, 0.05], [0.05, 0.05, 0.05, 0.75]])
    y = np.array([0, 1, 2, 3])
    fpr, tpr, thr = M.ROC(class_num=4)(Tensor(scores), Tensor(y))
    assert isinstance(fpr, list) and len(fpr) == len(tpr) == len(thr) == 4
    for c in range(4):
        check_curve((fpr[c], tpr[c], thr[c]), roc_reference(scores[:, c], y.tolist(), c))


def test_roc_multi_class_follows_mindsporess_score_layout():
    """(N, C) scores with N != C: MindSpore reads them as (C, N) row-major; values recorded
    from MindSpore 2.7.2."""
    scores = np.array([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3], [0.2, 0.2, 0.6], [0.7, 0.1, 0.2],
                       [0.3, 0.3, 0.4]])
    fpr, tpr, thr = M.ROC(class_num=3)(Tensor(scores), Tensor(np.array([1, 0, 2, 0, 2])))
    check_curve((fpr[2], tpr[2], thr[2]), ([0.0, 0.5, 1.0], [0.0, 1.0, 1.0], [1.3, 0.3, 0.2]))
    check_curve((fpr[1], tpr[1], thr[1]), ([0.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.6, 0.6, 0.2]))


def test_roc_errors():
    with pytest.raises(RuntimeError, match="call the 'update' method"):
        M.ROC().eval()
    with pytest.raises(TypeError, match="'class_num' should be 'int'"):
        M.ROC(class_num=1.0)
    with pytest.raises(ValueError, match="'class_num' must equal the number of classes"):
        M.ROC(class_num=3)(Tensor(np.ones((4, 4))), Tensor(np.arange(4)))
    with pytest.raises(ValueError, match="'pos_label' must be None"):
        M.ROC(class_num=4, pos_label=1)(Tensor(np.ones((4, 4))), Tensor(np.arange(4)))
    with pytest.raises(ValueError, match="no negative samples"):
        M.ROC()(Tensor(np.array([0.1, 0.4])), Tensor(np.array([1, 1])))
    with pytest.raises(ValueError, match="no positive samples"):
        M.ROC()(Tensor(np.array([0.1, 0.4])), Tensor(np.array([0, 0])))
    with pytest.raises(ValueError, match="needs 2 inputs"):
        M.ROC().update(Tensor(np.ones(2)))
    with pytest.raises(ValueError, match="must have same dimensions"):
        M.ROC().update(Tensor(np.ones((2, 2, 2))), Tensor(np.ones(2)))


def test_confusion_matrix_counts_and_normalisations():
    y_pred = np.array([[0.2, 0.8, 0.0], [0.9, 0.1, 0.0], [0.3, 0.7, 0.0], [0.1, 0.2, 0.7]])
    y = np.array([1, 1, 0, 2])
    cm = M.ConfusionMatrix(3)
    cm.update(Tensor(y_pred[:2]), Tensor(y[:2]))
    cm.update(Tensor(y_pred[2:]), Tensor(y[2:]))     # counts add up over updates
    want = np.zeros((3, 3))
    for t, p in zip(y, y_pred.argmax(1)):
        want[t, p] += 1
    got = cm.eval()
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, want)
    for norm, total in (("target", want.sum(1, keepdims=True)),
                        ("prediction", want.sum(0, keepdims=True)), ("all", want.sum())):
        cm = M.ConfusionMatrix(3, normalize=norm)
        cm.update(Tensor(y_pred), Tensor(y))
        with np.errstate(invalid="ignore"):
            np.testing.assert_allclose(cm.eval(), np.nan_to_num(want / total))


def test_confusion_matrix_binarises_float_predictions_at_threshold():
    cm = M.ConfusionMatrix(2, threshold=0.7)
    cm.update(Tensor(np.array([0.2, 0.8, 0.6])), Tensor(np.array([0, 1, 0])))
    np.testing.assert_array_equal(cm.eval(), [[2.0, 0.0], [0.0, 1.0]])


def test_confusion_matrix_errors():
    with pytest.raises(ValueError, match="'normalize' must be in"):
        M.ConfusionMatrix(2, normalize="x")
    with pytest.raises(TypeError, match="'threshold' should be 'float'"):
        M.ConfusionMatrix(2, threshold=1)
    with pytest.raises(TypeError, match="'num_classes' should be 'int'"):
        M.ConfusionMatrix(2.0)
    with pytest.raises(RuntimeError, match="call the 'update' method"):
        M.ConfusionMatrix(2).eval()


RNG = np.random.default_rng(0)
A = (RNG.random((3, 2, 4)) > 0.5).astype(np.float32)
B = (RNG.random((3, 2, 4)) > 0.5).astype(np.float32)


def counts_reference(y_pred, y):
    """tp, fp, tn, fn per (sample, channel), by loops."""
    out = np.zeros(y.shape[:2] + (4,))
    for b in range(y.shape[0]):
        for c in range(y.shape[1]):
            for p, t in zip(y_pred[b, c].ravel(), y[b, c].ravel()):
                out[b, c, [0 if p and t else 1 if p else 3 if t else 2]] += 1
    return out


def metric_reference(name, tp, fp, tn, fn):
    p, n = tp + fn, fp + tn
    tpr, tnr = (tp / p if p else math.nan), (tn / n if n else math.nan)
    ppv = tp / (tp + fp) if tp + fp else math.nan
    npv = tn / (tn + fn) if tn + fn else math.nan
    num, den = {
        "sensitivity": (tp, p), "specificity": (tn, n), "precision": (tp, tp + fp),
        "accuracy": (tp + tn, p + n), "f1_score": (2 * tp, 2 * tp + fn + fp),
        "mcc": (tp * tn - fp * fn, math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))),
        "balanced_accuracy": (tpr + tnr, 2.0), "markedness": (ppv + npv - 1, 1.0),
        "prevalence_threshold": (math.sqrt(tpr * (1 - tnr)) + tnr - 1, tpr + tnr - 1),
    }[name]
    return num / den if den else math.nan


@pytest.mark.parametrize("name", ["sensitivity", "specificity", "precision", "accuracy",
                                  "f1_score", "mcc", "balanced_accuracy", "markedness",
                                  "prevalence_threshold"])
def test_confusion_matrix_metric_of_summed_counts(name):
    m = M.ConfusionMatrixMetric(metric_name=name.replace("_", " "))
    m.clear()
    m.update(Tensor(A), Tensor(B))
    m.update(Tensor(B), Tensor(A))
    totals = counts_reference(A, B).sum((0, 1)) + counts_reference(B, A).sum((0, 1))
    got = m.eval()
    assert isinstance(got, np.ndarray) and got.dtype == np.float64 and got.shape == (1,)
    np.testing.assert_allclose(got, [metric_reference(name, *totals)], rtol=1e-12)


@pytest.mark.parametrize("decrease", ["mean", "sum"])
@pytest.mark.parametrize("skip_channel", [True, False])
def test_confusion_matrix_metric_per_sample(decrease, skip_channel):
    m = M.ConfusionMatrixMetric(skip_channel=skip_channel, metric_name="f1",
                                calculation_method=True, decrease=decrease)
    total, kept = 0.0, 0
    for a, b in ((A, B), (B, A)):
        m.update(Tensor(a), Tensor(b))
        counts = counts_reference(a, b)[:, (0 if skip_channel else 1):]
        scores = np.array([[metric_reference("f1_score", *c) for c in row] for row in counts])
        ok = ~np.isnan(scores)
        if decrease == "sum":
            total += np.where(ok, scores, 0).sum() * ok.sum()
            kept += ok.sum()
        else:
            per_sample = [s[o].mean() for s, o in zip(scores, ok) if o.any()]
            total += np.mean(per_sample) * len(per_sample)
            kept += len(per_sample)
    got = m.eval()
    assert isinstance(got, float)
    assert got == pytest.approx(total / kept, rel=1e-12)


def test_confusion_matrix_metric_recorded_case():
    """nn_metric/ConfusionMatrixMetric of the conformance corpus (MindSpore: [1/11])."""
    xi = np.array([[1, 4, 2], [3, 0, 5]], np.int32)
    yi = np.array([[2, 1, 3], [1, 2, 2]], np.int32)
    m = nn.ConfusionMatrixMetric()
    m.clear()
    m.update(Tensor(xi), Tensor(yi))
    np.testing.assert_allclose(m.eval(), [1 / 11])


def test_confusion_matrix_metric_errors():
    with pytest.raises(TypeError, match="'skip_channel' should be 'bool'"):
        M.ConfusionMatrixMetric(skip_channel=1)
    with pytest.raises(ValueError, match="'decrease' must be str and must be in"):
        M.ConfusionMatrixMetric(decrease="avg")
    with pytest.raises(NotImplementedError, match="metric is not implemented"):
        M.ConfusionMatrixMetric(metric_name="xyz")(Tensor(A), Tensor(B))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        M.ConfusionMatrixMetric()(Tensor(np.array([1, 0])), Tensor(np.array([1, 0])))
    with pytest.raises(ValueError, match="must be a binarized ndarray"):
        M.ConfusionMatrixMetric()(Tensor(np.array([[1, 0]])), Tensor(np.array([[0.5, 0]])))
    with pytest.raises(ValueError, match="'y_shape' should be"):
        M.ConfusionMatrixMetric()(Tensor(np.array([[1, 0]])), Tensor(np.array([[1, 0, 1]])))
    with pytest.raises(ValueError, match="leaves shape"):
        M.ConfusionMatrixMetric(calculation_method=True, decrease="none")(Tensor(A), Tensor(B))
    with pytest.raises(ValueError, match="needs y_pred of shape"):
        M.ConfusionMatrixMetric(calculation_method=True)(Tensor(A[:, :, 0]), Tensor(B[:, :, 0]))
    with pytest.raises(RuntimeError, match="number of samples is 0"):
        M.ConfusionMatrixMetric(calculation_method=True).eval()


def test_get_metric_fn_knows_the_new_names():
    assert isinstance(M.get_metric_fn("roc"), M.ROC)
    assert isinstance(M.get_metric_fn("confusion_matrix", 2), M.ConfusionMatrix)
    assert isinstance(M.get_metric_fn("confusion_matrix_metric"), M.ConfusionMatrixMetric)
