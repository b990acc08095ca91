"""SymDim: exact symbolic dimensions (polynomials in dynamic-dim variables) for shape inference."""
from fractions import Fraction
import math
from numbers import Integral

_INF = math.inf


class SymVar:
    """One dynamic dimension variable (`s0`, `s1`, ...).

    ``constraint`` is the user's Symbol (or None for a `None` dim: any size >= 0). Shape
    inference may later `link` the variable to an expression it must equal (two batch dims
    meeting in a MatMul or a loss); `facts` lists expressions that must be whole numbers
    (a reshape(-1) quotient that cannot be proved integral). Both are checked when the
    variables are bound to actual sizes (minispore.graph.dynamic.bind_and_check).
    """

    __slots__ = ("name", "index", "constraint", "link", "why", "facts")

    def __init__(self, index, constraint=None, name=None):
        self.index = index
        self.name = name or f"s{index}"
        self.constraint = constraint
        self.link = None
        self.why = ""
        self.facts = []

    def bounds(self):
        """(lowest, highest) value the variable can take; highest may be inf."""
        c = self.constraint
        if c is None:
            return 0, _INF
        lo = max(c.min, c.divisor + c.remainder)
        return lo, (c.max if c.max > c.min else _INF)

    def __repr__(self):
        return self.name


def _mono_key(mono):
    return tuple((v.index, p) for v, p in mono)


def _mono_mul(a, b):
    powers = dict(a)
    for v, p in b:
        powers[v] = powers.get(v, 0) + p
    return tuple(sorted(powers.items(), key=lambda vp: vp[0].index))


def _poly_add(a, b, sign=1):
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + sign * c
    return {m: c for m, c in out.items() if c != 0}


def _poly_mul(a, b):
    out = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = _mono_mul(ma, mb)
            out[m] = out.get(m, 0) + ca * cb
    return {m: c for m, c in out.items() if c != 0}


def _poly_of(x):
    if isinstance(x, SymDim):
        return x._canonical()
    return {(): Fraction(x)} if x else {}


def _resolve(var):
    """The polynomial a variable stands for after following its links."""
    if var.link is None:
        return {((var, 1),): Fraction(1)}
    return _poly_of(var.link)


def _build(poly):
    """A polynomial as an int when it is a constant, else a SymDim."""
    poly = {m: c for m, c in poly.items() if c != 0}
    if not poly:
        return 0
    if len(poly) == 1 and () in poly:
        c = poly[()]
        if c.denominator != 1:
            raise ValueError(f"a dimension would be the non-integer constant {c}.")
        return int(c)
    return SymDim(poly)


