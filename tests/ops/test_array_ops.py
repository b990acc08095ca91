"""Array and indexing operators: forward vs float64 numpy, grads vs central differences, errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand


def ints(*shape, high=5, seed=0, dtype=np.int64):
    return np.random.default_rng(seed).integers(0, high, shape).astype(dtype)


# -- the core ops that existed before this family -------------------------------------------

def test_reshape_forward_grad_and_minus_one():
    x = rand(2, 3, 4, seed=1)
    check_forward(lambda t: ops.reshape(t, (4, -1)), lambda a: a.reshape(4, -1), [x])
    check_grad(lambda t: ops.reshape(t, (6, 4)), [x])


def test_reshape_bad_size():
    with pytest.raises(ValueError, match=r"For 'Reshape'.*\(2, 3\).*\(4, 2\)"):
        ops.reshape(Tensor(rand(2, 3)), (4, 2))


@pytest.mark.parametrize("src,dst", [(np.float32, ms.float64), (np.float64, ms.float32),
                                     (np.float32, ms.int32), (np.int64, ms.float32),
                                     (np.int32, ms.bool_)])
def test_cast_forward(src, dst):
    x = (rand(3, 4, seed=2) * 5).astype(src)
    out = ops.cast(Tensor(x), dst)
    assert out.dtype == dst
    np.testing.assert_array_equal(out.asnumpy(), x.astype(dst.np_dtype))


def test_cast_grad_float_and_none_for_int():
    w = rand(3, 2, seed=4, dtype=np.float64)
    g = ms.grad(lambda t: (ops.cast(t, ms.float64) * Tensor(w)).sum())(Tensor(rand(3, 2)))
    assert g.dtype == ms.float32
    np.testing.assert_allclose(g.asnumpy(), w.astype(np.float32))
    x = Tensor(ints(3))
    g = ms.grad(lambda t, y: (ops.cast(t, ms.float32) * y).sum(), grad_position=1)(
        x, Tensor(rand(3)))
    np.testing.assert_allclose(g.asnumpy(), x.asnumpy().astype(np.float32))


def test_cast_bad_dtype():
    with pytest.raises(TypeError, match="For 'Cast'.*Unsupported dtype"):
        ops.cast(Tensor(rand(2)), "complex128")


def test_zeros_like_ones_like_fill_identity():
    x = rand(2, 3, seed=4)
    np.testing.assert_array_equal(ops.zeros_like(Tensor(x)).asnumpy(), np.zeros_like(x))
    np.testing.assert_array_equal(ops.ones_like(Tensor(x)).asnumpy(), np.ones_like(x))
    f = ops.fill(ms.int32, (2, 2), 7)
    assert f.dtype == ms.int32
    np.testing.assert_array_equal(f.asnumpy(), np.full((2, 2), 7, np.int32))
    check_forward(ops.identity, lambda a: a, [x])
    check_grad(ops.identity, [x])


def test_fill_bad_shape():
    with pytest.raises(TypeError, match=r"For 'Fill'.*non-negative ints.*-1"):
        ops.fill(ms.float32, (2, -1), 0)


@pytest.mark.parametrize("shape,target", [((3,), (2, 3)), ((2, 1), (2, 4)), ((1, 3), (4, 2, 3)),
                                          ((2, 1), (-1, 5)), ((), (2, 2))])
def test_broadcast_to(shape, target):
    x = rand(*shape, seed=5)
    full = tuple(shape[i - (len(target) - len(shape))] if d == -1 else d
                 for i, d in enumerate(target))
    check_forward(lambda t: ops.broadcast_to(t, target), lambda a: np.broadcast_to(a, full), [x])
    check_grad(lambda t: ops.broadcast_to(t, target), [x])


def test_broadcast_to_bad():
    with pytest.raises(ValueError, match=r"For 'BroadcastTo'.*\(2, 3\).*\(2, 4\)"):
        ops.broadcast_to(Tensor(rand(2, 3)), (2, 4))


# -- transpose, expand_dims, squeeze, flatten ------------------------------------------------

@pytest.mark.parametrize("shape,perm", [((3, 4), (1, 0)), ((2, 3, 4), (2, 0, 1)),
                                        ((2, 3, 4, 5), (0, 2, 3, 1)), ((2, 3, 4), (-1, 0, 1)),
                                        ((5,), (0,)), ((), ())])
def test_transpose(shape, perm):
    x = rand(*shape, seed=6)
    check_forward(lambda t: ops.transpose(t, perm), lambda a: np.transpose(a, perm), [x])
    check_grad(lambda t: ops.transpose(t, perm), [x])


def test_transpose_int_and_bool_dtypes():
    for x in (ints(3, 4, seed=1, dtype=np.int32), ints(3, 4, high=2).astype(bool)):
        out = ops.transpose(Tensor(x), (1, 0))
        np.testing.assert_array_equal(out.asnumpy(), x.T)


def test_data_movement_keeps_float16():
    x = rand(2, 3, dtype=np.float16, seed=2)
    t = Tensor(x)
    for out, want in ((ops.transpose(t, (1, 0)), x.T), (t[:, ::-1], x[:, ::-1]),
                      (ops.concat((t, t), 1), np.concatenate((x, x), 1)),
                      (ops.tile(t, (2, 1)), np.tile(x, (2, 1))),
                      (ops.gather(t, Tensor(np.array([2, 0])), 1), x[:, [2, 0]])):
        assert out.dtype == ms.float16
        np.testing.assert_array_equal(out.asnumpy(), want)


def test_transpose_bad_perm():
    with pytest.raises(ValueError, match=r"For 'Transpose'.*\(0, 0, 1\).*permutation"):
        ops.transpose(Tensor(rand(2, 3, 4)), (0, 0, 1))
    with pytest.raises(ValueError, match=r"For 'Transpose'.*length.*rank"):
        ops.transpose(Tensor(rand(2, 3)), (0, 1, 2))


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_expand_dims(axis):
    x = rand(2, 3, seed=7)
    check_forward(lambda t: ops.expand_dims(t, axis), lambda a: np.expand_dims(a, axis), [x])
    check_grad(lambda t: ops.expand_dims(t, axis), [x])


def test_expand_dims_bad_axis():
    with pytest.raises(ValueError, match=r"For 'ExpandDims'.*\[-3, 3\).*3"):
        ops.expand_dims(Tensor(rand(2, 3)), 3)


@pytest.mark.parametrize("axis", [None, 0, (0, 2), -1])
def test_squeeze(axis):
    x = rand(1, 3, 1, seed=8)
    np_axis = axis if axis is not None else None
    check_forward(lambda t: ops.squeeze(t, axis), lambda a: np.squeeze(a, np_axis), [x])
    check_grad(lambda t: ops.squeeze(t, axis), [x])


def test_squeeze_non_unit_dim():
    with pytest.raises(ValueError, match=r"For 'Squeeze'.*axis 1.*size is 3"):
        ops.squeeze(Tensor(rand(1, 3)), 1)


@pytest.mark.parametrize("shape", [(4,), (2, 3), (2, 3, 4), (0, 3)])
def test_flatten(shape):
    x = rand(*shape, seed=9)
    def ref(a):
        return a.reshape(a.shape[0], int(np.prod(a.shape[1:])))
    check_forward(ops.flatten, ref, [x])
    check_forward(ops.Flatten(), ref, [x])
    if x.size:
        check_grad(ops.flatten, [x])


def test_flatten_start_end_dim():
    x = rand(2, 3, 4, 5, seed=9)
    out = ops.flatten(Tensor(x), start_dim=1, end_dim=2)
    np.testing.assert_array_equal(out.asnumpy(), x.reshape(2, 12, 5))
    np.testing.assert_array_equal(ops.flatten(Tensor(x), start_dim=0).asnumpy(), x.reshape(-1))


def test_flatten_scalar_is_error():
    with pytest.raises(ValueError, match=r"For 'Flatten'.*rank.*at least 1"):
        ops.Flatten()(Tensor(np.float32(1.0)))


# -- concat, split, tile ----------------------------------------------------------------------

@pytest.mark.parametrize("shapes,axis", [([(2, 3), (4, 3)], 0), ([(2, 1), (2, 3), (2, 2)], 1),
                                         ([(2, 3, 4), (2, 3, 1)], -1), ([(5,)], 0)])
def test_concat(shapes, axis):
    arrays = [rand(*s, seed=10 + i) for i, s in enumerate(shapes)]
    def op(*ts):
        return ops.concat(ts, axis)
    check_forward(op, lambda *a: np.concatenate(a, axis), arrays)
    check_grad(op, arrays)


def test_concat_primitive_takes_a_tuple_and_same_tensor_twice():
    x = Tensor(rand(2, 2, seed=11))
    out = ops.Concat(0)((x, x))
    np.testing.assert_array_equal(out.asnumpy(), np.concatenate([x.asnumpy()] * 2))
    g = ms.grad(lambda t: (ops.Concat(1)([t, t]) * 2.0).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), np.full((2, 2), 4.0))


def test_concat_bad_inputs():
    with pytest.raises(ValueError, match=r"For 'Concat'.*input_x\[1\]\.shape \(2, 4\).*axis 0"):
        ops.concat((Tensor(rand(2, 3)), Tensor(rand(2, 4))), 0)
    with pytest.raises(TypeError, match=r"For 'Concat'.*tuple or list"):
        ops.Concat(0)(Tensor(rand(2)))
    with pytest.raises(TypeError, match=r"For 'Concat'.*same dtype"):
        ops.concat((Tensor(rand(2)), Tensor(rand(2, dtype=np.float64))))


@pytest.mark.parametrize("shape,axis,num", [((6, 2), 0, 3), ((2, 4), 1, 2), ((2, 3, 4), -1, 4),
                                            ((3,), 0, 1)])
def test_split(shape, axis, num):
    x = rand(*shape, seed=12)
    check_forward(lambda t: ops.split_equal(t, axis, num), lambda a: tuple(np.split(a, num, axis)), [x])
    for k in range(num):
        check_grad(lambda t: ops.split_equal(t, axis, num), [x], out_index=k)


def test_split_grad_through_several_outputs():
    x = rand(4, 3, seed=13)
    def op(t):
        a, b = ops.split_equal(t, 0, 2)
        return a * b
    check_grad(op, [x])


@pytest.mark.parametrize("shape,size,axis,sizes", [((6, 2), 3, 0, [3, 3]), ((10,), 4, 0, [4, 4, 2]),
                                                    ((6, 2), [1, 5], 0, [1, 5]),
                                                    ((2, 3), 1, 1, [1, 1, 1]),
                                                    ((2, 5), (2, 3), -1, [2, 3])])
def test_split_takes_piece_sizes_as_mindspore_2(shape, size, axis, sizes):
    # MindSpore 2.x: ops.split(x6x2, 3) gives two (3, 2) pieces (recorded from 2.7.2).
    x = rand(*shape, seed=14)
    bounds = np.cumsum(sizes)[:-1]
    check_forward(lambda t: ops.split(t, size, axis=axis),
                  lambda a: tuple(np.split(a, bounds, axis)), [x])
    check_grad(lambda t: ops.split(t, size, axis)[-1], [x])
    assert [p.shape for p in Tensor(x).split(size, axis)] == [
        p.shape for p in np.split(x, bounds, axis)]


def test_split_sizes_must_cover_the_axis():
    with pytest.raises(ValueError, match="sum of 'split_size_or_sections'"):
        ops.split(Tensor(rand(6, 2)), [2, 2])
    with pytest.raises(ValueError, match="must be positive"):
        ops.split(Tensor(rand(6, 2)), 0)


def test_split_not_divisible():
    with pytest.raises(ValueError, match=r"For 'Split'.*x.shape\[1\] = 5.*divisible by.*2"):
        ops.split_equal(Tensor(rand(2, 5)), 1, 2)
    with pytest.raises(ValueError, match=r"'output_num' must be a positive int"):
        ops.Split(0, 0)


@pytest.mark.parametrize("shape,mult", [((2, 3), (2, 1)), ((2, 3), (3, 2)), ((3,), (2, 2)),
                                        ((2, 3, 2), (2,)), ((), (3,))])
def test_tile(shape, mult):
    x = rand(*shape, seed=14)
    check_forward(lambda t: ops.tile(t, mult), lambda a: np.tile(a, mult), [x])
    check_grad(lambda t: ops.tile(t, mult), [x])


def test_tile_bad_multiples():
    with pytest.raises(ValueError, match=r"For 'Tile'.*non-negative.*\(2, -1\)"):
        ops.tile(Tensor(rand(2, 3)), (2, -1))
    with pytest.raises(TypeError, match=r"For 'Tile'.*tuple of ints"):
        ops.Tile()(Tensor(rand(2)), (1.5,))
    with pytest.raises(TypeError, match=r"For 'Tile'.*Float32.*cannot be read as ints"):
        ops.tile(Tensor(rand(2, 3)), Tensor(np.array([2.0, 1.0], np.float32)))


def test_tile_takes_zero_and_tensor_multiples_as_mindspore_does():
    x = Tensor(rand(2, 3))
    assert ops.tile(x, (2, 0)).shape == (4, 0)       # a 0 empties its dim
    want = np.tile(x.asnumpy(), (2, 1))
    np.testing.assert_array_equal(ops.tile(x, Tensor(np.array([2, 1], np.int32))).asnumpy(), want)
    np.testing.assert_array_equal(ops.Tile()(x, (Tensor(2), 1)).asnumpy(), want)


# -- creation and assign ---------------------------------------------------------------------

def test_zeros_ones():
    z = ops.zeros((2, 3))
    assert z.dtype == ms.float32 and z.shape == (2, 3) and not z.asnumpy().any()
    o = ops.ones(4, ms.int32)
    assert o.dtype == ms.int32
    np.testing.assert_array_equal(o.asnumpy(), np.ones(4, np.int32))


def test_assign_writes_in_place_and_returns_the_parameter():
    p = Parameter(Tensor(rand(2, 3, seed=15)), name="w")
    buffer = p.asnumpy()
    value = rand(2, 3, seed=16)
    out = ops.assign(p, Tensor(value))
    assert out is p
    np.testing.assert_array_equal(p.asnumpy(), value)
    assert p.asnumpy() is buffer or np.shares_memory(p.asnumpy(), buffer)
    ops.Assign()(p, Tensor(value.astype(np.float64) * 2))   # converted to the parameter's dtype
    assert p.dtype == ms.float32
    np.testing.assert_allclose(p.asnumpy(), value * 2)


def test_assign_bad_inputs():
    p = Parameter(Tensor(rand(2, 3)), name="w")
    with pytest.raises(ValueError, match=r"For 'Assign'.*\(3, 2\).*\(2, 3\)"):
        ops.assign(p, Tensor(rand(3, 2)))
    with pytest.raises(TypeError, match=r"For 'Assign'.*'variable' must be a Parameter or a "
                                        r"Tensor, but got list"):
        ops.assign([1.0], Tensor(rand(2, 3)))


def test_assign_into_a_plain_tensor_writes_it_in_place_and_returns_a_copy():
    """MindSpore's ops.assign also takes a Tensor: it takes the value (cast to its dtype)."""
    x = Tensor(rand(2, 3))
    value = Tensor(np.arange(6, dtype=np.int32).reshape(2, 3))
    out = ops.assign(x, value)
    want = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert x.dtype == ms.float32
    np.testing.assert_array_equal(x.asnumpy(), want)
    np.testing.assert_array_equal(out.asnumpy(), want)
    assert out is not x


