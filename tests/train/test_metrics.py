"""Metrics against hand-computed values: Accuracy, Loss, Precision, Recall, F1, Top-k, MAE, MSE,
Dice, Perplexity."""
import numpy as np
import pytest

from minispore import Tensor
from minispore.train import metrics as M

LOGITS = np.array([[0.1, 0.7, 0.2],
                   [0.8, 0.1, 0.1],
                   [0.3, 0.3, 0.4],
                   [0.2, 0.5, 0.3],
                   [0.6, 0.3, 0.1]], np.float32)
LABELS = np.array([1, 0, 1, 2, 0], np.int32)      # predictions: 1, 0, 2, 1, 0 -> 3 correct


def test_accuracy_classification_indices_tensor_and_one_hot():
    acc = M.Accuracy()
    acc.update(Tensor(LOGITS[:2]), Tensor(LABELS[:2]))
    acc.update(LOGITS[2:], np.eye(3, dtype=np.float32)[LABELS[2:]])   # one-hot labels
    result = acc.eval()
    assert type(result) is float and result == pytest.approx(3 / 5)
    acc.clear()
    with pytest.raises(RuntimeError, match="'Accuracy' can not be calculated.*samples is 0"):
        acc.eval()


def test_accuracy_multilabel():
    y_pred = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0]])
    y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    assert M.Accuracy("multilabel")(y_pred, y) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="eval_type"):
        M.Accuracy("regression")


def test_accuracy_bad_inputs():
    with pytest.raises(ValueError, match="needs 2 inputs"):
        M.Accuracy().update(LOGITS)
    with pytest.raises(ValueError, match="5 samples but y has 4"):
        M.Accuracy().update(LOGITS, LABELS[:4])
    with pytest.raises(TypeError, match="Tensor, list or numpy"):
        M.Accuracy().update(LOGITS, "labels")


def test_loss_metric_averages_batch_means():
    loss = M.Loss()
    loss.update(Tensor(np.float32(1.0)))
    loss.update(np.array([2.0, 4.0]))
    assert loss.eval() == pytest.approx((1.0 + 3.0) / 2)
    with pytest.raises(ValueError, match="scalar or 1-D"):
        loss.update(np.ones((2, 2)))
    loss.clear()
    with pytest.raises(RuntimeError, match="'Loss'"):
        loss.eval()


def test_precision_recall_f1_by_hand():
    # pred 1,0,2,1,0 vs true 1,0,1,2,0.  class0: tp 2, pred 2, true 2; class1: tp 1, pred 2,
    # true 2; class2: tp 0, pred 1, true 1.
    p = M.Precision()
    p.update(LOGITS, LABELS)
    np.testing.assert_allclose(p.eval(), [1.0, 0.5, 0.0])
    assert p.eval(average=True) == pytest.approx(0.5)
    r = M.Recall()
    r.update(Tensor(LOGITS), Tensor(LABELS))
    np.testing.assert_allclose(r.eval(), [1.0, 0.5, 0.0])
    f1 = M.F1()
    f1.update(LOGITS, LABELS)
    np.testing.assert_allclose(f1.eval(), [1.0, 0.5, 0.0])
    fb = M.Fbeta(2.0)
    fb.update(LOGITS, LABELS)
    np.testing.assert_allclose(fb.eval(), [1.0, 5 * 1 / (4 * 2 + 2), 0.0])
    for metric in (M.Precision(), M.Recall(), M.F1()):
        with pytest.raises(RuntimeError, match="samples is 0"):
            metric.eval()
    with pytest.raises(ValueError, match="beta"):
        M.Fbeta(0)


def test_precision_multilabel():
    y_pred = np.array([[1, 0], [1, 1], [0, 1]])
    y = np.array([[1, 0], [0, 1], [1, 1]])
    p = M.Precision("multilabel")
    p.update(y_pred, y)
    np.testing.assert_allclose(p.eval(), [1 / 2, 2 / 2])


def test_top_k_categorical_accuracy():
    top2 = M.TopKCategoricalAccuracy(2)
    top2.update(LOGITS, LABELS)
    # top-2 sets: {1,2}, {0,1|2}, {2,0|1}, {1,2}, {0,1} -> labels 1,0,?,2,0
    ref = np.mean([LABELS[i] in np.argsort(-LOGITS[i], kind="stable")[:2] for i in range(5)])
    assert top2.eval() == pytest.approx(ref)
    assert M.Top1CategoricalAccuracy()(LOGITS, LABELS) == pytest.approx(3 / 5)
    with pytest.raises(ValueError, match="'k' must be >= 1"):
        M.TopKCategoricalAccuracy(0)
    with pytest.raises(TypeError, match="'k' must be an int"):
        M.TopKCategoricalAccuracy(1.5)
    with pytest.raises(RuntimeError, match="samples is 0"):
        M.Top5CategoricalAccuracy().eval()


