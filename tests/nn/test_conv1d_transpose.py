"""nn.Conv1d, ops.Conv2DTranspose and nn.Conv2dTranspose: forward vs float64 loop references
(a direct 1-D correlation; a direct scatter for the transposed convolution, which must also be
the adjoint of Conv2D), gradients vs finite differences, MindSpore's output sizes, argument
errors, and GRAPH vs PYNATIVE training steps. The check_forward / check_grad tests here are
also replayed as compiled graphs by tests/graph/test_op_parity.py."""
import itertools

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.common import dtype as mstype
from tests.graph.helpers import assert_training_runs_agree
from tests.ops.harness import check_forward, check_grad, numeric_grads, rand
from tests.ops.test_conv_pool import _conv_ref


# -- references ----------------------------------------------------------------------------
def _same_pads(size, k, s, d):
    """MindSpore's 'same' split for a convolution over `size`: the odd one after."""
    out = -(-size // s)
    total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
    return total // 2, total - total // 2


def _conv1d_ref(x, w, b, stride, dilation, pads, group):
    """out[n, o, l] = b[o] + sum over c in o's group and t of
    xpad[n, c, l*stride + t*dilation] * w[o, c, t]."""
    left, right = pads
    xp = np.pad(x, ((0, 0), (0, 0), (left, right)))
    n, cin, length = xp.shape
    cout, cg, k = w.shape
    lout = (length - (k - 1) * dilation - 1) // stride + 1
    og = cout // group
    out = np.zeros((n, cout, lout))
    for i in range(n):
        for o in range(cout):
            g = o // og
            for pos in range(lout):
                acc = 0.0 if b is None else b[o]
                for c in range(cg):
                    for t in range(k):
                        acc += xp[i, g * cg + c, pos * stride + t * dilation] * w[o, c, t]
                out[i, o, pos] = acc
    return out


def _conv2d_t_ref(dy, w, out_hw, stride, dilation, pads, group):
    """Transposed convolution as a direct scatter: each dy[n, o, i, j] adds dy * w[o, c] to the
    window of output channel (o's group, c) that the Conv2D read for output cell (i, j);
    the padded border is then cut off."""
    pt, pb, pl, pr = pads
    n, cout, h, wd = dy.shape
    _, cg, kh, kw = w.shape
    (sh, sw), (dh, dw) = stride, dilation
    og = cout // group
    oh, ow = out_hw
    outp = np.zeros((n, cg * group, oh + pt + pb, ow + pl + pr))
    for o in range(cout):
        g = o // og
        for i, j, c, a, e in itertools.product(range(h), range(wd), range(cg), range(kh),
                                               range(kw)):
            outp[:, g * cg + c, i * sh + a * dh, j * sw + e * dw] += dy[:, o, i, j] * w[o, c, a, e]
    return outp[:, :, pt:pt + oh, pl:pl + ow]


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _conv_pads(pad_mode, padding, in_hw, k, stride, dilation):
    """(top, bottom, left, right) that Conv2D uses over an input of size in_hw."""
    if pad_mode == "valid":
        return (0, 0, 0, 0)
    if pad_mode == "same":
        return (_same_pads(in_hw[0], k[0], stride[0], dilation[0])
                + _same_pads(in_hw[1], k[1], stride[1], dilation[1]))
    return (padding,) * 4 if isinstance(padding, int) else tuple(padding)


def _deconv_size(size, k, s, d, pad_mode, before, after):
    """MindSpore's nn.Conv2dTranspose output size along one dim (before output_padding)."""
    span = (k - 1) * d + 1
    if pad_mode == "same":
        return size * s
    if pad_mode == "valid":
        return size * s + max(span - s, 0)
    return size * s - before - after + span - s


# -- nn.Conv1d -----------------------------------------------------------------------------
# (pad_mode, padding, stride, dilation, group, has_bias)
CONV1D_CASES = [
    ("same", 0, 1, 1, 1, False),
    ("same", 0, 2, 1, 2, True),
    ("same", 0, 3, 2, 1, True),
    ("valid", 0, 1, 1, 1, True),
    ("valid", 0, 2, 2, 2, False),
    ("pad", 2, 1, 1, 1, True),
    ("pad", 1, 2, 3, 2, False),
]


def _conv1d_net(w, b, pad_mode, padding, stride, dilation, group, dtype=mstype.float32):
    cout, cg, k = w.shape
    return nn.Conv1d(cg * group, cout, k, stride=stride, pad_mode=pad_mode, padding=padding,
                     dilation=dilation, group=group, has_bias=b is not None,
                     weight_init=Tensor(w), bias_init=None if b is None else Tensor(b),
                     dtype=dtype)


def _conv1d_case(pad_mode, padding, stride, dilation, group, has_bias):
    x = rand(2, 4, 9, seed=1)
    w = rand(6, 4 // group, 3, seed=2)
    b = rand(6, seed=3) if has_bias else None
    if pad_mode == "valid":
        pads = (0, 0)
    elif pad_mode == "same":
        pads = _same_pads(9, 3, stride, dilation)
    else:
        pads = (padding, padding)
    return x, w, b, pads


@pytest.mark.parametrize("pad_mode,padding,stride,dilation,group,has_bias", CONV1D_CASES)
def test_conv1d_forward_matches_direct_loops(pad_mode, padding, stride, dilation, group,
                                             has_bias):
    x, w, b, pads = _conv1d_case(pad_mode, padding, stride, dilation, group, has_bias)
    net = _conv1d_net(w, b, pad_mode, padding, stride, dilation, group)
    b64 = None if b is None else b.astype(np.float64)
    check_forward(lambda t: net(t),
                  lambda a: _conv1d_ref(a, w.astype(np.float64), b64, stride, dilation, pads,
                                        group), [x], rtol=1e-5, atol=1e-5)


def _layer_grads_vs_fd(make_net, x, params):
    """d(sum(net(x) * probe)) w.r.t. x and every Parameter, from the tape and from central
    differences (harness.numeric_grads) of the same float64 layer rebuilt around each value."""
    x = x.astype(np.float64)
    params = [p.astype(np.float64) for p in params]
    net = make_net(*params)
    probe = np.random.default_rng(0).standard_normal(net(Tensor(x)).shape)

    def scalar(t):
        return (net(t) * Tensor(probe)).sum()

    gx, gp = ms.grad(scalar, 0, net.trainable_params())(Tensor(x))

    def scalar_np(xa, *pa):
        return float((make_net(*pa)(Tensor(xa)).asnumpy() * probe).sum())

    want = numeric_grads(scalar_np, [x.copy()] + [p.copy() for p in params],
                         list(range(1 + len(params))))
    np.testing.assert_allclose(gx.asnumpy(), want[0], rtol=1e-5, atol=1e-7, err_msg="dx")
    for i, (g, n) in enumerate(zip(gp, want[1:])):
        np.testing.assert_allclose(g.asnumpy().reshape(n.shape), n, rtol=1e-5, atol=1e-7,
                                   err_msg=f"d param {i}")


@pytest.mark.parametrize("pad_mode,padding,stride,dilation,group,has_bias",
                         [CONV1D_CASES[i] for i in (1, 4, 5)])
def test_conv1d_gradients_match_finite_differences(pad_mode, padding, stride, dilation, group,
                                                   has_bias):
    x, w, b, _ = _conv1d_case(pad_mode, padding, stride, dilation, group, has_bias)
    x = x[:1, :, :7]

    def make(w, b=None):
        return _conv1d_net(w, b, pad_mode, padding, stride, dilation, group,
                           dtype=mstype.float64)
    _layer_grads_vs_fd(make, x, [w] if b is None else [w, b])


def test_conv1d_input_gradient_through_the_harness():
    w = rand(3, 2, 3, seed=4).astype(np.float64)
    net = _conv1d_net(w, None, "pad", 1, 2, 1, 1, dtype=mstype.float64)
    check_grad(lambda t: net(t), [rand(2, 2, 6, seed=5)])


def test_conv1d_weight_is_mindspores_4d_parameter_and_defaults():
    ms.set_seed(1)
    net = nn.Conv1d(4, 6, 3, group=2, has_bias=True)
    assert net.weight.shape == (6, 2, 1, 3) and net.bias.shape == (6,)
    assert (net.pad_mode, net.padding, net.stride, net.dilation, net.group) == ("same", 0, 1, 1, 2)
    bound = 1 / np.sqrt(2 * 3)
    assert np.abs(net.bias.asnumpy()).max() <= bound
    # HeUniform(sqrt(5)): U(+-sqrt(6 / ((1 + 5) * fan_in))) = U(+-1/sqrt(fan_in))
    assert np.abs(net.weight.asnumpy()).max() <= bound
    assert nn.Conv1d(4, 6, 3).bias is None


@pytest.mark.parametrize("pad_mode", ["same", "valid", "pad"])
@pytest.mark.parametrize("stride,dilation", [(1, 1), (2, 1), (3, 2), (1, 3)])
def test_conv1d_output_lengths_follow_mindspore(pad_mode, stride, dilation):
    k, length = 3, 10
    padding = 2 if pad_mode == "pad" else 0
    net = nn.Conv1d(2, 3, k, stride=stride, pad_mode=pad_mode, padding=padding,
                    dilation=dilation)
    got = net(Tensor(rand(1, 2, length))).shape
    span = (k - 1) * dilation
    want = {"same": -(-length // stride), "valid": -(-(length - span) // stride),
            "pad": (length + 2 * padding - span - 1) // stride + 1}[pad_mode]
    assert got == (1, 3, want)


def test_conv1d_errors():
    with pytest.raises(ValueError, match=r"For 'Conv1d', 'pad_mode' must be one of"):
        nn.Conv1d(2, 2, 3, pad_mode="full")
    with pytest.raises(ValueError, match=r"For 'Conv1d', 'padding' must be 0 when 'pad_mode' "
                                         r"is 'same', but got 1"):
        nn.Conv1d(2, 2, 3, padding=1)
    with pytest.raises(ValueError, match=r"'padding' must be at least 0, but got -1"):
        nn.Conv1d(2, 2, 3, pad_mode="pad", padding=-1)
    with pytest.raises(TypeError, match=r"For 'Conv1d', 'kernel_size' must be an int"):
        nn.Conv1d(2, 2, (1, 3))
    with pytest.raises(TypeError, match=r"'stride' must be an int"):
        nn.Conv1d(2, 2, 3, stride=1.0)
    with pytest.raises(ValueError, match=r"'dilation' must be at least 1"):
        nn.Conv1d(2, 2, 3, dilation=0)
    with pytest.raises(ValueError, match=r"'in_channels' \(3\) and 'out_channels' \(4\) must be "
                                         r"divisible by 'group' \(2\)"):
        nn.Conv1d(3, 4, 3, group=2)
    with pytest.raises(ValueError, match=r"a Tensor 'weight_init' must be 3-D"):
        nn.Conv1d(2, 2, 3, weight_init=Tensor(rand(2, 2, 1, 3)))
    with pytest.raises(ValueError, match=r"For 'Conv1d', the input must be 3-D"):
        nn.Conv1d(2, 2, 3)(Tensor(rand(1, 2, 1, 5)))
    with pytest.raises(TypeError, match=r"'has_bias' must be bool"):
        nn.Conv1d(2, 2, 3, has_bias=1)


# -- ops.Conv2DTranspose --------------------------------------------------------------------
# (pad_mode, pad, stride, dilation, group): the attributes of the Conv2D being transposed.
TRANSPOSE_CASES = [
    ("valid", 0, 1, 1, 1),
    ("valid", 0, 2, 1, 2),
    ("same", 0, 2, 1, 1),
    ("same", 0, (1, 2), (2, 1), 2),
    ("pad", 1, 2, 1, 1),
    ("pad", (0, 2, 1, 0), (2, 1), (1, 2), 1),
]


def _transpose_case(pad_mode, pad, stride, dilation, group, in_hw=(7, 6)):
    """(dy, w, input_size, pads, stride, dilation): dy is the Conv2D output for input_size."""
    stride, dilation = _pair(stride), _pair(dilation)
    pads = _conv_pads(pad_mode, pad, in_hw, (3, 3), stride, dilation)
    x_shape = (2, 4) + tuple(in_hw)
    w = rand(6, 4 // group, 3, 3, seed=12)
    probe = _conv_ref(np.zeros(x_shape), w, stride, dilation, pads, group)
    dy = rand(*probe.shape, seed=11)
    return dy, w, x_shape, pads, stride, dilation


@pytest.mark.parametrize("pad_mode,pad,stride,dilation,group", TRANSPOSE_CASES)
def test_conv2d_transpose_forward_is_the_direct_scatter(pad_mode, pad, stride, dilation, group):
    dy, w, x_shape, pads, st, dil = _transpose_case(pad_mode, pad, stride, dilation, group)
    op = ops.Conv2DTranspose(6, 3, pad_mode=pad_mode, pad=pad, stride=stride, dilation=dilation,
                             group=group)
    check_forward(lambda d, k: op(d, k, x_shape),
                  lambda d, k: _conv2d_t_ref(d, k, x_shape[2:], st, dil, pads, group),
                  [dy, w], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("pad_mode,pad,stride,dilation,group", TRANSPOSE_CASES)
def test_conv2d_transpose_is_the_adjoint_of_conv2d(pad_mode, pad, stride, dilation, group):
    """<Conv2D(x, w), y> == <x, Conv2DTranspose(y, w, x.shape)> in float64."""
    dy, w, x_shape, *_ = _transpose_case(pad_mode, pad, stride, dilation, group)
    x = np.random.default_rng(5).standard_normal(x_shape)
    y, w = dy.astype(np.float64), w.astype(np.float64)
    kwargs = dict(pad_mode=pad_mode, pad=pad, stride=stride, dilation=dilation, group=group)
    cx = ops.Conv2D(6, 3, **kwargs)(Tensor(x), Tensor(w)).asnumpy()
    ty = ops.Conv2DTranspose(6, 3, **kwargs)(Tensor(y), Tensor(w), x_shape).asnumpy()
    np.testing.assert_allclose((cx * y).sum(), (x * ty).sum(), rtol=1e-12)


@pytest.mark.parametrize("pad_mode,pad,stride,dilation,group",
                         [TRANSPOSE_CASES[i] for i in (1, 3, 5)])
def test_conv2d_transpose_gradients(pad_mode, pad, stride, dilation, group):
    dy, w, x_shape, *_ = _transpose_case(pad_mode, pad, stride, dilation, group, in_hw=(5, 4))
    op = ops.Conv2DTranspose(6, 3, pad_mode=pad_mode, pad=pad, stride=stride, dilation=dilation,
                             group=group)
    check_grad(lambda d, k: op(d, k, (1,) + x_shape[1:]), [dy[:1], w], rtol=1e-5, atol=1e-6)


def test_conv2d_transpose_primitive_signature_and_errors():
    op = ops.Conv2DTranspose(4, (2, 3), "pad", (1, 0, 0, 1), None, 1, 2)
    assert (op.pad_mode, op.pad, op.stride, op.kernel_size) == ("pad", (1, 0, 0, 1), (2, 2),
                                                                (2, 3))
    assert isinstance(op, ops.Conv2DBackpropInput) and op.name == "Conv2DTranspose"
    with pytest.raises(ValueError, match=r"For 'Conv2DTranspose', 'pad_mode' must be one of"):
        ops.Conv2DTranspose(4, 3, pad_mode="full")
    with pytest.raises(ValueError, match=r"For 'Conv2DTranspose', 'pad' must be zero when"):
        ops.Conv2DTranspose(4, 3, pad_mode="same", pad=1)
    with pytest.raises(ValueError, match=r"For 'Conv2DTranspose', 'dout' shape \(1, 4, 3, 3\) "
                                         r"does not match the Conv2D output \(1, 4, 4, 4\)"):
        ops.Conv2DTranspose(4, 3)(Tensor(rand(1, 4, 3, 3)), Tensor(rand(4, 2, 3, 3)),
                                  (1, 2, 6, 6))
    with pytest.raises(ValueError, match=r"For 'Conv2DTranspose', 'weight' shape"):
        ops.Conv2DTranspose(4, 3)(Tensor(rand(1, 4, 4, 4)), Tensor(rand(4, 2, 2, 2)),
                                  (1, 2, 6, 6))


# -- nn.Conv2dTranspose ---------------------------------------------------------------------
# (pad_mode, padding, output_padding, stride, dilation, group, has_bias)
DECONV_CASES = [
    ("same", 0, 0, 1, 1, 1, False),
    ("same", 0, 0, 2, 1, 2, True),
    ("valid", 0, 0, 1, 1, 1, True),
    ("valid", 0, 0, (2, 3), (2, 1), 1, False),
    ("pad", 1, 0, 2, 1, 1, True),
    ("pad", 1, 1, 2, 1, 2, True),
    ("pad", (0, 1, 2, 0), (1, 0), (2, 1), (1, 2), 1, False),
    ("pad", 0, (0, 2), 1, 3, 1, True),
]


def _deconv_net(w, b, pad_mode, padding, output_padding, stride, dilation, group,
                dtype=mstype.float32):
    cin, og, kh, kw = w.shape
    return nn.Conv2dTranspose(cin, og * group, (kh, kw), stride=stride, pad_mode=pad_mode,
                              padding=padding, output_padding=output_padding, dilation=dilation,
                              group=group, has_bias=b is not None, weight_init=Tensor(w),
                              bias_init=None if b is None else Tensor(b), dtype=dtype)


def _deconv_ref(x, w, b, pad_mode, padding, output_padding, stride, dilation, group):
    """MindSpore's nn.Conv2dTranspose: the scatter over the Conv2D geometry of the output
    size, the bias, then output_padding zero rows/columns at the bottom/right."""
    stride, dilation, op = _pair(stride), _pair(dilation), _pair(output_padding)
    pad4 = (padding,) * 4 if isinstance(padding, int) else padding
    k = w.shape[2:]
    out_hw = tuple(_deconv_size(x.shape[2 + a], k[a], stride[a], dilation[a], pad_mode,
                                pad4[2 * a], pad4[2 * a + 1]) for a in range(2))
    pads = _conv_pads(pad_mode, padding, out_hw, k, stride, dilation)
    out = _conv2d_t_ref(x, w, out_hw, stride, dilation, pads, group)
    if b is not None:
        out = out + b.reshape(1, -1, 1, 1)
    return np.pad(out, ((0, 0), (0, 0), (0, op[0]), (0, op[1])))


def _deconv_case(group, has_bias):
    x = rand(2, 4, 4, 3, seed=21)
    w = rand(4, 6 // group, 3, 2, seed=22)
    b = rand(6, seed=23) if has_bias else None
    return x, w, b


@pytest.mark.parametrize("pad_mode,padding,output_padding,stride,dilation,group,has_bias",
                         DECONV_CASES)
def test_conv2d_transpose_layer_forward(pad_mode, padding, output_padding, stride, dilation,
                                        group, has_bias):
    x, w, b = _deconv_case(group, has_bias)
    net = _deconv_net(w, b, pad_mode, padding, output_padding, stride, dilation, group)
    b64 = None if b is None else b.astype(np.float64)
    check_forward(lambda t: net(t),
                  lambda a: _deconv_ref(a, w.astype(np.float64), b64, pad_mode, padding,
                                        output_padding, stride, dilation, group),
                  [x], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("pad_mode,padding,output_padding,stride,dilation,group,has_bias",
                         [DECONV_CASES[i] for i in (1, 3, 5, 6)])
def test_conv2d_transpose_layer_gradients(pad_mode, padding, output_padding, stride, dilation,
                                          group, has_bias):
    x, w, b = _deconv_case(group, has_bias)
    x = x[:1, :, :3, :3]

    def make(w, b=None):
        return _deconv_net(w, b, pad_mode, padding, output_padding, stride, dilation, group,
                           dtype=mstype.float64)
    _layer_grads_vs_fd(make, x, [w] if b is None else [w, b])


def test_conv2d_transpose_layer_matches_mindspore_doc_example_and_defaults():
    net = nn.Conv2dTranspose(3, 64, 4, has_bias=False, weight_init="normal", pad_mode="pad")
    assert net(Tensor(np.ones([1, 3, 16, 50], np.float32))).shape == (1, 64, 19, 53)
    ms.set_seed(2)
    net = nn.Conv2dTranspose(4, 6, 3, group=2, has_bias=True)
    assert net.weight.shape == (4, 3, 3, 3) and net.bias.shape == (6,)
    assert (net.pad_mode, net.padding, net.output_padding) == ("same", (0,) * 4, (0, 0))
    bound = 1 / np.sqrt(3 * 9)  # fan_in = weight.shape[1] * kh * kw, as MindSpore
    assert np.abs(net.bias.asnumpy()).max() <= bound
    assert np.abs(net.weight.asnumpy()).max() <= bound


SHAPE_GRID = [(pm, s, d, op) for pm in ("same", "valid", "pad") for s in (1, 2, 3)
              for d in (1, 2) for op in range(max(s, d)) if op == 0 or pm == "pad"]


@pytest.mark.parametrize("pad_mode,stride,dilation,output_padding", SHAPE_GRID)
def test_conv2d_transpose_output_shapes(pad_mode, stride, dilation, output_padding):
    h, w, k = 5, 4, 3
    padding = (1, 0, 2, 1) if pad_mode == "pad" else 0
    net = nn.Conv2dTranspose(2, 3, k, stride=stride, pad_mode=pad_mode, padding=padding,
                             output_padding=output_padding, dilation=dilation)
    out = net(Tensor(rand(1, 2, h, w)))
    pad4 = padding if isinstance(padding, tuple) else (0,) * 4
    want_h = _deconv_size(h, k, stride, dilation, pad_mode, pad4[0], pad4[1]) + output_padding
    want_w = _deconv_size(w, k, stride, dilation, pad_mode, pad4[2], pad4[3]) + output_padding
    assert out.shape == (1, 3, want_h, want_w)
    if output_padding == 0:
        # A Conv2d with the same arguments maps the output size back to the input size.
        back = nn.Conv2d(3, 2, k, stride=stride, pad_mode=pad_mode, padding=padding,
                         dilation=dilation)(out)
        assert back.shape == (1, 2, h, w)


def test_conv2d_transpose_output_padding_rows_are_zero_after_the_bias():
    net = nn.Conv2dTranspose(1, 2, 3, stride=2, pad_mode="pad", padding=1, output_padding=1,
                             has_bias=True, bias_init=Tensor(np.array([1.5, -2.0], np.float32)))
    out = net(Tensor(rand(1, 1, 3, 3))).asnumpy()
    assert out.shape == (1, 2, 6, 6)
    assert (out[:, :, -1, :] == 0).all() and (out[:, :, :, -1] == 0).all()


def test_conv2d_transpose_layer_errors():
    with pytest.raises(ValueError, match=r"For 'Conv2dTranspose', 'pad_mode' must be one of"):
        nn.Conv2dTranspose(2, 2, 3, pad_mode="SAME ")
    with pytest.raises(ValueError, match=r"For 'Conv2dTranspose', 'padding' must be 0 when "
                                         r"'pad_mode' is 'valid'"):
        nn.Conv2dTranspose(2, 2, 3, pad_mode="valid", padding=1)
    with pytest.raises(TypeError, match=r"'padding' must be a non-negative int or a tuple of "
                                        r"four"):
        nn.Conv2dTranspose(2, 2, 3, pad_mode="pad", padding=(1, 1))
    with pytest.raises(ValueError, match=r"'output_padding' must be 0 when 'pad_mode' is "
                                         r"'same'"):
        nn.Conv2dTranspose(2, 2, 3, stride=2, output_padding=1)
    with pytest.raises(ValueError, match=r"'output_padding' along H must be in \[0, max\(stride, "
                                         r"dilation\)\) = \[0, 2\), but got \(2, 0\)"):
        nn.Conv2dTranspose(2, 2, 3, stride=2, pad_mode="pad", output_padding=(2, 0))
    with pytest.raises(ValueError, match=r"along W must be in .* = \[0, 1\)"):
        nn.Conv2dTranspose(2, 2, 3, pad_mode="pad", output_padding=(0, 1))
    with pytest.raises(TypeError, match=r"'output_padding' must be an int or a tuple of two"):
        nn.Conv2dTranspose(2, 2, 3, pad_mode="pad", output_padding=(0, 0, 0))
    with pytest.raises(ValueError, match=r"'in_channels' \(4\) and 'out_channels' \(3\) must be "
                                         r"divisible by 'group' \(2\)"):
        nn.Conv2dTranspose(4, 3, 3, group=2)
    with pytest.raises(ValueError, match=r"'kernel_size' must be positive"):
        nn.Conv2dTranspose(2, 2, 0)
    with pytest.raises(ValueError, match=r"the input must be 4-D"):
        nn.Conv2dTranspose(2, 2, 3)(Tensor(rand(2, 5, 5)))
    with pytest.raises(ValueError, match=r"leaves no output"):
        nn.Conv2dTranspose(2, 2, 3, pad_mode="pad", padding=3)(Tensor(rand(1, 2, 1, 1)))
    with pytest.raises(ValueError, match=r"For 'Conv2DTranspose'.*input channels|"
                                         r"For 'Conv2DTranspose'.*'dout' shape"):
        nn.Conv2dTranspose(2, 2, 3)(Tensor(rand(1, 3, 4, 4)))


# -- GRAPH vs PYNATIVE -----------------------------------------------------------------------
class _Net(nn.Cell):
    """Conv1d over sequences, then a strided Conv2dTranspose with output_padding."""

    def __init__(self):
        super().__init__()
        self.conv1d = nn.Conv1d(2, 4, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
        self.deconv = nn.Conv2dTranspose(4, 2, 3, stride=2, pad_mode="pad", padding=1,
                                         output_padding=1, has_bias=True, group=2)

    def construct(self, x):
        y = self.conv1d(x)                                    # (N, 4, L')
        y = ops.expand_dims(y, 2)                             # (N, 4, 1, L')
        return self.deconv(y)


def _train(mode, steps=3):
    ms.set_context(mode=mode)
    ms.set_seed(7)
    net = _Net()
    x = Tensor(rand(3, 2, 8, seed=31))
    target = Tensor(rand(3, 2, 2, 8, seed=32))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), 0.5))
    losses = [float(step(x, target).asnumpy()) for _ in range(steps)]
    out = net(x).asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return losses, out, [p.asnumpy().copy() for p in net.trainable_params()]


def test_graph_and_pynative_training_steps_agree():
    assert_training_runs_agree(_train(ms.PYNATIVE_MODE), _train(ms.GRAPH_MODE))


@pytest.mark.parametrize("make,shape", [
    (lambda: nn.Conv1d(2, 3, 3, stride=2, has_bias=True), [None, 2, 9]),
    (lambda: nn.Conv2dTranspose(2, 3, 3, stride=2, pad_mode="pad", padding=1, output_padding=1,
                                has_bias=True), [None, 2, 4, 5]),
])
def test_dynamic_batch_compiles_once(make, shape):
    net = make()
    ms.set_context(mode=ms.GRAPH_MODE)
    net.set_inputs(Tensor(shape=shape, dtype=ms.float32))
    for b in (1, 3):
        x = Tensor(rand(b, *shape[1:], seed=b))
        ms.set_context(mode=ms.PYNATIVE_MODE)
        want = net(x).asnumpy()
        ms.set_context(mode=ms.GRAPH_MODE)
        np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-6)
    assert net.compile_cache_info() == {"compiles": 1, "hits": 1, "entries": 1}
