"""Tensor.choose against numpy.choose (float64), MindSpore 2.7.2's recorded integer outputs,
its gradient in the choices, and its errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor


@pytest.mark.parametrize("mode", ["clip", "wrap"])
def test_choose_equals_numpy(mode):
    rng = np.random.default_rng(0)
    a = rng.integers(-2, 5, (3, 4)).astype(np.int32)
    choices = [rng.standard_normal((3, 4)), rng.standard_normal((1, 4)), rng.standard_normal(4)]
    got = Tensor(a).choose([Tensor(c) for c in choices], mode=mode).asnumpy()
    np.testing.assert_array_equal(got, np.choose(a, choices, mode=mode))


def test_choose_equals_mindspore_on_integers():
    a = Tensor(np.array([[0, 1], [1, 0]], np.int32))
    got = a.choose([[1, 2], [3, 4]])
    assert got.dtype == ms.int64 and got.asnumpy().tolist() == [[1, 4], [3, 2]]
    got = Tensor(np.array([0, 5, -1], np.int32)).choose([[1, 2, 3], [4, 5, 6]], mode="wrap")
    assert got.asnumpy().tolist() == [1, 5, 6]
    got = a.choose((Tensor(np.array([1, 2], np.int32)), Tensor(np.array([[3], [4]], np.int32))))
    assert got.dtype == ms.int32 and got.asnumpy().tolist() == [[1, 3], [4, 2]]


def test_choose_keeps_float_choices_where_mindspore_truncates_them():
    # MindSpore 2.7.2 returns [[1., 4.], [3., 2.]] here: it casts the choices to integers.
    a = Tensor(np.array([[0, 1], [1, 0]], np.int32))
    got = a.choose([Tensor(np.array([1.5, 2.5], np.float32)),
                    Tensor(np.array([3.5, 4.5], np.float32))])
    assert got.asnumpy().tolist() == [[1.5, 4.5], [3.5, 2.5]]


def test_choose_differentiates_in_the_taken_choice():
    a = Tensor(np.array([0, 1, 1], np.int32))
    c0, c1 = Tensor(np.array([1.0, 2.0, 3.0])), Tensor(np.array([4.0, 5.0, 6.0]))
    g0, g1 = ms.grad(lambda p, q: (a.choose([p, q]) * Tensor([1.0, 2.0, 3.0])).sum(),
                     (0, 1))(c0, c1)
    assert g0.asnumpy().tolist() == [1.0, 0.0, 0.0]
    assert g1.asnumpy().tolist() == [0.0, 2.0, 3.0]


@pytest.mark.parametrize("make,err,words", [
    (lambda: Tensor(np.array([0, 2], np.int32)).choose([[1, 2], [3, 4]], mode="raise"),
     ValueError, r"in \[0, 2\)"),
    (lambda: Tensor(np.array([0], np.int32)).choose([[1]], mode="bad"), ValueError,
     "'mode' must be one of"),
    (lambda: Tensor(np.array([0], np.int32)).choose([]), TypeError, "non-empty"),
])
def test_choose_errors(make, err, words):
    with pytest.raises(err, match=words):
        make()
