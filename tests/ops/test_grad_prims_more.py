"""mindspore.ops.operations._grad_ops' backward primitives added for MindSpore's own CPU tests:
each against a float64 numpy reference and, where it is the gradient of a forward operator,
equal to minispore's autodiff gradient of that operator (ms.grad) on random inputs; one GRAPH
run; bad inputs. Values MindSpore 2.7.2 printed are quoted where its rule is a quirk."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from minispore.ops.operations import _grad_ops as G

RNG = np.random.default_rng(7)


def _r(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, shape)


def _autodiff(fn, x, w):
    """d sum(fn(x) * w) / dx: the forward operator's own gradient for cotangent w."""
    return ms.grad(lambda t: (fn(t) * Tensor(w)).sum())(Tensor(x)).asnumpy()


def _close(got, want, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(got.asnumpy() if isinstance(got, Tensor) else got, want,
                               rtol=rtol, atol=atol)


# (grad primitive, its call from (x, dy) in MindSpore's order, forward op, numpy reference,
#  the domain x is drawn from)
UNARY = {
    "AsinGrad": (lambda x, dy: G.AsinGrad()(x, dy), ops.asin,
                 lambda x, dy: dy / np.sqrt(1 - x * x), (-0.9, 0.9)),
    "ACosGrad": (lambda x, dy: G.ACosGrad()(x, dy), ops.acos,
                 lambda x, dy: -dy / np.sqrt(1 - x * x), (-0.9, 0.9)),
    "AtanGrad": (lambda x, dy: G.AtanGrad()(x, dy), ops.atan,
                 lambda x, dy: dy / (1 + x * x), (-3, 3)),
    "AsinhGrad": (lambda x, dy: G.AsinhGrad()(ops.asinh(x), dy), ops.asinh,
                  lambda x, dy: dy / np.sqrt(1 + x * x), (-3, 3)),
    "AcoshGrad": (lambda x, dy: G.AcoshGrad()(ops.acosh(x), dy), ops.acosh,
                  lambda x, dy: dy / np.sqrt(x * x - 1), (1.2, 4)),
    "InvGrad": (lambda x, dy: G.InvGrad()(ops.inv(x), dy), ops.inv,
                lambda x, dy: -dy / (x * x), (0.5, 2)),
    "SoftplusGrad": (lambda x, dy: G.SoftplusGrad()(dy, x), ops.softplus,
                     lambda x, dy: dy / (1 + np.exp(-x)), (-4, 4)),
    "EluGrad": (lambda x, dy: G.EluGrad()(dy, ops.elu(x)), ops.elu,
                lambda x, dy: np.where(x > 0, dy, dy * np.exp(x)), (-3, 3)),
    "ReLU6Grad": (lambda x, dy: G.ReLU6Grad()(dy, x), ops.relu6,
                  lambda x, dy: np.where((x > 0) & (x <= 6), dy, 0), (-3, 9)),
    "HShrinkGrad": (lambda x, dy: G.HShrinkGrad(0.3)(dy, x),
                    lambda t: ops.hardshrink(t, 0.3),
                    lambda x, dy: np.where(np.abs(x) > 0.3, dy, 0), (-1, 1)),
    "SoftShrinkGrad": (lambda x, dy: G.SoftShrinkGrad(0.3)(dy, x),
                       lambda t: ops.softshrink(t, 0.3),
                       lambda x, dy: np.where(np.abs(x) > 0.3, dy, 0), (-1, 1)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_grad_matches_reference_and_autodiff(name):
    call, forward, ref, (lo, hi) = UNARY[name]
    x, dy = _r(3, 5, low=lo, high=hi), _r(3, 5)
    got = call(Tensor(x), Tensor(dy))
    assert got.dtype == ms.float64 and tuple(got.shape) == (3, 5)
    _close(got, ref(x, dy))
    _close(got, _autodiff(forward, x, dy))
    got32 = call(Tensor(x.astype(np.float32)), Tensor(dy.astype(np.float32)))
    assert got32.dtype == ms.float32
    _close(got32, ref(x, dy), rtol=1e-5, atol=1e-6)


def test_mindspore_boundaries():
    # MindSpore 2.7.2: ReLU6Grad passes dy on (0, 6] (dy at x = 6, as its 2.4 test expects;
    # ms.grad of ops.relu6 is 1 there too); EluGrad(dy, y) = dy * (y + 1) at y <= 0; a
    # negative lambd is accepted.
    dy = Tensor(np.ones(5, np.float32))
    x = Tensor(np.array([-1, 0, 3, 6, 7], np.float32))
    assert G.ReLU6Grad()(dy, x).asnumpy().tolist() == [0, 0, 1, 1, 0]
    assert ms.grad(lambda t: ops.relu6(t).sum())(x).asnumpy().tolist() == [0, 0, 1, 1, 0]
    assert ops.relu6(Tensor(np.array([1e8, 6.5], np.float32))).asnumpy().tolist() == [6, 6]
    y = Tensor(np.array([-0.5, 0, 1, -2, 3], np.float32))
    assert G.EluGrad()(dy, y).asnumpy().tolist() == [0.5, 1, 1, -1, 1]
    assert G.HShrinkGrad(-1.0)(dy, x).asnumpy().tolist() == [1] * 5
    ints = G.InvGrad()(Tensor(np.array([2, 3], np.int32)), Tensor(np.array([1, 2], np.int32)))
    assert ints.dtype == ms.int32 and ints.asnumpy().tolist() == [-4, -18]


def test_sigmoid_cross_entropy_with_logits_grad():
    x, y, dy = _r(4, 3, low=-3, high=3), RNG.integers(0, 2, (4, 3)).astype(np.float64), _r(4, 3)
    got = G.SigmoidCrossEntropyWithLogitsGrad()(Tensor(x), Tensor(y), Tensor(dy))
    _close(got, (1 / (1 + np.exp(-x)) - y) * dy)
    loss = ops.SigmoidCrossEntropyWithLogits()
    _close(got, _autodiff(lambda t: loss(t, Tensor(y)), x, dy))


@pytest.mark.parametrize("reduction", ["none", "mean", "batchmean", "sum"])
def test_kl_div_loss_grad(reduction):
    x = _r(3, 4)
    target = np.where(_r(3, 4) > -0.3, RNG.uniform(0.1, 1, (3, 4)), 0.0)
    dy = _r(3, 4) if reduction == "none" else np.array([0.7])
    got = G.KLDivLossGrad(reduction)(Tensor(dy), Tensor(x), Tensor(target))
    scale = {"none": 1, "mean": 12, "batchmean": 3, "sum": 1}[reduction]
    _close(got, -target * dy / scale)
    w = dy if reduction == "none" else dy[0]
    want = ms.grad(lambda t: (ops.kl_div(t, Tensor(target), reduction) * Tensor(w)).sum())(
        Tensor(x))
    _close(got, want.asnumpy())
    # A target <= 0 contributes nothing (MindSpore's kernel; KLDivLoss is 0 there).
    neg = G.KLDivLossGrad("none")(Tensor(-np.ones((2, 2))), Tensor(np.ones((2, 2))),
                                  Tensor(np.array([[-1.0, 2.0], [0.0, 1.0]])))
    assert neg.asnumpy().tolist() == [[0, 2], [0, 1]]


def test_dropout_grad():
    dy, mask = _r(2, 5), (RNG.uniform(size=(2, 5)) > 0.5).astype(np.float64)
    _close(G.DropoutGrad(0.4)(Tensor(dy), Tensor(mask)), dy * mask / 0.4)
    with pytest.raises(ValueError, match="must be in range of \\(0, 1\\]"):
        G.DropoutGrad(0.0)


def test_slice_grad_matches_slice_autodiff():
    x, dy = _r(3, 4, 5), _r(2, 2, 3)
    got = G.SliceGrad()(Tensor(dy), Tensor(x), (1, 0, 2), (2, 2, 3))
    want = np.zeros_like(x)
    want[1:3, 0:2, 2:5] = dy
    _close(got, want)
    _close(got, _autodiff(lambda t: ops.slice(t, (1, 0, 2), (2, 2, 3)), x,
                          dy))
    with pytest.raises(ValueError, match="size can not be negative"):
        G.SliceGrad()(Tensor(dy), Tensor(x), (1, 0, 2), (2, 2, -1))


def _lrn_np(x, r, bias, alpha, beta):
    sq = np.pad(x * x, ((0, 0), (r, r), (0, 0), (0, 0)))
    total = sum(sq[:, k:k + x.shape[1]] for k in range(2 * r + 1))
    return x / (bias + alpha * total) ** beta


def test_lrn_grad_matches_finite_differences():
    x, dy = _r(2, 5, 2, 3), _r(2, 5, 2, 3)
    attrs = (2, 1.5, 0.3, 0.75)
    got = G.LRNGrad(*attrs)(Tensor(dy), Tensor(x), Tensor(_lrn_np(x, *attrs)))
    eps, want = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        want[i] = ((_lrn_np(hi, *attrs) - _lrn_np(lo, *attrs)) * dy).sum() / (2 * eps)
    _close(got, want, rtol=1e-7, atol=1e-9)


def _cdist_grad_np(g, x1, x2, dist, p):
    d = x1[..., :, None, :] - x2[..., None, :, :]
    dn, gn = dist[..., None], g[..., None]
    safe = np.where(dn == 0, 1, dn)
    if p == 1:
        term = np.sign(d)
    elif np.isinf(p):
        term = np.sign(d) * (np.abs(d) == dn)
    else:
        term = np.sign(d) * (np.abs(d) / safe) ** (p - 1)
    return np.where(dn == 0, 0, gn * term).sum(-2)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, 1.5, float("inf")])
def test_cdist_grad_matches_reference_and_autodiff(p):
    x1, x2, g = _r(2, 3, 4), _r(2, 5, 4), _r(2, 3, 5)
    dist = ops.cdist(Tensor(x1), Tensor(x2), p)
    got = G.CdistGrad(p)(Tensor(g), Tensor(x1), Tensor(x2), dist)
    _close(got, _cdist_grad_np(g, x1, x2, dist.asnumpy(), p))
    _close(got, _autodiff(lambda t: ops.cdist(t, Tensor(x2), p), x1, g))


def test_cdist_grad_uses_the_given_dist_and_mindspore_quirks():
    # MindSpore's st test: dist passed in (3) rather than recomputed.
    one = Tensor(np.array([[[1.0, 1.0], [2.0, 2.0]]], np.float32))
    got = G.CdistGrad(3.0)(one, one, Tensor(np.full((1, 2, 2), 3.0, np.float32)),
                           Tensor(np.full((1, 2, 2), 3.0, np.float32)))
    _close(got, [[[-8 / 9, -8 / 9], [-4 / 9, -4 / 9]]], rtol=1e-6)
    # MindSpore 2.7.2 returns zeros for every p < 1, and counts every tie for p = inf.
    x1, x2 = _r(2, 3), _r(4, 3)
    dist = ops.cdist(Tensor(x1), Tensor(x2), 0.5)
    assert not G.CdistGrad(0.5)(Tensor(_r(2, 4)), Tensor(x1), Tensor(x2), dist).asnumpy().any()
    tie = G.CdistGrad(float("inf"))(Tensor(np.ones((1, 1))), Tensor(np.array([[3.0, 3.0]])),
                                    Tensor(np.zeros((1, 2))), Tensor(np.array([[3.0]])))
    assert tie.asnumpy().tolist() == [[1, 1]]


def test_l2_normalize_grad():
    x, dy = _r(2, 3, 4), _r(2, 3, 4)
    for axis in (0, 1, -1):
        out = ops.L2Normalize(axis, 1e-4)(Tensor(x))
        got = G.L2NormalizeGrad(axis, 1e-4)(Tensor(x), out, Tensor(dy))
        y = out.asnumpy()
        norm = np.sqrt((x * x).sum(axis, keepdims=True))
        _close(got, (dy - y * (y * dy).sum(axis, keepdims=True)) / norm)
        _close(got, _autodiff(lambda t: ops.L2Normalize(axis, 1e-4)(t), x, dy))
    # Below epsilon MindSpore clamps the norm (not its square, as the forward does):
    # MindSpore 2.7.2 prints 10000 for x = 0 and 9999.99 for x = (1e-5, 0, 0).
    xs = np.array([[1e-5, 0.0, 0.0]], np.float32)
    out = ops.L2Normalize(1, 1e-4)(Tensor(xs))
    _close(G.L2NormalizeGrad(1, 1e-4)(Tensor(xs), out, Tensor(np.ones_like(xs))),
           [[9999.99, 10000, 10000]], rtol=1e-6)


def test_max_pool_grad_with_argmax_matches_autodiff():
    x, dy = _r(2, 3, 6, 5), _r(2, 3, 3, 2)
    fwd = ops.MaxPoolWithArgmax(kernel_size=2, strides=2)
    _, argmax = fwd(Tensor(x))
    got = G.MaxPoolGradWithArgmax(kernel_size=2, strides=2)(Tensor(x), Tensor(dy), argmax)
    _close(got, _autodiff(lambda t: fwd(t)[0], x, dy))
    want = np.zeros((2, 3 * 6 * 5))
    np.add.at(want, (np.arange(2)[:, None], argmax.asnumpy().reshape(2, -1)), dy.reshape(2, -1))
    _close(got, want.reshape(x.shape))

    v2 = ops.MaxPoolWithArgmaxV2(kernel_size=3, strides=2, pads=1)
    out, argmax = v2(Tensor(x))
    dy = _r(*out.shape)
    got = G.MaxPoolGradWithArgmaxV2(3, 2, 1)(Tensor(x), Tensor(dy), argmax)
    _close(got, _autodiff(lambda t: v2(t)[0], x, dy))


def _pool_windows_first_max(x, g, k, s, same):
    n, c, h, w = x.shape
    oh, ow = ((-(-h // s), -(-w // s)) if same else ((h - k) // s + 1, (w - k) // s + 1))
    ph = max((oh - 1) * s + k - h, 0) // 2 if same else 0
    pw = max((ow - 1) * s + k - w, 0) // 2 if same else 0
    out = np.zeros((n, c, oh, ow))
    for i, j in np.ndindex(oh, ow):
        r0, c0 = i * s - ph, j * s - pw
        rows = slice(max(r0, 0), min(r0 + k, h))
        cols = slice(max(c0, 0), min(c0 + k, w))
        win, gw = x[:, :, rows, cols].reshape(n, c, -1), g[:, :, rows, cols].reshape(n, c, -1)
        out[:, :, i, j] = np.take_along_axis(gw, win.argmax(-1)[..., None], -1)[..., 0]
    return out


@pytest.mark.parametrize("mode,k,s", [("VALID", 2, 2), ("SAME", 3, 1), ("SAME", 2, 2),
                                      ("VALID", 3, 2)])
def test_max_pool_grad_grad(mode, k, s):
    x, g = _r(2, 3, 5, 6), _r(2, 3, 5, 6)
    out = ops.MaxPool(k, s, mode)(Tensor(x))
    got = G.MaxPoolGradGrad(k, s, mode)(Tensor(x), out, Tensor(g))
    _close(got, _pool_windows_first_max(x, g, k, s, mode == "SAME"))
    # It is the transpose of MaxPool's gradient: <MaxPoolGradGrad(g), w> = <g, MaxPoolGrad(w)>.
    w = _r(*out.shape)
    pool_grad = _autodiff(ops.MaxPool(k, s, mode), x, w)
    np.testing.assert_allclose((got.asnumpy() * w).sum(), (g * pool_grad).sum(), rtol=1e-10)


def test_max_pool_grad_grad_with_argmax():
    x, g = _r(2, 3, 6, 6), _r(2, 3, 6, 6)
    _, argmax = ops.MaxPoolWithArgmax(kernel_size=2, strides=2)(Tensor(x))
    got = G.MaxPoolGradGradWithArgmax(kernel_size=2, strides=2)(Tensor(x), Tensor(g), argmax)
    a = argmax.asnumpy().reshape(2, -1)
    _close(got, np.take_along_axis(g.reshape(2, -1), a, 1).reshape(argmax.shape))
    _close(got, _pool_windows_first_max(x, g, 2, 2, False))


def test_grad_prims_in_graph_mode():
    x, dy = _r(2, 4, 4, 4), _r(2, 4, 4, 4)

    @ms.jit
    def run(a, b):
        return (G.AtanGrad()(a, b), G.LRNGrad(1, 1.0, 0.5, 0.5)(b, a, a),
                G.MaxPoolGradGrad(2, 2, "SAME")(a, ops.MaxPool(2, 2, "SAME")(a), b),
                G.KLDivLossGrad("none")(b, a, a))

    got = run(Tensor(x), Tensor(dy))
    eager = (G.AtanGrad()(Tensor(x), Tensor(dy)),
             G.LRNGrad(1, 1.0, 0.5, 0.5)(Tensor(dy), Tensor(x), Tensor(x)),
             G.MaxPoolGradGrad(2, 2, "SAME")(Tensor(x), ops.MaxPool(2, 2, "SAME")(Tensor(x)),
                                            Tensor(dy)),
             G.KLDivLossGrad("none")(Tensor(dy), Tensor(x), Tensor(x)))
    for g, e in zip(got, eager):
        _close(g, e.asnumpy())


def test_bad_inputs():
    t = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="'dout' must have the shape of 'x'"):
        G.AtanGrad()(t, Tensor(np.ones((3, 2), np.float32)))
    with pytest.raises(TypeError, match="'x' must be a float Tensor"):
        G.AtanGrad()(Tensor(np.ones((2, 3), np.int32)), Tensor(np.ones((2, 3), np.int32)))
    with pytest.raises(TypeError, match="must have the dtype"):
        G.AtanGrad()(t, Tensor(np.ones((2, 3), np.float64)))
    with pytest.raises(ValueError, match="'reduction' must be in"):
        G.KLDivLossGrad("error")
    with pytest.raises(ValueError, match="'dy' must hold one value"):
        G.KLDivLossGrad("mean")(t, t, t)
    with pytest.raises(ValueError, match="'pad_mode' must be 'VALID' or 'SAME'"):
        G.MaxPoolGradGrad(2, 2, "full")
    with pytest.raises(NotImplementedError, match="data_format 'NHWC'"):
        G.MaxPoolGradWithArgmax(2, 2, "VALID", "NHWC")
    with pytest.raises(ValueError, match="'x' must be 4-D"):
        G.LRNGrad()(t, t, t)
    with pytest.raises(ValueError, match="'grad' must have shape"):
        G.CdistGrad()(t, t, t, t)
    with pytest.raises(ValueError, match="'axis' \\(2,\\) must lie in"):
        G.L2NormalizeGrad(2)(t, t, t)


def _bilinear_np(n_in, n_out, align, half):
    scale = ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0) if align else n_in / n_out
    w = np.zeros((n_out, n_in))
    for i in range(n_out):
        src = (i + 0.5) * scale - 0.5 if half else i * scale
        f = np.floor(src)
        w[i, int(min(max(f, 0), n_in - 1))] += 1 - (src - f)
        w[i, int(min(np.ceil(src), n_in - 1))] += src - f
    return w


@pytest.mark.parametrize("align,half", [(False, False), (True, False), (False, True)])
@pytest.mark.parametrize("size", [(7, 3), (2, 2), (1, 4)])
def test_resize_bilinear_grad(align, half, size):
    # The weights are those MindSpore 2.7.2's ResizeBilinearV2 and ResizeBilinearGrad use
    # (checked there to 5e-7 on these shapes); the gradient is the resize's transpose.
    x, dy = _r(2, 3, 4, 5), _r(2, 3, *size)
    got = G.ResizeBilinearGrad(align, half)(Tensor(dy), Tensor(x))
    wh, ww = _bilinear_np(4, size[0], align, half), _bilinear_np(5, size[1], align, half)
    _close(got, np.einsum("ih,ncij,jw->nchw", wh, dy, ww))
    half_out = G.ResizeBilinearGrad(align, half)(Tensor(dy.astype(np.float32)),
                                                 Tensor(x.astype(np.float16)))
    assert half_out.dtype == ms.float16     # original_image's dtype, as in MindSpore


def test_resize_bilinear_grad_mindspore_values():
    # tests/st/ops/cpu/test_resize_bilinear_grad_op.py's align_corners=False case.
    dy = np.array([[[[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]]], np.float32)
    got = G.ResizeBilinearGrad()(Tensor(dy), Tensor(np.zeros((1, 1, 2, 2), np.float32)))
    assert got.asnumpy().tolist() == [[[[2.25, 0.75], [0.75, 4.25]]]]
    with pytest.raises(NotImplementedError, match="both True"):
        G.ResizeBilinearGrad(True, True)
    with pytest.raises(ValueError, match="same N and C"):
        G.ResizeBilinearGrad()(Tensor(dy), Tensor(np.zeros((1, 2, 2, 2), np.float32)))


def _pool3d_first_max(x, g, k, s, same):
    n, c = x.shape[:2]
    sizes = [(-(-d // s) if same else (d - k) // s + 1) for d in x.shape[2:]]
    pads = [max((o - 1) * s + k - d, 0) if same else 0 for o, d in zip(sizes, x.shape[2:])]
    xp = np.pad(x, [(0, 0)] * 2 + [(p // 2, p - p // 2) for p in pads],
                constant_values=-np.inf)
    gp = np.pad(g, [(0, 0)] * 2 + [(p // 2, p - p // 2) for p in pads])
    out = np.zeros((n, c, *sizes))
    for i, j, l in np.ndindex(*sizes):
        box = (slice(None), slice(None), slice(i * s, i * s + k), slice(j * s, j * s + k),
               slice(l * s, l * s + k))
        win = xp[box].reshape(n, c, -1)
        out[:, :, i, j, l] = np.take_along_axis(gp[box].reshape(n, c, -1),
                                                win.argmax(-1)[..., None], -1)[..., 0]
    return out


@pytest.mark.parametrize("mode,k,s", [("VALID", 2, 2), ("SAME", 3, 1), ("SAME", 2, 2)])
def test_max_pool3d_grad_grad(mode, k, s):
    x, g = _r(2, 2, 3, 4, 5), _r(2, 2, 3, 4, 5)
    want = _pool3d_first_max(x, g, k, s, mode == "SAME")
    out = Tensor(np.zeros(want.shape))
    got = G.MaxPool3DGradGrad(k, s, mode)(Tensor(x), out, Tensor(g))
    _close(got, want)
    if mode == "VALID":     # the transpose of max_pool3d's gradient (no ties in random x)
        w = _r(*want.shape)
        pool_grad = _autodiff(lambda t: ops.max_pool3d(t, k, s), x, w)
        np.testing.assert_allclose((got.asnumpy() * w).sum(), (g * pool_grad).sum(),
                                   rtol=1e-10)


def test_max_pool_grad_grad_ties_take_the_first_maximum():
    # MindSpore 2.7.2 on x = 0 and grad = arange: VALID 2x2 gives [0, 2, 8, 10]; SAME 3x3
    # stride 1 (4x4) gives the row-major first cell of each clipped window.
    g = np.arange(16.0).reshape(1, 1, 4, 4)
    valid = G.MaxPoolGradGrad(2, 2, "VALID")(Tensor(np.zeros((1, 1, 4, 4))),
                                            Tensor(np.zeros((1, 1, 2, 2))), Tensor(g))
    assert valid.asnumpy().ravel().tolist() == [0, 2, 8, 10]
    same = G.MaxPoolGradGrad(3, 1, "SAME")(Tensor(np.zeros((1, 1, 4, 4))),
                                          Tensor(np.zeros((1, 1, 4, 4))), Tensor(g))
    assert same.asnumpy().ravel().tolist() == [0, 0, 1, 2, 0, 0, 1, 2, 4, 4, 5, 6, 8, 8, 9, 10]
    g3 = np.arange(32.0).reshape(1, 1, 2, 4, 4)
    box = G.MaxPool3DGradGrad(2, 2, "VALID")(Tensor(np.zeros((1, 1, 2, 4, 4))),
                                            Tensor(np.zeros((1, 1, 1, 2, 2))), Tensor(g3))
    assert box.asnumpy().ravel().tolist() == [0, 2, 8, 10]
    with pytest.raises(NotImplementedError, match="'PAD'"):
        G.MaxPool3DGradGrad(2, 2, "PAD")


def _pad_grad_np(dy, pairs, mode):
    """Scatter-add of dy back through numpy's pad of an index grid (pairs: the last dim's
    (before, after) first)."""
    widths = [(0, 0)] * 2 + [tuple(p) for p in reversed(pairs)]
    shape = dy.shape[:2] + tuple(n - a - b for n, (a, b) in zip(dy.shape[2:], widths[2:]))
    index = np.arange(int(np.prod(shape))).reshape(shape)
    np_mode = {"reflect": "reflect", "edge": "edge", "circular": "wrap"}[mode]
    source = np.pad(index, widths, mode=np_mode)
    dx = np.zeros(index.size)
    np.add.at(dx, source.ravel(), dy.ravel())
    return dx.reshape(shape)


@pytest.mark.parametrize("mode", ["reflect", "edge", "circular"])
def test_pad_v3_grad(mode):
    dy = _r(2, 3, 6, 7)
    got = G.PadV3Grad(mode)(Tensor(dy), Tensor(np.array([1, 2, 2, 0], np.int64)))
    _close(got, _pad_grad_np(dy, [(1, 2), (2, 0)], mode))
    # paddings_contiguous=False lists the befores, then the afters.
    split = G.PadV3Grad(mode, False)(Tensor(dy), (1, 0, 2, 2))
    _close(split, _pad_grad_np(dy, [(1, 2), (0, 2)], mode))
    dy3 = _r(1, 2, 9)
    _close(G.PadV3Grad(mode)(Tensor(dy3), (2, 3)), _pad_grad_np(dy3, [(2, 3)], mode))


def test_pad_v3_grad_mindspore_values_and_errors():
    # tests/st/ops/cpu/test_pad_v3_grad_op.py (circular, paddings [1, 2, 1, 0]).
    got = G.PadV3Grad("circular")(Tensor(np.arange(18.0).reshape(1, 1, 3, 6)), (1, 2, 1, 0))
    assert got.asnumpy().tolist() == [[[[17, 19, 15], [34, 38, 30]]]]
    with pytest.raises(ValueError, match="must be in '\\['reflect', 'edge', 'circular'\\]'"):
        G.PadV3Grad("constant")
    with pytest.raises(ValueError, match="must hold 2 \\* \\(dy.ndim - 2\\) = 4"):
        G.PadV3Grad()(Tensor(_r(1, 2, 6, 7)), (1, 1))

    @ms.jit
    def traced(dy, paddings):
        return G.PadV3Grad("edge")(dy, paddings)

    with pytest.raises(NotImplementedError, match="must be known when the graph is built"):
        traced(Tensor(_r(1, 1, 4, 4)), Tensor(np.array([1, 1, 1, 1], np.int64)))
