"""SoftMarginLoss, MultilabelMarginLoss, TripletMarginLoss, CTCLoss and SampledSoftmaxLoss (cells
and functional forms) against float64 numpy references, MindSpore 2.7.2's CPU values (literals
printed by tests/nn/oracle_losses_more.py, quoted in test_ctc_loss_oracle's docstring) and
central finite differences. MindSpore's CPU build has no kernel for the three margin losses, so
those are checked against its documented examples and numpy only."""
import itertools

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from tests.ops.harness import check_forward, check_grad, rand


def _soft_margin_ref(x, y):
    return np.log1p(np.exp(-y * x))


def test_soft_margin_loss():
    x = rand(3, 4, seed=0)
    y = np.where(rand(3, 4, seed=1) > 0, 1.0, -1.0).astype(np.float32)
    check_forward(lambda a, b: ops.soft_margin_loss(a, b, "none"), _soft_margin_ref, [x, y])
    check_forward(lambda a, b: nn.SoftMarginLoss("sum")(a, b),
                  lambda a, b: _soft_margin_ref(a, b).sum(), [x, y])
    check_grad(lambda a: ops.soft_margin_loss(a, Tensor(y.astype(np.float64)), "none"), [x])
    # MindSpore's documented example
    doc = ops.soft_margin_loss(Tensor(np.array([[0.3, 0.7], [0.5, 0.5]], np.float32)),
                               Tensor(np.array([[-1, 1], [1, -1]], np.float32)))
    np.testing.assert_allclose(doc.asnumpy(), 0.6764238, rtol=1e-6)
    # softplus form: no overflow where exp(-y x) would
    big = ops.soft_margin_loss(Tensor(np.array([-200.0], np.float32)),
                               Tensor(np.array([1.0], np.float32)), "none")
    np.testing.assert_allclose(big.asnumpy(), [200.0])
    with pytest.raises(ValueError, match="soft_margin_loss.*shape"):
        nn.SoftMarginLoss()(Tensor(x), Tensor(y[:, :2]))
    with pytest.raises(TypeError, match="soft_margin_loss"):
        ops.soft_margin_loss(Tensor(x.astype(np.int32)), Tensor(y))
    with pytest.raises(ValueError, match="SoftMarginLoss"):
        nn.SoftMarginLoss("batch")


def _multilabel_ref(x, t):
    out = []
    for xi, ti in zip(x.reshape(-1, x.shape[-1]), t.reshape(-1, t.shape[-1])):
        targets = list(itertools.takewhile(lambda v: v >= 0, ti))
        out.append(sum(max(0.0, 1 - (xi[j] - xi[i])) for j in targets
                       for i in range(len(xi)) if i not in targets) / len(xi))
    return np.array(out)


def test_multilabel_margin_loss():
    x = rand(3, 5, seed=2)
    t = np.array([[3, 0, -1, 1, 2], [4, 4, 1, -1, -1], [-1, 2, 0, 0, 0]], np.int32)
    check_forward(lambda a, b: ops.multilabel_margin_loss(a, b, "none"), _multilabel_ref, [x, t])
    check_forward(lambda a, b: nn.MultilabelMarginLoss()(a, b),
                  lambda a, b: _multilabel_ref(a, b).mean(), [x, t])
    check_forward(lambda a, b: ops.multilabel_margin_loss(a, b, "none"),
                  lambda a, b: _multilabel_ref(a, b)[0], [x[0], t[0]])     # 1-D: a scalar
    check_grad(lambda a: ops.multilabel_margin_loss(a, Tensor(t), "none"), [x])
    doc = ops.multilabel_margin_loss(
        Tensor(np.array([[0.1, 0.2, 0.4, 0.8], [0.2, 0.3, 0.5, 0.7]], np.float32)),
        Tensor(np.array([[1, 2, 0, 3], [2, 3, -1, 1]], np.int32)))
    np.testing.assert_allclose(doc.asnumpy(), 0.325, rtol=1e-6)
    with pytest.raises(TypeError, match="MultilabelMarginLoss.*Int32"):
        nn.MultilabelMarginLoss()(Tensor(x), Tensor(t.astype(np.int64)))
    with pytest.raises(ValueError, match="MultilabelMarginLoss.*same"):
        ops.multilabel_margin_loss(Tensor(x), Tensor(t[:, :4]))
    with pytest.raises(ValueError, match="MultilabelMarginLoss.*rank"):
        ops.multilabel_margin_loss(Tensor(x[None]), Tensor(t[None]))
    with pytest.raises(ValueError, match="MultilabelMarginLoss.*reduction"):
        ops.multilabel_margin_loss(Tensor(x), Tensor(t), "batch")


def _distance(a, b, p, eps):
    return (np.abs(a - b + eps) ** p).sum(1) ** (1.0 / p)


