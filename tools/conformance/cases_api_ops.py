"""Hand-written conformance cases: ops functions and primitives (function transforms, argmax
pooling and unpooling, colour spaces, unique-with-pad, random choices)."""

CASES = {
    "ops": [
        ("vjp", "out = ops.vjp(lambda a: a * a, x)[1](ops.ones_like(x))"),
        ("jvp", "out = ops.jvp(lambda a: a * a, x, ops.ones_like(x))"),
        ("max_unpool2d", "o, a = ops.max_pool2d(img, 2, 2, return_indices=True)\n"
                         "out = ops.max_unpool2d(o, a, 2, 2)"),
        ("max_unpool1d", "out = ops.max_unpool1d(Tensor(np.array([[[2.0, 4.0]]], np.float32)), "
                         "Tensor(np.array([[[1, 3]]], np.int64)), 2)"),
        ("max_unpool3d", "out = ops.max_unpool3d(Tensor(np.ones((1, 1, 1, 2, 2), np.float32)), "
                         "Tensor(np.array([0, 3, 5, 7], np.int64).reshape(1, 1, 1, 2, 2)), 2, 2)"),
    ],
    "primitive": [
        ("HSVToRGB", "out = ops.HSVToRGB()(Tensor(np.array([0.75, 0.75, 0.8, 0.29, 0.89, 0.9], "
                     "np.float32).reshape(1, 1, 2, 3)))"),
        ("MaxUnpool2D", "o, a = ops.MaxPoolWithArgmaxV2(2, 2)(img)\n"
                        "out = ops.MaxUnpool2D(ksize=2, strides=2)(o, a)"),
        ("MaxUnpool3D", "out = ops.MaxUnpool3D(ksize=2, strides=2)(Tensor(np.ones((1, 1, 1, 2, 2), "
                        "np.float32)), Tensor(np.array([0, 3, 5, 7], np.int64)"
                        ".reshape(1, 1, 1, 2, 2)))"),
        ("UniqueWithPad", "out = ops.UniqueWithPad()(Tensor(np.array([1, 1, 5, 5, 4, 4, 3, 3], "
                          "np.int32)), 8)"),
    ],
    "tensor": [
        ("unique_with_pad", "out = Tensor(np.array([3, 1, 3, 2], np.int64)).unique_with_pad(0)"),
    ],
}
