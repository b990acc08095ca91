"""Hand-written conformance cases: the reducing scatter family (Scatter*, ScatterNd*,
TensorScatterMul/Div/Max/Min, UnsortedSegmentMax/Min/Prod, IndexAdd, Inplace*). The in-place
ones write into a fresh Parameter (or copy) and record it, so the recorded value is the write.

Tensor.scatter_add_ and Tensor.index_add_ have no case: MindSpore 2.7.2's CPU build raises
'kernel InplaceScatterAdd / InplaceIndexAddExt unregistered' for them."""

_I = "Tensor(np.array([1, 0, 1], np.int32))"                 # row 1 twice
_U = "Tensor(np.arange(9, dtype=np.float32).reshape(3, 3) / 4 + 0.5)"
_ND = "Tensor(np.array([[1, 2], [0, 0], [1, 2]], np.int32))"  # (1, 2) twice
_NU = "Tensor(np.array([0.5, 2.0, 4.0], np.float32))"
_P = "p = Parameter(x.copy(), name='p')\n"
_SEG = "Tensor(np.array([2, 0], np.int32))"


def _scatter(name, call):
    return (name, f"{_P}{call}(p, {_I}, {_U})\nout = p")


def _scatter_nd(name, call):
    return (name, f"{_P}{call}(p, {_ND}, {_NU})\nout = p")


CASES = {
    "ops": [
        _scatter("scatter_add", "ops.scatter_add"),
        _scatter("scatter_mul", "ops.scatter_mul"),
        _scatter("scatter_div", "ops.scatter_div"),
        _scatter("scatter_max", "ops.scatter_max"),
        _scatter("scatter_min", "ops.scatter_min"),
        _scatter("scatter_update", "ops.scatter_update"),
        _scatter_nd("scatter_nd_add", "ops.scatter_nd_add"),
        _scatter_nd("scatter_nd_sub", "ops.scatter_nd_sub"),
        _scatter_nd("scatter_nd_mul", "ops.scatter_nd_mul"),
        _scatter_nd("scatter_nd_div", "ops.scatter_nd_div"),
        _scatter_nd("scatter_nd_max", "ops.scatter_nd_max"),
        _scatter_nd("scatter_nd_min", "ops.scatter_nd_min"),
        _scatter_nd("scatter_nd_update", "ops.scatter_nd_update"),
        ("tensor_scatter_mul", f"out = ops.tensor_scatter_mul(x, {_ND}, {_NU})"),
        ("tensor_scatter_div", f"out = ops.tensor_scatter_div(x, {_ND}, {_NU})"),
        ("tensor_scatter_max", f"out = ops.tensor_scatter_max(x, {_ND}, {_NU})"),
        ("tensor_scatter_min", f"out = ops.tensor_scatter_min(x, {_ND}, {_NU})"),
        ("unsorted_segment_max", f"out = ops.unsorted_segment_max(x, {_SEG}, 3)"),
        ("unsorted_segment_min", f"out = ops.unsorted_segment_min(xi, {_SEG}, 3)"),
        ("unsorted_segment_prod", f"out = ops.unsorted_segment_prod(x3, {_SEG}, 3)"),
        ("index_add", f"{_P}ops.index_add(p, {_I}, {_U}[:2], 1)\nout = p"),
        ("inplace_add", "out = ops.inplace_add(x, y, (1, 0))"),
        ("inplace_sub", "out = ops.inplace_sub(x, y[:1], 1)"),
        ("inplace_update", "out = ops.inplace_update(x, y, Tensor(np.array([1, -2], np.int32)))"),
        ("inplace_index_add",
         f"t = x.copy()\nops.inplace_index_add(t, {_I}, {_U}, 0)\nout = t"),
    ],
    "primitive": [
        _scatter("ScatterAdd", "ops.ScatterAdd()"),
        _scatter("ScatterSub", "ops.ScatterSub(use_locking=True)"),
        _scatter("ScatterMul", "ops.ScatterMul()"),
        _scatter("ScatterDiv", "ops.ScatterDiv()"),
        _scatter("ScatterMax", "ops.ScatterMax()"),
        _scatter("ScatterMin", "ops.ScatterMin()"),
        _scatter("ScatterUpdate", "ops.ScatterUpdate()"),
        _scatter_nd("ScatterNdAdd", "ops.ScatterNdAdd()"),
        _scatter_nd("ScatterNdSub", "ops.ScatterNdSub()"),
        _scatter_nd("ScatterNdMul", "ops.ScatterNdMul()"),
        _scatter_nd("ScatterNdDiv", "ops.ScatterNdDiv()"),
        _scatter_nd("ScatterNdMax", "ops.ScatterNdMax()"),
        _scatter_nd("ScatterNdMin", "ops.ScatterNdMin()"),
        _scatter_nd("ScatterNdUpdate", "ops.ScatterNdUpdate()"),
        ("TensorScatterMul", f"out = ops.TensorScatterMul()(x, {_ND}, {_NU})"),
        ("TensorScatterDiv", f"out = ops.TensorScatterDiv()(x, {_ND}, {_NU})"),
        ("TensorScatterMax", f"out = ops.TensorScatterMax()(x, {_ND}, {_NU})"),
        ("TensorScatterMin", f"out = ops.TensorScatterMin()(x, {_ND}, {_NU})"),
        ("UnsortedSegmentMax", f"out = ops.UnsortedSegmentMax()(x3, {_SEG}, 3)"),
        ("UnsortedSegmentMin", f"out = ops.UnsortedSegmentMin()(x, {_SEG}, 4)"),
        ("UnsortedSegmentProd", f"out = ops.UnsortedSegmentProd()(xi, {_SEG}, 3)"),
        ("IndexAdd", f"{_P}ops.IndexAdd(axis=1)(p, {_I}, {_U}[:2])\nout = p"),
        ("InplaceAdd", "out = ops.InplaceAdd((1, 1))(x, y)"),
        ("InplaceSub", "out = ops.InplaceSub(0)(x, y[1:])"),
        ("InplaceUpdate", "out = ops.InplaceUpdate((1, 0))(x, y)"),
        ("InplaceUpdateV2",
         "out = ops.InplaceUpdateV2()(x, Tensor(np.array([0, 0], np.int32)), y)"),
        ("InplaceIndexAdd",
         f"{_P}ops.InplaceIndexAdd(1)(p, {_I}, {_U}[:2])\nout = p"),
    ],
    "tensor": [
        ("scatter_sub", f"out = x.scatter_sub({_ND}, {_NU})"),
        ("scatter_mul", f"out = x.scatter_mul({_ND}, {_NU})"),
        ("scatter_div", f"out = x.scatter_div({_ND}, {_NU})"),
        ("scatter_max", f"out = x.scatter_max({_ND}, {_NU})"),
        ("scatter_min", f"out = x.scatter_min({_ND}, {_NU})"),
        ("index_add", f"t = x.copy()\nt.index_add(1, {_I}, {_U}[:2], alpha=2)\nout = t"),
        ("inplace_update", "out = x.inplace_update(y[:1], (1,))"),
        ("unsorted_segment_max", f"out = x.unsorted_segment_max({_SEG}, 3)"),
        ("unsorted_segment_min", f"out = x3.unsorted_segment_min({_SEG}, 3)"),
        ("unsorted_segment_prod", f"out = xi.unsorted_segment_prod({_SEG}, 3)"),
    ],
}