def test_mae_mse_divide_by_samples():
    y_pred = np.array([[1.0, 2.0], [3.0, 5.0]], np.float32)
    y = np.array([[1.5, 2.0], [2.0, 7.0]], np.float32)
    assert M.MAE()(Tensor(y_pred), Tensor(y)) == pytest.approx((0.5 + 0 + 1 + 2) / 2)
    assert M.MSE()(y_pred, y) == pytest.approx((0.25 + 0 + 1 + 4) / 2)
    with pytest.raises(RuntimeError, match="'MSE'"):
        M.MSE().eval()


def test_set_indexes_selects_inputs():
    acc = M.Accuracy().set_indexes([2, 0])
    acc.update(LABELS, "unused", LOGITS)
    assert acc.eval() == pytest.approx(3 / 5)
    with pytest.raises(ValueError, match="indexes"):
        M.Accuracy().set_indexes([-1])


def test_get_metric_fn_and_names():
    """The factory holds MindSpore 2.7.2's names (its ms.nn.names() output)."""
    assert isinstance(M.get_metric_fn("accuracy"), M.Accuracy)
    assert M.get_metric_fn("topk", 3).k == 3
    assert M.names() == [
        'F1', 'acc', 'accuracy', 'auc', 'bleu_score', 'confusion_matrix',
        'confusion_matrix_metric', 'cosine_similarity', 'dice', 'hausdorff_distance', 'loss',
        'mae', 'mean_surface_distance', 'mse', 'occlusion_sensitivity', 'perplexity',
        'precision', 'recall', 'roc', 'root_mean_square_distance', 'top_1_accuracy',
        'top_5_accuracy', 'topk']
    with pytest.raises(KeyError, match="unsupported metric"):
        M.get_metric_fn("bleu-ish")
    resolved = M.get_metrics({"accuracy", "loss"})
    assert set(resolved) == {"accuracy", "loss"} and isinstance(resolved["loss"], M.Loss)
    with pytest.raises(TypeError, match="metrics"):
        M.get_metrics(["accuracy"])


def test_dice_sums_each_update_coefficient_over_the_samples():
    """MindSpore's Dice: each update adds 2·(p·y) / (p·p + y·y + smooth) of its flattened batch;
    eval divides the sum by the samples seen."""
    from minispore.nn import Dice
    rng = np.random.default_rng(0)
    batches = [(rng.random((2, 5)), (rng.random((2, 5)) > 0.5).astype(np.float64))
               for _ in range(2)]
    m = Dice(smooth=1e-5)
    m.clear()
    for p, y in batches:
        m.update(Tensor(p.astype(np.float32)), Tensor(y.astype(np.float32)))
    p32 = [(p.astype(np.float32).astype(np.float64), y) for p, y in batches]
    want = sum(2 * (p.ravel() @ y.ravel()) / (p.ravel() @ p.ravel() + y.ravel() @ y.ravel()
                                              + 1e-5) for p, y in p32) / 4
    assert m.eval() == pytest.approx(want, rel=1e-12)
    with pytest.raises(ValueError, match="same shape"):
        m.update(Tensor(np.ones((2, 5), np.float32)), Tensor(np.ones((2, 4), np.float32)))


def test_perplexity_is_exp_of_the_mean_negative_log_probability_without_ignored_labels():
    from minispore.nn import Perplexity
    probs = np.array([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]])
    labels = np.array([1, 0, 1])
    m = Perplexity()
    m.update(Tensor(probs.astype(np.float32)), Tensor(labels.astype(np.int32)))
    want = np.exp(-np.mean(np.log(probs.astype(np.float32).astype(np.float64)[[0, 1, 2],
                                                                                  labels])))
    assert m.eval() == pytest.approx(want, rel=1e-7)
    m = Perplexity(ignore_label=0)
    m.update(Tensor(probs.astype(np.float32)), Tensor(labels.astype(np.int32)))
    assert m.eval() == pytest.approx(np.exp(-np.mean(np.log([0.8, 0.5]))), rel=1e-6)
    with pytest.raises(TypeError, match="ignore_label"):
        Perplexity(ignore_label=1.5)
