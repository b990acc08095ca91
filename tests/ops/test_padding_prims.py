"""P.Padding, P.Pad and ops.PadV3 (minispore/ops/function/padding_prims.py): numpy
references, finite-difference gradients, a GRAPH run, and MindSpore 2.7.2's errors."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, ops
from tests.ops.harness import check_forward, check_grad, rand


def test_padding_widens_the_last_dim_with_zeros():
    x = rand(2, 4, 1, seed=1)
    for size in (1, 3, 8):
        check_forward(lambda t: ops.Padding(size)(t),
                      lambda a: np.pad(a, ((0, 0), (0, 0), (0, size - 1))), [x])
    check_grad(lambda t: ops.Padding(3)(t), [x])
    out = ops.Padding()(Tensor(np.array([[1], [2]], np.int32)))
    assert out.dtype == ms.int32 and out.shape == (2, 8)     # MindSpore's default size is 8
    assert ops.Padding(2)(Tensor(np.array([[True]]))).asnumpy().tolist() == [[True, False]]


def test_padding_errors():
    with pytest.raises(ValueError, match="'pad_dim_size' must be int and must > 0"):
        ops.Padding(0)
    with pytest.raises(TypeError, match="'pad_dim_size' should be 'int'"):
        ops.Padding(1.5)
    with pytest.raises(ValueError, match="last dimension of 'x' must be 1, but got: 2"):
        ops.Padding(2)(Tensor(rand(2, 2)))


def test_pad_constant_zeros():
    x = rand(3, 4, seed=2)
    paddings = ((1, 0), (2, 3))
    check_forward(lambda t: ops.Pad(paddings)(t), lambda a: np.pad(a, paddings), [x])
    check_grad(lambda t: ops.Pad(paddings)(t), [x])
    xi = np.arange(6, dtype=np.uint16).reshape(2, 3)
    np.testing.assert_array_equal(ops.Pad(((0, 1), (1, 1)))(Tensor(xi)).asnumpy(),
                                  np.pad(xi, ((0, 1), (1, 1))))


def test_pad_errors():
    with pytest.raises(TypeError, match="type of 'paddings' should be 'tuple'"):
        ops.Pad([[1, 0]])
    with pytest.raises(ValueError, match=r"must be >= 0, but got paddings\[0\]\[0\] = -1"):
        ops.Pad(((-1, 0), (0, 0)))
    with pytest.raises(ValueError, match="must be equal to the rank of 'input_x', but got 1 "
                                         "vs 2"):
        ops.Pad(((1, 0),))(Tensor(rand(2, 2)))


def _np_pad(a, paddings, mode, value=0.0):
    """numpy reference with PadV3's layout: (left, right) of the last dim first; a negative
    amount crops before the rest pads."""
    pairs = [tuple(paddings[i:i + 2]) for i in range(0, len(paddings), 2)][::-1]
    pairs = [(0, 0)] * (a.ndim - len(pairs)) + pairs
    crop = tuple(slice(max(-lo, 0), a.shape[d] - max(-hi, 0)) for d, (lo, hi) in
                 enumerate(pairs))
    a = a[crop]
    pads = [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]
    np_mode = {"reflect": "reflect", "edge": "edge", "circular": "wrap"}.get(mode, "constant")
    kw = {"constant_values": value} if np_mode == "constant" else {}
    return np.pad(a, pads, np_mode, **kw)


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge", "circular"])
def test_padv3_modes(mode):
    x = rand(1, 2, 3, 4, seed=3)
    for paddings in ((1, 2, 0, 0), (2, 1, 1, 0), (1, -1, 1, 2), (0, 1, -1, 1)):
        value = Tensor(np.float32(1.5)) if mode == "constant" else None
        args = (value,) if mode == "constant" else ()
        op = ops.PadV3(mode)
        check_forward(lambda t: op(t, Tensor(np.array(paddings, np.int64)), *args),
                      lambda a: _np_pad(a, paddings, mode, 1.5), [x])
        check_grad(lambda t: op(t, paddings, *args), [x])


def test_padv3_noncontiguous_paddings_and_graph():
    x = rand(1, 2, 2, seed=4)
    op = ops.PadV3("constant", False)
    # (left of each dim ..., right of each dim ...): last dim (1, 0), the one before (0, 1)
    check_forward(lambda t: op(t, (1, 0, 0, 1), Tensor(np.float32(0))),
                  lambda a: _np_pad(a, (1, 0, 0, 1), "constant"), [x])
    edge = ops.PadV3("edge")
    got = ms.jit(lambda t: edge(t, (2, 1)))(Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), _np_pad(x, (2, 1), "edge"))


def test_padv3_errors():
    with pytest.raises(ValueError, match="'mode' must be str and must be in"):
        ops.PadV3("symmetric")
    with pytest.raises(TypeError, match="'paddings_contiguous' should be 'bool'"):
        ops.PadV3("constant", 1)
    with pytest.raises(ValueError, match="even number of values"):
        ops.PadV3("edge")(Tensor(rand(1, 2, 2)), (1, 1, 1))
    with pytest.raises(ValueError, match="reflect padding must be less than the dim size 3"):
        ops.PadV3("reflect")(Tensor(rand(1, 2, 3)), (3, 0))
    with pytest.raises(ValueError, match="takes no 'value'"):
        ops.PadV3("edge")(Tensor(rand(1, 2, 3)), (1, 0), 2.0)
    # MindSpore 2.7.2's rules for the non-constant modes
    with pytest.raises(ValueError, match="must be greater than or equal to 3, but got 2"):
        ops.PadV3("circular")(Tensor(rand(2, 3)), (1, 0))
    with pytest.raises(ValueError, match="padding's size equal 4 must be equal to 4, but got 3"):
        ops.PadV3("edge")(Tensor(rand(1, 2, 3)), (1, 0, 1, 1))
    with pytest.raises(ValueError, match="reflect mode must be less than or equal to 4"):
        ops.PadV3("reflect")(Tensor(rand(1, 1, 2, 2, 2)), (1, 0, 1, 1, 0, 0))
