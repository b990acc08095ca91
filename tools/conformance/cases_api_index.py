"""Hand-written conformance cases: the gather, scatter and index family."""

# An index for x (2, 3) along dim 1: repeats, a negative entry, fewer columns than x.
_IDX = "Tensor(np.array([[2, 0], [-1, 1]], np.int32))"
# A scatter into x along dim 1 with a repeated position (row 1: 0 twice) and its updates.
_SIDX = "Tensor(np.array([[2, 0], [0, 0]], np.int64))"
_UPD = "Tensor(np.array([[1.5, -2.0], [3.0, 4.0]], np.float32))"
# Rows of x (2, 3) by (row, col) pairs, (1, 2) twice, and one value per pair.
_ND = "Tensor(np.array([[1, 2], [0, 0], [1, 2]], np.int32))"
_NDU = "Tensor(np.array([0.5, -1.0, 2.0], np.float32))"

CASES = {
    "ops": [
        ("gather_elements", f"out = ops.gather_elements(x, 1, {_IDX})"),
        ("gather_d", "out = ops.gather_d(x3, 0, Tensor(np.array([[[1, 0, 1, 1]]], np.int64)))"),
        ("tensor_scatter_elements",
         f"out = ops.tensor_scatter_elements(x, {_SIDX}, {_UPD}, 1, 'add')"),
        ("scatter", f"out = ops.scatter(x, -1, Tensor(np.array([[2, 0], [1, -3]], np.int32)), "
                    f"{_UPD})"),
        ("tensor_scatter_update", "out = ops.tensor_scatter_update(x, Tensor(np.array([[1]], "
                                  "np.int64)), Tensor(np.array([[7., 8., 9.]], np.float32)))"),
        ("tensor_scatter_add", f"out = ops.tensor_scatter_add(x, {_ND}, {_NDU})"),
        ("tensor_scatter_sub", f"out = ops.tensor_scatter_sub(x, {_ND}, {_NDU})"),
        ("scatter_nd", f"out = ops.scatter_nd({_ND}, {_NDU}, (2, 3))"),
        ("index_fill", "out = ops.index_fill(x, 1, Tensor(np.array([2, 0, 2], np.int32)), -1.5)"),
    ],
    "primitive": [
        ("GatherD", f"out = ops.GatherD()(x, 1, {_IDX})"),
        ("TensorScatterElements",
         f"out = ops.TensorScatterElements(1, 'add')(x, {_SIDX}, {_UPD})"),
        ("TensorScatterUpdate", "out = ops.TensorScatterUpdate()(x, Tensor(np.array([[0, 1]], "
                                "np.int32)), Tensor(np.array([5.0], np.float32)))"),
        ("TensorScatterAdd", f"out = ops.TensorScatterAdd()(x, {_ND}, {_NDU})"),
        ("TensorScatterSub", f"out = ops.TensorScatterSub()(x, {_ND}, {_NDU})"),
        ("ScatterNd", f"out = ops.ScatterNd()({_ND}, {_NDU}, (2, 3))"),
        ("IndexFill", "out = ops.IndexFill()(x, 1, Tensor(np.array([1], np.int32)), "
                      "Tensor(np.float32(-2.0)))"),
    ],
    "tensor": [
        ("gather_elements", f"out = x.gather_elements(1, {_IDX})"),
        ("scatter", f"out = x.scatter(1, {_SIDX}[:, :1], 0.25)"),
        ("index_fill", "out = x.index_fill(0, Tensor(np.array([-1], np.int32)), Tensor(3.0))"),
    ],
}
