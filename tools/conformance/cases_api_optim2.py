"""Hand-written conformance cases: the row-sparse optimizer primitives and the dense
ApplyAdagradV2 and ApplyAdamWithAmsgrad (ops/function/sparse_optim_prims.py). Each updates
Parameters built from fixed arrays (accum positive), the sparse ones at rows [2, 0, 2], and
records the Parameters (equal to MindSpore 2.7.2's or within 1 ulp of float32).
SparseApplyAdagradV2's case names no row twice: MindSpore 2.7.2's CPU kernel gives repeated
rows a result matching neither order of applying them (its accum is the in-order sum, its var
is not)."""

_S = ("a = np.array([[0.55, 0.72], [0.60, 0.54], [0.42, 0.65], [0.44, 0.89]], np.float32)\n"
      "b = np.array([[0.96, 0.88], [1.46, 0.88], [1.29, 1.03], [0.57, 0.59]], np.float32)\n"
      "var = Parameter(Tensor(a), name='var')\n"
      "s1 = Parameter(Tensor(b), name='s1')\n"
      "s2 = Parameter(Tensor(a * 0.5), name='s2')\n"
      "g = Tensor(np.array([[1.2, -0.4], [0.3, 0.8], [-0.7, 0.5]], np.float32))\n"
      "i = Tensor(np.array([2, 0, 2], np.int32))\n")

CASES = {
    "primitive": [
        ("FusedSparseAdam", _S + "ops.FusedSparseAdam()(var, s2, s1, 0.9, 0.999, 0.01, 0.9, "
                                 "0.999, 1e-8, g, i)\nout = (var, s2, s1)"),
        ("FusedSparseLazyAdam", _S + "ops.FusedSparseLazyAdam()(var, s2, s1, 0.9, 0.999, 0.01, "
                                     "0.9, 0.999, 1e-8, g, i)\nout = (var, s2, s1)"),
        ("FusedSparseFtrl", _S + "ops.FusedSparseFtrl(0.1, 0.01, 0.02, -0.5)(var, s1, s2, g, "
                                 "i)\nout = (var, s1, s2)"),
        ("SparseApplyFtrl", _S + "ops.SparseApplyFtrl(0.1, 0.01, 0.02, -0.5)(var, s1, s2, g, "
                                 "i)\nout = (var, s1, s2)"),
        ("FusedSparseProximalAdagrad", _S + "ops.FusedSparseProximalAdagrad()(var, s1, "
                                            "Tensor(0.1), Tensor(0.01), Tensor(0.02), g, i)\n"
                                            "out = (var, s1)"),
        ("SparseApplyAdagrad", _S + "ops.SparseApplyAdagrad(0.1)(var, s1, g, i)\n"
                                    "out = (var, s1)"),
        ("SparseApplyAdagradV2", _S + "ops.SparseApplyAdagradV2(0.1, 1e-3)(var, s1, g, "
                                      "Tensor(np.array([2, 0, 3], np.int32)))\n"
                                      "out = (var, s1)"),
        ("SparseApplyRMSProp", _S + "g4 = Tensor(np.array([[1.2, -0.4], [0.3, 0.8], [-0.7, "
                                    "0.5], [0.0, 0.2]], np.float32))\n"
                                    "ops.SparseApplyRMSProp(0.9, 0.5, 1e-3)(var, s1, s2, 0.1, "
                                    "g4, Tensor(np.array([2, 0, 2, 3], np.int32)))\n"
                                    "out = (var, s1, s2)"),
        ("ApplyAdagradV2", _S + "ops.ApplyAdagradV2(1e-3)(var, s1, 0.1, Tensor(a * 2 - 1))\n"
                                "out = (var, s1)"),
        ("ApplyAdamWithAmsgrad", _S + "vh = Parameter(Tensor(b * 0.9), name='vh')\n"
                                      "ops.ApplyAdamWithAmsgrad(0.8, 0.7, 1e-3)(var, s2, s1, vh, "
                                      "Tensor(0.5), Tensor(0.4), Tensor(0.1), Tensor(a * 2 - 1))\n"
                                      "out = (var, s2, s1, vh)"),
    ],
}