class SymDim:
    """A symbolic dimension: a polynomial with rational coefficients in SymVars.

    Usual forms are a product of variables times a constant (`s0*784`, from reshape(-1) or
    flatten) and sums of those (concat). Arithmetic is exact: `/` and `//` divide only when
    the result is a polynomial again (`s0*784 // 28` is `s0*28`; `s0 // 3` raises unless the
    variable's Symbol proves 3 divides it). Equality is structural after following links, so
    `s0*784 == 784*s0` but `s0 == s1` is False until shape inference links them
    (`minispore.ops.operations._base.dims_equal`). Comparisons with ints are answered when the
    variables' bounds decide them and raise ValueError otherwise. `int()` raises: a symbolic
    dim has no static value; use `evaluate(bindings)`.
    """

    __slots__ = ("_poly",)

    def __init__(self, poly):
        self._poly = {m: Fraction(c) for m, c in poly.items()}

    @classmethod
    def var(cls, var):
        return cls({((var, 1),): Fraction(1)})

    # -- structure --------------------------------------------------------------------------
    def _canonical(self):
        out = {}
        for mono, c in self._poly.items():
            term = {(): c}
            for v, p in mono:
                r = _resolve(v)
                for _ in range(p):
                    term = _poly_mul(term, r)
            out = _poly_add(out, term)
        return out

    def free_vars(self):
        """The unlinked variables this dim depends on, in creation order."""
        seen = {v for mono in self._canonical() for v, _ in mono}
        return sorted(seen, key=lambda v: v.index)

    def _terms(self):
        return sorted(self._canonical().items(), key=lambda mc: (not mc[0], _mono_key(mc[0])))

    def __hash__(self):
        return hash(tuple((_mono_key(m), c) for m, c in self._terms()))

    def __eq__(self, other):
        if isinstance(other, SymDim):
            return self._canonical() == other._canonical()
        if isinstance(other, Integral):
            return False if self.free_vars() else _build(self._canonical()) == other
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    # -- arithmetic -------------------------------------------------------------------------
    def __add__(self, other):
        if not isinstance(other, (Integral, SymDim)):
            return NotImplemented
        return _build(_poly_add(self._canonical(), _poly_of(other)))

    __radd__ = __add__

    def __sub__(self, other):
        if not isinstance(other, (Integral, SymDim)):
            return NotImplemented
        return _build(_poly_add(self._canonical(), _poly_of(other), -1))

    def __rsub__(self, other):
        if not isinstance(other, Integral):
            return NotImplemented
        return _build(_poly_add(_poly_of(other), self._canonical(), -1))

    def __neg__(self):
        return _build({m: -c for m, c in self._canonical().items()})

    def __mul__(self, other):
        if not isinstance(other, (Integral, SymDim)):
            return NotImplemented
        return _build(_poly_mul(self._canonical(), _poly_of(other)))

    __rmul__ = __mul__

    def __truediv__(self, other):
        """Exact division; a rational result that no Symbol proves integral is recorded as a
        fact to check once the sizes are known."""
        q = _divide(self, other)
        if isinstance(q, SymDim) and not q.divisible_by(1):
            for v in q.free_vars():
                v.facts.append(q)
        return q

    def __rtruediv__(self, other):
        return _divide(other, self)

    def __floordiv__(self, other):
        q = _divide(self, other)
        if isinstance(q, SymDim) and not q.divisible_by(1):
            raise ValueError(f"cannot floor-divide the symbolic dim {self} by {other}: the "
                             f"quotient {q} is not provably an integer (give the dynamic dim "
                             f"a Symbol whose divisor makes it one).")
        return q

    def __rfloordiv__(self, other):
        return _divide(other, self)

    def __mod__(self, other):
        if isinstance(other, Integral) and other > 0:
            if self.divisible_by(other):
                return 0
            raise ValueError(f"{self} % {other} is not known at compile time: no Symbol "
                             f"proves {other} divides {self}.")
        return NotImplemented

    # -- order (decided from the variables' bounds) ----------------------------------------
    def bounds(self):
        """(lowest, highest) value over every allowed assignment (interval arithmetic)."""
        lo = hi = 0
        for mono, c in self._canonical().items():
            mlo = mhi = 1
            for v, p in mono:
                vlo, vhi = v.bounds()
                mlo, mhi = _imul(mlo, vlo ** p), _imul(mhi, vhi ** p)
            lo += _imul(c, mlo) if c > 0 else _imul(c, mhi)
            hi += _imul(c, mhi) if c > 0 else _imul(c, mlo)
        return lo, hi

    def __lt__(self, other):
        return _compare(self, other, "<")

    def __le__(self, other):
        return _compare(self, other, "<=")

    def __gt__(self, other):
        return _compare(self, other, ">")

    def __ge__(self, other):
        return _compare(self, other, ">=")

    # -- values -----------------------------------------------------------------------------
    def __int__(self):
        raise TypeError(f"the dimension {self} is symbolic (dynamic shape) and has no static "
                        f"int value; it is known only when the graph runs.")

    __index__ = __int__

    def __bool__(self):
        return True

    def evaluate(self, bindings):
        """The int value for `bindings` (SymVar -> int); ValueError if it is not a whole number."""
        total = Fraction(0)
        for mono, c in self._poly.items():
            term = c
            for v, p in mono:
                term *= _value(v, bindings) ** p
            total += term
        if total.denominator != 1:
            raise ValueError(f"the dimension {self} evaluates to {total}, not a whole number, "
                             f"for {_shown(bindings, self)}.")
        return int(total)

    def divisible_by(self, k):
        """True when k divides this dim for every allowed value of its variables.

        A Symbol(divisor=d, remainder=r) variable is d*N + r (N >= 1); a `None` dim is an
        unconstrained N. The claim is proved by substituting those forms and checking that
        every coefficient divided by k is an integer: sound, not complete (None dims never
        prove anything but divisibility by 1 of integer polynomials).
        """
        poly = {}
        fresh = {}
        for mono, c in self._canonical().items():
            term = {(): c / k}
            for v, p in mono:
                if v not in fresh:
                    d, r = ((v.constraint.divisor, v.constraint.remainder)
                            if v.constraint is not None else (1, 0))
                    n = SymVar(v.index, None, f"N{v.index}")
                    fresh[v] = _poly_add({((n, 1),): Fraction(d)}, {(): Fraction(r)})
                for _ in range(p):
                    term = _poly_mul(term, fresh[v])
            poly = _poly_add(poly, term)
        return all(c.denominator == 1 for c in poly.values())

    def __repr__(self):
        parts = []
        for mono, c in self._terms():
            names = "*".join(v.name if p == 1 else f"{v.name}**{p}" for v, p in mono)
            num, den = abs(c.numerator), c.denominator
            body = names if num == 1 else (f"{names}*{num}" if names else str(num))
            if not names and num == 1:
                body = "1"
            if den != 1:
                body = f"{body}/{den}"
            parts.append(("-" if c < 0 else "+") + body)
        text = " ".join(p[0] + " " + p[1:] for p in parts)
        text = text[2:] if text.startswith("+ ") else "-" + text[2:]
        return text

    __str__ = __repr__


