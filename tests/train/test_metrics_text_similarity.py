"""BleuScore, CosineSimilarity and auc against hand-computed / numpy float64 references, the
values MindSpore 2.7.2 prints for the same inputs, result types, and bad inputs."""
import math

import numpy as np
import pytest

from minispore import Tensor, nn
from minispore.train import metrics as M

CAND = [['i', 'have', 'a', 'pen', 'on', 'my', 'desk']]
REFS = [[['i', 'have', 'a', 'pen', 'in', 'my', 'desk'],
         ['there', 'is', 'a', 'pen', 'on', 'the', 'desk']]]


def run(metric, *inputs):
    metric.clear()
    metric.update(*inputs)
    return metric.eval()


def test_bleu_matches_the_hand_counted_precisions():
    """Clipped matches per order: 1-grams 7/7, 2-grams 5/6, 3-grams 3/5, 4-grams 1/4; the
    candidate is as long as the closest reference, so the brevity penalty is exp(0)."""
    want = (1.0 * 5 / 6 * 3 / 5 * 1 / 4) ** 0.25
    got = run(M.BleuScore(), CAND, REFS)
    assert type(got) is np.float64 and got == pytest.approx(want, rel=1e-14)
    assert got == 0.5946035575013605                               # MindSpore 2.7.2
    smooth2 = math.sqrt((7 + 1) / (7 + 1) * (5 + 1) / (6 + 1))
    assert run(M.BleuScore(2, True), CAND, REFS) == pytest.approx(smooth2, rel=1e-14)
    assert run(M.BleuScore(2, True), CAND, REFS) == 0.9258200997725514   # MindSpore 2.7.2


def test_bleu_brevity_penalty_and_accumulation():
    # Candidate 3 words, closest reference 2 (|3-5| > |3-2|): c > r, no penalty.
    assert run(M.BleuScore(2), [['a', 'pen', 'on']],
               [[['a', 'pen', 'on', 'the', 'desk'], ['a', 'pen']]]) == 1.0
    short = run(M.BleuScore(1), [['a', 'pen']], [[['a', 'pen', 'on', 'the', 'desk']]])
    assert short == pytest.approx(math.exp(1 - 5 / 2), rel=1e-14)
    m = M.BleuScore(3)
    m.clear()
    m.update(CAND, REFS)
    m.update([['the', 'cat', 'is', 'on', 'the', 'mat']], [[['the', 'cat', 'sat', 'on', 'the',
                                                           'mat']]])
    assert m.eval() == pytest.approx(0.6682170598471151, rel=1e-14)   # MindSpore 2.7.2


def test_bleu_without_a_match_is_a_zero_d_array():
    got = run(M.BleuScore(), [['x', 'y']], [[['a', 'b']]])
    assert isinstance(got, np.ndarray) and got.shape == () and got == 0.0


def test_bleu_bad_arguments():
    for bad, err in ((1.5, TypeError), (True, TypeError), (0, ValueError), (5, ValueError)):
        with pytest.raises(err, match="n_gram"):
            M.BleuScore(n_gram=bad)
    with pytest.raises(TypeError, match="smooth"):
        M.BleuScore(smooth=1)
    with pytest.raises(RuntimeError, match="update"):
        M.BleuScore().eval()
    with pytest.raises(ValueError, match="equal in length"):
        M.BleuScore().update(CAND, REFS * 2)
    with pytest.raises(ValueError, match="2 inputs"):
        M.BleuScore().update(CAND)


DATA = np.array([[1, 3, 4, 7], [2, 4, 2, 5], [3, 1, 5, 8]])


def test_cosine_similarity_matches_numpy():
    unit = DATA / np.sqrt((DATA.astype(np.float64) ** 2).sum(1, keepdims=True))
    want = unit @ unit.T
    np.fill_diagonal(want, 0)
    got = run(M.CosineSimilarity(), DATA)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-14)
    np.testing.assert_allclose(got[0, 1:], [0.9402561526802475, 0.9516245192244814],  # MindSpore
                               rtol=1e-15)
    np.testing.assert_allclose(run(M.CosineSimilarity(reduction='mean'), Tensor(DATA)),
                               want.mean(-1), rtol=1e-14)


