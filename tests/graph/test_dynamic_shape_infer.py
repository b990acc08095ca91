"""Symbolic shape inference through operators' `infer`, and dynamic-input binding/checks.

Operators get Avals whose dims are SymDims (from minispore.graph.dynamic.input_avals), as the
graph tracer gives them; no graph is compiled here.
"""
import numpy as np
import pytest

import minispore as ms
from minispore import Symbol, Tensor, ops
from minispore.common.symbolic import SymDim
from minispore.graph import dynamic
from minispore.ops.operations import activation_ops
from minispore.ops.primitive import Aval

f32 = ms.float32


def avals(*shapes, dtype=f32):
    """Symbolic Avals for placeholders of `shapes` (dims: int, None or Symbol)."""
    return dynamic.input_avals(tuple(Tensor(shape=list(s), dtype=dtype) for s in shapes))


def sym(n=1, **kw):
    return avals(*[[Symbol(**kw)] for _ in range(n)])


def test_input_avals_variables():
    s, u = Symbol(divisor=8), Symbol(unique=True)
    x, y = dynamic.input_avals((Tensor(shape=[s, None, 3], dtype=f32),
                                Tensor(shape=[s, u, u], dtype=ms.int32)))
    assert x.dtype == f32 and y.dtype == ms.int32 and x.shape[2] == 3
    b0, n, b1 = x.shape[0], x.shape[1], y.shape[0]
    assert all(isinstance(d, SymDim) for d in (b0, n, b1))
    # unique=False used twice: two variables sharing the constraint; unique=True: one.
    assert b0 != b1 and b0.free_vars()[0].constraint is s
    assert y.shape[1] == y.shape[2]
    assert n.free_vars()[0].constraint is None


def test_elementwise_broadcasting():
    (x,) = avals([None, 4])
    assert ops.Add().infer(x, Aval((4,), f32)).shape == x.shape
    assert ops.Mul().infer(Aval((1, 4), f32), x).shape == x.shape
    assert ops.Sub().infer(x, x).shape == x.shape
    with pytest.raises(ValueError, match="cannot be broadcast"):
        ops.Add().infer(x, Aval((3, 4), f32))


def test_broadcasting_links_two_dynamic_dims():
    x, y = avals([None, 4], [None, 4])
    out = ops.Add().infer(x, y)
    assert out.shape[0] == x.shape[0] == y.shape[0]


def test_reshape_flatten_and_minus_one():
    (x,) = avals([Symbol(divisor=8), 1, 28, 28])
    b = x.shape[0]
    assert ops.Reshape().infer(x, (-1, 784)).shape == (b, 784)
    assert ops.Reshape().infer(x, (b, -1)).shape == (b, 784)
    assert ops.Reshape().infer(x, (-1, 28)).shape == (b * 28, 28)
    assert ops.Reshape().infer(x, (b * 2, -1)).shape == (b * 2, 392)
    assert ops.Reshape().infer(x, (b, 28, 28)).shape == (b, 28, 28)
    assert ops.Flatten().infer(x).shape == (b, 784)
    with pytest.raises(ValueError, match="Reshape.*cannot reshape"):
        ops.Reshape().infer(x, (b, 5))


def test_reshape_unprovable_quotient_is_checked_at_bind_time():
    s = Symbol(divisor=2)
    ph = (Tensor(shape=[s, 3], dtype=f32),)
    (x,) = dynamic.input_avals(ph)
    out = ops.Reshape().infer(x, (-1, 4))              # (s*3/4, 4)
    assert repr(out.shape[0]) == "s0*3/4"
    dynamic.bind_and_check(ph, (Tensor(np.zeros((8, 3), np.float32)),), "Net")
    with pytest.raises(ValueError, match="not a whole number"):
        dynamic.bind_and_check(ph, (Tensor(np.zeros((6, 3), np.float32)),), "Net")


def test_concat_sums_and_split_divides():
    x, y = avals([None, 4], [None, 4])
    out = ops.Concat(0).infer(x, y)
    assert out.shape == (x.shape[0] + y.shape[0], 4)
    (z,) = avals([Symbol(divisor=8), 6])
    parts = ops.Split(0, 4).infer(z)
    assert len(parts) == 4 and parts[0].shape == (z.shape[0] / 4, 6)
    with pytest.raises(ValueError, match="Split.*do not prove"):
        ops.Split(0, 3).infer(z)
    (w,) = avals([None, 6])
    with pytest.raises(ValueError, match="Split"):
        ops.Split(0, 2).infer(w)


