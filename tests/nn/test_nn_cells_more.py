"""nn.InstanceNorm1d/2d/3d, nn.Unfold, nn.SparseToDense and nn.SparseTensorDenseMatmul:
float64 numpy references, gradients against central differences, values recorded from
MindSpore 2.7.2 (printed by tests/nn/oracle_nn_cells_more.py under the MindSpore wheel) and
MindSpore's argument errors. MindSpore's CPU build refuses InstanceNorm and ExtractImagePatches
(GPU/Ascend only), so those two are checked against references of its GPU kernels' meaning."""
import logging

import numpy as np
import pytest

import minispore as ms
from minispore import COOTensor, Tensor, nn, ops
from tests.ops.harness import numeric_grads, rand


# -- InstanceNorm --------------------------------------------------------------------------
def _instance_norm_ref(x, gamma, beta, eps=1e-5):
    axes = tuple(range(2, x.ndim))
    mean = x.mean(axes, keepdims=True)
    var = x.var(axes, keepdims=True)      # biased, as cuDNN's batch-norm statistics
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean) / np.sqrt(var + eps) * gamma.reshape(shape) + beta.reshape(shape)


@pytest.mark.parametrize("cls, shape", [(nn.InstanceNorm1d, (2, 3, 5)),
                                        (nn.InstanceNorm2d, (2, 3, 4, 3)),
                                        (nn.InstanceNorm3d, (2, 3, 2, 3, 2))])
def test_instance_norm_forward_matches_float64_reference(cls, shape):
    gamma, beta = rand(3, seed=1, low=0.5, high=1.5), rand(3, seed=2)
    net = cls(3, gamma_init=Tensor(gamma), beta_init=Tensor(beta))
    x = rand(*shape, seed=3, low=-2, high=3)
    out = net(Tensor(x))
    assert out.dtype == ms.float32 and tuple(out.shape) == shape
    ref = _instance_norm_ref(x.astype(np.float64), gamma.astype(np.float64),
                             beta.astype(np.float64))
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-5, atol=1e-5)
    # instance statistics in evaluation too, and the moving statistics never move
    net.set_train(False)
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(net.moving_mean.asnumpy(), np.zeros(3, np.float32))
    np.testing.assert_array_equal(net.moving_variance.asnumpy(), np.ones(3, np.float32))


def test_instance_norm_float16_input_gives_float16():
    x = rand(2, 3, 4, 4, seed=4, low=-2, high=2).astype(np.float16)
    out = nn.InstanceNorm2d(3)(Tensor(x))
    assert out.dtype == ms.float16
    ref = _instance_norm_ref(x.astype(np.float64), np.ones(3), np.zeros(3))
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), ref, rtol=2e-3, atol=2e-3)


def test_instance_norm_gradients_match_central_differences():
    gamma, beta = rand(3, seed=5, low=0.5, high=1.5), rand(3, seed=6)
    net = nn.InstanceNorm2d(3, gamma_init=Tensor(gamma), beta_init=Tensor(beta))
    x = rand(2, 3, 3, 2, seed=7, low=-2, high=2)
    w = rand(2, 3, 3, 2, seed=8)
    grads = ms.grad(lambda a: (net(a) * Tensor(w)).sum(), 0, net.trainable_params())(Tensor(x))
    arrays = [x.astype(np.float64), gamma.astype(np.float64), beta.astype(np.float64)]
    want = numeric_grads(lambda a, g, b: (_instance_norm_ref(a, g, b) * w).sum(), arrays,
                         (0, 1, 2))
    np.testing.assert_allclose(grads[0].asnumpy(), want[0], rtol=1e-3, atol=1e-4)
    for got, ref in zip(grads[1], want[1:]):
        np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-4, atol=1e-4)


def test_instance_norm_parameters_and_repr():
    net = nn.InstanceNorm1d(3, affine=False)
    assert [(p.name, p.requires_grad) for p in net.get_parameters()] == [
        ("mean", False), ("variance", False), ("gamma", False), ("beta", False)]
    assert net.trainable_params() == []
    assert "num_features=3, eps=1e-05, momentum=0.1, gamma=Parameter (name=gamma" in repr(net)
    np.testing.assert_array_equal(nn.InstanceNorm1d(3, gamma_init=2).gamma.asnumpy(), [2, 2, 2])


