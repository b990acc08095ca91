"""ops.vmap's batching level (minispore/ops/batching.py): each operator's batching rule equals
running the function on every slice, and runs the operator once on the whole batch (a level
beneath vmap counts the calls that really run); gradients through and inside vmap, nested
vmap, compiled vmap, and what falls back to a per-slice loop (with a warning) or is refused."""
import collections
import logging

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.common.context import Interpreter

RNG = np.random.default_rng(7)
B = 4


def _rand(*shape, dtype=np.float64):
    return Tensor(RNG.standard_normal(shape).astype(dtype))


class CallCounter(Interpreter):
    """A level beneath vmap: counts the operators that really run, by name."""

    def __init__(self):
        super().__init__()
        self.calls = collections.Counter()

    def apply(self, prim, args):
        self.calls[prim.name] += 1
        return self.apply_below(prim, args)


def _leaves(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def _per_slice(fn, args, in_axes):
    """fn on each slice outside vmap, stacked along axis 0 (the reference)."""
    outs = []
    for i in range(B):
        sliced = [a if ax is None else Tensor(np.take(a.asnumpy(), i, axis=ax))
                  for a, ax in zip(args, in_axes)]
        outs.append([o.asnumpy() for o in _leaves(fn(*sliced))])
    return [np.stack(col) for col in zip(*outs)]


X = _rand(B, 3)
M = _rand(B, 2, 3)
W = _rand(3, 5)
IMG = _rand(B, 2, 3, 6, 6, dtype=np.float32)
KERNEL = _rand(4, 3, 3, 3, dtype=np.float32)
IDX = Tensor(np.array([2, 0, 1, 1], np.int32))
IDX_B = Tensor(RNG.integers(0, 3, (B, 2)).astype(np.int32))
SPD = Tensor(np.stack([np.eye(3) * (2 + i) + 0.1 for i in range(B)]))

# name: (fn, args, in_axes, the operator that must run once on the batch)
CASES = {
    "unary": (ops.exp, (X,), (0,), "Exp"),
    "binary_unmapped_operand": (lambda a, w: a * w[0], (X, W.T), (0, None), "Mul"),
    "binary_lower_rank_mapped": (lambda s, m: s + m, (X[:, 0], M[0]), (0, None), "Add"),
    "mapped_axis_1": (lambda a: ops.tanh(a) * 2, (Tensor(np.swapaxes(M.asnumpy(), 0, 1)),), (1,),
                      "Tanh"),
    "reduce_keepdims": (lambda a: a.sum(axis=-1, keepdims=True), (M,), (0,), "ReduceSum"),
    "reduce_all": (lambda a: a.mean(), (M,), (0,), "ReduceMean"),
    "reduce_max": (lambda a: a.max(axis=0), (M,), (0,), "ReduceMax"),
    "softmax": (lambda a: ops.softmax(a, axis=0), (M,), (0,), "Softmax"),
    "argmax": (lambda a: ops.argmax(a, dim=0), (M,), (0,), "Argmax"),
    "reshape": (lambda a: a.reshape(3, -1), (M,), (0,), "Reshape"),
    "transpose": (lambda a: a.T, (M,), (0,), "Transpose"),
    "expand_dims": (lambda a: ops.expand_dims(a, 1), (M,), (0,), "Reshape"),
    "squeeze": (lambda a: ops.squeeze(a[:, :1], 1), (M,), (0,), "Reshape"),
    "concat_unmapped": (lambda a, b: ops.concat((a, b), axis=0), (M, M[0]), (0, None), "Concat"),
    "split": (lambda a: ops.split(a, 1, axis=-1), (M,), (0,), "Split"),
    "matmul_unmapped_weight": (lambda a, w: ops.matmul(a, w), (M, W), (0, None), "BatchMatMul"),
    "matmul_both_mapped": (lambda a, b: ops.matmul(a, b.T), (M, M), (0, 0), "BatchMatMul"),
    "gather_mapped_params": (lambda p, i: ops.gather(p, i, 1), (M, IDX[:2]), (0, None),
                             "Gather"),
    "gather_mapped_indices": (lambda p, i: ops.gather(p, i, 1), (M[0], IDX_B), (None, 0),
                              "Gather"),
    "gather_elements": (lambda a, i: ops.gather_elements(a, 1, i), (M, IDX_B.reshape(B, 1, 2)),
                        (0, 0), "GatherD"),
    "slicing": (lambda a: a[1:, ::2], (M,), (0,), "StridedSlice"),
    "indexing": (lambda a: a[0, 1] * a, (M,), (0,), "Mul"),
    "tile": (lambda a: ops.tile(a, (2, 1, 1)), (M,), (0,), "Tile"),
    "broadcast_to": (lambda a: ops.broadcast_to(a, (2, 2, 3)), (M,), (0,), "BroadcastTo"),
    "cumsum": (lambda a: ops.cumsum(a, axis=-1), (M,), (0,), "CumSum"),
    "sort": (lambda a: ops.sort(a, axis=0)[0], (M,), (0,), "Sort"),
    "topk": (lambda a: ops.topk(a, 2)[1], (M,), (0,), "TopK"),
    "one_hot": (lambda i: ops.one_hot(i, 3, Tensor(1.0), Tensor(0.0), axis=0), (IDX_B,), (0,),
                "OneHot"),
    "matrix_inverse": (lambda a: ops.inverse(a), (SPD,), (0,), "MatrixInverse"),
    "conv2d": (lambda x, k: ops.conv2d(x, k, pad_mode="same"), (IMG, KERNEL), (0, None),
               "Conv2D"),
    "max_pool2d": (lambda x: ops.max_pool2d(x, 2, 2), (IMG,), (0,), "MaxPool"),
    "max_pool_argmax_grad": (lambda x, d: ops.MaxPoolGradWithArgmax(True)(
                                 x, d, ops.MaxPoolWithArgmax(2, 2)(x)[1]),
                             (IMG, _rand(B, 2, 3, 3, 3, dtype=np.float32)), (0, 0),
                             "MaxPoolGradWithArgmax"),
    "rolling": (lambda a: ops.Rolling(2, 1, False, 0, "right", "sum")(a), (M,), (0,),
                "Rolling"),
    "shift": (lambda a: ops.Shift(1, -1)(a, 0.5), (M,), (0,), "Shift"),
    "bias_add": (lambda x, b: ops.bias_add(x, b), (IMG, _rand(3, dtype=np.float32)), (0, None),
                 "BiasAdd"),
    "softmax_cross_entropy": (lambda lg, lb: ops.SoftmaxCrossEntropyWithLogits()(lg, lb)[0],
                              (M, ops.softmax(_rand(B, 2, 3), axis=-1)), (0, 0),
                              "SoftmaxCrossEntropyWithLogits"),
    "segment_sum_shared_ids": (lambda x, i: ops.unsorted_segment_sum(x, i, 3),
                               (M, IDX[:2]), (0, None), "UnsortedSegmentSum"),
    # ids out of [0, 3) are dropped in each slice, not counted in a neighbour's segments
    "segment_sum_mapped_ids": (lambda x, i: ops.unsorted_segment_sum(x, i, 3),
                               (M, Tensor(np.array([[0, 3], [-1, 2], [1, 1], [2, 0]], np.int32))),
                               (0, 0), "UnsortedSegmentSum"),
    "conv2d_backprop_input": (lambda d, k: ops.Conv2DBackpropInput(4, 3, pad_mode="same")(
                                  d, k, (2, 3, 6, 6)),
                              (_rand(B, 2, 4, 6, 6, dtype=np.float32), KERNEL), (0, None),
                              "Conv2DBackpropInput"),
    "conv2d_backprop_filter": (lambda d, x: ops.Conv2DBackpropFilter(4, 3, pad_mode="same")(
                                   d, x, (4, 3, 3, 3)),
                               (_rand(B, 2, 4, 6, 6, dtype=np.float32), IMG), (0, 0),
                               "Conv2DBackpropFilter"),
    "grouped_conv2d_backprop_filter": (lambda d, x: ops.Conv2DBackpropFilter(
                                           4, 3, pad_mode="valid", group=2)(
                                           d, x, (4, 2, 3, 3)),
                                       (_rand(B, 2, 4, 4, 4, dtype=np.float32),
                                        _rand(B, 2, 4, 6, 6, dtype=np.float32)), (0, 0),
                                       "Conv2DBackpropFilter"),
    "layer_norm": (lambda x, g: ops.LayerNorm(1, 1)(x, g, g * 0.5)[0],
                   (M, _rand(3)), (0, None), "LayerNorm"),
    "layer_norm_grad": (lambda x, d, g: ops.LayerNormGrad(1, 1)(
                            x, d, x.var(axis=(1, 2), keepdims=True),
                            x.mean(axis=(1, 2), keep_dims=True), g),
                        (_rand(B, 2, 3, 4), _rand(B, 2, 3, 4), _rand(3, 4)), (0, 0, None),
                        "LayerNormGrad"),
    "layer_norm_grad_rows_from_0": (lambda x, d, g: ops.LayerNormGrad(0, 0)(
                                        x, d, x.var(keepdims=True), x.mean(keep_dims=True), g),
                                    (M, _rand(B, 2, 3), _rand(2, 3)), (0, 0, None),
                                    "LayerNormGrad"),
    # each slice its own batch statistics (plain-Tensor moving statistics: nothing written)
    "batch_norm_training": (lambda x, g: ops.BatchNorm(True)(x, g, g * 0.5, g * 0.1, g * g),
                            (IMG, _rand(3, dtype=np.float32)), (0, None), "BatchNorm"),
    "batch_norm_inference_mapped_scale": (lambda x, g: ops.BatchNorm()(
                                              x, g, g * 0.5, g * 0.1, g * g)[0],
                                          (IMG, _rand(B, 3, dtype=np.float32)), (0, 0),
                                          "BatchNorm"),
    "batch_norm_grad": (lambda d, x, g: ops.BatchNormGrad(True)(
                            d, x, g, x.mean(axis=(0, 2, 3)),
                            1 / ops.sqrt(x.var(axis=(0, 2, 3)) + 1e-5)),
                        (_rand(B, 2, 3, 6, 6, dtype=np.float32), IMG, _rand(3, dtype=np.float32)),
                        (0, 0, None), "BatchNormGrad"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_rule_equals_every_slice_and_runs_the_operator_once(name, caplog):
    fn, args, in_axes, op = CASES[name]
    expected = _per_slice(fn, args, in_axes)
    counter = CallCounter()
    with caplog.at_level(logging.WARNING, logger="minispore"), counter:
        out = ops.vmap(fn, in_axes=in_axes)(*args)
    assert "vmap:" not in caplog.text
    assert counter.calls[op] == 1, dict(counter.calls)
    for got, want in zip(_leaves(out), expected):
        tol = 1e-5 if got.dtype == ms.float32 else 1e-12
        np.testing.assert_allclose(got.asnumpy(), want, rtol=tol, atol=tol)


def _loss(w, x):
    h = ops.tanh(ops.matmul(x, w))
    return (h * h).sum()


def test_vmap_of_grad_gives_per_example_gradients_from_one_batched_backward(caplog):
    w, xs = _rand(3, 5), _rand(B, 2, 3)
    expected = [ms.grad(_loss, 0)(w, Tensor(xs.asnumpy()[i])).asnumpy() for i in range(B)]
    counter = CallCounter()
    with caplog.at_level(logging.WARNING, logger="minispore"), counter:
        got = ops.vmap(ms.grad(_loss, 0), in_axes=(None, 0))(w, xs)
    np.testing.assert_allclose(got.asnumpy(), np.stack(expected), rtol=1e-12)
    # float64 reference: d/dw sum(tanh(x w)^2) = x^T (2 tanh (1 - tanh^2))
    x64, w64 = xs.asnumpy(), w.asnumpy()
    t = np.tanh(x64 @ w64)
    np.testing.assert_allclose(got.asnumpy(), np.swapaxes(x64, 1, 2) @ (2 * t * (1 - t * t)),
                               rtol=1e-10)
    assert counter.calls["BatchMatMul"] >= 2 and counter.calls["MatMul"] == 0, counter.calls
    assert counter.calls["Tanh"] == 1
    assert "vmap:" not in caplog.text      # the backward's operators were batched too


class _ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="valid")
        self.pool = nn.MaxPool2d(2, 2)
        self.fc = nn.Dense(36, 10)
        self.emb = nn.Embedding(20, 10)

    def construct(self, x, ids):
        h = self.pool(ops.relu(self.conv(x)))
        return self.fc(h.reshape(h.shape[0], -1)) + self.emb(ids).sum(1)


def test_per_example_gradients_of_a_conv_net_are_batched_throughout(caplog):
    net = _ConvNet()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    grad = ms.grad(lambda x, i, y: loss_fn(net(x, i), y), None, net.trainable_params())
    xs = _rand(B, 2, 1, 8, 8, dtype=np.float32)
    ids = Tensor(RNG.integers(0, 20, (B, 2, 3)).astype(np.int32))
    ys = Tensor(RNG.integers(0, 10, (B, 2)).astype(np.int32))
    with caplog.at_level(logging.WARNING, logger="minispore"):
        got = ops.vmap(grad)(xs, ids, ys)
    assert "vmap:" not in caplog.text
    expected = [grad(xs[k], ids[k], ys[k]) for k in range(B)]
    for g, per_slice in zip(got, zip(*expected)):
        np.testing.assert_allclose(g.asnumpy(), np.stack([e.asnumpy() for e in per_slice]),
                                   rtol=1e-4, atol=1e-6)


def test_grad_of_vmap_equals_finite_differences():
    w, xs = _rand(3, 5), _rand(B, 2, 3)

    def total(wt, x):
        return ops.vmap(_loss, in_axes=(None, 0))(wt, x).sum()
    got = ms.grad(total, 0)(w, xs).asnumpy()
    base, eps = w.asnumpy(), 1e-6
    numeric = np.zeros_like(base)
    for k in np.ndindex(base.shape):
        up, down = base.copy(), base.copy()
        up[k] += eps
        down[k] -= eps
        numeric[k] = (total(Tensor(up), xs).asnumpy() - total(Tensor(down), xs).asnumpy()) / (
            2 * eps)
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-8)


def test_nested_vmap_batches_each_level():
    a, b = _rand(B, 3), _rand(5, 3)
    counter = CallCounter()
    with counter:
        out = ops.vmap(ops.vmap(lambda x, y: (x * y).sum(), in_axes=(None, 0)),
                       in_axes=(0, None))(a, b)
    np.testing.assert_allclose(out.asnumpy(), a.asnumpy() @ b.asnumpy().T, rtol=1e-12)
    assert counter.calls["Mul"] == 1 and counter.calls["ReduceSum"] == 1, counter.calls


def test_compiled_vmap_of_a_cell_equals_pynative():
    net = nn.Dense(3, 2)
    xs = _rand(B, 5, 3, dtype=np.float32)
    eager = ops.vmap(net)(xs).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        compiled = ms.jit(lambda x: ops.vmap(net)(x))(xs).asnumpy()
        graph_cell = ops.vmap(net)(xs).asnumpy()    # a GRAPH-mode Cell runs inline, batched
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(compiled, eager, rtol=1e-6)
    np.testing.assert_allclose(graph_cell, eager, rtol=1e-6)


def test_an_operator_without_a_rule_runs_per_slice_and_says_so(caplog):
    seq = Tensor(np.array([1.0, 3.0, 5.0, 7.0]))
    vals = _rand(B, 3)
    with caplog.at_level(logging.WARNING, logger="minispore"):
        out = ops.vmap(lambda v: ops.searchsorted(seq, v), in_axes=0)(vals)
    assert "'SearchSorted' runs once per slice" in caplog.text
    np.testing.assert_array_equal(out.asnumpy(), np.searchsorted(seq.asnumpy(), vals.asnumpy()))


def test_python_control_flow_on_a_mapped_value_runs_per_slice_and_says_so(caplog):
    def f(x):
        return x * 2 if x.sum() > 0 else -x
    xs = _rand(B, 3)
    with caplog.at_level(logging.WARNING, logger="minispore"):
        out = ops.vmap(f)(xs)
    assert "reads the value of a mapped Tensor" in caplog.text and "test_vmap_batching" in \
        caplog.text
    want = [r * 2 if r.sum() > 0 else -r for r in xs.asnumpy()]
    np.testing.assert_array_equal(out.asnumpy(), np.stack(want))


def test_writes_of_per_slice_values_are_refused():
    p = Parameter(Tensor(np.zeros(3)), name="p")
    with pytest.raises(NotImplementedError, match="'Assign' inside vmap"):
        ops.vmap(lambda x: ops.assign(p, x))(_rand(B, 3))
    outside = Tensor(np.zeros(3))

    def write(x):
        outside[0] = x[0]
        return x
    with pytest.raises(RuntimeError, match="the Tensor written into is not mapped"):
        ops.vmap(write)(_rand(B, 3))


def _stacked_state(*names, shape=(B, 3, 2)):
    return [Parameter(Tensor(RNG.uniform(0.1, 1.0, shape).astype(np.float32)), name=n)
            for n in names]


def test_optimizer_updates_of_mapped_parameters_update_each_slice():
    """MindSpore's model ensembling: stacked Parameters mapped on axis 0 and updated inside
    vmap (an _ApplyUpdate primitive, and a composite update that assigns) equal the update of
    each slice on its own."""
    grad = Tensor(RNG.standard_normal((B, 3, 2)).astype(np.float32))
    hyper = [Tensor(np.float32(v)) for v in (0.9, 0.999, 0.01, 0.9, 0.999, 1e-8)]

    def adam(var, m, v, g):
        return ops.Adam()(var, m, v, *hyper, g)

    def amsgrad(var, m, v, vhat, g):
        return ops.ApplyAdamWithAmsgrad()(var, m, v, vhat, *hyper[:3], g)
    for update, names in ((adam, "var m v"), (amsgrad, "var m v vhat")):
        state = _stacked_state(*names.split())
        alone = [Parameter(Tensor(p.asnumpy()[i]), name=f"{p.name}{i}")
                 for i in range(B) for p in state]
        counter = CallCounter()
        with counter:
            ops.vmap(update, in_axes=(0,) * len(state) + (0,))(*state, grad)
        assert counter.calls[{"adam": "Adam", "amsgrad": "Assign"}[update.__name__]] == \
            {"adam": 1, "amsgrad": len(state)}[update.__name__]
        k = len(state)
        for i in range(B):
            update(*alone[i * k:(i + 1) * k], Tensor(grad.asnumpy()[i]))
            for j, p in enumerate(state):
                np.testing.assert_allclose(p.asnumpy()[i], alone[i * k + j].asnumpy(),
                                           rtol=1e-6, err_msg=f"{update.__name__} {p.name}")


def test_nested_vmap_updates_the_parameter_of_the_outer_one():
    var, accum = _stacked_state("var", "accum", shape=(2, B, 3))
    grad = Tensor(RNG.standard_normal((2, B, 3)).astype(np.float32))
    want_var, want_accum = var.asnumpy().copy(), accum.asnumpy().copy()
    want_accum = want_accum * 0.9 + grad.asnumpy()
    want_var = want_var - 0.1 * want_accum

    def step(v, a, g):
        return ops.ApplyMomentum()(v, a, 0.1, g, 0.9)
    ops.vmap(ops.vmap(step))(var, accum, grad)
    np.testing.assert_allclose(accum.asnumpy(), want_accum, rtol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), want_var, rtol=1e-6)


