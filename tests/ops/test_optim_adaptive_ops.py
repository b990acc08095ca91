"""The adaptive optimizer primitives (P.ApplyAdagrad, ApplyRMSProp, ApplyCenteredRMSProp,
ApplyAdaMax, ApplyAdadelta, ApplyFtrl, ApplyProximalAdagrad): MindSpore's documented examples
(values and result structure), in PYNATIVE and inside a GRAPH-mode Cell, and bad inputs."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops

VAR = [[0.6, 0.4], [0.1, 0.5]]
ACC = [[0.6, 0.5], [0.2, 0.6]]
THIRD = [[0.9, 0.1], [0.7, 0.8]]
GRAD = [[0.3, 0.7], [0.1, 0.8]]
ONES = np.ones((2, 2)).tolist()


def par(values, name):
    return Parameter(Tensor(np.array(values, np.float32)), name=name)


def f32(v):
    return Tensor(np.float32(v))


# name: (primitive, state start values, call(prim, *states, grad) -> result, expected
#        [var, state...] (None: not documented), number of returned tensors)
CASES = {
    "ApplyAdagrad": (ops.ApplyAdagrad(), [VAR, ACC],
                     lambda op, v, a, g: op(v, a, f32(0.001), g),
                     [[[0.599638879, 0.399296492], [0.0997817814, 0.499281585]],
                      [[0.69, 0.99], [0.21, 1.24]]], 2),
    "ApplyAdaMax": (ops.ApplyAdaMax(), [VAR, ACC, THIRD],
                    lambda op, v, m, s, g: op(v, m, s, f32(0.9), f32(0.001), f32(0.9), f32(0.99),
                                              f32(1e-10), g),
                    [[[0.593602717, 0.392571449], [0.0972582996, 0.492249995]],
                     [[0.57, 0.52], [0.19, 0.62]], [[0.891, 0.7], [0.693, 0.8]]], 3),
    "ApplyAdadelta": (ops.ApplyAdadelta(), [VAR, ACC, THIRD],
                      lambda op, v, a, u, g: op(v, a, u, f32(0.001), f32(0.0), f32(1e-6), g),
                      [[[0.599051356, 0.399683774], [0.0991633832, 0.499105573]],
                       [[0.09, 0.49], [0.01, 0.64]],
                       [[0.899990857, 0.100000791], [0.699930906, 0.799999774]]], 3),
    "ApplyProximalAdagrad": (ops.ApplyProximalAdagrad(), [VAR, ACC],
                             lambda op, v, a, g: op(v, a, 0.01, 0.0, 0.0, g),
                             [[[0.596388459, 0.392964751], [0.0978178233, 0.492815793]],
                              [[0.69, 0.99], [0.21, 1.24]]], 2),
    "ApplyFtrl": (ops.ApplyFtrl(), [VAR, ACC, THIRD],
                  lambda op, v, a, lin, g: op(v, a, lin, g, 0.001, 0.0, 0.0, -0.5),
                  [[[0.0390525, 0.11492836], [0.00066425, 0.15075898]], None, None], 1),
    "ApplyRMSProp": (ops.ApplyRMSProp(), [ONES, ONES, ONES],
                     lambda op, v, s, m, g: op(v, s, m, 0.01, g, 0.0, 1e-10, 0.001),
                     [[[0.990005] * 2] * 2, None, None], 1),
    "ApplyCenteredRMSProp": (ops.ApplyCenteredRMSProp(), [ONES, ONES, ONES, ONES],
                             lambda op, v, mg, s, m, g: op(v, mg, s, m, g, 0.01, 0.0, 1e-10,
                                                           0.001),
                             [[[0.68377227] * 2] * 2, None, None, None], 1),
}


def _grad(name):
    return Tensor(np.array(ONES if "RMS" in name else GRAD, np.float32))


@pytest.mark.parametrize("name", sorted(CASES))
def test_mindspore_documented_example(name):
    op, starts, call, want, n_out = CASES[name]
    states = [par(v, f"s{i}") for i, v in enumerate(starts)]
    out = call(op, *states, _grad(name))
    if n_out == 1:
        assert out is states[0]
    else:
        assert isinstance(out, tuple) and len(out) == n_out and out[0] is states[0]
    for s, w in zip(states, want):
        if w is not None:
            np.testing.assert_allclose(s.asnumpy(), w, rtol=1e-6, atol=1e-7)


class _UpdateCell(nn.Cell):
    def __init__(self, name):
        super().__init__()
        self.op, starts, self.call, _, _ = CASES[name]
        self.states = [par(v, f"s{i}") for i, v in enumerate(starts)]
        for i, s in enumerate(self.states):
            setattr(self, f"s{i}", s)

    def construct(self, grad):
        self.call(self.op, *self.states, grad)
        return grad * 1.0


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_cell_updates_like_pynative(name):
    results = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        cell = _UpdateCell(name)
        for _ in range(2):
            cell(_grad(name))
        results.append([s.asnumpy().copy() for s in cell.states])
    ms.set_context(mode=ms.PYNATIVE_MODE)
    for e, g in zip(*results):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)


def test_bad_inputs_name_the_operator():
    v, a = par(VAR, "v"), par(ACC, "a")
    with pytest.raises(ValueError, match="ApplyAdagrad.*'accum' shape"):
        ops.ApplyAdagrad()(v, par([1.0, 2.0], "b"), 0.1, _grad("x"))
    with pytest.raises(TypeError, match="ApplyAdagrad.*'var' must be a Parameter"):
        ops.ApplyAdagrad()(Tensor(np.ones((2, 2), np.float32)), a, 0.1, _grad("x"))
    with pytest.raises(ValueError, match="ApplyFtrl.*'lr' must be a scalar"):
        ops.ApplyFtrl()(v, a, par(THIRD, "l"), _grad("x"), Tensor(np.ones(2, np.float32)),
                        0.0, 0.0, -0.5)
    with pytest.raises(TypeError, match="ApplyRMSProp.*'decay' must be a number"):
        ops.ApplyRMSProp()(v, a, par(THIRD, "m"), 0.1, _grad("x"), "0.9", 0.0, 1e-6)
    with pytest.raises(TypeError, match="update_slots"):
        ops.ApplyAdagrad(update_slots=1)
