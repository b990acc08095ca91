"""Hand-written conformance cases: windows, conv1d/conv3d, mirror and block padding, margins,
resampling (affine_grid, grid_sample, crop_and_resize, fold), LU/triangular solves and the Tensor
methods built on them.

Names MindSpore 2.7.2's CPU build refuses (kernel unregistered or 'Unsupported op') have no case
here: conv_transpose2d, soft_margin_loss, multilabel_margin_loss, triplet_margin_loss,
mse_loss_ext, matrix_exp, tensor_muls, rms_norm, swiglu, embedding, scalar_to_array, ormqr, the
in-place functionals (clamp_, erfinv_, tanh_, zero_, inplace_sigmoid, put_), Tensor.put_,
fill_diagonal_, index_fill_, masked_fill_, masked_scatter_, index_copy_, index_put_, scatter_,
unique, uniform, nn.InstanceNorm1d/2d/3d, MatrixDiag, MatrixDiagPart, MatrixSetDiag, MatDet,
MatInverse, Roll, PSNR, SSIM, Unfold and the Soft/Multilabel/Triplet margin loss cells."""

_GRID = ("Tensor(np.array([[[[-1.2, -0.9], [0.3, 0.2], [0.95, 1.0]], [[0.1, -0.4], [-0.7, 0.8], "
         "[0.5, 0.5]]]], np.float32))")
_LU = "lu = Tensor(np.array([[4.0, 1.0, 2.0], [0.5, 3.0, 1.0], [0.25, 0.5, 2.0]], np.float32))\n"

