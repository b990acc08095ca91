"""affine_grid, grid_sample, crop_and_resize, fold/col2im, sparse_segment_mean, lu_solve,
MatrixTriangularSolve and the Tensor methods built on them, against float64 numpy/scipy
references, with gradients where they differentiate."""
import itertools

import numpy as np
import pytest
import scipy.linalg

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand


def _grid_sample_ref(x, grid, mode, padding_mode, align):
    """PyTorch's grid_sampler_2d in float64 (nearest rounds ties away from zero)."""
    n, c, h, w = x.shape
    out = np.zeros((n, c) + grid.shape[1:3])

    def coord(g, size):
        p = (g + 1) / 2 * (size - 1) if align else ((g + 1) * size - 1) / 2
        if padding_mode == "reflection":
            lo, hi = (0.0, size - 1.0) if align else (-0.5, size - 0.5)
            span = hi - lo
            d = abs(p - lo)
            flips, extra = divmod(d, span)
            p = lo + extra if flips % 2 == 0 else hi - extra
        if padding_mode in ("border", "reflection"):
            p = min(max(p, 0.0), size - 1.0)
        return p

    def at(b, yy, xx):
        return x[b, :, yy, xx] if 0 <= yy < h and 0 <= xx < w else np.zeros(c)
    for b, i, j in itertools.product(range(n), range(grid.shape[1]), range(grid.shape[2])):
        px, py = coord(grid[b, i, j, 0], w), coord(grid[b, i, j, 1], h)
        if mode == "nearest":
            out[b, :, i, j] = at(b, int(np.floor(py + 0.5)), int(np.floor(px + 0.5)))
            continue
        x0, y0 = int(np.floor(px)), int(np.floor(py))
        fx, fy = px - x0, py - y0
        out[b, :, i, j] = ((1 - fy) * (1 - fx) * at(b, y0, x0) + (1 - fy) * fx * at(b, y0, x0 + 1)
                           + fy * (1 - fx) * at(b, y0 + 1, x0) + fy * fx * at(b, y0 + 1, x0 + 1))
    return out


def test_affine_grid_grid_sample():
    theta = rand(2, 2, 3, seed=1)
    for align in (False, True):
        base_x = np.linspace(-1, 1, 3) if align else (np.arange(3) * 2 + 1) / 3 - 1
        base_y = np.linspace(-1, 1, 2) if align else (np.arange(2) * 2 + 1) / 2 - 1
        pts = np.stack(list(np.meshgrid(base_x, base_y)) + [np.ones((2, 3))], -1)
        check_forward(lambda t: ops.affine_grid(t, (2, 1, 2, 3), align),
                      lambda t: np.einsum("hwk,nik->nhwi", pts, t), [theta])
    # float16/32 only (as MindSpore), so the gradient is checked against the linear map's
    # transpose rather than float64 differences
    wts = rand(2, 2, 3, 2, seed=15)
    got = ms.grad(lambda t: (ops.affine_grid(t, (2, 1, 2, 3), True) * Tensor(wts)).sum())(
        Tensor(theta))
    np.testing.assert_allclose(got.asnumpy(), np.einsum("hwk,nhwi->nik", pts, wts), rtol=1e-5)
    assert ops.affine_grid(Tensor(rand(1, 3, 4)), (1, 1, 2, 2, 3)).shape == (1, 2, 2, 3, 3)
    x, grid = rand(2, 2, 4, 5, seed=2), rand(2, 3, 2, 2, low=-1.3, high=1.3, seed=3)
    for mode, pad, align in itertools.product(("bilinear", "nearest"),
                                              ("zeros", "border", "reflection"), (False, True)):
        check_forward(lambda a, g: ops.grid_sample(a, g, mode, pad, align),
                      lambda a, g: _grid_sample_ref(a, g, mode, pad, align), [x, grid])
    check_grad(lambda a, g: ops.grid_sample(a, g, "bilinear", "zeros", False), [x, grid])
    vol = Tensor(rand(1, 2, 3, 4, 5))
    assert ops.grid_sample(vol, Tensor(rand(1, 1, 2, 2, 3))).shape == (1, 2, 1, 2, 2)
    with pytest.raises(NotImplementedError, match="bicubic"):
        ops.grid_sample(Tensor(x), Tensor(grid), "bicubic")
    with pytest.raises(TypeError, match="same data type"):
        ops.grid_sample(Tensor(x), Tensor(grid.astype(np.float64)))
    with pytest.raises(ValueError, match="output_size"):
        ops.affine_grid(Tensor(theta), (1, 1, 2, 3))