# -- strided slice ---------------------------------------------------------------------------

# (begin, end, strides, masks (begin, end, ellipsis, new_axis, shrink), numpy index)
SLICES = [
    ((1, 0), (3, 4), (1, 2), (0, 0, 0, 0, 0), (slice(1, 3), slice(0, 4, 2))),
    ((0,), (2,), (1,), (0, 0, 0, 0, 0), (slice(0, 2),)),
    ((-1, 0), (0, 0), (-1, 1), (1, 3, 0, 0, 0), (slice(None, None, -1), slice(None))),
    ((1, 2), (2, 3), (1, 1), (0, 0, 0, 0, 1), (1, slice(2, 3))),
    ((0, -1), (0, 0), (1, 1), (0, 0, 1, 0, 2), (Ellipsis, -1)),
    ((0, 1), (0, 3), (1, 1), (0, 0, 0, 1, 0), (None, slice(1, 3))),
    ((5, -10), (-5, 10), (-2, 3), (0, 0, 0, 0, 0), (slice(5, -5, -2), slice(-10, 10, 3))),
    ((2, 1, 0), (0, 3, 0), (-1, 1, 1), (0, 0, 0, 0, 4), (slice(2, 0, -1), slice(1, 3), 0)),
]


@pytest.mark.parametrize("begin,end,strides,masks,np_index", SLICES)
def test_strided_slice(begin, end, strides, masks, np_index):
    x = rand(4, 5, 3, seed=17)
    def op(t):
        return ops.strided_slice(t, begin, end, strides, *masks)
    check_forward(op, lambda a: a[np_index], [x])
    check_grad(op, [x])


