"""Hand-written conformance cases: nn.InstanceNorm1d/2d/3d, nn.Unfold, nn.SparseToDense,
nn.SparseTensorDenseMatmul and their primitives.

MindSpore 2.7.2's CPU build refuses the InstanceNorm and ExtractImagePatches kernels (GPU and
Ascend only), so their cases take the paths that never reach a kernel: the parameters a cell
builds and the shape checks that run before kernel selection."""

_COO = ("i = Tensor(np.array([[0, 2], [1, 0], [0, 2], [1, 1]], np.int32))\n"
        "w = Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32))\n")

CASES = {
    "nn": [
        ("InstanceNorm1d", "net = nn.InstanceNorm1d(3, gamma_init=2.0, affine=False)\n"
                           "out = (net.gamma, net.beta, net.moving_mean, net.moving_variance, "
                           "[(p.name, p.requires_grad) for p in net.get_parameters()])"),
        ("InstanceNorm2d", "out = nn.InstanceNorm2d(4)(img)"),
        ("InstanceNorm3d", "out = nn.InstanceNorm3d(2)(img)"),
        ("Unfold", "out = nn.Unfold([1, 3, 3, 1], [1, 1, 1, 1], [1, 2, 2, 1])(img)"),
        ("SparseToDense", _COO + "out = nn.SparseToDense()(ms.COOTensor(i, w, (2, 3)))"),
        ("SparseTensorDenseMatmul",
         _COO + "out = [nn.SparseTensorDenseMatmul()(i, w, (2, 3), ops.transpose(y, (1, 0))),\n"
                "       nn.SparseTensorDenseMatmul(True, False)(i, w, (2, 3), x),\n"
                "       nn.SparseTensorDenseMatmul(False, True)(i, w, (2, 3), z),\n"
                "       nn.SparseTensorDenseMatmul(True, True)(i, w, (2, 3), "
                "ops.transpose(y, (1, 0)))]"),
    ],
    "primitive": [
        ("ExtractImagePatches", "out = ops.ExtractImagePatches((1, 1, 2, 2), (1, 1, 1, 1), "
                                "(1, 1, 1, 1), 'VALID')(x3)"),
        ("SparseToDense", _COO + "out = ops.SparseToDense()(i, w, (2, 3))"),
        ("SparseTensorDenseMatmul",
         _COO + "out = ops.SparseTensorDenseMatmul(adjoint_dt=True)(i, w, (2, 3), y)"),
    ],
}
