"""The common layer: dtype, Symbol, context, set_seed and Parameter."""
import pickle

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Symbol, Tensor
from minispore.common import dtype as mstype
from minispore.common import seed as seed_mod


# -- dtype -----------------------------------------------------------------------------------

@pytest.mark.parametrize("given,want", [
    (ms.float32, ms.float32), (np.float32, ms.float32), (np.dtype("float16"), ms.float16),
    ("float64", ms.float64), (np.int8, ms.int8), (np.uint8, ms.uint8), (np.bool_, ms.bool_),
    (float, ms.float32), (int, ms.int64), (bool, ms.bool_),
])
def test_to_type(given, want):
    assert mstype.to_type(given) is want


def test_dtype_names_kinds_and_numpy_interop():
    assert str(ms.float32) == "Float32" and repr(ms.int64) == "mindspore.int64" and str(ms.bool_) == "Bool"
    assert ms.half is ms.float16 and ms.single is ms.float32 and ms.double is ms.float64
    assert ms.float16.is_float and not ms.float16.is_int
    assert ms.uint8.is_int and not ms.bool_.is_int and not ms.bool_.is_float
    assert mstype.dtype_to_nptype(ms.int32) == np.int32
    assert pickle.loads(pickle.dumps(ms.float32)) is ms.float32
    assert set(mstype.float_types) <= set(mstype.number_types)


def test_unsupported_dtype():
    with pytest.raises(TypeError, match=r"Unsupported dtype complex128; valid dtypes .*Float32"):
        mstype.to_type(np.complex128)
    with pytest.raises(TypeError, match="Unsupported dtype"):
        mstype.to_type(object())


# -- Symbol ----------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs,exc,match", [
    ({"max": 1.5}, TypeError, "'max' must be int, but got float"),
    ({"min": "1"}, TypeError, "'min' must be int, but got str"),
    ({"divisor": None}, TypeError, "'divisor' must be int, but got NoneType"),
    ({"remainder": 0.0}, TypeError, "'remainder' must be int, but got float"),
    ({"unique": 1}, TypeError, "'unique' must be bool, but got int"),
    ({"min": 0}, ValueError, "'min' must be positive, but got 0"),
    ({"divisor": -2}, ValueError, "'divisor' must be positive, but got -2"),
    ({"divisor": 4, "remainder": 4}, ValueError, r"'remainder' must be in the range \[0, 4\)"),
    ({"remainder": -1}, ValueError, r"\[0, 1\), but got -1"),
    ({"min": 0.5, "divisor": 0}, TypeError, "'min' must be int"),   # type checks come first
])
def test_symbol_validation(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        Symbol(**kwargs)


def test_symbol_accepts_bools_as_ints_and_ignores_max_below_min():
    s = Symbol(max=True, min=True)        # isinstance(True, int): MindSpore's quirk, kept
    assert s.to_dict() == {}
    s = Symbol(max=3, min=5)              # max <= min: max is ignored, not an error
    assert "max" not in s.to_dict()
    assert s.violation(100) is None


@pytest.mark.parametrize("kwargs,want", [
    ({}, {}), ({"divisor": 8}, {"divisor": 8}), ({"max": 64}, {"max": 64}),
    ({"min": 4}, {"min": 4}), ({"min": 9, "divisor": 8}, {"min": 9, "divisor": 8}),
    ({"min": 8, "divisor": 8}, {"divisor": 8}),
    ({"divisor": 8, "remainder": 1}, {"divisor": 8, "remainder": 1}),
    ({"max": 32, "min": 16, "divisor": 8}, {"max": 32, "min": 16, "divisor": 8}),
])
def test_symbol_to_dict_and_str(kwargs, want):
    s = Symbol(**kwargs)
    assert s.to_dict() == want
    assert str(s) == str(want) and repr(s) == str(want)


def test_symbol_unique_id():
    s = Symbol(unique=True)
    assert s.to_dict() == {"id": id(s)}
    assert Symbol(unique=True).id != s.id


def test_symbol_violation():
    s = Symbol(max=32, min=8, divisor=8)
    assert s.violation(8) is None and s.violation(32) is None
    assert "below min=8" in s.violation(4)
    assert "above max=32" in s.violation(40)
    assert "8*N + 0" in s.violation(12)
    assert "with N >= 1" in Symbol(divisor=8, remainder=1).violation(1)


# -- context ---------------------------------------------------------------------------------

@pytest.fixture
def restore_context():
    keys = ("mode", "save_graphs", "device_target", "max_device_memory")
    saved = {k: ms.get_context(k) for k in keys}
    yield
    ms.set_context(**saved)


def test_context_defaults_and_set(restore_context):
    assert ms.PYNATIVE_MODE == 1 and ms.GRAPH_MODE == 0
    assert ms.get_context("mode") == ms.PYNATIVE_MODE
    assert ms.get_context("device_target") == "CPU"
    ms.set_context(mode=ms.GRAPH_MODE)
    assert ms.get_context("mode") == ms.GRAPH_MODE
    ms.set_context(save_graphs=True)
    assert ms.get_context("save_graphs") == 2
    ms.set_context(save_graphs=False)
    assert ms.get_context("save_graphs") == 0
    ms.set_context(save_graphs=3)
    assert ms.get_context("save_graphs") == 3


def test_context_errors(restore_context):
    with pytest.raises(ValueError, match="keyword argument no_such_key is not recognized"):
        ms.set_context(no_such_key=1)
    with pytest.raises(ValueError, match="keyword argument bogus is not recognized"):
        ms.get_context("bogus")
    with pytest.raises(ValueError, match=r"'save_graphs' must be a bool or an int in \[0, 3\]"):
        ms.set_context(save_graphs=4)
    with pytest.raises(ValueError, match="'mode' should be"):
        ms.set_context(mode=2)
    with pytest.raises(ValueError, match="'device_target' must be one of"):
        ms.set_context(device_target="TPU")
    assert ms.get_context("save_graphs") == 0      # a rejected call changes nothing


def test_context_compat_key_warns_on_cpu(restore_context, caplog):
    with caplog.at_level("WARNING", logger="minispore"):
        ms.set_context(max_device_memory="2GB")
    assert "max_device_memory" in caplog.text
    assert ms.get_context("max_device_memory") == "2GB"


# -- seed ------------------------------------------------------------------------------------

def test_set_seed_reproducible():
    ms.set_seed(7)
    assert ms.get_seed() == 7
    a = seed_mod.rng().standard_normal(5)
    ms.set_seed(7)
    b = seed_mod.rng().standard_normal(5)
    np.testing.assert_array_equal(a, b)
    ms.set_seed(8)
    assert not np.array_equal(seed_mod.rng().standard_normal(5), a)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "1"])