def test_strided_slice_empty_result():
    out = ops.strided_slice(Tensor(rand(4, 3)), (3, 0), (1, 3), (1, 1))
    assert out.shape == (0, 3)


def test_strided_slice_grad_primitive():
    dout = rand(2, 2, seed=18)
    got = ops.strided_slice_grad(Tensor(dout), (4, 5), (1, 0), (3, 4), (1, 2))
    want = np.zeros((4, 5), np.float32)
    want[1:3, 0:4:2] = dout
    np.testing.assert_array_equal(got.asnumpy(), want)
    check_grad(lambda t: ops.strided_slice_grad(t, (4, 5), (1, 0), (3, 4), (1, 2)), [dout])


def test_strided_slice_bad_inputs():
    x = Tensor(rand(4, 5))
    with pytest.raises(ValueError, match=r"For 'StridedSlice'.*'strides'.*must not contain 0"):
        ops.strided_slice(x, (0, 0), (2, 2), (1, 0))
    with pytest.raises(ValueError, match=r"For 'StridedSlice'.*same length"):
        ops.strided_slice(x, (0,), (2, 2), (1, 1))
    with pytest.raises(ValueError, match=r"For 'StridedSlice'.*begin\[0\] = 7.*size 4"):
        ops.strided_slice(x, (7,), (8,), (1,), 0, 0, 0, 0, 1)
    with pytest.raises(ValueError, match="only one bit of 'ellipsis_mask'"):
        ops.StridedSlice(ellipsis_mask=3)