def test_matmul_and_batchmatmul():
    (x,) = avals([None, 784])
    assert ops.MatMul().infer(x, Aval((784, 512), f32)).shape == (x.shape[0], 512)
    assert ops.MatMul(transpose_a=True).infer(x, x).shape == (784, 784)
    with pytest.raises(ValueError, match="contracted dims"):
        ops.MatMul().infer(x, Aval((10, 5), f32))
    a, b = avals([None, 3, 5], [None, 5, 2])
    assert ops.BatchMatMul().infer(a, b).shape == (a.shape[0], 3, 2)


def test_contracted_dynamic_dims_link():
    a, b = avals([4, None], [None, 3])
    assert ops.MatMul().infer(a, b).shape == (4, 3)
    assert a.shape[1] == b.shape[0]


def test_reductions_transpose_expand_squeeze():
    (x,) = avals([None, 5, 1])
    n = x.shape[0]
    assert ops.ReduceSum().infer(x, 1).shape == (n, 1)
    assert ops.ReduceMean(keep_dims=True).infer(x, ()).shape == (1, 1, 1)
    assert ops.ReduceMax().infer(x, 0).shape == (5, 1)
    assert ops.Argmax(axis=1).infer(x).shape == (n, 1)
    assert ops.Transpose().infer(x, (2, 0, 1)).shape == (1, n, 5)
    assert ops.ExpandDims().infer(x, 0).shape == (1, n, 5, 1)
    assert ops.Squeeze(2).infer(x).shape == (n, 5)
    assert ops.Squeeze().infer(x).shape == (n, 5)     # a dynamic dim is never assumed 1
    with pytest.raises(ValueError, match="cannot squeeze axis 0"):
        ops.Squeeze(0).infer(x)
    assert ops.Tile().infer(x, (2, 1, 3)).shape == (n * 2, 5, 3)
    assert ops.BroadcastTo((-1, 5, 7)).infer(x).shape == (n, 5, 7)


def test_slicing_gather_segment_sum_one_hot():
    (x,) = avals([Symbol(min=2), 6])
    n = x.shape[0]
    assert ops.StridedSlice().infer(x, (0, 2), (n, 5), (1, 1)).shape == (n, 3)
    assert ops.StridedSlice(end_mask=1).infer(x, (1, 0), (0, 6), (1, 1)).shape == (n - 1, 6)
    with pytest.raises(ValueError, match="only stride 1"):
        ops.StridedSlice().infer(x, (0, 0), (n, 6), (2, 1))
    with pytest.raises(ValueError, match=r"StridedSlice.*\[3:s0\].*cannot decide 's0 >= 3'"):
        ops.StridedSlice(end_mask=1).infer(x, (3, 0), (0, 6), (1, 1))
    (idx,) = avals([None], dtype=ms.int32)
    table = Aval((100, 8), f32)
    assert ops.Gather().infer(table, idx, 0).shape == (idx.shape[0], 8)
    seg = ops.UnsortedSegmentSum().infer(x, Aval((n,), ms.int32), n)
    assert seg.shape == (n, 6)
    on, off = Aval((), f32), Aval((), f32)
    assert ops.OneHot().infer(idx, 10, on, off).shape == (idx.shape[0], 10)


def test_softmax_losses_with_dynamic_batch():
    logits, labels = avals([Symbol(divisor=8), 10], [Symbol(divisor=8)])
    labels = Aval(labels.shape, ms.int32)
    assert ops.Softmax().infer(logits).shape == logits.shape
    loss, grad = ops.SparseSoftmaxCrossEntropyWithLogits().infer(logits, labels)
    assert loss.shape == () and grad.shape == logits.shape
    assert labels.shape[0] == logits.shape[0]                  # linked by the loss
    dense = ops.SoftmaxCrossEntropyWithLogits().infer(logits, logits)
    assert dense[0].shape == (logits.shape[0],)