def _crop_ref(image, boxes, idx, size, method, extrapolation):
    """TensorFlow's CropAndResize in float64."""
    _, h, w, c = image.shape
    ch, cw = size
    out = np.zeros((len(boxes), ch, cw, c))
    for k, (y1, x1, y2, x2) in enumerate(boxes):
        for i, j in itertools.product(range(ch), range(cw)):
            y = (y1 * (h - 1) + i * (y2 - y1) * (h - 1) / (ch - 1) if ch > 1
                 else 0.5 * (y1 + y2) * (h - 1))
            x = (x1 * (w - 1) + j * (x2 - x1) * (w - 1) / (cw - 1) if cw > 1
                 else 0.5 * (x1 + x2) * (w - 1))
            if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
                out[k, i, j] = extrapolation
                continue
            img = image[idx[k]]
            if method == "nearest":
                out[k, i, j] = img[int(np.floor(y + 0.5)), int(np.floor(x + 0.5))]
                continue
            t, b, lf, r = int(np.floor(y)), int(np.ceil(y)), int(np.floor(x)), int(np.ceil(x))
            top = img[t, lf] + (img[t, r] - img[t, lf]) * (x - lf)
            bot = img[b, lf] + (img[b, r] - img[b, lf]) * (x - lf)
            out[k, i, j] = top + (bot - top) * (y - t)
    return out


def test_crop_and_resize():
    image = rand(2, 5, 4, 3, seed=4)
    boxes = np.array([[0.1, 0.2, 0.8, 0.9], [0.5, 0.0, 1.2, 0.7], [0.9, 0.3, 0.1, 0.6]],
                     np.float32)
    idx = np.array([1, 0, 1], np.int32)
    for method, size in (("bilinear", (3, 2)), ("nearest", (4, 3)), ("bilinear", (1, 1))):
        got = ops.crop_and_resize(Tensor(image), Tensor(boxes), Tensor(idx), size, method, -1.0)
        np.testing.assert_allclose(got.asnumpy(), _crop_ref(image, boxes.astype(np.float64),
                                                            idx, size, method, -1.0),
                                   rtol=1e-5, atol=1e-5)
    # linear in the image and float32 only, so the gradient g = J^T w is checked through the
    # adjoint identity <J x, w> == <x, g> rather than by float32 finite differences
    wts = rand(3, 3, 2, 3, seed=16)
    crop = lambda a: ops.crop_and_resize(a, Tensor(boxes), Tensor(idx), (3, 2))  # noqa: E731
    g = ms.grad(lambda a: (crop(a) * Tensor(wts)).sum())(Tensor(image)).asnumpy()
    probe = rand(2, 5, 4, 3, seed=17)
    np.testing.assert_allclose((crop(Tensor(probe)).asnumpy() * wts).sum(), (probe * g).sum(),
                               rtol=1e-5)
    with pytest.raises(NotImplementedError, match="bilinear_v2"):
        ops.crop_and_resize(Tensor(image), Tensor(boxes), Tensor(idx), (2, 2), "bilinear_v2")


def _fold_ref(cols, out_hw, k, d, p, s):
    n, ck, _ = cols.shape
    kh, kw = k
    c = ck // (kh * kw)
    hp, wp = out_hw[0] + 2 * p[0], out_hw[1] + 2 * p[1]
    oh = (hp - d[0] * (kh - 1) - 1) // s[0] + 1
    ow = (wp - d[1] * (kw - 1) - 1) // s[1] + 1
    img = np.zeros((n, c, hp, wp))
    cols = cols.reshape(n, c, kh, kw, oh, ow)
    for i, j, a, b in itertools.product(range(kh), range(kw), range(oh), range(ow)):
        img[:, :, i * d[0] + a * s[0], j * d[1] + b * s[1]] += cols[:, :, i, j, a, b]
    return img[:, :, p[0]:p[0] + out_hw[0], p[1]:p[1] + out_hw[1]]


def test_fold_col2im():
    cols = rand(2, 12, 9, seed=5)
    size = Tensor(np.array([4, 5], np.int32))
    args = ((2, 3), (1, 1), (1, 0), (2, 1))
    check_forward(lambda a: ops.fold(a, size, *args),
                  lambda a: _fold_ref(a, (4, 5), *args), [cols])
    check_grad(lambda a: ops.fold(a, size, *args), [cols])
    # fold is unfold's adjoint: <unfold(x), y> == <x, fold(y)>
    x = rand(1, 2, 4, 5, seed=6)
    y = ops.unfold(Tensor(x), (2, 3), 1, (1, 0), (2, 1)).asnumpy()
    lhs = (y * y).sum()
    rhs = (x * ops.fold(Tensor(y), size, *args).asnumpy()).sum()
    np.testing.assert_allclose(lhs, rhs, rtol=1e-5)
    out = ops.col2im(Tensor(cols.reshape(2, 2, 6, 9)), size, *args)
    np.testing.assert_allclose(out.asnumpy(), _fold_ref(cols, (4, 5), *args), rtol=1e-6)
    with pytest.raises(ValueError, match="sliding blocks"):
        ops.fold(Tensor(rand(1, 12, 5)), size, *args)
    with pytest.raises(TypeError, match="output_size"):
        ops.fold(Tensor(cols), (4, 5), *args)


