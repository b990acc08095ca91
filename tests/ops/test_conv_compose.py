"""conv1d, conv3d, nn.Conv3d and nn.BiDense (ops/function/conv_compose_func.py,
nn/layer/conv_compose.py) against direct float64 loops, with gradients."""
import itertools

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from tests.ops.harness import check_forward, check_grad, rand


def _conv_ref(x, w, stride, pads, dilation, groups):
    """Direct N-D convolution: pads a list of (before, after) per spatial dim."""
    k = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + list(pads))
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    og = o // groups
    ksz = w.shape[2:]
    outs = [(x.shape[2 + d] - dilation[d] * (ksz[d] - 1) - 1) // stride[d] + 1 for d in range(k)]
    out = np.zeros((n, o, *outs))
    for pos in itertools.product(*[range(s) for s in outs]):
        for g in range(groups):
            sl = [slice(None), slice(g * cg, (g + 1) * cg)]
            sl += [slice(pos[d] * stride[d], pos[d] * stride[d] + dilation[d] * (ksz[d] - 1) + 1,
                         dilation[d]) for d in range(k)]
            patch = x[tuple(sl)]
            wg = w[g * og:(g + 1) * og]
            out[(slice(None), slice(g * og, (g + 1) * og)) + pos] = np.tensordot(
                patch, wg, axes=(list(range(1, k + 2)), list(range(1, k + 2))))
    return out


def test_conv1d_forward_grad():
    x, w, b = rand(2, 4, 9, seed=1), rand(6, 2, 3, seed=2), rand(6, seed=3)
    ref = lambda x, w, b: _conv_ref(x, w, (2,), [(1, 1)], (2,), 2) + b[None, :, None]  # noqa: E731
    check_forward(lambda x, w, b: ops.conv1d(x, w, b, 2, "pad", 1, 2, 2), ref, [x, w, b])
    check_grad(lambda x, w, b: ops.conv1d(x, w, b, 2, "pad", 1, 2, 2), [x, w, b])
    # 'same': L_out = ceil(L / stride), the total padding split low-first
    check_forward(lambda x, w: ops.conv1d(x, w[:, :, :2], None, 2, "same", groups=2),
                  lambda x, w: _conv_ref(x, w[:, :, :2], (2,), [(0, 1)], (1,), 2), [x, w])


def test_conv3d_forward_grad():
    x, w, b = rand(1, 4, 4, 5, 4, seed=4), rand(2, 2, 2, 3, 2, seed=5), rand(2, seed=6)
    def ref(x, w, b):
        return (_conv_ref(x, w, (2, 1, 2), [(1, 1), (0, 0), (2, 2)], (1, 2, 1), 2)
                + b[None, :, None, None, None])
    check_forward(lambda x, w, b: ops.conv3d(x, w, b, (2, 1, 2), "pad", (1, 0, 2), (1, 2, 1), 2),
                  ref, [x, w, b], rtol=1e-5, atol=1e-5)
    check_grad(lambda x, w: ops.conv3d(x, w, None, 2, "same", 0, 1, 2), [x[:, :, :3, :3, :3], w])
    out = ops.conv3d(Tensor(x), Tensor(w), None, 2, "same", groups=2)
    assert out.shape == (1, 2, 2, 3, 2)


def test_conv_bad_inputs():
    x1, w1 = Tensor(rand(2, 4, 9)), Tensor(rand(6, 2, 3))
    with pytest.raises(ValueError, match="conv1d"):
        ops.conv1d(Tensor(rand(2, 4, 3, 3)), w1)
    with pytest.raises(ValueError, match="pad_mode"):
        ops.conv1d(x1, w1, pad_mode="full")
    with pytest.raises(ValueError, match="groups"):
        ops.conv3d(Tensor(rand(1, 4, 3, 3, 3)), Tensor(rand(2, 2, 2, 2, 2)), groups=3)
    with pytest.raises(ValueError, match="padding"):
        ops.conv3d(Tensor(rand(1, 4, 3, 3, 3)), Tensor(rand(2, 4, 2, 2, 2)), padding=1)
    with pytest.raises(TypeError, match="padding"):
        ops.conv3d(Tensor(rand(1, 4, 3, 3, 3)), Tensor(rand(2, 4, 2, 2, 2)), pad_mode="pad",
                   padding=(1, 0, 1, 0, 1, 0))


def test_nn_conv3d():
    net = nn.Conv3d(4, 2, 3, (1, 2, 1), "pad", (1, 0, 2, 1, 0, 1), dilation=(2, 1, 1),
                    has_bias=True)
    assert net.weight.shape == (2, 4, 3, 3, 3) and net.bias.shape == (2,)
    x = rand(1, 4, 5, 6, 5, seed=7)
    want = _conv_ref(x.astype(np.float64), net.weight.asnumpy().astype(np.float64), (1, 2, 1),
                     [(1, 0), (2, 1), (0, 1)], (2, 1, 1), 1) + net.bias.asnumpy()[None, :, None,
                                                                                 None, None]
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-5)
    assert nn.Conv3d(4, 2, 2)(Tensor(x)).shape == (1, 2, 5, 6, 5)
    with pytest.raises(ValueError, match="padding"):
        nn.Conv3d(4, 2, 2, padding=1)


def test_nn_bidense():
    net = nn.BiDense(3, 2, 4)
    x1, x2 = rand(2, 5, 3, seed=8), rand(2, 5, 2, seed=9)
    w, b = net.weight.asnumpy(), net.bias.asnumpy()
    assert w.shape == (4, 3, 2) and np.all(np.abs(w) <= 1 / np.sqrt(3))
    want = np.einsum("...i,oij,...j->...o", x1, w, x2) + b
    np.testing.assert_allclose(net(Tensor(x1), Tensor(x2)).asnumpy(), want, rtol=1e-5, atol=1e-6)
    net64 = nn.BiDense(3, 2, 4, dtype=ms.float64)
    check_grad(lambda a, c: net64(a, c), [x1[0], x2[0]])
    with pytest.raises(ValueError, match="BiDense"):
        net(Tensor(x1), Tensor(x1))
