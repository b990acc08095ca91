"""Hand-written conformance cases: the gather, scatter and index family."""

# An index for x (2, 3) along dim 1: repeats, a negative entry, fewer columns than x.
_IDX = "Tensor(np.array([[2, 0], [-1, 1]], np.int32))"
# A scatter into x along dim 1 with a repeated position (row 1: 0 twice) and its updates.
_SIDX = "Tensor(np.array([[2, 0], [0, 0]], np.int64))"
_UPD = "Tensor(np.array([[1.5, -2.0], [3.0, 4.0]], np.float32))"

CASES = {
    "ops": [
        ("gather_elements", f"out = ops.gather_elements(x, 1, {_IDX})"),
        ("gather_d", "out = ops.gather_d(x3, 0, Tensor(np.array([[[1, 0, 1, 1]]], np.int64)))"),
        ("tensor_scatter_elements",
         f"out = ops.tensor_scatter_elements(x, {_SIDX}, {_UPD}, 1, 'add')"),
        ("scatter", f"out = ops.scatter(x, -1, Tensor(np.array([[2, 0], [1, -3]], np.int32)), "
                    f"{_UPD})"),
    ],
    "primitive": [
        ("GatherD", f"out = ops.GatherD()(x, 1, {_IDX})"),
        ("TensorScatterElements",
         f"out = ops.TensorScatterElements(1, 'add')(x, {_SIDX}, {_UPD})"),
    ],
    "tensor": [
        ("gather_elements", f"out = x.gather_elements(1, {_IDX})"),
        ("scatter", f"out = x.scatter(1, {_SIDX}[:, :1], 0.25)"),
    ],
}
