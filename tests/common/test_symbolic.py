"""SymDim algebra: exact arithmetic, structural equality, divisibility proofs, links, evaluation."""
import pytest

from minispore.common.symbol import Symbol
from minispore.common.symbolic import SymDim, SymVar, is_symbolic, prod, substitute, unify


def _dims(*constraints):
    vs = [SymVar(i, c) for i, c in enumerate(constraints)]
    return vs, [SymDim.var(v) for v in vs]


def test_products_and_exact_division():
    (v0,), (s0,) = _dims(Symbol(divisor=8))
    flat = prod([s0, 1, 28, 28])
    assert flat == s0 * 784 and flat == 784 * s0 and hash(flat) == hash(784 * s0)
    assert repr(flat) == "s0*784"
    assert flat / 784 == s0 and flat // 28 == s0 * 28
    assert flat / s0 == 784 and isinstance(flat / s0, int)
    assert (s0 * 28) / (s0 * 28) == 1
    assert prod([]) == 1 and prod([2, 3]) == 6


def test_sums_for_concat():
    _, (s0, s1) = _dims(None, None)
    total = s0 + s1 + s0
    assert total == 2 * s0 + s1 and repr(total) == "s0*2 + s1"
    assert total - s1 == s0 * 2 and s0 - s0 == 0
    assert repr(3 - s0) == "-s0 + 3" and repr(s0 - 2) == "s0 - 2"
    assert (s0 + s1) / (s0 + s1) == 1
    with pytest.raises(ValueError, match="cannot divide the dimension"):
        (s0 + s1) / s0


def test_divisible_by_is_proved_from_the_symbol():
    _, (s8, sr, sn) = _dims(Symbol(divisor=8), Symbol(divisor=4, remainder=2), None)
    assert all(s8.divisible_by(k) for k in (1, 2, 4, 8))
    assert not s8.divisible_by(16) and not s8.divisible_by(3)
    assert (s8 * 3).divisible_by(24)
    assert sr.divisible_by(2) and not sr.divisible_by(4)     # 4N + 2
    assert not sn.divisible_by(2) and sn.divisible_by(1)     # None proves nothing
    assert (sn * 6).divisible_by(3) and (s8 * sn).divisible_by(8)
    assert s8 % 4 == 0
    with pytest.raises(ValueError, match="not known at compile time"):
        sn % 2


def test_floor_division_only_when_exact():
    _, (s8, sn) = _dims(Symbol(divisor=8), None)
    assert s8 // 4 == s8 / 4 and repr(s8 // 4) == "s0/4"
    with pytest.raises(ValueError, match="not provably an integer"):
        sn // 2


def test_unprovable_quotient_is_recorded_as_a_fact():
    (vn,), (sn,) = _dims(None)
    half = sn / 2
    assert repr(half) == "s0/2" and half in vn.facts
    assert half.evaluate({vn: 6}) == 3
    with pytest.raises(ValueError, match="not a whole number"):
        half.evaluate({vn: 7})


def test_comparisons_decided_by_bounds():
    _, (s8, sm, sn) = _dims(Symbol(divisor=8), Symbol(max=32, min=2), None)
    assert s8 >= 8 and s8 > 0 and not s8 < 8 and s8 != 8
    assert sm <= 32 and not sm > 32
    assert sn >= 0 and not sn < 0
    with pytest.raises(ValueError, match="cannot decide 's0 < 9'"):
        s8 < 9


def test_no_static_value():
    _, (s0,) = _dims(None)
    with pytest.raises(TypeError, match="symbolic"):
        int(s0)
    with pytest.raises(TypeError, match="symbolic"):
        range(s0)


def test_unify_links_a_bare_variable():
    (v0, v1, v2), (s0, s1, s2) = _dims(None, None, None)
    assert s0 != s1
    assert unify(s1, s0, "Loss")
    assert v1.link == s0 and v1.why == "Loss" and v0.link is None
    assert s0 == s1 and s1 * 2 == s0 * 2 and (s0 + s1) == 2 * s0
    assert unify(s2, s0 * 4)                  # a bare variable may stand for an expression
    assert s2 == 4 * s0
    assert not unify(s0, 3)                   # never fixed to a static size silently
    assert not unify(s0 * 2, s0 * 3)


def test_evaluate_and_substitute():
    (v0, v1), (s0, s1) = _dims(Symbol(divisor=8), None)
    b = {v0: 16, v1: 5}
    assert (s0 * 784).evaluate(b) == 12544 and (s0 + s1).evaluate(b) == 21
    assert substitute((s0, [s1 * 2, 3], "x"), b) == (16, [10, 3], "x")
    assert is_symbolic((1, [2, s0])) and not is_symbolic((1, [2, 3]))
