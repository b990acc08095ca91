"""Tracing into the IR: nodes, scopes, parameters, constants, the dump text, control flow,
side effects kept by dead-code elimination, and the executor's generated schedule."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.graph.compile import eliminate_dead_code
from minispore.graph.program import PassContext, Program
from minispore.graph.tracer import TraceError, TracedTensor, trace
from tests.graph.helpers import compile_fn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8, activation="relu")
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(self.fc1(x))


def _x(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def test_trace_records_nodes_scopes_and_parameters():
    net = Net()
    graph, _ = trace(net, [_x(2, 4)], "Net")
    assert [n.prim.name for n in graph.nodes] == ["MatMul", "BiasAddReLU", "MatMul", "BiasAdd"]
    assert [n.scope for n in graph.nodes] == ["Net.fc1.matmul", "Net.fc1.bias_add",
                                              "Net.fc2.matmul", "Net.fc2.bias_add"]
    assert [v.param.name for v in graph.parameters] == ["fc1.weight", "fc1.bias", "fc2.weight",
                                                        "fc2.bias"]
    assert graph.nodes[0].outputs[0].shape == (2, 8)
    assert all(v.layout is None for n in graph.nodes for v in n.outputs)
    text = graph.dump()
    assert "%input0: <Float32, [2, 4]>  # input" in text
    assert "# parameter fc2.bias" in text
    assert "scope=Net.fc2.matmul in=(<Float32, [2, 8]>, <Float32, [3, 8]>) out=" \
           "(<Float32, [2, 3]>)" in text


def test_annotations_are_copied_from_primitive_attrs():
    mm = ops.MatMul().shard(((2, 1), (1, 1)))
    ms.set_context(mode=ms.GRAPH_MODE)     # Primitive.recompute is a GRAPH_MODE feature
    try:
        mm.recompute()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    graph, _ = trace(lambda a, b: mm(a, b), [_x(2, 3), _x(3, 4)], "f")
    assert graph.nodes[0].annotations == {"in_strategy": ((2, 1), (1, 1)),
                                          "out_strategy": None, "recompute": True}
    assert "in_strategy=((2, 1), (1, 1))" in graph.dump()


def test_python_control_flow_unrolls():
    def f(x):
        for _ in range(3):
            x = x * 2.0
        if x.shape[0] == 2:       # shapes are static: fine
            x = x + 1.0
        return x
    graph, _ = trace(f, [_x(2)], "f")
    assert [n.prim.name for n in graph.nodes] == ["Mul", "Mul", "Mul", "Add"]


@pytest.mark.parametrize("use", [bool, float, int, lambda t: t.asnumpy(), lambda t: t.item()])
def test_reading_a_tensor_value_runs_the_call_op_by_op_as_mindspore_runs_it(use, caplog):
    # MindSpore 2.7.2 runs `if float(s)` in an ms.jit function (its JIT fallback); a compiled
    # call of minispore's then runs op by op, saying so, with PYNATIVE's values. The tracer
    # itself still refuses the read, suggesting PYNATIVE_MODE.
    def f(x):
        s = x.sum()
        if use(s):
            return x
        return -x
    from minispore.graph.jit import _INLINE_WARNED
    _INLINE_WARNED.discard(("op by op", "f"))       # the warning comes once per name
    np.testing.assert_array_equal(ms.jit(f)(_x(3)).asnumpy(), f(_x(3)).asnumpy())
    assert "'f' runs op by op" in caplog.text
    with pytest.raises(TraceError, match="GRAPH_MODE.*PYNATIVE_MODE"):
        trace(f, [_x(3)], "f")


def test_control_flow_in_a_function_construct_calls_runs_op_by_op():
    # construct's own if/while on a Tensor compile (tests/graph/test_control_flow*.py); the
    # functions it calls are not converted, so a call reaching one runs op by op (MindSpore
    # 2.7.2 gives [1. 1. 1.] for this cell in GRAPH_MODE)
    def helper(x):
        return x if x.sum() > 0 else -x

    class Branchy(nn.Cell):
        def construct(self, x):
            return helper(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    x = Tensor(np.ones(3, np.float32))
    assert Branchy()(x).asnumpy().tolist() == [1.0, 1.0, 1.0]
    assert Branchy()(-x).asnumpy().tolist() == [1.0, 1.0, 1.0]


def test_traced_tensor_supports_tensor_methods():
    seen = {}

    def f(x):
        seen["type"] = type(x)
        return x.reshape(6).mean() + x.T.sum() + x[0].max()
    out = ms.jit(f)(_x(2, 3))
    x = _x(2, 3).asnumpy()
    assert seen["type"] is TracedTensor
    np.testing.assert_allclose(out.asnumpy(), x.mean() + x.sum() + x[0].max(), rtol=1e-6)


def test_parameters_are_read_live_each_run():
    w = Parameter(Tensor(np.ones(3, np.float32)), name="w")
    executable = compile_fn(lambda x: x * w, [_x(3)])
    x = _x(3).asnumpy()
    np.testing.assert_allclose(executable.run([x]).asnumpy(), x)
    w.set_data(np.full(3, 2.0, np.float32))       # replaces the buffer
    np.testing.assert_allclose(executable.run([x]).asnumpy(), 2 * x)


def test_constants_are_baked_in():
    c = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    graph, _ = trace(lambda x: x + c, [_x(3)], "f")
    assert "Tensor<Float32, [3]>" in graph.dump() and not graph.parameters


def test_dead_code_is_removed_but_side_effects_stay():
    w = Parameter(Tensor(np.zeros(3, np.float32)), name="w")

    def f(x):
        ops.exp(x)                     # dead
        ops.assign(w, x * 2.0)         # side effect, result unused
        return x + 1.0
    graph, _ = trace(f, [_x(3)], "f")
    assert [n.prim.name for n in eliminate_dead_code(Program([graph]), PassContext()).graph.nodes] == ["Mul", "Assign", "Add"]
    executable = compile_fn(f, [_x(3)])
    x = _x(3).asnumpy()
    executable.run([x])
    np.testing.assert_allclose(w.asnumpy(), 2 * x)


def test_schedule_frees_values_after_last_use(monkeypatch):
    monkeypatch.setenv("MINISPORE_FUSION", "0")     # the unfused schedule (one line per op)
    executable = compile_fn(lambda x: ((x * 2.0) + 1.0) * 3.0, [_x(3)])
    lines = executable.source.splitlines()
    assert sum(ln.strip().startswith("v") and "= f" in ln for ln in lines) == 3
    assert "    del v0_0" in lines and "    del v1_0" in lines


def test_long_chain_matches_eager(monkeypatch):
    monkeypatch.setenv("MINISPORE_FUSION", "0")     # test_fusion.py runs it fused
    def chain(x):
        for _ in range(200):
            x = x * 0.5 + 0.25
        return x
    x = _x(16)
    executable = compile_fn(chain, [x])
    assert executable.n_nodes == 400
    np.testing.assert_allclose(executable.run([x.asnumpy()]).asnumpy(), chain(x).asnumpy(),
                               rtol=1e-6)


def test_grad_inside_jit_differentiates_at_trace_time():
    def f(x):
        return ms.grad(lambda t: (t * t * t).sum())(x)
    x = _x(4)
    np.testing.assert_allclose(ms.jit(f)(x).asnumpy(), 3 * x.asnumpy() ** 2, rtol=1e-6)


def test_reading_a_parameter_value_while_tracing_raises():
    """It would be frozen into the graph (e.g. a learning-rate schedule reading global_step)."""
    w = Parameter(Tensor(np.ones(3, np.float32)), name="w")
    with pytest.raises(TraceError, match="Parameter 'w'.*frozen into the graph"):
        ms.jit(lambda x: x * float(w.asnumpy()[0]))(_x(3))
    assert w.asnumpy().tolist() == [1.0, 1.0, 1.0]      # fine outside tracing
