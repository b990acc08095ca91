"""Symbol: the constraints of one dynamic dimension (min, max, divisor, remainder, unique)."""


class Symbol:
    """A symbolic dimension for `Tensor(shape=[Symbol(...), ...])` placeholders.

    The dim takes values ``divisor * N + remainder`` (N >= 1) between ``min`` and ``max``
    (``max`` counts only when ``max > min``). With ``unique=True`` every dim that uses this
    same object must have the same runtime value.

    >>> Symbol(divisor=8)
    {'divisor': 8}
    """

    def __init__(self, max=0, min=1, divisor=1, remainder=0, unique=False, **kwargs):
        for name, value in (("max", max), ("min", min), ("divisor", divisor),
                            ("remainder", remainder)):
            if not isinstance(value, int):
                raise TypeError(f"For 'Symbol', the argument '{name}' must be int, "
                                f"but got {type(value).__name__}.")
        if not isinstance(unique, bool):
            raise TypeError(f"For 'Symbol', the argument 'unique' must be bool, "
                            f"but got {type(unique).__name__}.")
        if min <= 0:
            raise ValueError(f"For 'Symbol', the argument 'min' must be positive, but got {min}.")
        if divisor <= 0:
            raise ValueError(f"For 'Symbol', the argument 'divisor' must be positive, "
                             f"but got {divisor}.")
        if remainder < 0 or remainder >= divisor:
            raise ValueError(f"For 'Symbol', the argument 'remainder' must be in the range "
                             f"[0, {divisor}), but got {remainder}.")
        self.max = max
        self.min = min
        self.divisor = divisor
        self.remainder = remainder
        self.unique = unique
        self.id = id(self)

    def to_dict(self):
        """Only the keys that say something: the MindSpore convention for str(Symbol)."""
        out = {}
        if self.max > self.min:
            out["max"] = self.max
        if self.min > self.divisor + self.remainder:
            out["min"] = self.min
        if self.divisor != 1:
            out["divisor"] = self.divisor
        if self.remainder != 0:
            out["remainder"] = self.remainder
        if self.unique:
            out["id"] = self.id
        return out

    def violation(self, value):
        """Return a sentence saying why `value` breaks this Symbol, or None if it fits."""
        if value < self.min:
            return f"{value} is below min={self.min}"
        if self.max > self.min and value > self.max:
            return f"{value} is above max={self.max}"
        if (value - self.remainder) % self.divisor != 0 or value < self.divisor + self.remainder:
            return (f"{value} is not of the form {self.divisor}*N + {self.remainder} "
                    f"with N >= 1")
        return None

    def __repr__(self):
        return str(self.to_dict())

    __str__ = __repr__
