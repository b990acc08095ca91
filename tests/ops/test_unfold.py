"""ops.unfold (Im2Col) against MindSpore 2.7.2's outputs, recomputed here by a float64 numpy
loop that reproduces them (checked against the oracle when written), its gradient by finite
differences, and MindSpore's argument errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_grad

X = np.arange(2 * 3 * 5 * 6, dtype=np.float32).reshape(2, 3, 5, 6)


def reference(x, k, d, p, s):
    """im2col by loops in float64: rows (channel, ki, kj), columns the block positions."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    n, c, h, w = x.shape
    oh = (h - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c, k[0], k[1], oh, ow))
    for i in range(k[0]):
        for j in range(k[1]):
            out[:, :, i, j] = x[:, :, i * d[0]:i * d[0] + s[0] * (oh - 1) + 1:s[0],
                                j * d[1]:j * d[1] + s[1] * (ow - 1) + 1:s[1]]
    return out.reshape(n, c * k[0] * k[1], oh * ow)


CASES = [  # (kwargs, the reference's arguments, the shape MindSpore gave)
    (dict(kernel_size=2), ((2, 2), (1, 1), (0, 0), (1, 1)), (2, 12, 20)),
    (dict(kernel_size=(2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1)),
     ((2, 3), (1, 2), (1, 0), (2, 1)), (2, 18, 6)),
    (dict(kernel_size=3, padding=1, stride=2), ((3, 3), (1, 1), (1, 1), (2, 2)), (2, 27, 9)),
]


@pytest.mark.parametrize("kwargs, args, shape", CASES)
def test_unfold_matches_the_reference_and_mindspores_shape(kwargs, args, shape):
    out = ops.unfold(Tensor(X), **kwargs)
    assert out.shape == shape and out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), reference(X, *args))


def test_unfold_gradient_and_graph_mode():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 2, 4, 5))
    check_grad(lambda t: ops.unfold(t, 2, padding=1, stride=(1, 2)) ** 2, [x])
    ms.set_context(mode=ms.GRAPH_MODE)
    f = ms.jit(lambda t: ops.unfold(t, 3, padding=1, stride=2))
    np.testing.assert_array_equal(f(Tensor(X)).asnumpy(), reference(X, (3, 3), (1, 1), (1, 1),
                                                                    (2, 2)))


@pytest.mark.parametrize("kwargs, message", [
    (dict(kernel_size=0), r"'kernel_size\[0\]' must be int and must > 0, but got '0'"),
    (dict(kernel_size=2, padding=-1), r"'padding\[0\]' must be int and must >= 0, but got '-1'"),
    (dict(kernel_size=(2, 2, 2)), r"kernel_size size should be in : \[1, 2\], but got 3"),
])
def test_bad_arguments_raise_mindspores_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ops.unfold(Tensor(X), **kwargs)
    with pytest.raises(ValueError, match="dimension of input x must be equal to 4, but got 3"):
        ops.unfold(Tensor(X[0]), 2)


def test_im2col_primitive_is_unfold_with_the_channel_split_out():
    """MindSpore 2.7.2 (recorded): Im2Col's (N, C, kh * kw, L) holds ops.unfold's columns;
    pads takes one int or a pair, and four raise its error."""
    x = Tensor(np.arange(2 * 3 * 5 * 6, dtype=np.float32).reshape(2, 3, 5, 6))
    cols = ops.Im2Col(ksizes=(2, 3), strides=(1, 2), dilations=1, pads=1)(x)
    assert cols.shape == (2, 3, 6, 18)
    np.testing.assert_array_equal(cols.asnumpy().reshape(2, 18, 18),
                                  ops.unfold(x, (2, 3), 1, 1, (1, 2)).asnumpy())
    assert ops.Im2Col(ksizes=2, pads=(1, 2))(x).shape == (2, 3, 4, 54)
    with pytest.raises(ValueError, match=r"the pads size should be in : \[1, 2\], but got 4"):
        ops.Im2Col(ksizes=2, pads=(1, 1, 2, 2))(x)
    with pytest.raises(ValueError, match="dimension of input x must be equal to 4, but got 3"):
        ops.Im2Col(ksizes=2)(Tensor(np.ones((3, 4, 4), np.float32)))