# -- gather and unsorted segment sum -----------------------------------------------------------

@pytest.mark.parametrize("pshape,ishape,axis", [((6, 3), (4,), 0), ((6, 3), (2, 3), 0),
                                                ((2, 5, 3), (4,), 1), ((2, 3, 5), (2, 2), -1),
                                                ((5,), (), 0)])
@pytest.mark.parametrize("idtype", [np.int32, np.int64])
def test_gather(pshape, ishape, axis, idtype):
    params = rand(*pshape, seed=19)
    dim = pshape[axis]
    indices = ints(*ishape, high=dim, seed=20, dtype=idtype)
    check_forward(lambda p, i: ops.gather(p, i, axis), lambda p, i: np.take(p, i, axis),
                  [params, indices])
    check_grad(lambda p, i: ops.gather(p, i, axis), [params, indices])


def test_gather_repeated_indices_accumulate():
    params = Tensor(rand(3, 2, seed=21))
    idx = Tensor(np.array([2, 2, 0, 2]))
    g = ms.grad(lambda p: ops.gather(p, idx, 0).sum())(params)
    np.testing.assert_array_equal(g.asnumpy(), [[1, 1], [0, 0], [3, 3]])


def test_gather_bad_inputs():
    p = Tensor(rand(3, 2))
    with pytest.raises(ValueError, match=r"For 'Gather'.*holds 3.*\[0, 3\)"):
        ops.gather(p, Tensor(np.array([0, 3])), 0)
    with pytest.raises(TypeError, match=r"For 'Gather'.*input_indices.*Int32, Int64.*Float32"):
        ops.gather(p, Tensor(rand(2)), 0)
    with pytest.raises(ValueError, match=r"For 'Gather'.*axis.*\[-2, 2\).*2"):
        ops.gather(p, Tensor(np.array([0])), 2)