def test_assign_into_a_parameter_mapped_on_another_axis():
    p = Parameter(Tensor(np.zeros((3, B))), name="p")
    x = _rand(B, 3)
    ops.vmap(lambda q, v: ops.assign(q, v * 2), in_axes=(1, 0))(p, x)
    np.testing.assert_array_equal(p.asnumpy(), x.asnumpy().T * 2)


def test_writes_that_cannot_reach_one_parameter_are_refused():
    (var, accum), grad = _stacked_state("var", "accum"), _rand(B, 3, 2, dtype=np.float32)
    lr = Tensor(np.full(B, 0.1, np.float32))
    with pytest.raises(NotImplementedError, match="the hyperparameter 'learning_rate' is "
                                                  "mapped"):
        ops.vmap(lambda v, a, g, r: ops.ApplyMomentum()(v, a, r, g, 0.9))(var, accum, grad, lr)
    moved = Parameter(Tensor(np.zeros((3, B, 2), np.float32)), name="moved")
    with pytest.raises(NotImplementedError, match="'variable' is not a Parameter mapped on "
                                                  "axis 0"):
        ops.vmap(lambda v, a, g: ops.ApplyMomentum()(v, a, 0.1, g, 0.9),
                 in_axes=(1, 0, 0))(moved, accum, grad)


def test_in_place_writes_into_a_mapped_parameter_land_in_it():
    (var,) = _stacked_state("var")
    before = var.asnumpy().copy()

    def write(v):
        v[0] = v[1] * 2
        return v
    out = ops.vmap(write)(var)
    before[:, 0] = before[:, 1] * 2
    np.testing.assert_allclose(var.asnumpy(), before, rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), before, rtol=1e-6)
    (table,) = _stacked_state("table")
    rows = Tensor(np.array([[2], [0]], np.int32))
    before = table.asnumpy().copy()
    ops.vmap(lambda t: ops.scatter_nd_add(t, rows, Tensor(np.ones((2, 2), np.float32))))(table)
    before[:, [2, 0]] += 1
    np.testing.assert_allclose(table.asnumpy(), before, rtol=1e-6)