def test_conv_pool_with_dynamic_batch():
    (x,) = avals([Symbol(divisor=8), 1, 32, 32])
    n = x.shape[0]
    conv = ops.Conv2D(6, 5, pad_mode="valid")
    y = conv.infer(x, Aval((6, 1, 5, 5), f32))
    assert y.shape == (n, 6, 28, 28)
    assert ops.MaxPool(2, 2).infer(y).shape == (n, 6, 14, 14)
    assert ops.Conv2D(6, 3, pad_mode="same").infer(x, Aval((6, 1, 3, 3), f32)).shape == \
        (n, 6, 32, 32)
    assert ops.BiasAdd().infer(y, Aval((6,), f32)).shape == y.shape
    dx = ops.Conv2DBackpropInput(6, 5).infer(y, Aval((6, 1, 5, 5), f32), x.shape)
    assert dx.shape == x.shape


def test_conv_dynamic_spatial_dims():
    (x,) = avals([2, 1, Symbol(min=3), 8])
    conv = ops.Conv2D(4, 3, pad_mode="valid")
    assert conv.infer(x, Aval((4, 1, 3, 3), f32)).shape[2] == x.shape[2] - 2
    (y,) = avals([2, 1, None, 8])
    with pytest.raises(ValueError, match="Conv2D.*cannot decide 's0 - 2 > 0'"):
        conv.infer(y, Aval((4, 1, 3, 3), f32))
    with pytest.raises(ValueError, match="Conv2D.*dynamic spatial dims.*Make H and W static"):
        ops.Conv2D(4, 3, pad_mode="valid", stride=2).infer(x, Aval((4, 1, 3, 3), f32))


def test_nn_ops_layer_norm_dropout_activations():
    (x,) = avals([None, 16])
    n = x.shape[0]
    y, mean, rstd = ops.LayerNorm().infer(x, Aval((16,), f32), Aval((16,), f32))
    assert y.shape == (n, 16) and mean.shape == (n, 1)
    out, mask = ops.Dropout(0.5).infer(x)
    assert out.shape == mask.shape == (n, 16)
    for op in (ops.ReLU(), ops.Sigmoid(), ops.Tanh(), ops.GeLU()):
        assert op.infer(x).shape == (n, 16)
    assert activation_ops.ReluGrad().infer(x, x).shape == (n, 16)


def test_optimizer_ops_accept_symbolic_free_params():
    var = Aval((4, 3), f32)
    out = ops.ApplyMomentum().infer(var, var, var, 0.1, 0.9)
    assert out.shape == (4, 3)


def test_scalar_to_tensor_of_a_dynamic_count():
    (x,) = avals([None, 4])
    assert ops.ScalarToTensor().infer(x.shape[0] * 4, f32).shape == ()
    assert float(ops.ScalarToTensor()(12, f32).asnumpy()) == 12.0


# -- signature_of and bind_and_check ------------------------------------------------------
def arr(*shape, dtype=np.float32):
    return Tensor(np.zeros(shape, dtype))


def test_signature_identifies_structure_not_objects():
    def ph(sym):
        return (Tensor(shape=[sym, 4], dtype=f32), Tensor(shape=[sym], dtype=ms.int32))
    a, b = ph(Symbol(divisor=8)), ph(Symbol(divisor=8))
    assert dynamic.signature_of(a) == dynamic.signature_of(b)
    assert hash(dynamic.signature_of(a))
    assert dynamic.signature_of(a) != dynamic.signature_of(ph(Symbol(divisor=4)))
    assert dynamic.signature_of(a) != dynamic.signature_of(ph(None))


def test_bind_returns_sizes():
    s = Symbol(divisor=8)
    ph = (Tensor(shape=[s, None], dtype=f32),)
    (x,) = dynamic.input_avals(ph)
    b = dynamic.bind_and_check(ph, (arr(16, 5),), "Net")
    assert x.shape[0].evaluate(b) == 16 and x.shape[1].evaluate(b) == 5