def _imul(a, b):
    """a * b where 0 * inf is 0 (an absent factor, not an indeterminate form)."""
    return 0 if a == 0 or b == 0 else a * b


def _value(v, bindings):
    if v in bindings:
        return bindings[v]
    if v.link is not None:
        link = v.link
        return link.evaluate(bindings) if isinstance(link, SymDim) else link
    raise KeyError(f"the dynamic dim {v.name} is not bound")


def _shown(bindings, dim):
    return ", ".join(f"{v.name}={bindings.get(v, '?')}" for v in dim.free_vars())


def _divide(num, den):
    """num / den as a SymDim/int, exact, or ValueError."""
    pn, pd = _poly_of(num), _poly_of(den)
    if not pd:
        raise ZeroDivisionError(f"division of the dimension {num} by 0")
    if len(pd) == 1:
        (dm, dc), = pd.items()
        powers = dict(dm)
        out = {}
        for m, c in pn.items():
            mp = dict(m)
            if any(mp.get(v, 0) < p for v, p in powers.items()):
                break
            rest = tuple(sorted(((v, p - powers.get(v, 0)) for v, p in mp.items()
                                 if p - powers.get(v, 0)), key=lambda vp: vp[0].index))
            out[rest] = c / dc
        else:
            return _build(out)
    elif pn:
        # A sum divides another only when they are proportional.
        (m0, c0) = next(iter(pd.items()))
        ratio = pn.get(m0, 0) / c0
        if ratio and _poly_add(pn, {m: c * ratio for m, c in pd.items()}, -1) == {}:
            return _build({(): ratio})
    raise ValueError(f"cannot divide the dimension {num} by {den} exactly: the quotient is not "
                     f"a product of dynamic dims times a constant.")


def _compare(a, b, op):
    diff = a - b
    lo, hi = diff.bounds() if isinstance(diff, SymDim) else (diff, diff)
    decided = {"<": (hi < 0, lo >= 0), "<=": (hi <= 0, lo > 0),
               ">": (lo > 0, hi <= 0), ">=": (lo >= 0, hi < 0)}[op]
    if decided[0]:
        return True
    if decided[1]:
        return False
    raise ValueError(f"cannot decide '{a} {op} {b}' at compile time: it depends on the "
                     f"runtime size of {', '.join(map(str, diff.free_vars()))}.")


def _bare_var(dim):
    poly = dim._canonical()
    if len(poly) == 1:
        (mono, c), = poly.items()
        if c == 1 and len(mono) == 1 and mono[0][1] == 1:
            return mono[0][0]
    return None


def unify(a, b, why=""):
    """Make dims `a` and `b` equal if they are not provably different: a bare variable is
    linked to the other side (the later variable to the earlier when both are bare), which
    bind_and_check verifies at run time. Returns False when neither side is a bare variable
    free to link, or when one side is a static int (a dynamic dim is never fixed silently)."""
    if a == b:
        return True
    if not (isinstance(a, SymDim) and isinstance(b, SymDim)):
        return False
    va, vb = _bare_var(a), _bare_var(b)
    if va is not None and vb is not None and va.index < vb.index:
        va, vb, a, b = vb, va, b, a
    for var, other in ((va, b), (vb, a)):
        if var is not None and var not in other.free_vars():
            var.link = other
            var.why = why
            return True
    return False


def is_symbolic(x):
    """True for a SymDim, or a tuple/list holding one (at any depth)."""
    if isinstance(x, SymDim):
        return True
    if isinstance(x, (tuple, list)):
        return any(is_symbolic(e) for e in x)
    return False


def substitute(obj, bindings):
    """`obj` with every SymDim (inside ints/tuples/lists, at any depth) replaced by its int."""
    if isinstance(obj, SymDim):
        return obj.evaluate(bindings)
    if isinstance(obj, tuple):
        return tuple(substitute(e, bindings) for e in obj)
    if isinstance(obj, list):
        return [substitute(e, bindings) for e in obj]
    return obj


def prod(dims):
    """The product of a mix of ints and SymDims (1 for an empty sequence)."""
    out = 1
    for d in dims:
        out = out * d
    return out
