"""Hand-written conformance cases: ops functions and primitives (function transforms, argmax
pooling and unpooling, colour spaces, unique-with-pad, random choices)."""

CASES = {
    "ops": [
        ("iou", "out = ops.iou(Tensor(np.array([[0, 0, 2, 2], [1, 1, 3, 3]], np.float32)), "
                "Tensor(np.array([[0, 0, 2, 2], [2, 2, 4, 5]], np.float32)), mode='iof')"),
        ("bounding_box_encode", "out = ops.bounding_box_encode(Tensor(np.array([[0, 0, 2, 2]], "
                                "np.float32)), Tensor(np.array([[0, 0, 3, 3]], np.float32)))"),
        ("bounding_box_decode", "out = ops.bounding_box_decode(Tensor(np.array([[0, 0, 2, 2]], "
                                "np.float32)), Tensor(np.array([[0.1, 0.1, 0.2, 0.2]], "
                                "np.float32)), (3, 4))"),
        ("is_nonzero", "out = (ops.is_nonzero(Tensor([0.0])), ops.is_nonzero(Tensor(3)))"),
        ("scalar_cast", "out = (ops.scalar_cast(1.5, ms.int64), ops.scalar_cast(2, ms.float64))"),
        ("vjp", "out = ops.vjp(lambda a: a * a, x)[1](ops.ones_like(x))"),
        ("jvp", "def square(a):\n    return a * a\n\nout = ops.jvp(square, x, ops.ones_like(x))"),
        ("max_unpool2d", "o, a = ops.max_pool2d(img, 2, 2, return_indices=True)\n"
                         "out = ops.max_unpool2d(o, a, 2, 2)"),
        ("max_unpool1d", "out = ops.max_unpool1d(Tensor(np.array([[[2.0, 4.0]]], np.float32)), "
                         "Tensor(np.array([[[1, 3]]], np.int64)), 2)"),
        ("max_unpool3d", "out = ops.max_unpool3d(Tensor(np.ones((1, 1, 1, 2, 2), np.float32)), "
                         "Tensor(np.array([0, 3, 5, 7], np.int64).reshape(1, 1, 1, 2, 2)), 2, 2)"),
    ],
    "primitive": [
        ("IOU", "out = ops.IOU()(Tensor(np.array([[0, 0, 2, 2], [1, 1, 3, 3]], np.float32)), "
                "Tensor(np.array([[0, 0, 2, 2], [2, 2, 4, 5]], np.float32)))"),
        ("BoundingBoxEncode", "out = ops.BoundingBoxEncode(means=(0.1, 0.0, 0.0, 0.0), "
                              "stds=(1.0, 2.0, 1.0, 1.0))(Tensor(np.array([[0, 0, 2, 2]], "
                              "np.float32)), Tensor(np.array([[1, 0, 3, 3]], np.float32)))"),
        ("BoundingBoxDecode", "out = ops.BoundingBoxDecode(max_shape=(3, 4))(Tensor(np.array("
                              "[[0, 0, 2, 2]], np.float32)), Tensor(np.array([[1, -1, 2, -2]], "
                              "np.float32)))"),
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
