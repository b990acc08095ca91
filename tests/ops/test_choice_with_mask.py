"""ops.choice_with_mask / ops.RandomChoiceWithMask: the True positions in random order with
MindSpore 2.7.2's shapes, dtypes and padding, uniform choice, seeding, graphs, errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops

X = np.array([[True, False, True], [False, True, False]])


@pytest.mark.parametrize("count", [2, 3, 8])
def test_rows_are_distinct_true_positions_then_zero_padding(count):
    index, mask = ops.RandomChoiceWithMask(count=count)(Tensor(X))
    assert (index.dtype, index.shape, mask.dtype, mask.shape) == (ms.int32, (count, 2),
                                                                 ms.bool_, (count,))
    index, mask = index.asnumpy(), mask.asnumpy()
    k = min(count, 3)
    assert mask.tolist() == [True] * k + [False] * (count - k)
    chosen = {tuple(r) for r in index[:k]}
    assert len(chosen) == k and chosen <= {(0, 0), (0, 2), (1, 1)}
    assert not index[k:].any()


def test_the_choice_is_uniform():
    ms.set_seed(3)
    picks = [tuple(ops.choice_with_mask(Tensor(X), 1)[0].asnumpy()[0]) for _ in range(600)]
    counts = [picks.count(p) for p in [(0, 0), (0, 2), (1, 1)]]
    # Each of three positions 200 times in expectation; 5 standard deviations (~11.5 each).
    assert all(abs(c - 200) < 58 for c in counts), counts


def test_seeded_draws_repeat_and_graphs_compile():
    a = ops.choice_with_mask(Tensor(X), 3, seed=7)[0].asnumpy()
    b = ops.choice_with_mask(Tensor(X), 3, seed=7)[0].asnumpy()
    np.testing.assert_array_equal(a, b)
    index, mask = ms.jit(lambda t: ops.choice_with_mask(t, 4))(Tensor(X))
    assert mask.asnumpy().tolist() == [True, True, True, False]
    assert {tuple(r) for r in index.asnumpy()[:3]} == {(0, 0), (0, 2), (1, 1)}


@pytest.mark.parametrize("make,err,words", [
    (lambda: ops.RandomChoiceWithMask()(Tensor(np.array([1.0]))), TypeError, "Bool Tensor"),
    (lambda: ops.RandomChoiceWithMask(count=0)(Tensor(X)), ValueError, "must > 0"),
    (lambda: ops.RandomChoiceWithMask()(Tensor(np.ones((1,) * 6, bool))), ValueError,
     "between 1 and 5"),
    # MindSpore 2.7.2: RuntimeError "output size exceed INT_MAX" (count x rank > 2^31 - 1)
    (lambda: ops.RandomChoiceWithMask(count=2051328285)(Tensor(X)), RuntimeError,
     "exceed INT_MAX"),
])
def test_errors(make, err, words):
    with pytest.raises(err, match=words):
        make()


def test_negative_seeds_are_taken_as_mindspore_takes_them():
    # MindSpore's own test builds RandomChoiceWithMask(seed=0, seed2=-1024)
    op = ops.RandomChoiceWithMask(count=3, seed=0, seed2=-1024)
    a, b = op(Tensor(X))[0].asnumpy(), ops.RandomChoiceWithMask(3, 0, -1024)(Tensor(X))[0]
    np.testing.assert_array_equal(a, b.asnumpy())
