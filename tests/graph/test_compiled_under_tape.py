"""A compiled function reached by a PYNATIVE gradient (an ms.jit function inside ms.grad, a
GRAPH-mode Cell under ops.vjp) runs on the gradient's tape, with a warning, so its gradient is
the eager one; a compiled call used to hand the tape one opaque result and the gradient read
as zeros."""
import logging

import numpy as np

import minispore as ms
from minispore import Tensor, nn, ops

X = Tensor(np.array([0.5, -1.0], np.float32))
DTANH = 1 - np.tanh(X.asnumpy()) ** 2


def test_grad_through_a_jit_function(caplog):
    @ms.jit
    def squashed(y):
        return ops.tanh(y)
    with caplog.at_level(logging.WARNING, logger="minispore"):
        got = ms.grad(lambda t: squashed(t).sum())(X)
    np.testing.assert_allclose(got.asnumpy(), DTANH, rtol=1e-6)
    assert "'squashed' (compiled in GRAPH mode or by ms.jit) was called while a PYNATIVE " \
           "gradient is recorded" in caplog.text
    # outside a gradient it still compiles
    before = squashed.compile_cache_info()
    squashed(X)
    squashed(X)
    after = squashed.compile_cache_info()
    assert after["compiles"] == before["compiles"] + 1 and after["hits"] == before["hits"] + 1


def test_vjp_of_a_graph_mode_cell():
    class Squash(nn.Cell):
        def construct(self, y):
            return ops.tanh(y)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out, vjp_fn = ops.vjp(Squash(), X)
        (got,) = vjp_fn(Tensor(np.array([1.0, 2.0], np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got.asnumpy(), DTANH * [1, 2], rtol=1e-6)