@pytest.mark.parametrize("xshape,ids_shape,num", [((5, 3), (5,), 4), ((2, 3, 2), (2, 3), 5),
                                                  ((4,), (4,), 2)])
def test_unsorted_segment_sum(xshape, ids_shape, num):
    x = rand(*xshape, seed=22)
    ids = ints(*ids_shape, high=num, seed=23)
    def ref(a, i):
        out = np.zeros((num,) + a.shape[i.ndim:])
        np.add.at(out, i, a)
        return out
    check_forward(lambda a, i: ops.unsorted_segment_sum(a, i, num), ref, [x, ids])
    check_grad(lambda a, i: ops.unsorted_segment_sum(a, i, num), [x, ids])


def test_unsorted_segment_sum_drops_out_of_range_ids():
    x = rand(4, 2, seed=24)
    ids = np.array([0, -1, 5, 1])
    out = ops.unsorted_segment_sum(Tensor(x), Tensor(ids), Tensor(np.array(3)))
    want = np.zeros((3, 2), np.float32)
    want[0], want[1] = x[0], x[3]
    np.testing.assert_allclose(out.asnumpy(), want)
    g = ms.grad(lambda a: (ops.unsorted_segment_sum(a, Tensor(ids), 3) * 2.0).sum())(Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), [[2, 2], [0, 0], [0, 0], [2, 2]])


