"""MindSpore's reducing scatters (ops/function/scatter_reduce_func.py): Scatter* and
ScatterNd* writing into a Parameter in place, TensorScatterMul/Div/Max/Min,
UnsortedSegmentMax/Min/Prod, IndexAdd, Inplace* and InplaceIndexAdd against float64 numpy
loops (repeated indices fold in order), finite-difference gradients and MindSpore 2.7.2's
errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, ops
from tests.ops.harness import check_grad, rand

FOLD = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
        "max": np.maximum, "min": np.minimum, "update": lambda a, b: b}
ROWS = np.array([0, 2, 0, 3], np.int32)          # row 0 twice


def _rows_reference(x, index, updates, kind):
    out = x.astype(np.float64)
    for j, r in enumerate(index.reshape(-1)):
        out[r] = FOLD[kind](out[r], updates.reshape((-1,) + x.shape[1:])[j])
    return out


@pytest.mark.parametrize("kind", sorted(FOLD))
def test_scatter_writes_the_parameter_in_place(kind):
    x = rand(4, 3, dtype=np.float64, low=1, high=2, seed=0)
    u = rand(4, 3, dtype=np.float64, low=1, high=2, seed=1)
    p = Parameter(Tensor(x), name="p")
    out = getattr(ops, "Scatter" + kind.capitalize())()(p, Tensor(ROWS), Tensor(u))
    want = _rows_reference(x, ROWS, u, kind)
    np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-12)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-12)


@pytest.mark.parametrize("kind", sorted(FOLD))
def test_scatter_nd_writes_the_parameter_in_place(kind):
    x = rand(3, 2, 2, dtype=np.float64, low=1, high=2, seed=2)
    idx = np.array([[0, 1], [2, 0], [0, 1]], np.int64)      # (0, 1) twice
    u = rand(3, 2, dtype=np.float64, low=1, high=2, seed=3)
    p = Parameter(Tensor(x), name="p")
    getattr(ops, "ScatterNd" + kind.capitalize())()(p, Tensor(idx), Tensor(u))
    want = x.copy()
    for j, (a, b) in enumerate(idx):
        want[a, b] = FOLD[kind](want[a, b], u[j])
    np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-12)


@pytest.mark.parametrize("kind", ["mul", "div", "max", "min"])
def test_tensor_scatter_is_out_of_place_and_differentiable(kind):
    fn = getattr(ops, "tensor_scatter_" + kind)
    x = rand(4, 3, dtype=np.float64, low=1, high=2, seed=4)
    idx = np.array([[1], [3]], np.int32)
    u = rand(2, 3, dtype=np.float64, low=0.5, high=2.5, seed=5)
    xt = Tensor(x)
    out = fn(xt, Tensor(idx), Tensor(u)).asnumpy()
    np.testing.assert_allclose(out, _rows_reference(x, idx[:, 0], u, kind), rtol=1e-12)
    np.testing.assert_array_equal(xt.asnumpy(), x)
    check_grad(lambda a, b: fn(a, Tensor(idx), b), [x, u])


def test_tensor_scatter_mul_gradient_with_repeated_rows_and_a_zero_update():
    idx = np.array([[0], [0], [2]], np.int32)
    x = rand(3, 2, dtype=np.float64, low=1, high=2, seed=6)
    u = rand(3, 2, dtype=np.float64, low=1, high=2, seed=7)
    check_grad(lambda a, b: ops.tensor_scatter_mul(a, Tensor(idx), b), [x, u])
    u[2, 0] = 0.0
    check_grad(lambda a, b: ops.tensor_scatter_mul(a, Tensor(idx), b), [x, u])


@pytest.mark.parametrize("kind", ["max", "min", "prod"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_unsorted_segment(kind, dtype):
    x = (rand(5, 3, seed=8, low=1, high=4) * (1 if dtype != np.int32 else 3)).astype(dtype)
    ids = np.array([0, 2, 0, 2, 0], np.int32)
    out = getattr(ops, "unsorted_segment_" + kind)(Tensor(x), Tensor(ids), 4).asnumpy()
    fold = {"max": np.max, "min": np.min, "prod": np.prod}[kind]
    empty = {"max": (np.finfo if dtype != np.int32 else np.iinfo)(dtype).min,
             "min": (np.finfo if dtype != np.int32 else np.iinfo)(dtype).max, "prod": 1}[kind]
    for s in range(4):
        rows = x[ids == s]
        want = fold(rows.astype(np.float64), 0) if rows.size else np.full(3, empty, np.float64)
        np.testing.assert_allclose(out[s].astype(np.float64), want, rtol=1e-6)
    assert out.dtype == dtype


def test_unsorted_segment_gradients():
    ids = np.array([0, 1, 0, 1], np.int32)
    x = rand(4, 2, dtype=np.float64, low=1, high=3, seed=9)
    for fn in (ops.unsorted_segment_max, ops.unsorted_segment_min, ops.unsorted_segment_prod):
        check_grad(lambda a: fn(a, Tensor(ids), 2), [x])    # no empty segment: its -max
    tie = Tensor(np.array([1., 1., 2.], np.float32))        # MindSpore: ties share dout
    g = ops.grad(lambda a: ops.unsorted_segment_max(a, Tensor(np.array([0, 0, 1], np.int32)),
                                                    2).sum())(tie)
    np.testing.assert_allclose(g.asnumpy(), [0.5, 0.5, 1.0])


def test_index_add_along_an_axis_in_place_and_its_gradient():
    x = rand(2, 3, 2, dtype=np.float64, seed=10)
    y = rand(2, 4, 2, dtype=np.float64, seed=11)
    idx = np.array([2, 0, 2, 1], np.int32)
    p = Parameter(Tensor(x), name="p")
    ops.IndexAdd(axis=1)(p, Tensor(idx), Tensor(y))
    want = x.copy()
    for j, r in enumerate(idx):
        want[:, r] += y[:, j]
    np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-12)
    check_grad(lambda a, b: ops.index_add(a, Tensor(idx), b, 1), [x, y])
    t = Tensor(x)
    t.index_add(1, Tensor(idx), Tensor(y), alpha=2)
    np.testing.assert_allclose(t.asnumpy(), x + 2 * (want - x), rtol=1e-12)


def test_inplace_ops_are_out_of_place_and_inplace_index_add_writes():
    x = rand(3, 2, dtype=np.float64, seed=12)
    v = rand(2, 2, dtype=np.float64, seed=13)
    t = Tensor(x)
    np.testing.assert_allclose(ops.inplace_add(t, Tensor(v), (0, 0)).asnumpy(),
                               x + np.stack([v[0] + v[1], 0 * v[0], 0 * v[0]]), rtol=1e-12)
    np.testing.assert_allclose(ops.InplaceSub((2, 1))(t, Tensor(v)).asnumpy(),
                               x - np.stack([0 * v[0], v[1], v[0]]), rtol=1e-12)
    up = ops.InplaceUpdateV2()(t, Tensor(np.array([0, -1], np.int32)), Tensor(v)).asnumpy()
    np.testing.assert_allclose(up, np.stack([v[0], x[1], v[1]]))
    np.testing.assert_array_equal(t.asnumpy(), x)
    ops.inplace_index_add(t, Tensor(np.array([1, 1], np.int32)), Tensor(v), 0)
    np.testing.assert_allclose(t.asnumpy(), x + np.stack([0 * v[0], v[0] + v[1], 0 * v[0]]))


def test_int_division_truncates_and_float16_rounds():
    p = Parameter(Tensor(np.array([[-7, 7]], np.int32)), name="q")
    ops.scatter_div(p, Tensor(np.array([0], np.int32)), Tensor(np.array([[2, 2]], np.int32)))
    assert p.asnumpy().tolist() == [[-3, 3]]
    with pytest.raises(ValueError, match="ScatterDiv.*must not contain 0"):
        ops.scatter_div(p, Tensor(np.array([0], np.int32)), Tensor(np.array([[0, 2]], np.int32)))
    # MindSpore's ScatterNdDiv divides an int by 0 through the float quotient: -inf -> min.
    q = Parameter(Tensor(np.array([-2, 5], np.int64)), name="q")
    ops.scatter_nd_div(q, Tensor(np.array([[0], [1]], np.int32)),
                       Tensor(np.array([0, 2], np.int64)))
    assert q.asnumpy().tolist() == [np.iinfo(np.int64).min, 2]
    h = Tensor(np.array([[1., 2.]], np.float16))
    out = ops.tensor_scatter_max(h, Tensor(np.array([[0]], np.int32)),
                                 Tensor(np.array([[3., 1.]], np.float16)))
    assert out.dtype == ms.float16 and out.asnumpy().tolist() == [[3.0, 2.0]]


def test_errors_name_the_operator():
    p = Parameter(Tensor(np.ones((3, 2), np.float32)), name="p")
    u = Tensor(np.ones((2, 2), np.float32))
    with pytest.raises(RuntimeError, match=r"ScatterAdd.*\[0, 3\).*'5'"):
        ops.scatter_add(p, Tensor(np.array([0, 5], np.int32)), u)
    with pytest.raises(RuntimeError, match="ScatterMax.*'-1'"):
        ops.scatter_max(p, Tensor(np.array([0, -1], np.int32)), u)
    with pytest.raises(ValueError, match="updates_shape"):
        ops.scatter_add(p, Tensor(np.array([0, 1], np.int32)), Tensor(np.ones((2, 3),
                                                                              np.float32)))
    with pytest.raises(TypeError, match="dtype"):
        ops.scatter_mul(p, Tensor(np.array([0, 1], np.int32)), Tensor(np.ones((2, 2))))
    with pytest.raises(RuntimeError, match="ScatterNdAdd.*out of range"):
        ops.scatter_nd_add(p, Tensor(np.array([[0], [5]], np.int32)), u)
    with pytest.raises(ValueError, match="ScatterNdUpdate.*out of range"):
        ops.scatter_nd_update(p, Tensor(np.array([[0], [5]], np.int32)), u)
    with pytest.raises(ValueError, match="num_segments"):
        ops.unsorted_segment_max(u, Tensor(np.array([0, 1], np.int32)), 0)
    with pytest.raises(TypeError, match="segment_ids"):
        ops.unsorted_segment_min(u, Tensor(np.array([0, 1], np.float32)), 2)
    with pytest.raises(TypeError, match="IndexAdd.*Int32"):
        ops.index_add(p, Tensor(np.array([0, 1], np.int64)), u, 0)
    with pytest.raises(ValueError, match=r"InplaceAdd.*\[0,3\)"):
        ops.inplace_add(p, Tensor(np.ones((1, 2), np.float32)), 5)
    with pytest.raises(TypeError, match="InplaceAdd.*indices"):
        ops.inplace_add(p, u, Tensor(np.array([0, 1], np.int32)))
    with pytest.raises(RuntimeError, match="InplaceIndexAdd.*range"):
        ops.inplace_index_add(p, Tensor(np.array([0, 5], np.int32)), u, 0)
    with pytest.raises(TypeError, match="use_locking"):
        ops.ScatterAdd(use_locking=1)(p, Tensor(np.array([0, 1], np.int32)), u)


def test_graph_mode_with_a_parameter_index_and_an_out_of_range_value():
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.x = Parameter(Tensor(np.ones((4, 2), np.float32)), name="x")
            self.op = ops.ScatterNdUpdate()

        def construct(self, indices, updates):
            return self.op(self.x, indices, updates)

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Net()
        upd = Tensor(np.full((2, 2), 3, np.float32))
        out = net(Parameter(Tensor(np.array([[3], [1]], np.int32)), name="i"), upd)
        assert out.asnumpy().tolist() == [[1, 1], [3, 3], [1, 1], [3, 3]]
        with pytest.raises(ValueError, match="ScatterNdUpdate"):
            net(Tensor(np.array([[3], [4]], np.int32)), upd)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