def _triplet_ref(a, pos, neg, margin=1.0, p=2, eps=1e-6, swap=False):
    a, pos, neg = np.broadcast_arrays(a, pos, neg)
    d_neg = _distance(a, neg, p, eps)
    if swap:
        d_neg = np.minimum(d_neg, _distance(pos, neg, p, eps))
    return np.maximum(_distance(a, pos, p, eps) - d_neg + margin, 0.0)


def test_triplet_margin_loss():
    a, pos, neg = rand(4, 3, 2, seed=3), rand(4, 3, 2, seed=4), rand(1, 3, 2, seed=5)
    for p, swap in ((2, False), (1, True), (3, True)):
        check_forward(lambda x, y, z: ops.triplet_margin_loss(x, y, z, 0.5, p, 1e-6, swap,
                                                              "none"),
                      lambda x, y, z: _triplet_ref(x, y, z, 0.5, p, 1e-6, swap), [a, pos, neg])
        check_grad(lambda x, y, z: ops.triplet_margin_loss(x, y, z, 0.5, p, 1e-6, swap, "none"),
                   [a, pos, neg])
    # the cell's margin: a non-default __init__ margin wins over construct's
    check_forward(lambda x, y, z: nn.TripletMarginLoss(reduction="sum")(x, y, z, 2.0),
                  lambda x, y, z: _triplet_ref(x, y, z, 2.0).sum(), [a, pos, neg])
    check_forward(lambda x, y, z: nn.TripletMarginLoss(margin=0.3)(x, y, z, 2.0),
                  lambda x, y, z: _triplet_ref(x, y, z, 0.3).mean(), [a, pos, neg])
    zero = ops.triplet_margin_loss(Tensor(a), Tensor(pos), Tensor(neg), p=0, reduction="none")
    np.testing.assert_allclose(zero.asnumpy(), np.ones((4, 2)))      # d = D - D + margin
    doc = ops.triplet_margin_loss(Tensor(np.array([[0.3, 0.7], [0.5, 0.5]], np.float32)),
                                  Tensor(np.array([[0.4, 0.6], [0.4, 0.6]], np.float32)),
                                  Tensor(np.array([[0.2, 0.9], [0.3, 0.7]], np.float32)))
    np.testing.assert_allclose(doc.asnumpy(), 0.8881968, rtol=1e-6)
    one_d = Tensor(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="TripletMarginLoss.*less than 1"):
        nn.TripletMarginLoss()(one_d, one_d, one_d)
    with pytest.raises(ValueError, match="TripletMarginLoss.*broadcast"):
        ops.triplet_margin_loss(Tensor(a), Tensor(pos[:2]), Tensor(neg))
    with pytest.raises(TypeError, match="TripletMarginLoss.*same"):
        ops.triplet_margin_loss(Tensor(a), Tensor(pos.astype(np.float64)), Tensor(neg))
    with pytest.raises(TypeError, match="TripletMarginLoss.*'p'"):
        ops.triplet_margin_loss(Tensor(a), Tensor(pos), Tensor(neg), p=1.5)
    with pytest.raises(TypeError, match="TripletMarginLoss.*'swap'"):
        ops.triplet_margin_loss(Tensor(a), Tensor(pos), Tensor(neg), swap=1)


# -- CTC -----------------------------------------------------------------------------------------
_PROBS = np.array([[[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]], [[0.3, 0.3, 0.4], [0.1, 0.7, 0.2]],
                   [[0.5, 0.25, 0.25], [0.4, 0.4, 0.2]], [[0.1, 0.6, 0.3], [0.3, 0.3, 0.4]]])
_TARGETS = np.array([[1, 1], [2, 0]], np.int32)
_IL, _TL = np.array([4, 3], np.int32), np.array([2, 1], np.int32)


def _ctc_ref(log_probs, targets, il, tl, blank=0):
    """-log of the summed probability of every path over C^T that collapses to the target
    (repeats merged, then blanks dropped): brute force, so independent of the recursion."""
    out = []
    for n in range(log_probs.shape[1]):
        want = list(targets[n, :tl[n]])
        total = 0.0
        for path in itertools.product(range(log_probs.shape[2]), repeat=int(il[n])):
            merged = [c for i, c in enumerate(path) if i == 0 or c != path[i - 1]]
            if [c for c in merged if c != blank] == want:
                total += np.exp(sum(log_probs[t, n, c] for t, c in enumerate(path)))
        out.append(-np.log(total))
    return np.array(out)


def _ctc(lp, reduction="none", **kw):
    return ops.ctc_loss(lp, Tensor(_TARGETS), Tensor(_IL), Tensor(_TL), reduction=reduction,
                        **kw)


