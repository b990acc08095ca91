"""ops.LowerBound, ops.UpperBound and ops.DataFormatDimMap against MindSpore 2.7.2's outputs and
errors on the same inputs (recorded from the CPU wheel; the literals below are its results),
in PYNATIVE and GRAPH mode."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops

SORTED = np.array([[1, 3, 5], [2, 4, 6]], np.float32)


class _Apply(nn.Cell):
    def __init__(self, prim):
        super().__init__()
        self.prim = prim

    def construct(self, *xs):
        return self.prim(*xs)


@pytest.fixture(params=["pynative", "graph"])
def run(request):
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield lambda prim, *xs: _Apply(prim)(*xs)
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_lower_and_upper_bound_match_mindspore(run):
    values = Tensor(np.array([[2, 5], [1, 6]], np.float32))
    lower = run(ops.LowerBound(ms.int64), Tensor(SORTED), values)
    assert lower.dtype == ms.int64
    np.testing.assert_array_equal(lower.asnumpy(), [[1, 2], [0, 2]])
    upper = run(ops.UpperBound(), Tensor(SORTED), values)
    assert upper.dtype == ms.int32
    np.testing.assert_array_equal(upper.asnumpy(), [[1, 3], [0, 3]])
    ints = run(ops.LowerBound(), Tensor(np.array([[1, 3, 5]], np.int64)),
               Tensor(np.array([[0, 3, 9, 5]], np.int64)))
    np.testing.assert_array_equal(ints.asnumpy(), [[0, 1, 3, 2]])


def test_bound_errors_are_mindspores():
    with pytest.raises(TypeError, match=r"'out_type' should be one of \[mindspore.int32, "
                                        r"mindspore.int64\], but got 'mindspore.float32'"):
        ops.LowerBound(ms.float32)
    lower = ops.LowerBound()
    with pytest.raises(ValueError, match="the first dimension of the shape of 'sorted_x' must be "
                                         r"equal to that of 'values', but got shape of 'values': "
                                         r"\(1, 2\), shape of 'sorted_x':\(2, 3\)"):
        lower(Tensor(SORTED), Tensor(np.array([[2, 5]], np.float32)))
    with pytest.raises(ValueError, match="the rank of 'sorted_x' must be 2, but got: 1"):
        lower(Tensor(np.array([1, 3], np.float32)), Tensor(np.array([2], np.float32)))
    with pytest.raises(ValueError, match="the rank of 'values' must be 2, but got: 1"):
        lower(Tensor(SORTED), Tensor(np.array([2, 5], np.float32)))
    with pytest.raises(TypeError, match=r"For primitive\[LowerBound\], the input type must be "
                                        "same"):
        lower(Tensor(SORTED), Tensor(np.array([[2, 5], [1, 6]], np.int32)))


@pytest.mark.parametrize("src, dst, x, want", [
    ("NHWC", "NCHW", [-4, -3, -2, -1, 0, 1, 2, 3], [0, 3, 1, 2, 0, 3, 1, 2]),
    ("NCHW", "NHWC", [0, 1, 2, 3], [0, 2, 3, 1]),
    ("NHWC", "NCHW", [[-4, 1], [3, 0]], [[0, 3], [2, 0]]),
    ("NHWC", "NCHW", [4], [0]),     # MindSpore takes x modulo 4 without a range error
])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_data_format_dim_map_matches_mindspore(run, src, dst, x, want, dtype):
    out = run(ops.DataFormatDimMap(src_format=src, dst_format=dst), Tensor(np.array(x, dtype)))
    assert out.dtype == Tensor(np.array(x, dtype)).dtype
    np.testing.assert_array_equal(out.asnumpy(), want)


def test_data_format_dim_map_errors_are_mindspores():
    with pytest.raises(ValueError, match=r"the 'src_format' must be str and must be in "
                                         r"'\['NHWC', 'NCHW'\]', but got 'NCWH'"):
        ops.DataFormatDimMap(src_format="NCWH")
    with pytest.raises(TypeError, match=r"must be a type of \{Tensor\[Int32\], "
                                        r"Tensor\[Int64\]\}, but got Tensor\[Float32\]"):
        ops.DataFormatDimMap()(Tensor(np.array([1.0], np.float32)))
