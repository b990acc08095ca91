"""Hand-written conformance cases: the primitives MindSpore's own CPU tests call that are
composed of existing operators (padding_prims, array_prims2, nn_prims2), one case each as
MindSpore 2.7.2 runs it on CPU. The random ones (Dropout3D, RandomCategorical, Uniform,
TruncatedNormal) compare by dtype and shape (generate.RANDOM)."""

_I32 = "Tensor(np.array({}, np.int32))"

CASES = {
    "primitive": [
        ("Padding", "out = ops.Padding(3)(Tensor(np.array([[1.0], [2.0]], np.float32)))"),
        ("Pad", "out = ops.Pad(((1, 0), (1, 2)))(xi)"),
        ("PadV3", "from mindspore.ops.operations.nn_ops import PadV3\n"
                  "out = (PadV3()(x3, Tensor(np.array([1, -1, 0, 2], np.int64)), Tensor(0.5)), "
                  "PadV3('reflect')(x3, Tensor(np.array([2, 1], np.int64))), "
                  "PadV3('edge')(img, Tensor(np.array([1, 0, 0, 1], np.int64))), "
                  "PadV3('circular', False)(img, Tensor(np.array([1, -1, 2, 1], np.int64))))"),
        ("DepthToSpace", "out = ops.DepthToSpace(2)(Tensor(np.arange(24, dtype=np.float32)"
                         ".reshape(1, 8, 1, 3)))"),
        ("MatrixDiagV3", "from mindspore.ops.operations.array_ops import MatrixDiagV3\n"
                         f"out = (MatrixDiagV3()(x3[:, :, :3], {_I32.format([-1, 1])}, "
                         f"{_I32.format(-1)}, {_I32.format(-1)}, Tensor(np.float32(9))), "
                         f"MatrixDiagV3('LEFT_LEFT')(x, {_I32.format(1)}, {_I32.format(3)}, "
                         f"{_I32.format(-1)}, Tensor(np.float32(0))))"),
        ("MatrixDiagPartV3", "from mindspore.ops.operations.array_ops import MatrixDiagPartV3\n"
                             f"out = MatrixDiagPartV3('LEFT_RIGHT')(x3, {_I32.format([-1, 2])}, "
                             "Tensor(np.float32(7)))"),
        ("FillDiagonal", "from mindspore.ops.operations.array_ops import FillDiagonal\n"
                         "out = (FillDiagonal(5.0, True)(Tensor(np.zeros((7, 3), np.float32))), "
                         "FillDiagonal(-1.0)(x3[:, :2, :2].reshape(2, 2, 2)))"),
        ("MaskedFill", "out = ops.MaskedFill()(x, xb, Tensor(np.float32(-1.5)))"),
        ("Slice", "out = ops.Slice()(x3, (1, 0, 1), (1, -1, 2))"),
        ("PReLU", "out = ops.PReLU()(x3 - 0.5, Tensor(np.array([0.1, 0.2, 0.3], np.float32)))"),
        ("MaxPool3D", "out = ops.MaxPool3D(kernel_size=(2, 2, 3), strides=1, pad_mode='SAME')("
                      "x3.reshape(1, 1, 2, 3, 4))"),
        ("AvgPool3D", "xa = Tensor(np.arange(72, dtype=np.float32).reshape(1, 3, 2, 3, 4))\n"
                      "out = (ops.AvgPool3D(kernel_size=(2, 2, 3), strides=1, pad_mode='SAME', "
                      "count_include_pad=False)(xa), ops.AvgPool3D(kernel_size=2, strides=2, "
                      "pad_mode='PAD', pad=1)(xa))"),
        ("ResizeLinear1D", "from mindspore.ops.operations import ResizeLinear1D\n"
                           "out = (ResizeLinear1D()(x3, Tensor(np.array([7], np.int64))), "
                           "ResizeLinear1D('half_pixel')(x3, Tensor(np.array([3], np.int64))))"),
        ("Dropout3D", "out = ops.Dropout3D(0.5)(x3.reshape(1, 2, 3, 2, 2))"),
        ("RandomCategorical", "out = ops.RandomCategorical(ms.int32)(x, 4, 2)"),
        ("Uniform", "from mindspore.ops.operations.random_ops import Uniform\n"
                    "out = Uniform(1.0, 2.0)(Tensor(np.zeros((3, 4)), ms.float64))"),
        ("TruncatedNormal", "from mindspore.ops.operations.random_ops import TruncatedNormal\n"
                            f"out = TruncatedNormal()({_I32.format([2, 3])})"),
        ("ApplyGradientDescent", "var = Parameter(x.copy(), name='var')\n"
                                 "r = ops.ApplyGradientDescent()(var, Tensor(np.float32(0.1)), "
                                 "y)\nout = (r, var)"),
        ("ApplyProximalGradientDescent",
         "var = Parameter(x.copy(), name='var')\n"
         "r = ops.ApplyProximalGradientDescent()(var, Tensor(np.float32(0.5)), "
         "Tensor(np.float32(0.2)), Tensor(np.float32(0.1)), y)\nout = (r, var)"),
    ],
}