# MindSpore 2.7.2's errors (its checks run before the CPU build refuses the kernel)
@pytest.mark.parametrize("make, err, text", [
    (lambda: nn.InstanceNorm1d(3.0), TypeError, "the type of 'num_features' should be 'int'"),
    (lambda: nn.InstanceNorm1d(3, eps=1), TypeError, "the type of 'eps' should be 'float'"),
    (lambda: nn.InstanceNorm1d(3, momentum=1), TypeError, "'momentum' should be 'float'"),
    (lambda: nn.InstanceNorm2d(3, affine=1), TypeError, "'affine' should be 'bool'"),
    (lambda: nn.InstanceNorm1d(3, beta_init=None), TypeError,
     "the type of 'beta_init' must be in [Tensor, numbers.Number, str, Initializer]"),
    (lambda: nn.InstanceNorm2d(3, gamma_init=Tensor(np.ones(3))), TypeError,
     "the type of 'gamma_init' must be float32"),
    (lambda: nn.InstanceNorm2d(0), ValueError, "'num_features' must be at least 1, but got 0"),
    (lambda: nn.InstanceNorm2d(3, momentum=1.5), ValueError, "range [0, 1], but got 1.5"),
    (lambda: nn.InstanceNorm1d(3, eps=-1.0), ValueError,
     "For 'InstanceNorm', the 'epsilon' must be in range of (0, 1], but got -1.0"),
])
def test_instance_norm_argument_errors(make, err, text):
    with pytest.raises(err) as info:
        make()
    assert text in str(info.value)


@pytest.mark.parametrize("net, x, err, text", [
    (lambda: nn.InstanceNorm2d(3), np.ones((2, 3, 4), np.float32), ValueError,
     "For 'InstanceNorm2d', the in_shape must have 4 dims, but got 3."),
    (lambda: nn.InstanceNorm2d(3), np.ones((2, 3, 4, 4), np.int32), TypeError,
     "must be a type of {Tensor[Float16], Tensor[Float32]}, but got Tensor[Int32]"),
    (lambda: nn.InstanceNorm2d(3), np.ones((2, 3, 4, 4)), TypeError, "Tensor[Float64]"),
    (lambda: nn.InstanceNorm2d(4), np.ones((2, 3, 4, 4), np.float32), ValueError,
     "the gamma shape must be equal to (C, ) which is 3 , but got 4."),
    (lambda: nn.InstanceNorm2d(3, dtype=ms.float16), np.ones((2, 3, 4, 4), np.float32),
     TypeError, "argument[beta] must be a type of {Tensor[Float32]}"),
])
def test_instance_norm_input_errors(net, x, err, text):
    with pytest.raises(err) as info:
        net()(Tensor(x))
    assert text in str(info.value)


