"""nn.SSIM, nn.MSSSIM and nn.MultiFieldEmbeddingLookup: float64 numpy references, MindSpore
2.7.2's numbers, gradients against central differences and the errors naming each cell."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn

RNG = np.random.default_rng(0)
A = RNG.random((2, 3, 16, 16)).astype(np.float32)
B = np.clip(A + 0.1 * RNG.standard_normal(A.shape), 0, 1).astype(np.float32)


def _window(size, sigma):
    d = np.arange(-size // 2 + 1, size // 2 + 1, dtype=np.float64) ** 2
    g = np.exp(-(d[:, None] + d[None, :]) / (2 * sigma ** 2))
    return g / g.sum()


def _ssim_ref(a, b, max_val=1.0, size=11, sigma=1.5, k1=0.01, k2=0.03):
    """float64 (N, C) means of the SSIM map and of its contrast-structure factor."""
    w = _window(size, sigma)

    def blur(t):
        return np.einsum("nchwij,ij->nchw", np.lib.stride_tricks.sliding_window_view(
            t, (size, size), axis=(2, 3)), w)

    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mu1, mu2 = blur(a), blur(b)
    s11, s22, s12 = blur(a * a) - mu1 ** 2, blur(b * b) - mu2 ** 2, blur(a * b) - mu1 * mu2
    cs = (2 * s12 + c2) / (s11 + s22 + c2)
    ssim = (2 * mu1 * mu2 + c1) / (mu1 ** 2 + mu2 ** 2 + c1) * cs
    return ssim.mean((2, 3)), cs.mean((2, 3))


def _msssim_ref(a, b, powers, max_val=1.0, size=11, sigma=1.5):
    factors = []
    for j in range(len(powers)):
        ssim, cs = _ssim_ref(a, b, max_val, size, sigma)
        factors.append(np.maximum(cs if j + 1 < len(powers) else ssim, 0))
        n, c, h, w = a.shape
        a, b = (t[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).mean((3, 5))
                for t in (a, b))
    return np.prod(np.stack(factors, -1) ** np.asarray(powers), -1).mean(-1)


def test_ssim_matches_reference_and_mindspore():
    out = nn.SSIM()(Tensor(A), Tensor(B))
    assert out.dtype == ms.float32 and out.shape == (2,)
    np.testing.assert_allclose(out.asnumpy(), _ssim_ref(A, B)[0].mean(-1), rtol=1e-5)
    # oracle_image_embedding/ssim_oracle.py under MindSpore 2.7.2, GRAPH_MODE (PyNative fails
    # in ScalarCast)
    np.testing.assert_allclose(out.asnumpy(), [0.93689156, 0.95418763], rtol=1e-6)
    custom = nn.SSIM(max_val=2, filter_size=4, filter_sigma=0.8, k1=0.02, k2=0.05)
    np.testing.assert_allclose(custom(Tensor(A), Tensor(B)).asnumpy(), [0.93886834, 0.9409055],
                               rtol=1e-6)
    np.testing.assert_allclose(custom(Tensor(A), Tensor(B)).asnumpy(),
                               _ssim_ref(A, B, 2, 4, 0.8, 0.02, 0.05)[0].mean(-1), rtol=1e-5)
    half = nn.SSIM()(Tensor(A.astype(np.float16)), Tensor(B.astype(np.float16)))
    assert half.dtype == ms.float32
    np.testing.assert_allclose(half.asnumpy(), [0.936866, 0.95418215], rtol=1e-5)
    np.testing.assert_allclose(nn.SSIM()(Tensor(A), Tensor(A)).asnumpy(), [1.0, 1.0], rtol=1e-6)


def test_ssim_parameters_are_frozen_windows():
    assert [p.name for p in nn.SSIM().get_parameters()] == ["conv.weight"]
    assert not nn.SSIM().trainable_params()
    names = [p.name for p in nn.MSSSIM(power_factors=(0.5, 0.5)).get_parameters()]
    assert names == ["multi_convs_list.0.weight", "multi_convs_list.1.weight"]


def test_ssim_gradient_matches_central_differences():
    a, b = A[:1, :2, :8, :9].astype(np.float64), B[:1, :2, :8, :9].astype(np.float64)
    net = nn.SSIM(filter_size=5, filter_sigma=1.0)
    got = ms.grad(lambda x, y: net(x, y).sum(), grad_position=(0, 1))(
        Tensor(a.astype(np.float32)), Tensor(b.astype(np.float32)))
    eps = 1e-6
    for pos, g in enumerate(got):
        want = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            hi, lo = [a.copy(), b.copy()], [a.copy(), b.copy()]
            hi[pos][i] += eps
            lo[pos][i] -= eps
            want[i] = (_ssim_ref(*hi, size=5, sigma=1.0)[0].sum()
                       - _ssim_ref(*lo, size=5, sigma=1.0)[0].sum()) / (2 * eps * 2)
        np.testing.assert_allclose(g.asnumpy(), want, rtol=2e-3, atol=2e-5)


def test_msssim_matches_reference_and_mindspore():
    rng = np.random.default_rng(0)
    rng.random(A.size * 2)                  # the oracle script drew A and B's noise first
    c = rng.random((1, 3, 192, 192)).astype(np.float32)
    d = np.clip(c + 0.2 * rng.standard_normal(c.shape), 0, 1).astype(np.float32)
    out = nn.MSSSIM()(Tensor(c), Tensor(d))
    assert out.dtype == ms.float32 and out.shape == (1,)
    # oracle_image_embedding/ssim_oracle.py under MindSpore 2.7.2, GRAPH_MODE
    np.testing.assert_allclose(out.asnumpy(), [0.8476507], rtol=1e-5)
    powers = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)
    np.testing.assert_allclose(out.asnumpy(), _msssim_ref(c, d, powers), rtol=1e-5)


def test_msssim_reads_uint8_as_fractions_of_255():
    rng = np.random.default_rng(1)
    u1 = rng.integers(0, 256, (2, 2, 48, 48)).astype(np.uint8)
    u2 = np.clip(u1.astype(int) + rng.integers(-40, 40, u1.shape), 0, 255).astype(np.uint8)
    kw = {"power_factors": (0.3, 0.7), "filter_size": 7, "filter_sigma": 1.0}
    # oracle_image_embedding/err_oracle.py under MindSpore 2.7.2 (the same for uint8 and for
    # float64 / 255)
    want = [0.9498397, 0.9495479]
    np.testing.assert_allclose(nn.MSSSIM(max_val=255, **kw)(Tensor(u1), Tensor(u2)).asnumpy(),
                               want, rtol=1e-5)
    np.testing.assert_allclose(nn.MSSSIM(**kw)(Tensor(u1 / 255.0), Tensor(u2 / 255.0)).asnumpy(),
                               want, rtol=1e-5)
    np.testing.assert_allclose(want, _msssim_ref(u1 / 255.0, u2 / 255.0, (0.3, 0.7), 1.0, 7, 1.0),
                               rtol=1e-5)


@pytest.mark.parametrize("make, error, match", [
    (lambda: nn.SSIM(max_val=0), ValueError, "'SSIM', the argument 'max_val' must > 0.0"),
    (lambda: nn.SSIM(max_val="1"), TypeError, "'SSIM', the type of 'max_val'"),
    (lambda: nn.SSIM(filter_size=0), ValueError, "'SSIM', the 'filter_size' must be int and"),
    (lambda: nn.SSIM(filter_size=3.0), TypeError, "'SSIM', the 'filter_size' must be int"),
    (lambda: nn.SSIM(filter_sigma=0.0), ValueError, "'SSIM', the 'filter_sigma' must be float"),
    (lambda: nn.SSIM(filter_sigma=1), TypeError, "'SSIM', the type of 'filter_sigma'"),
    (lambda: nn.SSIM(k1=1), TypeError, "'SSIM', the type of 'k1' should be 'float'"),
    (lambda: nn.MSSSIM(power_factors=0.5), TypeError, "'MSSSIM', the type of 'power_factors'"),
    (lambda: nn.MSSSIM(power_factors=()), ValueError, "'MSSSIM', 'power_factors' must not be"),
])
def test_image_cell_argument_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()


def _full(*shape, dtype=np.float32):
    return Tensor(np.full(shape, 0.5, dtype))


@pytest.mark.parametrize("net, a, b, error, match", [
    (nn.SSIM(), _full(3, 16, 16), _full(3, 16, 16), ValueError, "'SSIM', the dimension of 'img1'"),
    (nn.SSIM(), _full(1, 1, 8, 16), _full(1, 1, 8, 16), ValueError,
     r"'SSIM', the img1 shape\[2\] should be >= filter_size: 11, but got 8"),
    (nn.SSIM(), _full(1, 1, 16, 16, dtype=np.float64), _full(1, 1, 16, 16, dtype=np.float64),
     TypeError, "'SSIM', the 'img1' should be one of"),
    (nn.SSIM(), _full(1, 1, 16, 16), _full(1, 2, 16, 16), ValueError, "'SSIM', 'img1' and 'img2'"),
    (nn.MSSSIM(), _full(1, 1, 100, 100), _full(1, 1, 100, 100), ValueError,
     r"'MSSSIM', the height and width of 'img1' must be at least .* = 176"),
    (nn.MSSSIM(), _full(1, 1, 192, 192, dtype=np.int32), _full(1, 1, 192, 192, dtype=np.int32),
     TypeError, "'MSSSIM', the 'img1' should be one of"),
])
def test_image_cell_input_errors(net, a, b, error, match):
    with pytest.raises(error, match=match):
        net(a, b)


TABLE = np.linspace(-1, 1, 40).reshape(10, 4).astype(np.float32)
IDS = np.array([[2, 4, 6, 0, 0], [1, 3, 5, 9, 0]], np.int32)
VALUES = np.array([[1, 0.5, -2, 0, 0], [1, 3, -1, 0.25, 0]], np.float32)
FIELDS = np.array([[0, 1, 1, 0, 0], [0, 0, 2, 2, 0]], np.int32)


def _multi_field_ref(operator, field_size=3):
    rows = VALUES[..., None].astype(np.float64) * TABLE[IDS].astype(np.float64)
    out = np.zeros((IDS.shape[0], field_size, TABLE.shape[1]))
    for b, f in np.ndindex(out.shape[:2]):
        picked = FIELDS[b] == f
        if operator == "MAX":
            picked &= VALUES[b] != 0
            out[b, f] = rows[b][picked].max(0) if picked.any() else 0
        else:
            out[b, f] = rows[b][picked].sum(0)
            if operator == "MEAN":
                weight = np.abs(VALUES[b][picked]).sum()
                out[b, f] = out[b, f] / weight if weight else 0
    return out


# oracle_image_embedding/mfe_oracle.py under MindSpore 2.7.2 (target 'CPU'; both modes agree)
ORACLE = {
    "SUM": [[[-0.5897436141967773, -0.5384615659713745, -0.4871794879436493,
              -0.43589743971824646],
             [-0.5512820482254028, -0.6282051801681519, -0.7051282525062561, -0.7820513248443604],
             [0.0, 0.0, 0.0, 0.0]],
            [[-1.9487179517745972, -1.7435897588729858, -1.5384615659713745, -1.3333333730697632],
             [0.0, 0.0, 0.0, 0.0],
             [0.18589743971824646, 0.14743590354919434, 0.10897435247898102,
              0.0705128163099289]]],
    "MAX": [[[-0.5897436141967773, -0.5384615659713745, -0.4871794879436493,
              -0.43589743971824646],
             [-0.08974359184503555, -0.06410256773233414, -0.03846153989434242,
              -0.012820512987673283],
             [-0.0, -0.0, -0.0, -0.0]],
            [[-0.7948718070983887, -0.7435897588729858, -0.692307710647583, -0.6410256624221802],
             [-0.0, -0.0, -0.0, -0.0],
             [0.21153846383094788, 0.22435897588729858, 0.2371794879436493, 0.25]]],
    "MEAN": [[[-0.5897436141967773, -0.5384615659713745, -0.4871794879436493,
               -0.43589743971824646],
              [-0.22051282227039337, -0.25128206610679626, -0.28205129504203796,
               -0.31282052397727966],
              [0.0, 0.0, 0.0, 0.0]],
             [[-0.4871794879436493, -0.43589743971824646, -0.38461539149284363,
               -0.3333333432674408],
              [0.0, 0.0, 0.0, 0.0],
              [0.1487179547548294, 0.11794872581958771, 0.08717948198318481,
               0.056410253047943115]]],
}


@pytest.mark.parametrize("operator", ["SUM", "MAX", "MEAN"])
@pytest.mark.parametrize("target, slice_mode", [("CPU", "batch_slice"), ("DEVICE", "field_slice")])
def test_multi_field_embedding_lookup_pools_each_field(operator, target, slice_mode):
    net = nn.MultiFieldEmbeddingLookup(10, 4, 3, param_init=Tensor(TABLE), target=target,
                                       slice_mode=slice_mode, operator=operator)
    out = net(Tensor(IDS), Tensor(VALUES), Tensor(FIELDS))
    assert out.dtype == ms.float32 and out.shape == (2, 3, 4)
    np.testing.assert_array_equal(out.asnumpy(), np.asarray(ORACLE[operator], np.float32))
    np.testing.assert_allclose(out.asnumpy(), _multi_field_ref(operator), rtol=1e-6, atol=1e-7)
    int64 = net(Tensor(IDS.astype(np.int64)), Tensor(VALUES), Tensor(FIELDS))
    np.testing.assert_array_equal(int64.asnumpy(), out.asnumpy())


def test_multi_field_embedding_lookup_table_gradient():
    net = nn.MultiFieldEmbeddingLookup(10, 4, 3, param_init=Tensor(TABLE), operator="MEAN")
    grads = ms.grad(lambda i, v, f: net(i, v, f).sum(), grad_position=None,
                    weights=net.trainable_params())(Tensor(IDS), Tensor(VALUES), Tensor(FIELDS))
    weight = np.abs(VALUES)
    want = np.zeros((10, 1), np.float32)
    for b, s in np.ndindex(IDS.shape):
        total = weight[b][FIELDS[b] == FIELDS[b, s]].sum()
        if total:
            want[IDS[b, s]] += VALUES[b, s] / total
    np.testing.assert_allclose(grads[0].asnumpy(), np.repeat(want[:, :1], 4, 1), rtol=1e-6)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"field_size": 0}, ValueError, "MultiFieldEmbeddingLookup"),
    ({"field_size": 2.0}, TypeError, "MultiFieldEmbeddingLookup"),
    ({"operator": "MIN"}, ValueError, "'MultiFieldEmbeddingLookup', the 'operator' must be"),
    ({"sparse": False}, ValueError, "'MultiFieldEmbeddingLookup', 'sparse' must be True"),
    ({"max_norm": 0.5}, NotImplementedError, "'MultiFieldEmbeddingLookup', max_norm"),
    ({"vocab_size": 0}, ValueError, "MultiFieldEmbeddingLookup"),
])
def test_multi_field_embedding_lookup_argument_errors(kwargs, error, match):
    args = {"vocab_size": 10, "embedding_size": 4, "field_size": 2, **kwargs}
    with pytest.raises(error, match=match):
        nn.MultiFieldEmbeddingLookup(**args)


def test_multi_field_embedding_lookup_field_slice_refused_in_parallel_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel")
    try:
        with pytest.raises(ValueError, match="'manual_shapes' should not be none"):
            nn.MultiFieldEmbeddingLookup(10, 4, 2, slice_mode="field_slice")
        with pytest.raises(ValueError, match="'slice_mode' must be in"):
            nn.MultiFieldEmbeddingLookup(10, 4, 2, slice_mode="field_slice",
                                         feature_num_list=(5, 5))
    finally:
        ms.set_auto_parallel_context(parallel_mode="stand_alone")
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("ids, values, fields, error, match", [
    (np.zeros(3, np.int32), np.ones((2, 3), np.float32), np.zeros((2, 3), np.int32), ValueError,
     "the dimension of 'input_indices' must be 2d"),
    (np.zeros((2, 3), np.int32), np.ones((2, 3)), np.zeros((2, 3), np.int32), TypeError,
     "the 'input_values' should be one of"),
    (np.zeros((2, 3), np.int32), np.ones((2, 3), np.float32), np.zeros((2, 3), np.int64),
     TypeError, "the 'field_ids' should be one of"),
    (np.ones((2, 3), np.float32), np.ones((2, 3), np.float32), np.zeros((2, 3), np.int32),
     TypeError, "the 'input_indices' should be one of"),
])
def test_multi_field_embedding_lookup_input_errors(ids, values, fields, error, match):
    net = nn.MultiFieldEmbeddingLookup(10, 4, 2)
    with pytest.raises(error, match="'MultiFieldEmbeddingLookup', " + match):
        net(Tensor(ids), Tensor(values), Tensor(fields))