def test_set_seed_bad(bad):
    with pytest.raises(ValueError, match="'seed' must be a non-negative int"):
        ms.set_seed(bad)


# -- Parameter -------------------------------------------------------------------------------

def test_parameter_basics():
    p = Parameter(Tensor(np.ones((2, 3), np.float32)), name="fc.weight")
    assert isinstance(p, Tensor)
    assert p.name == "fc.weight" and p.requires_grad and p.shape == (2, 3)
    assert p.dtype == ms.float32 and p.data is p
    assert repr(p) == ("Parameter (name=fc.weight, shape=(2, 3), dtype=Float32, "
                       "requires_grad=True)")
    q = Parameter(np.zeros(3, np.float64), requires_grad=False)
    assert q.name is None and not q.requires_grad and q.dtype == ms.float64
    assert Parameter(1.5).dtype == ms.float32


def test_parameter_copies_its_input():
    t = Tensor(np.zeros(2, np.float32))
    p = Parameter(t, name="b")
    p.asnumpy()[0] = 5
    assert t.asnumpy()[0] == 0


def test_parameter_set_data_and_clone():
    p = Parameter(Tensor(np.zeros((2, 2), np.float32)), name="w")
    p.set_data(Tensor(np.ones((2, 2), np.float64)))
    assert p.dtype == ms.float32 and p.asnumpy().dtype == np.float32
    np.testing.assert_array_equal(p.asnumpy(), np.ones((2, 2)))
    p.set_data(3.0)                            # a single value fills the parameter
    np.testing.assert_array_equal(p.asnumpy(), np.full((2, 2), 3.0))
    c = p.clone()
    assert c is not p and c.name == "w"
    c.asnumpy()[0, 0] = 0
    assert p.asnumpy()[0, 0] == 3.0


def test_parameter_errors():
    p = Parameter(Tensor(np.zeros((2, 2), np.float32)), name="w")
    with pytest.raises(ValueError, match=r"Parameter 'w'.*shape \(3,\).*\(2, 2\)"):
        p.set_data(np.zeros(3))
    with pytest.raises(TypeError, match="name must be a str"):
        Parameter(Tensor([1.0]), name=3)
    with pytest.raises(TypeError, match="default_input must be a Tensor"):
        Parameter(object())
    with pytest.raises(ValueError, match="must have data, not be a placeholder"):
        Parameter(Tensor(shape=[None, 2], dtype=ms.float32), name="x")


def test_parameter_grad_through_weights():
    w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
    def loss(x):
        return (x * w).sum()
    grads = ms.grad(loss, grad_position=None, weights=[w])(Tensor(np.array([3.0, 4.0],
                                                                            np.float32)))
    np.testing.assert_allclose(grads[0].asnumpy(), [3.0, 4.0])