@pytest.mark.parametrize("symbol, size, message", [
    (Symbol(divisor=8), 12, r"12 does not satisfy Symbol\(divisor=8\): 12 is "
                            r"not of the form 8\*N \+ 0"),
    (Symbol(divisor=8), 0, r"0 does not satisfy Symbol\(divisor=8\): 0 is "
                           r"below min=1"),
    (Symbol(min=4), 3, r"3 does not satisfy Symbol\(min=4\): 3 is below min=4"),
    (Symbol(max=16), 17, r"17 does not satisfy Symbol\(max=16\): 17 is above max=16"),
    (Symbol(divisor=4, remainder=1), 8, r"8 does not satisfy Symbol\(divisor=4, remainder=1\): "
                                        r"8 is not of the form 4\*N \+ 1 with N >= 1\."),
])
def test_symbol_constraint_violations(symbol, size, message):
    ph = (Tensor(shape=[symbol, 2], dtype=f32),)
    dynamic.input_avals(ph)
    with pytest.raises(ValueError, match="For 'Net' input 0 axis 0: " + message):
        dynamic.bind_and_check(ph, (arr(size, 2),), "Net")


def test_unique_symbol_dims_must_agree():
    u = Symbol(unique=True)
    ph = (Tensor(shape=[u, 3], dtype=f32), Tensor(shape=[u], dtype=ms.int32))
    dynamic.bind_and_check(ph, (arr(5, 3), arr(5, dtype=np.int32)), "Net")
    with pytest.raises(ValueError, match=r"input 1 axis 0: 6 must equal input 0 axis 0 \(5\)"):
        dynamic.bind_and_check(ph, (arr(5, 3), arr(6, dtype=np.int32)), "Net")


def test_non_unique_symbol_dims_may_differ():
    s = Symbol(divisor=2)
    ph = (Tensor(shape=[s], dtype=f32), Tensor(shape=[s], dtype=f32))
    dynamic.bind_and_check(ph, (arr(4), arr(6)), "Net")
    with pytest.raises(ValueError, match="input 1 axis 0: 5 does not satisfy"):
        dynamic.bind_and_check(ph, (arr(4), arr(5)), "Net")


def test_linked_dims_are_checked():
    s = Symbol(divisor=8)
    ph = (Tensor(shape=[s, 10], dtype=f32), Tensor(shape=[s], dtype=ms.int32))
    logits, labels = dynamic.input_avals(ph)
    ops.SparseSoftmaxCrossEntropyWithLogits().infer(logits, Aval(labels.shape, ms.int32))
    dynamic.bind_and_check(ph, (arr(16, 10), arr(16, dtype=np.int32)), "Net")
    with pytest.raises(ValueError, match=r"input 1 axis 0: 24 must equal s0 = 16 .*"
                                         r"SparseSoftmaxCrossEntropyWithLogits.*s0 is input 0 "
                                         r"axis 0"):
        dynamic.bind_and_check(ph, (arr(16, 10), arr(24, dtype=np.int32)), "Net")


def test_set_inputs_mismatch_table():
    ph = (Tensor(shape=[None, 4], dtype=f32), Tensor(shape=[None], dtype=ms.int32))
    good = (arr(3, 4), arr(3, dtype=np.int32))
    dynamic.bind_and_check(ph, good, "Net")
    with pytest.raises(ValueError, match=r"number of inputs \(1\) must equal .* \(2\)"):
        dynamic.bind_and_check(ph, good[:1], "Net")
    with pytest.raises(TypeError, match="input 1: set_inputs declared a Tensor, but got list"):
        dynamic.bind_and_check(ph, (good[0], [1, 2, 3]), "Net")
    with pytest.raises(TypeError, match="declared a Tensor, but got Parameter"):
        dynamic.bind_and_check(ph, (ms.Parameter(arr(3, 4), name="p"), good[1]), "Net")
    with pytest.raises(ValueError, match="input 1: the dtype Float32 must be Int32"):
        dynamic.bind_and_check(ph, (good[0], arr(3)), "Net")
    with pytest.raises(ValueError, match=r"input 0: the rank 3 \(shape \(3, 4, 1\)\) must be 2"):
        dynamic.bind_and_check(ph, (arr(3, 4, 1), good[1]), "Net")
    with pytest.raises(ValueError, match=r"input 0 axis 1: 5 must equal the static dim 4 of "
                                         r"\[None, 4\]"):
        dynamic.bind_and_check(ph, (arr(3, 5), good[1]), "Net")