def test_sparse_segment_mean():
    x = rand(4, 3, seed=7)
    idx, ids = np.array([0, 3, 1, 1], np.int32), np.array([0, 0, 2, 2], np.int64)
    want = np.stack([x[[0, 3]].mean(0), np.zeros(3), x[[1, 1]].mean(0)])
    check_forward(lambda a: ops.sparse_segment_mean(a, Tensor(idx), Tensor(ids)),
                  lambda a: want, [x])
    check_grad(lambda a: ops.sparse_segment_mean(a, Tensor(idx), Tensor(ids)), [x])
    with pytest.raises(RuntimeError, match="sorted"):
        ops.sparse_segment_mean(Tensor(x), Tensor(idx), Tensor(ids[::-1].copy()))
    with pytest.raises(RuntimeError, match="indices"):
        ops.sparse_segment_mean(Tensor(x), Tensor(idx + 1), Tensor(ids))


def test_lu_solve_triangular_solve():
    a = rand(2, 3, 3, seed=8) + 3 * np.eye(3, dtype=np.float32)
    b = rand(2, 3, 2, seed=9)
    lu, piv = [], []
    for m in a:
        f, p = scipy.linalg.lu_factor(m.astype(np.float64))
        lu.append(f)
        piv.append(p + 1)        # MindSpore's pivots are 1-based, as LAPACK's
    lu, piv = np.array(lu, np.float32), np.array(piv, np.int32)
    want = np.linalg.solve(a.astype(np.float64), b.astype(np.float64))
    got = ops.lu_solve(Tensor(b), Tensor(lu), Tensor(piv))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(Tensor(b).lu_solve(Tensor(lu), Tensor(piv)).asnumpy(), want,
                               rtol=1e-5, atol=1e-5)
    check_grad(lambda bb: ops.lu_solve(bb, Tensor(lu.astype(np.float64)), Tensor(piv)), [b])
    with pytest.raises(TypeError, match="lu_pivots"):
        ops.lu_solve(Tensor(b), Tensor(lu), Tensor(piv.astype(np.int64)))
    for lower, adjoint in itertools.product((True, False), repeat=2):
        tri = np.tril(a[0]) if lower else np.triu(a[0])
        ref = scipy.linalg.solve_triangular(tri.astype(np.float64), b[0].astype(np.float64),
                                            lower=lower, trans=1 if adjoint else 0)
        check_forward(lambda m, r: ops.MatrixTriangularSolve(lower, adjoint)(m, r),
                      lambda m, r: ref, [a[0], b[0]], rtol=1e-5, atol=1e-5)
    check_grad(lambda m, r: ops.MatrixTriangularSolve(lower=False)(m, r), [a[0], b[0]])
    with pytest.raises(ValueError, match="batch dimension"):
        ops.MatrixTriangularSolve()(Tensor(a), Tensor(b[0]))


def test_tensor_methods():
    x, y = rand(2, 3, seed=10), rand(2, 3, seed=11)
    t = Tensor(x)
    mask = x > 0
    want = x.copy()
    want[mask] = y.reshape(-1)[:mask.sum()]
    np.testing.assert_array_equal(t.masked_scatter(Tensor(mask), Tensor(y)).asnumpy(), want)
    check_grad(lambda a, s: a.masked_scatter(Tensor(mask), s), [x, y])
    with pytest.raises(ValueError, match="number of elements"):
        t.masked_scatter(Tensor(np.ones((2, 3), bool)), Tensor(y[0]))
    rows, cols = np.array([0, 1, -1], np.int32), np.array([1, 2, 0], np.int64)
    vals = np.float32([7, 8, 9])
    want = x.copy()
    want[rows, cols] = vals
    np.testing.assert_array_equal(t.index_put((Tensor(rows), Tensor(cols)), Tensor(vals)).asnumpy(),
                                  want)
    acc = x.copy()
    np.add.at(acc, (np.array([1, 1]),), np.float32([1, 2, 3]))
    got = t.index_put((Tensor(np.array([1, 1], np.int32)),), Tensor(np.float32([1, 2, 3])), True)
    np.testing.assert_allclose(got.asnumpy(), acc, rtol=1e-6)
    with pytest.raises(TypeError, match="same"):
        t.index_put((Tensor(rows),), Tensor(vals.astype(np.float64)))
    sq = rand(3, 3, seed=12) + 2 * np.eye(3, dtype=np.float32)
    np.testing.assert_allclose(Tensor(sq).matrix_power(-2).asnumpy(),
                               np.linalg.matrix_power(sq.astype(np.float64), -2), rtol=1e-4)
    x3 = rand(2, 3, 4, seed=13)
    assert [p.shape for p in Tensor(x3).dsplit([1, 3])] == [(2, 3, 1), (2, 3, 2), (2, 3, 1)]
    np.testing.assert_array_equal(t.gather(Tensor(np.array([2, 0], np.int32)), 1).asnumpy(),
                                  x[:, [2, 0]])
    img = rand(1, 2, 4, 4, seed=14)
    np.testing.assert_array_equal(Tensor(img).unfold(2).asnumpy(), ops.unfold(Tensor(img),
                                                                                2).asnumpy())
    assert Tensor(sq).matrix_power(0).dtype == ms.float32
