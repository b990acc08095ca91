"""Trace/execute parity for every operator, driven by the operator test suites: each test of
tests/ops that calls check_forward / check_grad is collected again here with those two checks
replaced by graph ones. check_forward runs the op eagerly and as a compiled graph (equal within
1e-6 relative); check_grad compares the `differentiate` pass's gradients with the eager tape's.
The last test asserts every operator class was exercised in a graph (or is listed with why)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor
from minispore.ops.operations.nn_ops import CheckLabelRange
from tests.graph.helpers import CopyOut, compile_fn, graph_grads
from tests.nn import test_conv1d_transpose
from tests.ops import (test_array_ops, test_conv_pool, test_decomp_ops, test_linalg_ops,
                       test_logic_ops, test_math_ops, test_nn_ops, test_sort_scan_ops)
from tests.ops import test_bessel, test_gather_elements, test_pool_argmax, test_scatter_elements
from tests.ops import test_index_fill, test_special_binary_ops, test_tensor_scatter_nd
from tests.ops import test_unpool
from tools.op_matrix import operator_classes

MODULES = (test_math_ops, test_array_ops, test_nn_ops, test_conv_pool, test_sort_scan_ops,
           test_conv1d_transpose, test_logic_ops, test_linalg_ops, test_special_binary_ops,
           test_bessel, test_gather_elements, test_scatter_elements, test_tensor_scatter_nd,
           test_index_fill, test_pool_argmax, test_unpool, test_decomp_ops)
COVERED = set()
RAN = set()
PLANNED = set()     # operators that ran writing into a memory-plan buffer

# Operators no tests/ops case drives through check_forward/check_grad; each is covered by a
# dedicated test in this directory (named here) or cannot be traced, with the reason.
ELSEWHERE = {
    "ApplyMomentum": "test_optimizer_updates_in_graph (in-place update parity)",
    "SGD": "test_optimizer_updates_in_graph",
    "Adam": "test_optimizer_updates_in_graph",
    "AdamWeightDecay": "test_optimizer_updates_in_graph",
    **{name: "tests/nn/test_optimizers_adaptive.py (GRAPH steps equal the float64 reference "
             "and PYNATIVE) and tests/ops/test_optim_adaptive_ops.py"
       for name in ("ApplyAdagrad", "ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyAdaMax",
                    "ApplyAdadelta", "ApplyFtrl", "ApplyProximalAdagrad", "ASGDUpdate",
                    "RpropUpdate")},
    "Assign": "test_optimizer_updates_in_graph (Optimizer._advance_step assigns global_step)",
    "Print": "tests/ops/test_print.py (prints every step in GRAPH mode; checked on stdout)",
    "BatchNorm": "tests/nn/test_batchnorm.py (GRAPH training steps and eval equal PYNATIVE, "
                 "moving statistics included)",
    "BatchNormGrad": "tests/nn/test_batchnorm.py (the backward of those GRAPH steps)",
    "InsertGradientOf": "tests/ops/test_grad_hook_ops.py (ms.jit of the gradient equals eager)",
    "Reusing": "an Identity (tests/ops/test_grad_hook_ops.py); Identity's graph parity covers it",
    **{name: "tests/ops/test_ps_roi_pooling.py (under ms.jit, equal to MindSpore's recorded "
             "values)" for name in ("PSROIPooling", "PSROIPoolingGrad")},
    "Depend": "returns its value, never recorded (tests/ops/test_depend.py runs it under "
              "ms.jit): in a graph the value's own node stands for it",
    "UniqueWithPad": "tests/ops/test_unique_with_pad.py (ms.jit equals the reference and eager)",
    "ScatterRows": "tests/ops/test_scatter_family.py (a GRAPH-mode ScatterNdUpdate on a "
                   "Parameter equals the reference; each reduction checked eagerly)",
    "Shift": "tests/ops/test_window_ops.py (a GRAPH-mode Cell equals the reference)",
    "Rolling": "tests/ops/test_window_ops.py (a GRAPH-mode Cell equals the reference)",
    "MaskedSelect": "its length depends on the data, so a compiled call holding it runs op by "
                    "op: tests/graph/test_data_dependent_shapes.py",
    "GetNext": "tests/train/test_dataset_helper.py (a GRAPH-mode sink network, compiled once, "
               "takes one batch per step and trains as the float64 reference)",
}
# Collectives trace like any primitive, but their kernels need an MPI world; graph runs of
# them belong with the parallel passes (tests/parallel), not this single-process suite.
for _name in ("AllGather", "AllReduce", "AlltoAll", "Barrier", "Broadcast", "Receive", "Reduce",
              "ReduceScatter", "Send", "_MirrorOperator", "_DynamicReceive"):
    ELSEWHERE[_name] = "collective: needs an MPI world"
# The data-parallel bucket's operators: its GRAPH steps equal the eager ones in
# tests/parallel/test_data_parallel.py and test_comm_overlap_mpi.py (an MPI world again).
for _name in ("StandardNormal", "StandardLaplace", "UniformReal", "Bernoulli", "Multinomial",
              "UniformInt", "RandomPoisson", "RandomGamma", "UniformCandidateSampler"):
    ELSEWHERE[_name] = ("random: tests/ops/test_random_ops.py (a compiled graph draws anew at "
                        "every run, reproducibly under ms.set_seed)")
for _name in ("PackBucket", "BucketView", "AllReduceStart", "AllReduceWait"):
    ELSEWHERE[_name] = "data-parallel bucket: tests/parallel/test_data_parallel.py (MPI)"


def _record(executable):
    for node in executable.graph.nodes:
        # A fused node runs its operators' scalar expressions: those ran in a graph too.
        COVERED.update(type(p).__name__ for p in (node.prim,) + getattr(node.prim, "fused", ()))


def graph_check_forward(op_fn, ref_fn, arrays, rtol=1e-5, atol=1e-6, consts=()):
    tensors = [Tensor(a) for a in arrays]
    eager = op_fn(*tensors, *consts)
    executable = compile_fn(lambda *t: op_fn(*t, *consts), tensors)
    _record(executable)
    got = executable.run([t.asnumpy() for t in tensors])
    eager = eager if isinstance(eager, tuple) else (eager,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(eager)
    for g, e in zip(got, eager):
        assert g.dtype == e.dtype and tuple(g.shape) == tuple(e.shape)
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-6, atol=1e-7)
    _check_planned(op_fn, tensors, consts, eager)
    return eager if len(eager) > 1 else eager[0]


def _check_planned(op_fn, tensors, consts, eager, atol=1e-7, seed=None):
    """The op's outputs copied out, so that an op taking out= writes into the memory plan's
    buffers: equal to eager on a first and on a second run (which reuses the buffers); a
    random op draws again from `seed` on each run. Fusion is off here, so each operator's own
    impl gets the buffer (the fused kernels' out= path runs in the first check)."""
    def copied(*t):
        out = op_fn(*t, *consts)
        return tuple(CopyOut()(o) for o in out) if isinstance(out, tuple) else CopyOut()(out)

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MINISPORE_FUSION", "0")
        executable = compile_fn(copied, tensors)
    PLANNED.update(type(executable.graph.nodes[k].prim).__name__
                   for k in executable.plan.planned_nodes)
    for _ in range(2):
        if seed is not None:
            ms.set_seed(seed)
        got = executable.run([t.asnumpy() for t in tensors])
        got = got if isinstance(got, tuple) else (got,)
        for g, e in zip(got, eager):
            np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-6, atol=atol)


