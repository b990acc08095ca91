"""Hand-written conformance cases: the functional sparse ops (ops.coo_* and ops.csr_*).

Each case builds a small CSRTensor or COOTensor and sets `out` to its parts (indptr, indices,
values, shape), which the runner compares by value. MindSpore 2.7.2's CPU build compiles
CSRMul / CSRDiv with a dense operand, CSRMV and CSRReduceSum through its akg compiler, which
this environment lacks, so those cases take the paths that never reach it (a scalar operand,
the shape and axis checks); csr_mm has no CPU kernel there, so its case is the type check."""

_CSR = ("c = ms.CSRTensor(Tensor(np.array([0, 2, 3], np.int32)), "
        "Tensor(np.array([0, 2, 1], np.int32)), Tensor(np.array({values}, np.float32)), (2, 4))\n")
_COO = ("c = ms.COOTensor(Tensor(np.array([[0, 1], [1, 2], [1, 3]], np.int32)), "
        "Tensor(np.array({values}, np.float32)), (3, 4))\n")
_UNARY = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp",
          "expm1", "floor", "inv", "isfinite", "isinf", "isnan", "log", "log1p", "neg", "relu",
          "relu6", "round", "sigmoid", "sin", "sinh", "softsign", "sqrt", "square", "tan",
          "tanh")


def _values(name):
    # inside every function's domain: (0, 1) but acosh's, which starts at 1
    return "[1.5, 2.0, 3.25]" if name == "acosh" else "[0.5, -0.2, 0.75]" if name in (
        "abs", "neg", "relu", "relu6", "round", "softsign", "ceil", "floor",
        "sigmoid", "tanh", "sin", "cos", "exp", "isnan") else "[0.5, 0.2, 0.75]"


def _unary_cases():
    cases = []
    for name in _UNARY:
        cases.append((f"csr_{name}", _CSR.format(values=_values(name)) +
                      f"r = ops.csr_{name}(c)\nout = (r.indptr, r.indices, r.values, r.shape)"))
        cases.append((f"coo_{name}", _COO.format(values=_values(name)) +
                      f"r = ops.coo_{name}(c)\nout = (r.indices, r.values, r.shape)"))
    return cases


_CSR_B = ("b = ms.CSRTensor(Tensor(np.array([0, 1, 3], np.int32)), "
          "Tensor(np.array([3, 0, 2], np.int32)), Tensor(np.array([10.0, 20.0, 30.0], "
          "np.float32)), (2, 4))\n")
_COO64 = ("x1 = ms.COOTensor(Tensor(np.array([[0, 1], [1, 2]], np.int64)), "
          "Tensor(np.array([1.0, 2.0], np.float32)), (3, 4))\n"
          "x2 = ms.COOTensor(Tensor(np.array([[0, 0], [1, 2], [2, 3]], np.int64)), "
          "Tensor(np.array([3.0, -1.5, 0.5], np.float32)), (3, 4))\n")
_CSR3 = _CSR.format(values="[0.5, -0.2, 0.75]")

CASES = {
    "ops": _unary_cases() + [
        ("csr_add", _CSR3 + _CSR_B + "r = ops.csr_add(c, b, Tensor(2.0), Tensor(-1.0))\n"
                                     "out = (r.indptr, r.indices, r.values, r.shape)"),
        ("coo_add", _COO64 + "r = ops.coo_add(x1, x2, Tensor(0.6))\n"
                             "out = (r.indices, r.values, r.shape)"),
        ("coo_concat", _COO64 + "r = ops.coo_concat((x1, x2, x1), 1)\n"
                                "out = (r.indices, r.values, r.shape)"),
        ("csr_mul", _CSR3 + "out = ops.csr_mul(c, Tensor(np.array([[2.5]], np.float32)))"),
        ("csr_div", _CSR3 + "out = ops.csr_div(c, 4)"),
        ("csr_mv", _CSR3 + "out = ops.csr_mv(c, Tensor(np.ones((3, 1), np.float32)))"),
        ("csr_reduce_sum", _CSR3 + "out = ops.csr_reduce_sum(c, 0)"),
        ("csr_mm", _CSR3 + "out = ops.csr_mm(c, Tensor(np.ones((4, 2), np.float32)))"),
        ("csr_softmax", _CSR3 + "r = ops.csr_softmax(c, ms.float32)\n"
                                "out = (r.indptr, r.indices, r.values, r.shape)"),
        ("csr_to_coo", _CSR3 + "r = ops.csr_to_coo(c)\nout = (r.indices, r.values, r.shape)"),
        ("csr_to_dense", _CSR3 + "out = ops.csr_to_dense(c)"),
    ],
}