def test_unsorted_segment_sum_bad_shape():
    with pytest.raises(ValueError, match=r"For 'UnsortedSegmentSum'.*\(3,\).*\(4, 2\)"):
        ops.unsorted_segment_sum(Tensor(rand(4, 2)), Tensor(np.array([0, 1, 2])), 3)


# -- one-hot ---------------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [-1, 0, 1, 2])
def test_one_hot(axis):
    idx = np.array([[0, 2, 4], [1, 3, -1]], np.int32)
    out = ops.one_hot(Tensor(idx), 4, Tensor(np.float32(5)), Tensor(np.float32(-1)), axis)
    want = np.where(np.arange(4) == idx[..., None], 5.0, -1.0).astype(np.float32)
    want = np.moveaxis(want, -1, axis if axis >= 0 else 2)
    assert out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), want)


def test_one_hot_defaults_and_primitive():
    out = ops.OneHot()(Tensor(np.array([1, 0])), 3, Tensor(np.int32(1)), Tensor(np.int32(0)))
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [[0, 1, 0], [1, 0, 0]])
    np.testing.assert_array_equal(ops.one_hot(Tensor(np.array([2])), 3).asnumpy(), [[0, 0, 1]])


def test_one_hot_bad_inputs():
    with pytest.raises(ValueError, match=r"For 'OneHot'.*'depth' must be non-negative.*-2"):
        ops.one_hot(Tensor(np.array([1])), -2)
    with pytest.raises(TypeError, match=r"For 'OneHot'.*indices.*Float32"):
        ops.one_hot(Tensor(rand(2)), 3)
    with pytest.raises(ValueError, match=r"For 'OneHot'.*\[-1, 1\].*3"):
        ops.one_hot(Tensor(np.array([1])), 3, axis=3)


def test_strided_slice_takes_int_tensors_for_begin_end_strides():
    """MindSpore's own test_stridedslice_op.py passes begin/end/strides as 1-D int Tensors;
    a Tensor computed inside a graph being compiled cannot set the shape and is refused."""
    x = np.arange(18, dtype=np.float32).reshape(3, 2, 3)
    for itype in (np.int32, np.int64):
        out = ops.strided_slice(Tensor(x), Tensor(np.array([2, 0, 0], itype)),
                                Tensor(np.array([3, 2, 3], itype)),
                                Tensor(np.array([1, 1, 2], itype)))
        np.testing.assert_array_equal(out.asnumpy(), x[2:3, 0:2, 0:3:2])
    with pytest.raises(TypeError, match="'begin' as a Tensor must be 1-D int32 or int64"):
        ops.strided_slice(Tensor(x), Tensor(np.array([0.0, 0, 0], np.float32)), (1, 1, 1),
                          (1, 1, 1))

    @ms.jit
    def computed_begin(a, b):
        return ops.StridedSlice()(a, b, (1, 1, 1), (1, 1, 1))
    with pytest.raises(TypeError, match="'begin' is a Tensor computed in the graph"):
        computed_begin(Tensor(x), Tensor(np.zeros(3, np.int32)))