def graph_check_grad(op_fn, arrays, positions=None, consts=(), rtol=1e-5, atol=1e-7,
                     out_index=None, seed=0):
    arrays = [a.astype(np.float64) if a.dtype.kind == "f" else a for a in arrays]
    if positions is None:
        positions = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    tensors = [Tensor(a) for a in arrays]

    def pick(out):
        return out[out_index] if out_index is not None else out

    probe = pick(op_fn(*tensors, *consts))
    w = Tensor(np.random.default_rng(seed).standard_normal(probe.shape))

    def scalar(*ts):
        return (pick(op_fn(*ts, *consts)) * w).sum()

    grad_fn = ms.grad(scalar, grad_position=tuple(positions))
    want = grad_fn(*tensors)
    if len(positions) == 1:     # MindSpore returns the lone gradient itself, not a 1-tuple
        want = (want,)
    _, got, executable = graph_grads(scalar, tensors, positions)
    _record(executable)
    for p, g, e in zip(positions, got, want):
        assert tuple(g.shape) == tuple(e.shape), f"grad of input {p}"
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-6, atol=1e-9,
                                   err_msg=f"graph gradient of input {p}")
    grads = (lambda *t: tuple(grad_fn(*t))) if len(positions) > 1 else \
        (lambda *t: (grad_fn(*t),))
    _check_planned(grads, tensors, consts=(), eager=tuple(want), atol=1e-9)


@pytest.fixture(autouse=True)
def graph_checks(monkeypatch, request):
    for module in MODULES:
        monkeypatch.setattr(module, "check_forward", graph_check_forward)
        monkeypatch.setattr(module, "check_grad", graph_check_grad)
    yield
    RAN.add(request.function)


def _collect():
    for module in MODULES:
        short = module.__name__.rsplit(".", 1)[1][len("test_"):]
        for name, fn in vars(module).items():
            if name.startswith("test_") and callable(fn) and \
                    {"check_forward", "check_grad"} & set(fn.__code__.co_names):
                yield f"test_graph_{short}__{name[len('test_'):]}", fn


