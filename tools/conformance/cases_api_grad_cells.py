"""Hand-written conformance cases: 3-D fractional max pooling, the Jacobian-product cells
(nn.Jvp, nn.Vjp), nn.ParameterUpdate, VirtualDatasetCellTriple, and a
second-order gradient through each of the backward operators that have one."""

_POOL_INPUT = ("t5 = Tensor((np.arange(240) * 37 % 241).astype(np.float32).reshape(2, 1, 4, 5, 6))\n"
               "s5 = Tensor(np.array([[[0.2, 0.6, 0.9]], [[0.7, 0.1, 0.4]]], np.float32))\n")

CASES = {
    "nn": [
        ("FractionalMaxPool3d", _POOL_INPUT + "out = nn.FractionalMaxPool3d(2, output_size=(2, 3, 4), "
                                              "return_indices=True, _random_samples=s5)(t5)"),
        ("Jvp", "class F(nn.Cell):\n    def construct(self, a, b):\n        return a ** 3 * b\n"
                "out = nn.Jvp(F())(x, y, (z, x))"),
        ("Vjp", "class F(nn.Cell):\n    def construct(self, a, b):\n        return a ** 3 * b\n"
                "out = nn.Vjp(F())(x, y, z)"),
        ("VirtualDatasetCellTriple", "class F(nn.Cell):\n    def construct(self, a, b, c):\n"
                                     "        return a * b + c\n"
                                     "out = nn.VirtualDatasetCellTriple(F())(x, y, z)"),
        ("ParameterUpdate", "w = Parameter(Tensor(np.ones(3, np.float32)), name='w')\n"
                            "out = (nn.ParameterUpdate(w)(v[:3]), w.value())"),
    ],
    "ops": [
        ("fractional_max_pool3d", _POOL_INPUT + "out = ops.fractional_max_pool3d(t5[0], (1, 3, 2), "
                                                "output_ratio=0.5, _random_samples=s5[:1])"),
    ],
    "everyday": [
        ("grad_of_grad", "fs = [ops.tanh, ops.sigmoid, lambda a: a ** 3, "
                         "lambda a: ops.sqrt(ops.abs(a)), ops.gelu, lambda a: ops.relu(a) * a, "
                         "lambda a: ops.maximum(a, 0.3) ** 2, lambda a: ops.rsqrt(a + 2.0)]\n"
                         "out = [ms.grad(lambda t: ms.grad(lambda u: (f(u) * y).sum())(t).sum())(x) "
                         "for f in fs]"),
    ],
}
