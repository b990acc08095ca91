"""Class-index labels outside [0, C) raise in every sparse cross-entropy path, in PYNATIVE and
in compiled graphs, with the one message of ops.SparseSoftmaxCrossEntropyWithLogits; before,
nn.SoftmaxCrossEntropyWithLogits(sparse=True) and nn.CrossEntropyLoss gave such a row a zero
loss and a zero gradient (its one-hot row is all zeros)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.ops.operations.nn_ops import CheckLabelRange
from tests.train._data import MLP, blobs

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]
CLASSES = 10


def logits(n=4):
    return Tensor(np.random.default_rng(0).standard_normal((n, CLASSES)).astype(np.float32))


def labels(*values, dtype=np.int32):
    return Tensor(np.array(values, dtype))


def sparse_softmax_ce():
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("bad", [CLASSES, -1, 2 ** 31 - 1])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_sparse_softmax_cross_entropy_rejects_labels_out_of_range(mode, bad, dtype):
    ms.set_context(mode=mode)
    loss = sparse_softmax_ce()
    with pytest.raises(ValueError, match=rf"For 'CheckLabelRange' \(in .*check_labels\), every "
                                         rf"label of 'SoftmaxCrossEntropyWithLogits' must be in "
                                         rf"\[0, 10\), but labels\[2\] is {bad}\.$"):
        loss(logits(), labels(3, 9, bad, 0, dtype=dtype))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("bad", [CLASSES, -1, -99])
def test_cross_entropy_loss_rejects_labels_out_of_range(mode, bad):
    ms.set_context(mode=mode)
    loss = nn.CrossEntropyLoss(ignore_index=-100)
    with pytest.raises(ValueError, match=rf"every label of 'CrossEntropyLoss' must be in "
                                         rf"\[0, 10\) or equal ignore_index=-100, but "
                                         rf"labels\[1\] is {bad}\.$"):
        loss(logits(), labels(3, bad, -100, 0))


@pytest.mark.parametrize("mode", MODES)
def test_valid_labels_and_ignore_index_give_the_reference_loss(mode):
    ms.set_context(mode=mode)
    x, y = logits(), labels(3, 9, -100, 0)
    lse = np.log(np.exp(x.asnumpy().astype(np.float64)).sum(-1))
    per_row = lse - x.asnumpy()[np.arange(4), np.maximum(y.asnumpy(), 0)]
    kept = y.asnumpy() != -100
    got = nn.CrossEntropyLoss(ignore_index=-100)(x, y)
    np.testing.assert_allclose(float(got.asnumpy()), per_row[kept].mean(), rtol=1e-5)
    got = sparse_softmax_ce()(x, labels(3, 9, 1, 0))
    np.testing.assert_allclose(float(got.asnumpy()),
                               np.mean(lse - x.asnumpy()[np.arange(4), [3, 9, 1, 0]]), rtol=1e-5)


def test_compiled_graph_checks_every_steps_labels():
    """The check is a node of the graph, not a trace-time test: a graph compiled with valid
    labels raises when a later call (same signature, no recompile) brings a bad one."""
    ms.set_context(mode=ms.GRAPH_MODE)
    loss = sparse_softmax_ce()
    loss(logits(), labels(1, 2, 3, 4))
    with pytest.raises(ValueError, match=r"labels\[3\] is 10"):
        loss(logits(), labels(1, 2, 3, 10))
    assert loss.compile_cache_info() == {"compiles": 1, "hits": 1, "entries": 1}


@pytest.mark.parametrize("mode", MODES)
def test_train_step_with_a_bad_label_raises_before_updating(mode):
    ms.set_context(mode=mode)
    ms.set_seed(3)
    net = MLP()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, sparse_softmax_ce()),
                               nn.SGD(net.trainable_params(), 0.1))
    x, y = blobs(8)
    step(Tensor(x), Tensor(y))                             # compiles in GRAPH mode
    before = {p.name: p.asnumpy().copy() for p in net.trainable_params()}
    y[5] = 3                                               # 3 classes: 3 is out of range
    with pytest.raises(ValueError, match=r"must be in \[0, 3\), but labels\[5\] is 3"):
        step(Tensor(x), Tensor(y))
    for p in net.trainable_params():
        np.testing.assert_array_equal(p.asnumpy(), before[p.name], err_msg=p.name)


def test_sparse_softmax_cross_entropy_op_keeps_its_message():
    with pytest.raises(ValueError, match=r"^For 'SparseSoftmaxCrossEntropyWithLogits', every "
                                         r"label must be in \[0, 10\), but labels\[1\] is -1\.$"):
        ops.sparse_softmax_cross_entropy_with_logits(logits(), labels(0, -1, 2, 3))


def test_check_label_range_passes_labels_through_and_checks_its_arguments():
    y = labels(0, 9, 4, 4, dtype=np.int64)
    out = CheckLabelRange("loss")(y, CLASSES)
    assert out.dtype == ms.int64 and out.asnumpy().tolist() == [0, 9, 4, 4]
    with pytest.raises(TypeError, match=r"'labels'.*Int32, Int64.*Float32"):
        CheckLabelRange("loss")(Tensor(np.zeros(3, np.float32)), CLASSES)
    with pytest.raises(TypeError, match="'ignore_index' must be an int or None, but got float"):
        CheckLabelRange("loss", ignore_index=-1.0)
