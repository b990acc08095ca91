"""Hand-written conformance cases: nn.SSIM, nn.MSSSIM (run under ms.jit: MindSpore 2.7.2's
PyNative SSIM fails in ScalarCast on CPU, GRAPH_MODE works) and nn.MultiFieldEmbeddingLookup
(target 'CPU'; 'DEVICE' needs SparseGatherV2, which its CPU build lacks)."""

_IMAGES = ("a = Tensor(np.linspace(0, 1, 768).reshape(1, 3, 16, 16).astype(np.float32))\n"
           "b = Tensor((np.linspace(0, 1, 768) ** 1.5).reshape(1, 3, 16, 16).astype(np.float32))\n")
_FIELDS = ("t = Tensor(np.linspace(-1, 1, 40).reshape(10, 4).astype(np.float32))\n"
           "i = Tensor(np.array([[2, 4, 6, 0, 0], [1, 3, 5, 9, 0]], np.int32))\n"
           "w = Tensor(np.array([[1, 0.5, -2, 0, 0], [1, 3, -1, 0.25, 0]], np.float32))\n"
           "f = Tensor(np.array([[0, 1, 1, 0, 0], [0, 0, 2, 2, 0]], np.int32))\n")

CASES = {
    "nn": [
        ("SSIM", _IMAGES + "net = nn.SSIM(filter_size=5, filter_sigma=1.0)\n"
                           "@ms.jit\ndef g(p, q):\n    return net(p, q)\nout = g(a, b)"),
        ("MSSSIM", _IMAGES + "net = nn.MSSSIM(power_factors=(0.4, 0.6), filter_size=5)\n"
                             "@ms.jit\ndef g(p, q):\n    return net(p, q)\nout = g(a, b)"),
        ("MultiFieldEmbeddingLookup",
         _FIELDS + "out = [nn.MultiFieldEmbeddingLookup(10, 4, 3, param_init=t, operator=op)"
                   "(i, w, f) for op in ('SUM', 'MAX', 'MEAN')]"),
    ],
}
