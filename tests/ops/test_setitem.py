"""Tensor.__setitem__ (int, slice, tuple, bool-mask and integer-index keys; scalar and Tensor
values broadcast to the selected region), in place as in MindSpore, differentiable with respect
to the value and the kept part of the tensor; and bool-mask reads (x[mask], ops.masked_select),
PYNATIVE only since their length depends on the data."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from tests.ops.harness import check_grad, rand

A = np.arange(24, dtype=np.float64).reshape(4, 6) / 7.0

# key (given as a numpy-usable index and a minispore builder), value
BASIC = [
    (1, 5.0),
    (-1, np.arange(6.0)),
    ((slice(1, 3), slice(None, None, 2)), -2.5),
    ((2, slice(4, 0, -1)), np.array([1.0, 2.0, 3.0, 4.0])),
    ((Ellipsis, 3), np.array([9.0, 8.0, 7.0, 6.0])),
    ((slice(None), slice(1, 2)), np.array([[1.0], [2.0], [3.0], [4.0]])),
    ((0, 0), 11.0),
    (slice(None), np.arange(6.0)),                # every row: the value broadcasts
    ((None, 1), np.ones((1, 1, 6))),              # a new axis; extra leading 1s in the value
]


def _expected(a, key, value):
    out = a.copy()
    out[key] = np.asarray(value)
    return out


def _value(v, dtype=np.float32):
    return Tensor(np.asarray(v, dtype)) if isinstance(v, np.ndarray) else v


@pytest.mark.parametrize("key, value", BASIC)
def test_setitem_basic_keys_match_numpy(key, value):
    x = Tensor(A.astype(np.float32))
    x[key] = _value(value)
    np.testing.assert_allclose(x.asnumpy(), _expected(A, key, value), rtol=1e-6)


def test_setitem_keeps_the_dtype_and_casts_the_value():
    x = Tensor(np.arange(6).reshape(2, 3))                  # int64
    x[0, 1:] = Tensor(np.array([7.9, -3.2], np.float32))
    x[1, 0] = 100
    assert x.dtype == ms.int64
    np.testing.assert_array_equal(x.asnumpy(), [[0, 7, -3], [100, 4, 5]])


def test_setitem_bool_mask():
    mask = A > 1.5
    x = Tensor(A.astype(np.float32))
    x[Tensor(mask)] = -1.0
    np.testing.assert_allclose(x.asnumpy(), _expected(A, mask, -1.0), rtol=1e-6)
    rows = np.array([True, False, True, False])             # a mask over the leading dim
    x = Tensor(A.astype(np.float32))
    x[Tensor(rows)] = Tensor(np.arange(6, dtype=np.float32))
    np.testing.assert_allclose(x.asnumpy(), _expected(A, rows, np.arange(6.0)), rtol=1e-6)


def test_setitem_bool_mask_one_value_per_selected_element():
    mask = A > 1.5
    values = np.arange(mask.sum(), dtype=np.float64)
    x = Tensor(A.astype(np.float32))
    x[Tensor(mask)] = Tensor(values.astype(np.float32))
    np.testing.assert_allclose(x.asnumpy(), _expected(A, mask, values), rtol=1e-6)
    rows = np.array([False, True, True, False])
    x = Tensor(A.astype(np.float32))
    x[Tensor(rows)] = Tensor(np.ones((2, 6), np.float32) * 3)
    np.testing.assert_allclose(x.asnumpy(), _expected(A, rows, 3.0), rtol=1e-6)
    check_grad(_setter(Tensor(mask)), [A.copy(), rand(int(mask.sum()), seed=2)])


def test_setitem_bool_mask_one_value_per_element_refused_in_graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)

    class Net(nn.Cell):
        def construct(self, x, v):
            x[x > 1.5] = v
            return x
    with pytest.raises(RuntimeError, match="one value per selected element"):
        Net()(Tensor(A.astype(np.float32)), Tensor(np.ones(13, np.float32)))


@pytest.mark.parametrize("index", [[2, 0], np.array([-1, 1]), "tensor", "tensor2d"])
def test_setitem_integer_index(index):
    if isinstance(index, str) and index == "tensor":
        key, np_key = Tensor(np.array([3, -4], np.int32)), np.array([3, -4])
    elif isinstance(index, str):
        key, np_key = Tensor(np.array([[0], [2]])), np.array([[0], [2]])
    else:
        key, np_key = index, np.asarray(index)
    value = rand(*np.broadcast_shapes(np_key.shape + (6,)), seed=3)
    x = Tensor(A.astype(np.float32))
    x[key] = Tensor(value)
    np.testing.assert_allclose(x.asnumpy(), _expected(A, np_key, value), rtol=1e-6)


def test_setitem_repeated_rows_take_the_mean():
    x = Tensor(A.astype(np.float32))
    x[Tensor(np.array([1, 1, 3]))] = 0.5                    # equal values: that value
    np.testing.assert_allclose(x.asnumpy(), _expected(A, [1, 3], 0.5), rtol=1e-6)
    x = Tensor(A.astype(np.float32))
    x[[2, 2]] = Tensor(np.array([[1.0], [3.0]], np.float32))
    np.testing.assert_allclose(x.asnumpy()[2], np.full(6, 2.0))


def test_setitem_errors():
    x = Tensor(A.astype(np.float32))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        x[1] = Tensor(np.ones(5, np.float32))
    with pytest.raises(IndexError, match="out of bounds"):
        x[[4]] = 1.0
    with pytest.raises(ValueError, match="out of range"):
        x[Tensor(np.array([0, 7]))] = 1.0
    with pytest.raises(IndexError, match="must match the leading dims"):
        x[Tensor(np.ones(3, bool))] = 1.0
    with pytest.raises(ValueError, match="cannot be broadcast"):
        x[Tensor(A > 1.5)] = Tensor(np.ones(5, np.float32))       # 13 are selected
    with pytest.raises(IndexError, match="out of bounds"):
        x[4, 0] = 1.0
    with pytest.raises(TypeError, match="'value' must be"):
        x[0] = "a"
    np.testing.assert_array_equal(x.asnumpy(), A.astype(np.float32))   # nothing written


def test_setitem_is_in_place_and_leaves_earlier_results_alone():
    x = Tensor(A.astype(np.float32))
    alias = x
    doubled = x * 2.0
    x[0] = 0.0
    assert alias is x and (alias.asnumpy()[0] == 0).all()
    np.testing.assert_allclose(doubled.asnumpy(), 2 * A, rtol=1e-6)


def _setter(key):
    def fn(x, v):
        y = x * 1.0
        y[key] = v
        return ops.tanh(y) * y          # uses the written tensor twice after the write
    return fn


@pytest.mark.parametrize("key, vshape", [
    ((slice(1, 3), slice(None, None, 2)), (2, 3)),
    ((2, slice(4, 0, -1)), ()),                     # a scalar value broadcast: its grad sums
    ((Ellipsis, 3), (4,)),
])
def test_setitem_grad_basic(key, vshape):
    check_grad(_setter(key), [rand(4, 6, seed=1), rand(*vshape, seed=2)])


def test_setitem_grad_bool_mask():
    mask = Tensor(rand(4, 6, seed=5) > 0)
    check_grad(_setter(mask), [rand(4, 6, seed=1), rand(seed=2)])
    rows = Tensor(np.array([True, False, False, True]))
    check_grad(_setter(rows), [rand(4, 6, seed=1), rand(6, seed=2)])


def test_setitem_grad_integer_index_with_repeats():
    idx = Tensor(np.array([[3, 0], [3, 1]]))
    check_grad(_setter(idx), [rand(4, 6, seed=1), rand(2, 2, 6, seed=2)])


def test_setitem_grad_chain_of_writes():
    def fn(x, v):
        y = ops.exp(x)
        y[0] = v
        y[1:, 2] = v[3] * 2.0
        y[Tensor(np.array([2]))] = y[0] * y[3]
        return y * x
    check_grad(fn, [rand(4, 6, seed=1), rand(6, seed=2)])


def test_setitem_on_a_differentiated_input_is_refused():
    def fn(x):
        x[0] = 1.0
        return x.sum()
    with pytest.raises(RuntimeError, match="itself being differentiated"):
        ms.grad(fn)(Tensor(A.astype(np.float32)))


def test_setitem_on_a_parameter_writes_it_and_refuses_a_gradient_through_it():
    p = Parameter(Tensor(A.astype(np.float32)), name="p")
    p[1:3, 0] = 0.0
    np.testing.assert_allclose(p.asnumpy(), _expected(A, (slice(1, 3), 0), 0.0), rtol=1e-6)

    def fn(v):
        p[0, 0] = v
        return p.sum()
    with pytest.raises(RuntimeError, match="not differentiable"):
        ms.grad(fn)(Tensor(np.float32(2.0)))


class ParamWriteNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="p")

    def construct(self, x):
        before = self.p * 1.0
        self.p[0] = x
        return before + self.p


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_setitem_on_a_parameter_inside_a_cell(mode):
    """Reads before the write see the old value, reads after it the new one; the Parameter
    keeps the write (an Assign in GRAPH_MODE)."""
    ms.set_context(mode=mode)
    net = ParamWriteNet()
    for step in (1.0, 2.0):
        out = net(Tensor(np.full(3, step, np.float32))).asnumpy()
        np.testing.assert_allclose(out[0], np.full(3, 2 * step - 1))
        np.testing.assert_allclose(out[1], np.zeros(3))
        np.testing.assert_allclose(net.p.asnumpy()[0], np.full(3, step))


class WriteNet(nn.Cell):
    def construct(self, x, v, mask):
        y = x * 2.0
        y[1:, 2] = v
        y[mask] = 0.0
        z = ops.zeros((4, 6))
        z[Tensor(np.array([3, 0]))] = v[0]
        return y + z


def test_setitem_graph_mode_equals_pynative():
    args = (Tensor(A.astype(np.float32)), Tensor(np.array([1.0, 2.0, 3.0], np.float32)),
            Tensor(A > 2.0))
    eager = WriteNet()(*args).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    net = WriteNet()
    np.testing.assert_allclose(net(*args).asnumpy(), eager, rtol=1e-6)
    np.testing.assert_allclose(net(*args).asnumpy(), eager, rtol=1e-6)
    assert net.compile_cache_info()["compiles"] == 1

    def loss(x, v):
        return (WriteNet()(x, v, args[2]) ** 2).sum()
    graph = ms.grad(loss, grad_position=(0, 1))(*args[:2])
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = ms.grad(loss, grad_position=(0, 1))(*args[:2])
    for g, e in zip(graph, eager):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-6)


# -- x[mask] and ops.masked_select ---------------------------------------------------------
def test_getitem_bool_mask_forward():
    mask = A > 1.5
    np.testing.assert_allclose(Tensor(A)[Tensor(mask)].asnumpy(), A[mask])
    rows = np.array([False, True, True, False])
    np.testing.assert_allclose(Tensor(A)[Tensor(rows)].asnumpy(), A[rows])
    empty = Tensor(A)[Tensor(np.zeros((4, 6), bool))]
    assert empty.shape == (0,)


def test_getitem_bool_mask_grad():
    mask = Tensor(rand(4, 6, seed=4) > 0)
    rows = Tensor(np.array([True, False, True, True]))
    check_grad(lambda x: x[mask] * x[mask], [rand(4, 6, seed=1)])
    check_grad(lambda x: ops.exp(x[rows]), [rand(4, 6, seed=1)])


def test_masked_select_broadcasts():
    x = rand(3, 4, seed=1)
    mask = np.array([True, False, False, True])
    out = ops.masked_select(Tensor(x), Tensor(mask))
    np.testing.assert_allclose(out.asnumpy(), x[np.broadcast_to(mask, x.shape)])
    np.testing.assert_allclose(Tensor(x).masked_select(Tensor(mask)).asnumpy(), out.asnumpy())
    check_grad(lambda t: ops.masked_select(t, Tensor(mask)) ** 2, [x])
    with pytest.raises(TypeError):
        ops.masked_select(Tensor(x), Tensor(mask.astype(np.int32)))


def test_getitem_bool_mask_runs_op_by_op_in_graph_mode():
    """Its length depends on the mask's values: the net runs op by op (PYNATIVE's values);
    tests/graph/test_data_dependent_shapes.py checks the warning and the cache."""
    ms.set_context(mode=ms.GRAPH_MODE)

    class Net(nn.Cell):
        def construct(self, x):
            return x[x > 1.0]
    x = A.astype(np.float32)
    net = Net()
    np.testing.assert_array_equal(net(Tensor(x)).asnumpy(), x[x > 1.0])
    assert net.compile_cache_info()["compiles"] == 0


class _RecomputedWriter(nn.Cell):
    def __init__(self, write_input):
        super().__init__()
        self.dense = nn.Dense(4, 4)
        self.write_input = write_input

    def construct(self, x):
        if self.write_input:
            x[0] = 0.0
            return self.dense(x)
        y = self.dense(x)
        y[0] = y[1] * 2.0
        return ops.tanh(y)


def test_setitem_inside_a_recomputed_cell():
    """A write to a tensor the cell made replays in the recomputed backward; a write to a
    differentiated tensor the cell reads is refused (the replay would read the written one)."""
    x = Tensor(rand(3, 4, seed=0))
    cell = _RecomputedWriter(False)
    plain = ms.grad(lambda t: (cell(t * 1.0) ** 2).sum())(x)
    cell.recompute()
    again = ms.grad(lambda t: (cell(t * 1.0) ** 2).sum())(x)
    np.testing.assert_allclose(again.asnumpy(), plain.asnumpy(), rtol=1e-6)
    writer = _RecomputedWriter(True)
    writer.recompute()
    with pytest.raises(NotImplementedError, match="Cell.recompute"):
        ms.grad(lambda t: (writer(t * 1.0) ** 2).sum())(x)
