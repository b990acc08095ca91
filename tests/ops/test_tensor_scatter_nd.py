"""ops.tensor_scatter_update / tensor_scatter_add / tensor_scatter_sub and their Primitive
classes against a float64 numpy reference, MindSpore 2.7.2's recorded answers, gradients and
errors, finite-difference gradients, repeated indices, GRAPH mode."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand

I = np.array([[0, 1], [0, 1], [2, 0]], np.int32)      # (0, 1) twice
U = np.array([1., 2, 3], np.float32)
FUNCS = {"update": ops.tensor_scatter_update, "add": ops.tensor_scatter_add,
         "sub": ops.tensor_scatter_sub}


def _reference(x, indices, updates, kind):
    out = np.array(x, copy=True)
    k = indices.shape[-1]
    for p in np.ndindex(*indices.shape[:-1]):
        at = tuple(indices[p][:k])
        if kind == "update":
            out[at] = updates[p]
        elif kind == "add":
            out[at] += updates[p]
        else:
            out[at] -= updates[p]
    return out


@pytest.mark.parametrize("kind", sorted(FUNCS))
@pytest.mark.parametrize("itype", [np.int32, np.int64])
@pytest.mark.parametrize("ishape", [(4, 1), (2, 3, 2), (5, 3)])
def test_forward_matches_numpy(kind, itype, ishape):
    x = rand(3, 4, 2, dtype=np.float64, seed=1)
    rng = np.random.default_rng(2)
    k = ishape[-1]
    indices = np.stack([rng.integers(0, x.shape[d], ishape[:-1]) for d in range(k)],
                       -1).astype(itype)
    if kind == "update":     # distinct rows: which repeated update stays is the CPU's choice
        indices = np.unique(indices.reshape(-1, k), axis=0).reshape(-1, k)
    updates = rand(*(indices.shape[:-1] + x.shape[k:]), dtype=np.float64, seed=3)
    check_forward(lambda t, i, u: FUNCS[kind](t, i, u),
                  lambda t, i, u: _reference(t, i, u, kind), [x, indices, updates], rtol=1e-12)


def test_mindspore_recorded_values_and_primitives():
    x, i, u = Tensor(np.zeros((3, 2), np.float32)), Tensor(I), Tensor(U)
    want = {"update": [[0, 2], [0, 0], [3, 0]], "add": [[0, 3], [0, 0], [3, 0]],
            "sub": [[0, -3], [0, 0], [-3, 0]]}
    prims = {"update": ops.TensorScatterUpdate, "add": ops.TensorScatterAdd,
             "sub": ops.TensorScatterSub}
    for kind, f in FUNCS.items():
        assert f(x, i, u).asnumpy().tolist() == want[kind]
        assert prims[kind]()(x, i, u).asnumpy().tolist() == want[kind]
    rows = ops.tensor_scatter_update(x, Tensor(np.array([[1]], np.int32)),
                                     Tensor(np.array([[5., 6]], np.float32)))
    assert rows.asnumpy().tolist() == [[0, 0], [5, 6], [0, 0]]


@pytest.mark.parametrize("kind", sorted(FUNCS))
def test_gradients(kind):
    indices = np.array([[0, 1], [2, 0], [1, 1]], np.int64) if kind == "update" else I
    check_grad(lambda t, i, u: FUNCS[kind](t, i, u), [rand(3, 2, seed=4), indices,
                                                       rand(3, seed=5)])
    # MindSpore 2.7.2's gradients with the repeated index (0, 1):
    w = Tensor(np.arange(6).reshape(3, 2).astype(np.float32))
    gx, gu = ms.grad(lambda a, b: (FUNCS[kind](a, Tensor(I), b) * w).sum(), (0, 1))(
        Tensor(np.zeros((3, 2), np.float32)), Tensor(U))
    if kind == "update":
        assert gx.asnumpy().tolist() == [[0, 0], [2, 3], [0, 5]]
        assert gu.asnumpy().tolist() == [1, 1, 4]
    else:
        assert gx.asnumpy().tolist() == np.arange(6).reshape(3, 2).tolist()
        assert gu.asnumpy().tolist() == ([1, 1, 4] if kind == "add" else [-1, -1, -4])


def test_errors():
    x = Tensor(np.zeros((3, 2), np.float32))
    one = Tensor(np.array([5.], np.float32))
    with pytest.raises(ValueError, match=r"'TensorScatterUpdate', the 0-th value of "
                                         r"'indices'\[-1, 1\] is out of range\[3, 2\]"):
        ops.tensor_scatter_update(x, Tensor(np.array([[-1, 1]], np.int32)), one)
    with pytest.raises(RuntimeError, match=r"the 0-th value of 'indices'\[3, 1\] is out of "
                                           r"range\[3, 2\]"):
        ops.tensor_scatter_add(x, Tensor(np.array([[3, 1]], np.int32)), one)
    with pytest.raises(ValueError, match=r"updates_shape = indices_shape\[:-1\]"):
        ops.tensor_scatter_update(x, Tensor(np.array([[1]], np.int32)),
                                  Tensor(np.array([[5., 6, 7]], np.float32)))
    with pytest.raises(TypeError, match="int32 or int64"):
        ops.tensor_scatter_sub(x, Tensor(np.array([[1]], np.float32)),
                               Tensor(np.array([[5., 6]], np.float32)))
    with pytest.raises(TypeError, match=r"dtype of 'input_x' \(Float32\)"):
        ops.tensor_scatter_add(x, Tensor(np.array([[1]], np.int32)),
                               Tensor(np.array([[5., 6]])))


def test_graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        f = ms.jit(lambda t, i, u: ops.tensor_scatter_add(t, i, u) * 2)
        x = rand(3, 2, seed=7)
        np.testing.assert_allclose(f(Tensor(x), Tensor(I), Tensor(U)).asnumpy(),
                                   2 * _reference(x, I, U, "add"), rtol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("ishape, shape", [((4, 1), (5,)), ((3, 2), (3, 4, 2)),
                                           ((2, 2, 3), (2, 3, 4))])
def test_scatter_nd_adds_into_zeros(ishape, shape):
    rng = np.random.default_rng(8)
    k = ishape[-1]
    indices = np.stack([rng.integers(0, shape[d], ishape[:-1]) for d in range(k)], -1)
    updates = rand(*(ishape[:-1] + shape[k:]), dtype=np.float64, seed=9)
    check_forward(lambda i, u: ops.scatter_nd(i, u, shape),
                  lambda i, u: _reference(np.zeros(shape), i, u, "add"), [indices, updates],
                  rtol=1e-12)
    check_grad(lambda i, u: ops.scatter_nd(i, u, shape), [indices, updates])


def test_scatter_nd_mindspore_values_and_errors():
    i = Tensor(np.array([[0], [2], [0]], np.int32))
    u = Tensor(np.array([1., 2, 3], np.float32))
    assert ops.scatter_nd(i, u, (4,)).asnumpy().tolist() == [4, 0, 2, 0]      # MindSpore 2.7.2
    row = ops.ScatterNd()(Tensor(np.array([[1]], np.int64)), Tensor(np.array([[1, 2]], np.int32)),
                          (2, 2))
    assert row.dtype == ms.int32 and row.asnumpy().tolist() == [[0, 0], [1, 2]]
    w = Tensor(np.array([1., 2, 3, 4], np.float32))
    assert ms.grad(lambda v: (ops.scatter_nd(i, v, (4,)) * w).sum())(u).asnumpy().tolist() == \
        [1, 3, 1]
    for bad in (4, -1):
        with pytest.raises(RuntimeError, match=rf"the 1-th value of 'indices'\[{bad}\]"):
            ops.scatter_nd(Tensor(np.array([[0], [bad]], np.int32)), u[:2], (4,))
    with pytest.raises(ValueError, match=r"updates_shape = indices_shape\[:-1\]"):
        ops.scatter_nd(Tensor(np.array([[0, 1]], np.int32)),
                       Tensor(np.ones((1, 2), np.float32)), (2, 2))
    with pytest.raises(TypeError, match="'shape' must be a non-empty tuple of positive ints"):
        ops.scatter_nd(i, u, Tensor(np.array([4])))


def test_tensor_scatter_add_method_overloads():
    """MindSpore's Tensor.scatter_add takes (indices, updates), tensor_scatter_add's form, as
    well as (dim, index, src); both forms here, the first against MindSpore 2.7.2's output."""
    x = Tensor(np.array([[0.5, 0.2, 0.8], [0.3, 0.9, 0.1]], np.float32))
    out = x.scatter_add(Tensor(np.array([[0], [1]], np.int32)), Tensor(np.ones((2, 3), np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [[1.5, 1.2, 1.8], [1.3, 1.9, 1.1]], rtol=1e-6)
    along = x.scatter_add(1, Tensor(np.array([[0, 0], [2, 1]], np.int64)),
                          Tensor(np.ones((2, 2), np.float32)))
    np.testing.assert_allclose(along.asnumpy(), [[2.5, 0.2, 0.8], [0.3, 1.9, 1.1]], rtol=1e-6)


def test_parameter_value_is_a_snapshot():
    """Parameter.value() is a Tensor holding the value at the call (MindSpore): a later in-place
    update of the Parameter does not show through it."""
    p = ms.Parameter(Tensor(np.ones(3, np.float32)), name="p")
    snap = p.value()
    ops.assign(p, Tensor(np.full(3, 2.0, np.float32)))
    assert type(snap) is Tensor
    np.testing.assert_array_equal(snap.asnumpy(), np.ones(3))
    np.testing.assert_array_equal(p.value().asnumpy(), np.full(3, 2.0))
