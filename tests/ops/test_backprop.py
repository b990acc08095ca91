"""The one backward walker (ops/backprop.py) on hand-made entries: which bprops it calls and
with what, where gradients land, the count check, on_final timing, and separate keys."""
from contextlib import nullcontext

import numpy as np
import pytest

from minispore import Tensor
from minispore.ops.backprop import backprop


def t(value):
    return Tensor(np.full((2,), value, np.float32))


class Prim:
    """A primitive stand-in whose bprop logs its dout and returns the given gradients."""

    def __init__(self, name, grads, backward_always=False):
        self.name = name
        self.grads = grads
        self.backward_always = backward_always
        self.douts = []

    def bprop(self, args, out, dout):
        self.douts.append(dout)
        return self.grads


def test_entries_without_cotangent_are_skipped_unless_backward_always():
    x, y, z = t(1), t(2), t(3)
    skipped = Prim("Skipped", (t(5),))
    always = Prim("Always", (t(7),), backward_always=True)
    cot = backprop([(skipped, (x,), y), (always, (x,), z)], [], {id(x)})
    assert skipped.douts == []
    np.testing.assert_array_equal(always.douts[0].asnumpy(), np.zeros(2))
    np.testing.assert_array_equal(cot[id(x)].asnumpy(), np.full(2, 7))


def test_missing_tuple_members_get_zeros_and_gradients_add_up():
    x, a, b = t(1), t(2), t(3)
    split = Prim("Split", (t(4), t(6)))
    cot = backprop([(split, (x, x), (a, b))], [(b, t(1)), (b, t(2))], {id(x)})
    zero, seed = split.douts[0]
    np.testing.assert_array_equal(zero.asnumpy(), np.zeros(2))
    np.testing.assert_array_equal(seed.asnumpy(), np.full(2, 3))
    np.testing.assert_array_equal(cot[id(x)].asnumpy(), np.full(2, 10))


def test_deferred_gradients_are_called_for_live_inputs_only():
    x, w, y = t(1), t(2), t(3)
    called = []

    def deferred(name):
        return lambda: called.append(name) or t(1)

    backprop([(Prim("MatMul", (deferred("x"), deferred("w"))), (x, w), y)], [(y, t(1))],
             {id(w)})
    assert called == ["w"]


def test_gradient_count_must_match_the_inputs():
    x, y = t(1), t(2)
    with pytest.raises(RuntimeError, match="bprop of 'Bad' returned 1 gradients for 2 inputs"):
        backprop([(Prim("Bad", (t(1),)), (x, x), y)], [(y, t(1))], {id(x)})


def test_on_final_fires_after_the_earliest_reader_and_before_the_walk_when_unread():
    x, w, h, y, unread = t(1), t(2), t(3), t(4), t(5)
    events = []
    first = Prim("First", (t(1), t(1)))
    second = Prim("Second", (t(1), t(1)))
    first.bprop = lambda *a: events.append("first") or (t(1), t(1))
    second.bprop = lambda *a: events.append("second") or (t(1), t(1))
    on_final = {id(w): lambda g: events.append(("w", float(g.asnumpy()[0]))),
                id(unread): lambda g: events.append(("unread", g))}
    backprop([(first, (x, w), h), (second, (h, w), y)], [(y, t(1))],
             {id(x), id(w), id(h)}, on_final=on_final)
    assert events == [("unread", None), "second", "first", ("w", 2.0)]


def test_view_separates_what_the_bprop_sees_from_the_keys():
    class Node:
        def __init__(self, prim, inputs, output):
            self.prim, self.inputs, self.output = prim, inputs, output

    x_key, y_key = object(), object()
    x, y = t(1), t(2)
    prim = Prim("Neg", (t(-1),))
    seen = []

    def view(node):
        return node.prim, [x], y, node.inputs, node.output

    def around(node):
        seen.append(node)
        return nullcontext()

    node = Node(prim, [x_key], y_key)
    cot = backprop([node], [(y_key, t(1))], {id(x_key)}, view=view, around=around)
    assert seen == [node]
    np.testing.assert_array_equal(cot[id(x_key)].asnumpy(), np.full(2, -1))
