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


def _conv_transpose_ref(x, w, stride, dilation, groups):
    """Direct scatter of every input voxel through the kernel (the 'valid' full output)."""
    n, c_in = x.shape[:2]
    k = w.shape[2:]
    c_out_g = w.shape[1]
    size = [(x.shape[2 + d] - 1) * stride[d] + dilation[d] * (k[d] - 1) + 1 for d in range(3)]
    out = np.zeros((n, c_out_g * groups, *size))
    cin_g = c_in // groups
    for pos in itertools.product(*[range(s) for s in x.shape[2:]]):
        for t in itertools.product(*[range(s) for s in k]):
            at = tuple(pos[d] * stride[d] + t[d] * dilation[d] for d in range(3))
            for g in range(groups):
                xs = x[(slice(None), slice(g * cin_g, (g + 1) * cin_g)) + pos]   # (n, cin_g)
                ws = w[(slice(g * cin_g, (g + 1) * cin_g), slice(None)) + t]      # (cin_g, cout_g)
                out[(slice(None), slice(g * c_out_g, (g + 1) * c_out_g)) + at] += xs @ ws
    return out


def test_conv3d_transpose():
    x, w = rand(1, 4, 2, 3, 2, seed=10), rand(4, 3, 2, 2, 3, seed=11)
    prim = ops.Conv3DTranspose(4, 6, (2, 2, 3), stride=(1, 2, 2), dilation=(1, 2, 1), group=2)
    check_forward(prim, lambda a, b: _conv_transpose_ref(a, b, (1, 2, 2), (1, 2, 1), 2),
                  [x, w], rtol=1e-5, atol=1e-5)
    check_grad(prim, [x, w])
    full = _conv_transpose_ref(x.astype(np.float64), w.astype(np.float64), (2, 2, 2), (1, 1, 1),
                               2)
    cropped = ops.Conv3DTranspose(4, 6, (2, 2, 3), pad_mode="pad", pad=(1, 0, 0, 1, 2, 1),
                                  stride=2, group=2, output_padding=(0, 1, 1))(Tensor(x),
                                                                               Tensor(w))
    # per dim: drop `before`, keep size - before - after + output_padding (zeros past the end)
    want = np.pad(full, [(0, 0)] * 2 + [(0, 1)] * 3)
    spans = [(b, full.shape[2 + d] - b - a + o)
             for d, (b, a, o) in enumerate([(1, 0, 0), (0, 1, 1), (2, 1, 1)])]
    want = want[(slice(None), slice(None)) + tuple(slice(b, b + n) for b, n in spans)]
    np.testing.assert_allclose(cropped.asnumpy(), want, rtol=1e-5, atol=1e-5)
    net = nn.Conv3dTranspose(4, 6, 3, 2, "same", group=2, has_bias=True)
    assert net.weight.shape == (4, 3, 3, 3, 3)
    assert net(Tensor(x)).shape == (1, 6, 4, 6, 4)
    with pytest.raises(ValueError, match="output_padding"):
        ops.Conv3DTranspose(4, 6, 2, stride=2, output_padding=1, group=2)(Tensor(x), Tensor(w))
    with pytest.raises(ValueError, match="depth of parameter 'dilation'"):
        nn.Conv3dTranspose(4, 6, 2, dilation=2)