def test_ctc_loss_against_brute_force():
    lp = np.log(_PROBS).astype(np.float32)
    check_forward(lambda a: _ctc(a)[0], lambda a: _ctc_ref(a, _TARGETS, _IL, _TL), [lp])
    no_twos = np.array([[1, 1], [0, 1]], np.int32)      # blank 2 is no label
    check_forward(lambda a: ops.ctc_loss(a, Tensor(no_twos), (4, 3), (2, 2), 2, "none")[0],
                  lambda a: _ctc_ref(a, no_twos, _IL, (2, 2), blank=2), [lp])
    check_forward(lambda a: nn.CTCLoss(reduction="mean")(a, Tensor(_TARGETS), Tensor(_IL),
                                                          Tensor(_TL)),
                  lambda a: (_ctc_ref(a, _TARGETS, _IL, _TL) / _TL).mean(), [lp])
    # unbatched (T, C) log_probs with 1-D targets
    check_forward(lambda a: nn.CTCLoss(reduction="none")(a, Tensor(_TARGETS[0]),
                                                          Tensor(_IL[:1]), Tensor(_TL[:1])),
                  lambda a: _ctc_ref(a[:, None], _TARGETS[:1], _IL, _TL)[0], [lp[:, 0]])


def test_ctc_loss_gradient_through_log_softmax():
    """MindSpore's CTC gradient is exp(lp) - occupancy, the derivative with respect to logits
    feeding a log_softmax; through one it equals central differences."""
    logits = rand(4, 2, 3, seed=6)
    check_grad(lambda z: _ctc(ops.log_softmax(z, -1))[0], [logits], atol=1e-6)
    # ('mean' divides in float32, as MindSpore does, too coarse for differences at 1e-6)
    check_grad(lambda z: _ctc(ops.log_softmax(z, -1), "sum")[0], [logits], atol=1e-6)


def test_ctc_loss_oracle():
    """MindSpore 2.7.2 CPU, printed by oracle_losses_more.py (ops.ctc_loss on log(_PROBS) in
    float32, _TARGETS, input_lengths (4, 3), target_lengths (2, 1))."""
    lp = Tensor(np.log(_PROBS).astype(np.float32))
    np.testing.assert_allclose(_ctc(lp)[0].asnumpy(), [2.0080514, 2.0249534], rtol=1e-6)
    np.testing.assert_allclose(_ctc(lp, "sum")[0].asnumpy(), 4.0330048, rtol=1e-6)
    np.testing.assert_allclose(_ctc(lp, "mean")[0].asnumpy(), 1.5144895, rtol=1e-6)
    ninf = -np.inf
    alpha = [[[-1.609438, -0.6931472, ninf, ninf, ninf],
              [-2.8134108, -1.5606477, -1.89712, ninf, ninf],
              [-3.506558, -2.6956277, -1.7147985, -3.2834144, ninf],
              [-5.809143, -2.8387284, -3.6989298, -2.036382, -5.5859995]],
             [[-0.5108256, -1.2039728, ninf, ninf, ninf],
              [-2.8134108, -1.7147985, -3.506558, ninf, ninf],
              [-3.7297015, -3.0365543, -2.4769385, ninf, ninf],
              [ninf, ninf, ninf, ninf, ninf]]]
    np.testing.assert_allclose(_ctc(lp)[1].asnumpy(), alpha, rtol=1e-6)
    grad = [[[0.0659218, -0.36592156, 0.29999998], [-0.0363636, 0.099999994, -0.06363636]],
            [[-0.23072615, -0.1692737, 0.4], [-0.08181818, 0.7, -0.6181818]],
            [[-0.3044691, 0.054469258, 0.25], [-0.23636362, 0.4, -0.16363636]],
            [[0.07206704, -0.37206692, 0.29999998], [0.0, 0.0, 0.0]]]
    got = ms.grad(lambda a: _ctc(a, "sum")[0])(lp)
    np.testing.assert_allclose(got.asnumpy(), grad, rtol=1e-5, atol=1e-6)


def test_ctc_loss_infinite_and_empty():
    lp = Tensor(np.log(_PROBS[:2]).astype(np.float32))
    targets = Tensor(np.array([[1, 1], [2, 0]], np.int32))
    # "1 1" needs a blank between: three steps, and only two are given
    loss = ops.ctc_loss(lp, targets, (2, 2), (2, 1), reduction="none", zero_infinity=True)[0]
    assert np.isinf(loss.asnumpy()[0])                 # MindSpore's CPU kernel keeps the inf
    got = ms.grad(lambda a: ops.ctc_loss(a, targets, (2, 2), (2, 1), reduction="sum",
                                         zero_infinity=True)[0])(lp)
    assert np.all(got.asnumpy()[:, 0] == 0) and np.all(np.isfinite(got.asnumpy()))
    empty, alpha = ops.ctc_loss(lp, targets, (0, 2), (0, 1), reduction="none")
    assert empty.asnumpy()[0] == 0 and np.isfinite(alpha.asnumpy()[0, 0, 0])