def test_cosine_dot_keeps_the_integer_dtype_and_reductions():
    got = run(M.CosineSimilarity('dot', 'sum', False), DATA)
    assert got.dtype == DATA.dtype and got.tolist() == (DATA @ DATA.T).sum(-1).tolist()
    assert got.tolist() == [214, 166, 241]                           # MindSpore 2.7.2
    assert run(M.CosineSimilarity('dot'), [[1, 2], [3, 4]]).tolist() == [[0, 11], [11, 0]]
    f32 = run(M.CosineSimilarity(zero_diagonal=False), Tensor(DATA.astype(np.float32)))
    assert f32.dtype == np.float32 and np.allclose(np.diag(f32), 1, atol=1e-6)


def test_cosine_bad_arguments():
    with pytest.raises(ValueError, match="similarity"):
        M.CosineSimilarity(similarity='x')
    with pytest.raises(TypeError, match="similarity"):
        M.CosineSimilarity(similarity=1)
    with pytest.raises(ValueError, match="reduction"):
        M.CosineSimilarity(reduction='max')
    with pytest.raises(TypeError, match="zero_diagonal"):
        M.CosineSimilarity(zero_diagonal=1)
    with pytest.raises(RuntimeError, match="update"):
        M.CosineSimilarity().eval()


def test_auc_trapezoids():
    x, y = np.array([0.0, 0.25, 0.5, 1.0]), np.array([0.0, 0.5, 0.75, 1.0])
    want = sum((x[i + 1] - x[i]) * (y[i + 1] + y[i]) / 2 for i in range(3))
    got = M.auc(x, y)
    assert type(got) is np.float64 and got == pytest.approx(want, rel=1e-15)
    assert M.auc(x[::-1], y[::-1]) == pytest.approx(want, rel=1e-15)     # falling x
    assert M.auc(np.array([0, 1, 0.5]), np.array([0, 1, 1]), reorder=True) == 0.75  # MindSpore
    assert type(M.auc(np.arange(3, dtype=np.float32), np.arange(3, dtype=np.float32))) \
        is np.float64                                                     # as MindSpore
    assert M.auc(np.array([[0], [1], [2]]), np.array([0, 1, 5])) == 3.5  # (N, 1) x


def test_auc_of_roc_curve():
    roc = M.ROC(pos_label=2)
    roc.update(np.array([[3, 0, 1], [1, 3, 0], [1, 0, 2]]), np.array([[0, 2, 1], [1, 2, 1],
                                                                      [0, 0, 1]]))
    fpr, tpr, _ = roc.eval()
    assert M.auc(fpr, tpr) == pytest.approx(0.5357142857142857, rel=1e-15)  # MindSpore doc


@pytest.mark.parametrize("x,y,err,match", [
    ([0, 1], [0, 1], TypeError, "np.ndarray"),
    (np.array([0, 1, 0.5]), np.array([0, 1, 1]), ValueError, "increasing or decreasing"),
    (np.array([0.0]), np.array([0.0]), ValueError, "greater than 2"),
    (np.array([0, 1]), np.array([0, 1, 1]), ValueError, "inconsistent numbers of samples"),
    (np.ones((2, 2)), np.ones((2, 2)), ValueError, "1-dimensional"),
    (np.array(1.0), np.array(1.0), TypeError, "Singleton"),
])
def test_auc_bad_inputs(x, y, err, match):
    with pytest.raises(err, match=match):
        M.auc(x, y)


def test_exports_and_factory():
    for name in ("BleuScore", "CosineSimilarity", "HausdorffDistance", "MeanSurfaceDistance",
                 "RootMeanSquareDistance", "OcclusionSensitivity", "auc", "get_metrics"):
        assert getattr(nn, name) is getattr(M, name)
    assert isinstance(M.get_metric_fn("bleu_score", 2), M.BleuScore)
    # As in MindSpore, the factory calls auc itself with the arguments given.
    assert M.get_metric_fn("auc", np.array([0.0, 1.0]), np.array([1.0, 1.0])) == 1.0
    d = {"a": M.Accuracy()}
    assert nn.get_metrics(d) is d
    with pytest.raises(TypeError, match="must be None, dict or set"):
        nn.get_metrics(["acc"])
    with pytest.raises(TypeError, match="key in 'metrics' must be string"):
        nn.get_metrics({1: M.Accuracy()})