# -- Unfold / ExtractImagePatches ----------------------------------------------------------
def _patches_ref(x, k, s, r, padding):
    """TensorFlow's extract_image_patches on NCHW, one output element at a time: depth index
    (i * kc + j) * C + c; SAME pads half (C++ division) of the excess at the top / left."""
    n, c, h, w = x.shape
    eff = [k[d] + (k[d] - 1) * (r[d] - 1) for d in range(2)]
    if padding == "VALID":
        out = [-(-(size - e + 1) // st) for size, e, st in zip((h, w), eff, s)]
        pads = [0, 0]
    else:
        out = [-(-size // st) for size, st in zip((h, w), s)]
        pads = [int(((o - 1) * st + e - size) / 2)
                for o, st, e, size in zip(out, s, eff, (h, w))]
    y = np.zeros((n, k[0] * k[1] * c, out[0], out[1]), x.dtype)
    for oi in range(out[0]):
        for oj in range(out[1]):
            for i in range(k[0]):
                for j in range(k[1]):
                    row, col = oi * s[0] + i * r[0] - pads[0], oj * s[1] + j * r[1] - pads[1]
                    if 0 <= row < h and 0 <= col < w:
                        y[:, (i * k[1] + j) * c:(i * k[1] + j + 1) * c, oi, oj] = x[:, :, row, col]
    return y


@pytest.mark.parametrize("k, s, r, padding, hw", [
    ((2, 2), (1, 2), (1, 1), "valid", (5, 6)),
    ((2, 2), (2, 2), (2, 2), "valid", (6, 6)),      # MindSpore's docstring example
    ((3, 2), (2, 1), (1, 2), "VALID", (7, 5)),
    ((2, 3), (3, 2), (2, 1), "same", (5, 6)),
    ((3, 3), (2, 2), (1, 1), "SAME", (5, 4)),
    ((1, 1), (5, 4), (1, 1), "same", (9, 7)),       # the top / left pad is negative here
])
def test_unfold_matches_reference(k, s, r, padding, hw):
    x = rand(2, 3, *hw, seed=9)
    net = nn.Unfold([1, k[0], k[1], 1], [1, s[0], s[1], 1], [1, r[0], r[1], 1], padding)
    out = net(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(out, _patches_ref(x, k, s, r, padding.upper()))


def test_unfold_docstring_shape_and_integer_input():
    net = nn.Unfold(ksizes=[1, 2, 2, 1], strides=[1, 2, 2, 1], rates=[1, 2, 2, 1])
    assert net(Tensor(np.ones([2, 3, 6, 6]), ms.float16)).shape == (2, 12, 2, 2)
    x = np.arange(2 * 2 * 4 * 4, dtype=np.int32).reshape(2, 2, 4, 4)
    out = nn.Unfold([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1])(Tensor(x))
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), _patches_ref(x, (2, 2), (1, 1), (1, 1), "VALID"))
    # the primitive takes the (row, col) pairs as well as the NCHW 4-form
    prim = ops.ExtractImagePatches((2, 2), (1, 1), (1, 1), "VALID")
    np.testing.assert_array_equal(prim(Tensor(x)).asnumpy(), out.asnumpy())
    with pytest.raises(TypeError, match=r"For 'ExtractImagePatches', the type of 'ksizes' "
                                        r"should be one of '\[list of int, tuple of int\]'"):
        ops.ExtractImagePatches(2, 1, 1)


def test_unfold_gradient_matches_central_differences():
    net = nn.Unfold([1, 2, 2, 1], [1, 2, 1, 1], [1, 1, 2, 1], "same")
    x = rand(1, 2, 4, 5, seed=10).astype(np.float64)
    w = rand(*net(Tensor(x)).shape, seed=11).astype(np.float64)
    got = ms.grad(lambda a: (net(a) * Tensor(w)).sum())(Tensor(x)).asnumpy()
    want = numeric_grads(lambda a: (_patches_ref(a, (2, 2), (2, 1), (1, 2), "SAME") * w).sum(),
                         [x.copy()], (0,))[0]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("args, err, text", [
    (([1, 2, 2], [1, 1, 1, 1], [1, 1, 1, 1]), ValueError,
     "For 'Unfold' the format of 'ksizes' must be [1, ksize_row, ksize_col, 1], but got "
     "[1, 2, 2]."),
    (([2, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1]), ValueError, "but got [2, 2, 2, 1]."),
    (([1, 0, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1]), ValueError,
     "the ksize_row and ksize_col in 'ksizes' must be an positive integer number, but got "
     "ksize_row is 0, ksize_col is 2"),
    (([1, 2, 2, 1], [1, 0, 1, 1], [1, 1, 1, 1]), ValueError, "stride_row is 0, stride_col is 1"),
    (([1, 2.0, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1]), ValueError, "ksize_row is 2.0"),
    ((5, [1, 1, 1, 1], [1, 1, 1, 1]), TypeError,
     "For 'Unfold', the type of 'ksizes' should be one of '['tuple', 'list']', but got type "
     "'int'."),
    (([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "bad"), ValueError,
     "Failed to convert the value \"bad\" of input 'padding' of 'ExtractImagePatches' to enum."),
    (([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], 1), TypeError,
     "For 'ExtractImagePatches', the input 'padding' should be a str"),
])
def test_unfold_argument_errors(args, err, text):
    with pytest.raises(err) as info:
        nn.Unfold(*args)
    assert text in str(info.value)


@pytest.mark.parametrize("ksize, shape, text", [
    ([1, 2, 2, 1], (3, 5, 6), "For ExtractImagePatchesthe rank of input_x must be 4."),
    ([1, 6, 2, 1], (2, 3, 5, 6), "the output shape should greater than 0, but got "
                                 "[2, 36, 0, 5]"),
])
def test_unfold_input_errors(ksize, shape, text):
    with pytest.raises(ValueError) as info:
        nn.Unfold(ksize, [1, 1, 1, 1], [1, 1, 1, 1])(Tensor(np.ones(shape, np.float32)))
    assert text in str(info.value)


# -- SparseToDense / SparseTensorDenseMatmul -----------------------------------------------
IDX = np.array([[0, 1], [1, 2], [0, 1], [2, 0]], np.int64)
VAL = np.array([1.0, 2.0, 3.0, 4.0], np.float32)


def test_sparse_to_dense_keeps_the_last_repeated_value(caplog):
    with caplog.at_level(logging.WARNING, logger="minispore"):
        net = nn.SparseToDense()
    assert "'nn.SparseToDense' is deprecated from version 2.0" in caplog.text
    out = net(COOTensor(Tensor(IDX), Tensor(VAL), (3, 4)))
    assert out.dtype == ms.float32
    # MindSpore 2.7.2 (oracle_nn_cells_more.py)
    np.testing.assert_array_equal(out.asnumpy(), [[0.0, 3.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0],
                                                  [4.0, 0.0, 0.0, 0.0]])
    out = net(COOTensor(Tensor(IDX[::-1].copy()), Tensor(np.array([5, 6, 7, 8], np.int32)),
                        (3, 4)))
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [[0, 8, 0, 0], [0, 0, 7, 0], [5, 0, 0, 0]])


@pytest.mark.parametrize("indices, err, text", [
    (np.array([[0, 1]], np.int16), TypeError,
     "For primitive[SparseToDense], the input argument[indices] must be a type of "
     "{Tensor[Int32], Tensor[Int64]}, but got Tensor[Int16]."),
    (np.array([[5, 1]], np.int64), ValueError,
     "For 'SparseToDense', the 0th value in 0th dimension index: 5 of 'output' out of bounds: "
     "[0, 3)"),
    (np.array([[0, -1]], np.int64), ValueError, "1th dimension index: -1 of 'output'"),
])
def test_sparse_to_dense_errors(indices, err, text):
    with pytest.raises(err) as info:
        ops.SparseToDense()(Tensor(indices), Tensor(np.array([1.0], np.float32)), (3, 4))
    assert text in str(info.value)
    with pytest.raises(AttributeError):
        nn.SparseToDense()(Tensor(VAL))


# (adjoint_st, adjoint_dt) -> dense, MindSpore 2.7.2's output, d(sum(out * arange))/d(values),
# .../d(dense) (oracle_nn_cells_more.py)
SPMM = {
    (False, False): (np.arange(8, dtype=np.float32).reshape(4, 2) / 4,
                     [[2.0, 3.0], [2.0, 2.5], [0.0, 1.0]], [0.75, 5.75, 0.75, 1.25],
                     [[16.0, 20.0], [0.0, 4.0], [4.0, 6.0], [0.0, 0.0]]),
    (True, False): (np.arange(6, dtype=np.float32).reshape(3, 2) / 4,
                    [[4.0, 5.0], [0.0, 1.0], [1.0, 1.5], [0.0, 0.0]], [0.75, 5.75, 0.75, 1.25],
                    [[8.0, 12.0], [8.0, 10.0], [0.0, 4.0]]),
    (False, True): (np.arange(8, dtype=np.float32).reshape(2, 4) / 4,
                    [[1.0, 5.0], [1.0, 3.0], [0.0, 4.0]], [1.25, 5.5, 1.25, 5.0],
                    [[16.0, 0.0, 4.0, 0.0], [20.0, 4.0, 6.0, 0.0]]),
    (True, True): (np.arange(6, dtype=np.float32).reshape(2, 3) / 4,
                   [[2.0, 5.0], [0.0, 3.0], [0.5, 2.0], [0.0, 0.0]], [2.25, 6.0, 2.25, 1.25],
                   [[8.0, 8.0, 0.0], [12.0, 10.0, 4.0]]),
}


@pytest.mark.parametrize("adjoints", list(SPMM))
def test_sparse_tensor_dense_matmul_values_and_gradients(adjoints):
    dense, want, want_gv, want_gd = SPMM[adjoints]
    net = nn.SparseTensorDenseMatmul(*adjoints)
    out = net(Tensor(IDX), Tensor(VAL), (3, 4), Tensor(dense))
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
    # float64 reference: the dense matrix of S (repeated indices add up)
    s = np.zeros((3, 4))
    np.add.at(s, (IDX[:, 0], IDX[:, 1]), VAL.astype(np.float64))
    s, d = (s.T if adjoints[0] else s), (dense.T if adjoints[1] else dense)
    np.testing.assert_allclose(out.asnumpy(), s @ d, rtol=1e-6)
    w = Tensor(np.arange(out.size, dtype=np.float32).reshape(out.shape))
    gv, gd = ms.grad(lambda v, m: (net(Tensor(IDX), v, (3, 4), m) * w).sum(), (0, 1))(
        Tensor(VAL), Tensor(dense))
    np.testing.assert_allclose(gv.asnumpy(), want_gv, rtol=1e-6)
    np.testing.assert_allclose(gd.asnumpy(), want_gd, rtol=1e-6)


def test_sparse_tensor_dense_matmul_dtypes_and_shapes():
    net = nn.SparseTensorDenseMatmul()
    out = net(Tensor(np.array([[0, 1], [1, 2]], np.int32)), Tensor(np.array([2, 3], np.int32)),
              (3, 4), Tensor(np.arange(8, dtype=np.int32).reshape(4, 2)))
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [[4, 6], [12, 15], [0, 0]])
    out = net(Tensor(np.zeros((0, 2), np.int64)), Tensor(np.zeros((0,), np.float32)), (3, 4),
              Tensor(np.ones((4, 2), np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), np.zeros((3, 2)))
    out = net(Tensor(IDX[:1]), Tensor(VAL[:1]), Tensor(np.array([3, 4], np.int64)),
              Tensor(np.ones((4, 2), np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), [[1, 1], [0, 0], [0, 0]])


D42 = np.ones((4, 2), np.float32)


@pytest.mark.parametrize("args, err, text", [
    ((IDX, VAL, (3, 4), D42.astype(np.float64)), TypeError,
     "For primitive[SparseTensorDenseMatmul], the input type must be same."),
    ((IDX.astype(np.int16), VAL, (3, 4), D42), TypeError,
     "For 'SparseTensorDenseMatmul', the input indices data type should be int32 or int64."),
    ((IDX, VAL.astype(np.bool_), (3, 4), D42.astype(np.bool_)), TypeError,
     "the input argument[values] must be a type of {Tensor[Complex128]"),
    ((IDX, VAL, [3, 4], D42), TypeError, "the input shape data type should be int32 or int64."),
    ((IDX, VAL, (3, 4, 1), D42), ValueError,
     "For 'SparseTensorDenseMatmul', the 1st dimension of sparse_shape should be 2, but got 3."),
    ((IDX, VAL[:2], (3, 4), D42), ValueError,
     "the input values' length is different from indices' first dimension"),
    ((IDX, VAL, (3, 4), np.ones((4, 2, 1), np.float32)), ValueError,
     "'the shape of input dense' must be a 2-dimensional tensor, but got a 3-dimensional"),
    ((np.array([[3, 1]], np.int64), VAL[:1], (3, 4), D42), ValueError,
     "For 'SparseTensorDenseMatmul', the indices including out of bounds index, row range: "
     "[0, 3), col range: [0, 4), but got row: 3, col: 1"),
    ((np.array([[0, 4]], np.int64), VAL[:1], (3, 4), D42), ValueError, "row: 0, col: 4"),
])
def test_sparse_tensor_dense_matmul_errors(args, err, text):
    indices, values, shape, dense = args
    with pytest.raises(err) as info:
        nn.SparseTensorDenseMatmul()(Tensor(indices), Tensor(values), shape, Tensor(dense))
    assert text in str(info.value)
    with pytest.raises(TypeError, match="the type of 'adjoint_st' should be 'bool', but got "
                                        "type 'int'"):
        nn.SparseTensorDenseMatmul(1)