def test_ctc_loss_errors():
    lp = Tensor(np.log(_PROBS).astype(np.float32))
    tg, il, tl = Tensor(_TARGETS), Tensor(_IL), Tensor(_TL)
    with pytest.raises(TypeError, match="CTCLossV2.*log_probs"):
        ops.ctc_loss(Tensor(np.log(_PROBS).astype(np.float16)), tg, il, tl)
    with pytest.raises(ValueError, match="blank must be in"):
        ops.ctc_loss(lp, tg, il, tl, blank=3)
    with pytest.raises(RuntimeError, match="input_lengths"):
        ops.ctc_loss(lp, tg, (5, 3), tl)
    with pytest.raises(RuntimeError, match="target_lengths"):
        ops.ctc_loss(lp, tg, il, (3, 1))
    with pytest.raises(ValueError, match="class ids"):
        ops.ctc_loss(lp, Tensor(np.array([[1, 3], [2, 0]], np.int32)), il, tl)
    with pytest.raises(TypeError, match="ctc_loss.*zero_infinity"):
        ops.ctc_loss(lp, tg, il, tl, zero_infinity=1)
    with pytest.raises(ValueError, match="CTCLoss.*first dimension"):
        nn.CTCLoss()(lp[:, 0], Tensor(_TARGETS), Tensor(_IL[:1]), Tensor(_TL[:1]))
    with pytest.raises(TypeError, match="CTCLoss.*log_probs"):
        nn.CTCLoss()(np.log(_PROBS), tg, il, tl)


# -- SampledSoftmaxLoss --------------------------------------------------------------------------
_SAMPLED = np.array([1, 4, 5], np.int32)
_TRUE_EXPECTED = np.array([[0.4], [0.3], [0.2]], np.float32)
_SAMPLED_EXPECTED = np.array([0.4, 0.5, 0.6], np.float32)


def _sampled_values():
    return (Tensor(_SAMPLED), Tensor(_TRUE_EXPECTED), Tensor(_SAMPLED_EXPECTED))


def _sampled_ref(w, b, labels, x):
    true = (x * w[labels[:, 0]]).sum(1, keepdims=True) + b[labels] - np.log(_TRUE_EXPECTED)
    sampled = x @ w[_SAMPLED].T + b[_SAMPLED] - np.log(_SAMPLED_EXPECTED)
    logits = np.concatenate([true, sampled], 1)
    return -(logits[:, 0] - np.log(np.exp(logits).sum(1)))


def test_sampled_softmax_loss():
    w = (np.arange(21, dtype=np.float32).reshape(7, 3) / 10 - 1)
    b = np.linspace(-0.3, 0.3, 7).astype(np.float32)
    labels = np.array([[0], [5], [2]], np.int32)
    x = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.6], [-0.4, 0.2, 0.9]], np.float32)
    # reduction is accepted but, as in MindSpore, not applied
    cell = nn.SampledSoftmaxLoss(3, 7, sampled_values=_sampled_values(), reduction="mean")
    check_forward(lambda *a: cell(*a), lambda ww, bb, lab, xx: _sampled_ref(ww, bb, lab, xx),
                  [w, b, labels, x])
    check_grad(lambda ww, bb, xx: cell(ww, bb, Tensor(labels.astype(np.int64)), xx), [w, b, x])
    # MindSpore 2.7.2 CPU (oracle_losses_more.py)
    np.testing.assert_allclose(cell(Tensor(w), Tensor(b), Tensor(labels), Tensor(x)).asnumpy(),
                               [1.8209252, 0.8078985, 1.0835421], rtol=2e-6)
    drawn = nn.SampledSoftmaxLoss(3, 7, seed=1)(Tensor(w), Tensor(b), Tensor(labels), Tensor(x))
    assert drawn.shape == (3,) and np.all(np.isfinite(drawn.asnumpy()))
    with pytest.raises(TypeError, match="SampledSoftmaxLoss.*labels"):
        cell(Tensor(w), Tensor(b), Tensor(labels.astype(np.float32)), Tensor(x))
    with pytest.raises(ValueError, match="SampledSoftmaxLoss.*num_sampled"):
        nn.SampledSoftmaxLoss(8, 7)
    with pytest.raises(ValueError, match="SampledSoftmaxLoss.*length of 'sampled_values'"):
        nn.SampledSoftmaxLoss(3, 7, sampled_values=_sampled_values()[:2])
    with pytest.raises(TypeError, match="SampledSoftmaxLoss.*sampled_values"):
        nn.SampledSoftmaxLoss(3, 7, sampled_values=5)