CASES = {
    "ops": [
        ("bartlett_window", "out = [ops.bartlett_window(Tensor(5, ms.int32)), "
                            "ops.bartlett_window(Tensor(6, ms.int64), False, dtype=ms.float64)]"),
        ("blackman_window", "out = [ops.blackman_window(Tensor(5, ms.int32)), "
                            "ops.blackman_window(Tensor(6, ms.int64), False, dtype=ms.float64)]"),
        ("conv1d", "w = Tensor(np.linspace(-1, 1, 18).reshape(6, 1, 3).astype(np.float32))\n"
                   "out = ops.conv1d(x3[:, :2], w[:4, :, :2], None, 2, 'pad', 1, 1, 2)"),
        ("conv3d", "v5 = Tensor(np.linspace(-1, 1, 120).reshape(1, 2, 3, 4, 5)"
                   ".astype(np.float32))\n"
                   "w = Tensor(np.linspace(-0.5, 0.5, 24).reshape(2, 1, 2, 3, 2)"
                   ".astype(np.float32))\n"
                   "out = ops.conv3d(v5, w, Tensor([0.1, -0.2]), (1, 2, 1), 'pad', (1, 0, 1), 1, "
                   "2)"),
        ("multi_margin_loss", "out = ops.multi_margin_loss(x, lbl.astype(ms.int64), 2, 1, "
                              "Tensor([1.0, 2.0, 3.0]), 'none')"),
        ("mirror_pad", "out = [ops.mirror_pad(x, Tensor(np.array([[1, 1], [2, 2]], np.int64)), m) "
                       "for m in ('REFLECT', 'SYMMETRIC')]"),
        ("padding", "out = ops.padding(x[:, :1], 4)"),
        ("batch_to_space_nd", "out = ops.batch_to_space_nd(Tensor(np.arange(24, dtype=np.float32)"
                              ".reshape(4, 3, 1, 2)), (2, 2), [[0, 1], [1, 0]])"),
        ("space_to_batch_nd", "out = ops.space_to_batch_nd(img, (2, 2), [[1, 1], [0, 2]])"),
        ("select_scatter", "out = ops.select_scatter(x3, Tensor(np.ones((2, 3), np.float32)), "
                           "-1, 2)"),
        ("check_valid", "out = ops.check_valid(Tensor(np.array([[1, 1, 3, 3], [0, 0, 9, 9], "
                        "[-1, 2, 3, 3], [2, 2, 1, 3]], np.float32)), Tensor([10.0, 5.0, 1.0]))"),
        ("intopk", "out = ops.intopk(Tensor(np.array([[1, 3, 3, 2], [5, 5, 1, 0]], np.float32)), "
                   "Tensor(np.array([2, 3], np.int32)), 2)"),
        ("lu_solve", _LU + "out = ops.lu_solve(x.T, lu, Tensor(np.array([3, 2, 3], np.int32)))"),
        ("affine_grid", "out = ops.affine_grid(Tensor(np.array([[[0.8, -0.3, 0.1], "
                        "[0.2, 0.9, -0.2]]], np.float32)), (1, 1, 2, 3), True)"),
        ("grid_sample", f"g = {_GRID}\nout = [ops.grid_sample(img, g, m, p, a) for m in "
                        "('bilinear', 'nearest') for p in ('zeros', 'border', 'reflection') "
                        "for a in (False, True)]"),
        ("col2im", "out = ops.col2im(Tensor(np.arange(72, dtype=np.float32).reshape(2, 1, 4, 9)),"
                   " Tensor(np.array([5, 5], np.int32)), 2, 2, 1, 2)"),
        ("fold", "out = ops.fold(Tensor(np.arange(72, dtype=np.float32).reshape(1, 12, 6)), "
                 "Tensor(np.array([4, 5], np.int32)), (2, 3), 1, (0, 1), (2, 2))"),
        ("crop_and_resize", "out = [ops.crop_and_resize(Tensor(np.arange(64, dtype=np.float32)"
                            ".reshape(2, 4, 4, 2)), Tensor(np.array([[0.1, 0.2, 0.8, 0.9], "
                            "[0.5, 0.0, 1.2, 0.7]], np.float32)), Tensor(np.array([1, 0], "
                            "np.int32)), (3, 2), m, -1.0) for m in ('bilinear', 'nearest')]"),
        ("sparse_segment_mean", "out = ops.sparse_segment_mean(x, Tensor(np.array([0, 1, 1], "
                                "np.int32)), Tensor(np.array([0, 0, 2], np.int32)))"),
    ],
    "primitive": [
        ("MatrixTriangularSolve", _LU + "out = [ops.MatrixTriangularSolve(lo, adj)(lu, x.T) "
                                  "for lo in (True, False) for adj in (False, True)]"),
        ("LuSolve", _LU + "out = ops.LuSolve()(x.T, lu, Tensor(np.array([2, 3, 3], np.int32)))"),
        ("MirrorPad", "out = ops.MirrorPad('SYMMETRIC')(x, Tensor(np.array([[1, 1], [2, 2]], "
                      "np.int64)))"),
        ("Padding", "out = ops.Padding(3)(x[:, :1])"),
        ("BatchToSpaceND", "out = ops.BatchToSpaceND((2, 2), [[0, 1], [1, 0]])(Tensor(np.arange("
                           "24, dtype=np.float32).reshape(4, 3, 1, 2)))"),
        ("SpaceToBatchND", "out = ops.SpaceToBatchND(2, [[1, 1], [0, 2]])(img)"),
        ("CheckValid", "out = ops.CheckValid()(Tensor(np.array([[1, 1, 3, 3], [0, 0, 9, 9]], "
                       "np.float32)), Tensor([10.0, 5.0, 1.0]))"),
        ("InTopK", "out = ops.InTopK(2)(Tensor(np.array([[1, 3, 3, 2], [5, 5, 1, 0]], "
                   "np.float32)), Tensor(np.array([2, 3], np.int32)))"),
        ("MultiMarginLoss", "out = ops.MultiMarginLoss(2, 0.5, 'none')(x, lbl.astype(ms.int64), "
                            "Tensor([1.0, 2.0, 3.0]))"),
        ("BartlettWindow", "out = ops.BartlettWindow(False, ms.float64)(Tensor(6, ms.int32))"),
        ("BlackmanWindow", "out = ops.BlackmanWindow()(Tensor(5, ms.int64))"),
        ("Conv3D", "v5 = Tensor(np.linspace(-1, 1, 240).reshape(1, 4, 3, 4, 5)"
                   ".astype(np.float32))\n"
                   "w = Tensor(np.linspace(-0.5, 0.5, 48).reshape(2, 2, 2, 3, 2)"
                   ".astype(np.float32))\n"
                   "out = ops.Conv3D(2, (2, 3, 2), pad_mode='pad', pad=(1, 0, 1, 1, 0, 1), "
                   "stride=2, group=2)(v5, w)"),
        ("Conv3DTranspose", "x5 = Tensor(np.linspace(-1, 1, 144).reshape(2, 4, 2, 3, 3)"
                            ".astype(np.float32))\n"
                            "w = Tensor(np.linspace(-1, 1, 144).reshape(4, 3, 2, 2, 3)"
                            ".astype(np.float32))\n"
                            "out = ops.Conv3DTranspose(4, 6, (2, 2, 3), pad_mode='pad', "
                            "pad=(1, 0, 1, 1, 0, 2), stride=(2, 3, 2), dilation=(1, 2, 1), "
                            "group=2, output_padding=(1, 0, 1))(x5, w)"),
        ("AffineGrid", "out = ops.AffineGrid(True)(Tensor(np.array([[[0.8, -0.3, 0.1], "
                       "[0.2, 0.9, -0.2]]], np.float32)), (1, 1, 2, 3))"),
        ("GridSampler2D", f"out = ops.GridSampler2D('nearest', 'border', True)(img, {_GRID})"),
        ("GridSampler3D", "v5 = Tensor(np.linspace(-1, 1, 240).reshape(1, 4, 3, 4, 5)"
                          ".astype(np.float32))\n"
                          "out = ops.GridSampler3D('bilinear', 'reflection', False)(v5, Tensor("
                          "np.linspace(-1.1, 1.1, 12).reshape(1, 1, 2, 2, 3).astype(np.float32)))"),
        ("CropAndResize", "out = ops.CropAndResize('nearest', 2.0)(Tensor(np.arange(64, "
                          "dtype=np.float32).reshape(2, 4, 4, 2)), Tensor(np.array([[0.1, 0.2, "
                          "0.8, 0.9], [0.5, 0.0, 1.2, 0.7]], np.float32)), Tensor(np.array([1, 0],"
                          " np.int32)), (3, 2))"),
        ("Col2Im", "out = ops.Col2Im((2, 2), 2, 1, 2)(Tensor(np.arange(72, dtype=np.float32)"
                   ".reshape(2, 1, 4, 9)), Tensor(np.array([5, 5], np.int32)))"),
    ],
    "tensor": [
        ("lu_solve", _LU + "out = x.T.lu_solve(lu, Tensor(np.array([1, 2, 3], np.int32)))"),
        ("dsplit", "out = x3.dsplit([1, 3])"),
        ("masked_scatter", "out = x.masked_scatter(Tensor(np.array([True, False, True])), y)"),
        ("matrix_power", "out = [sq.matrix_power(3), sq.matrix_power(0), sq.matrix_power(-2)]"),
        ("index_put", "out = x.index_put((Tensor(np.array([1, 0], np.int64)),), "
                      "Tensor(np.array([7.0, 5.0, 6.0], np.float32)), True)"),
        ("select_scatter", "out = x.select_scatter(Tensor(np.array([9, 8], np.float32)), 1, 0)"),
        ("gather", "out = x3.gather(Tensor(np.array([[1, 0], [2, 2]], np.int32)), 1)"),
        ("unfold", "out = img.unfold((2, 3), padding=(1, 0), stride=(1, 2))"),
    ],
    "nn": [
        ("Conv3d", "v5 = Tensor(np.linspace(-1, 1, 240).reshape(1, 4, 3, 4, 5)"
                   ".astype(np.float32))\n"
                   "out = _fix(nn.Conv3d(4, 2, (2, 3, 2), 2, 'pad', (1, 0, 1, 1, 0, 1), group=2, "
                   "has_bias=True))(v5)"),
        ("Conv3dTranspose", "x5 = Tensor(np.linspace(-1, 1, 144).reshape(2, 4, 2, 3, 3)"
                            ".astype(np.float32))\n"
                            "out = [_fix(nn.Conv3dTranspose(4, 6, (2, 2, 3), 2, m, group=2, "
                            "has_bias=True))(x5) for m in ('same', 'valid')]"),
        ("BiDense", "out = _fix(nn.BiDense(3, 2, 4))(x, y[:, :2])"),
        ("ReflectionPad3d", "out = nn.ReflectionPad3d((1, 0, 1, 1, 0, 1))(Tensor(np.arange(16, "
                            "dtype=np.float32).reshape(1, 1, 2, 2, 4)))"),
    ],
    "nn_loss": [
        ("MultiMarginLoss", "out = nn.MultiMarginLoss(p=2, margin=0.5, reduction='sum', "
                            "weight=Tensor([1.0, 2.0, 3.0]))(x, lbl.astype(ms.int64))"),
    ],
}
