"""repr(Tensor) and print(Tensor) read as MindSpore 2.7.2's do (strings recorded from it)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor

REPRS = [
    (np.array([0, 1, 2, 3], np.int32), "Tensor(shape=[4], dtype=Int32, value= [0, 1, 2, 3])"),
    (np.arange(6, dtype=np.float32).reshape(2, 3),
     "Tensor(shape=[2, 3], dtype=Float32, value=\n"
     "[[ 0.00000000e+00,  1.00000000e+00,  2.00000000e+00],\n"
     " [ 3.00000000e+00,  4.00000000e+00,  5.00000000e+00]])"),
    (np.array([1, -10, 100], np.int8), "Tensor(shape=[3], dtype=Int8, value= [  1, -10, 100])"),
    (np.float32(1 / 3), "Tensor(shape=[], dtype=Float32, value= 0.333333)"),
    (np.array(True), "Tensor(shape=[], dtype=Bool, value= True)"),
    (np.array([True, False]), "Tensor(shape=[2], dtype=Bool, value= [ True, False])"),
    ((np.arange(3) / 3).astype(np.float16),
     "Tensor(shape=[3], dtype=Float16, value= [ 0.0000e+00,  3.3325e-01,  6.6650e-01])"),
    (np.arange(1001), "Tensor(shape=[1001], dtype=Int64, value= [   0,    1,    2 ...  998,  999, 1000])"),
    (np.arange(8).reshape(8, 1), "Tensor(shape=[8, 1], dtype=Int64, value=\n"
     "[[0],\n [1],\n [2],\n ...\n [5],\n [6],\n [7]])"),
    (np.arange(8).reshape(2, 2, 2), "Tensor(shape=[2, 2, 2], dtype=Int64, value=\n"
     "[[[0, 1],\n  [2, 3]],\n [[4, 5],\n  [6, 7]]])"),
    (np.zeros((0,), np.float32), "Tensor(shape=[0], dtype=Float32, value= )"),
    (np.array([np.nan, np.inf], np.float32),
     "Tensor(shape=[2], dtype=Float32, value= [            nan,             inf])"),
]


@pytest.mark.parametrize("data,text", REPRS)
def test_tensor_repr_matches_mindspore(data, text):
    assert repr(Tensor(data)) == text


def test_tensor_repr_breaks_long_1d_lines():
    text = repr(Tensor(np.arange(50)))
    assert text.splitlines()[1] == (" 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, "
                                    "39, 40, 41, 42, 43, 44, 45, 46, 47, ")


def test_print_tensor_is_numpy_text(capsys):
    print(Tensor([0, 1, 2, 3], ms.int32))
    print(Tensor(3.5))
    assert capsys.readouterr().out == "[0 1 2 3]\n3.5\n"


def test_parameter_repr_shows_shape_as_tuple():
    p = ms.Parameter(Tensor([1.0, 2.0]), name="w")
    assert str(p) == repr(p) == "Parameter (name=w, shape=(2,), dtype=Float32, requires_grad=True)"