PARITY = dict(_collect())
globals().update(PARITY)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


# Operators no tests/ops case checks through check_forward: eager vs graph on one input each.
EXTRA = {
    "argmax": (lambda x: ms.ops.argmax(x, 1), [_rand(3, 4)]),
    "cast": (lambda x: ms.ops.cast(x, ms.float64), [_rand(3, 4)]),
    "compare": (lambda x, y: (x == y, x != y, x < y, x <= y, x > y, x >= y),
                [_rand(3, 4), np.round(_rand(3, 4, seed=1))]),
    "one_hot": (lambda i: ms.ops.one_hot(i, 5, ms.Tensor(1.0), ms.Tensor(0.0)),
                [np.array([0, 3, 4], np.int32)]),
    "ones_like": (lambda x: ms.ops.ones_like(x), [_rand(2, 3)]),
    "scalar_to_tensor": (lambda x: x * ms.ops.scalar_to_tensor(3.0), [_rand(2)]),
    "dynamic_broadcast_to": (lambda x: ms.ops.DynamicBroadcastTo()(x, (3, 4)), [_rand(1, 4)]),
    "dropout": (lambda x: ms.ops.dropout(x, p=0.4), [_rand(8, 16)]),
    "micro_batch_slice": (lambda x: ms.ops.MicroBatchSlice(1, 4)(x) * 2.0, [_rand(8, 3)]),
    "stop_gradient": (lambda x: ms.ops.stop_gradient(x) * 2.0, [_rand(3, 4)]),
    "embedding_lookup": (lambda t, i: ms.ops.EmbeddingLookup()(t, i, 2),
                         [_rand(5, 3), np.array([[2, 6], [9, 3]], np.int32)]),
    "check_label_range": (lambda y: CheckLabelRange("test")(y, 5) + 0,
                          [np.array([0, 3, 4], np.int32)]),
    "integer_ops": (lambda x, y: (x & y, x | y, x ^ y, ms.ops.invert(x),
                                  ms.ops.population_count(x), ms.ops.bitwise_left_shift(x, y),
                                  ms.ops.bitwise_right_shift(x, y), ms.ops.gcd(x, y),
                                  ms.ops.lcm(x, y)),
                    [np.array([[12, -7, 5], [0, 9, 30]], np.int32),
                     np.array([[18, 3, 4], [5, 6, 2]], np.int32)]),
    "cummax_cummin": (lambda x: ms.ops.cummax(x, 1) + ms.ops.cummin(x, 0), [_rand(3, 4)]),
    "searchsorted": (lambda s, v: ms.ops.searchsorted(s, v, right=True),
                     [np.sort(_rand(6)), _rand(2, 5, seed=1)]),
    "value_checks": (lambda x: ms.ops.CheckNumerics()(x) + ms.ops.mvlgamma(x + 3.0, 2),
                     [_rand(3, 4)]),
}


@pytest.mark.parametrize("case", sorted(EXTRA))
def test_graph_extra_op(case):
    fn, arrays = EXTRA[case]
    tensors = [Tensor(a) for a in arrays]
    ms.set_seed(3)
    eager = fn(*tensors)
    executable = compile_fn(fn, tensors)
    _record(executable)
    ms.set_seed(3)
    got = executable.run(arrays)
    eager = eager if isinstance(eager, tuple) else (eager,)
    got = got if isinstance(got, tuple) else (got,)
    for g, e in zip(got, eager):
        assert g.dtype == e.dtype and tuple(g.shape) == tuple(e.shape)
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-6, atol=1e-7)
    _check_planned(fn, tensors, (), eager, seed=3)


def test_every_operator_runs_in_a_graph():
    if not set(PARITY.values()) | {test_graph_extra_op} <= RAN:
        pytest.skip("needs every parity test above in the same run (they record coverage)")
    missing = sorted(set(operator_classes()) - COVERED - set(ELSEWHERE))
    assert not missing, f"operators never traced and executed by the parity tests: {missing}"


def test_every_out_writing_operator_ran_into_a_planned_buffer():
    """Each operator whose impl takes out= (Primitive.writes_out) ran at least once writing into
    a memory-plan buffer, on two runs, equal to eager (the check inside graph_check_forward)."""
    if not set(PARITY.values()) | {test_graph_extra_op} <= RAN:
        pytest.skip("needs every parity test above in the same run (they record coverage)")
    writers = {name for name, cls in operator_classes().items() if cls.writes_out}
    missing = sorted(writers - PLANNED - set(ELSEWHERE))
    assert not missing, f"operators taking out= never ran into a planned buffer: {missing}"
