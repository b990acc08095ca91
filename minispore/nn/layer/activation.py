"""Activation cells (nn.ReLU, nn.GELU, nn.Sigmoid, nn.Tanh, nn.Softmax) and get_activation."""
from minispore.nn.cell import Cell
from minispore.ops import functional as F

__all__ = ["ReLU", "GELU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "get_activation"]


class ReLU(Cell):
    """y = max(x, 0)."""

    def construct(self, x):
        return F.relu(x)


class GELU(Cell):
    """GELU; ``approximate=True`` (the default, unlike ops.gelu) is the tanh form
    0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))), False the exact erf form."""

    def __init__(self, approximate=True):
        super().__init__()
        if not isinstance(approximate, bool):
            raise TypeError(f"For 'GELU', 'approximate' must be bool, but got "
                            f"{type(approximate).__name__}.")
        self.approximate = "tanh" if approximate else "none"

    def construct(self, x):
        return F.gelu(x, approximate=self.approximate)


class Sigmoid(Cell):
    """y = 1 / (1 + exp(-x))."""

    def construct(self, x):
        return F.sigmoid(x)


class Tanh(Cell):
    """y = tanh(x)."""

    def construct(self, x):
        return F.tanh(x)


class Softmax(Cell):
    """y = exp(x) / sum(exp(x)) along ``axis``."""

    def __init__(self, axis=-1):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For 'Softmax', 'axis' must be an int, but got "
                            f"{type(axis).__name__}.")
        self.axis = axis

    def construct(self, x):
        return F.softmax(x, self.axis)

    def extend_repr(self):
        return f"axis={self.axis}"


class LogSoftmax(Softmax):
    """y = x - logsumexp(x) along ``axis``."""

    def construct(self, x):
        return F.log_softmax(x, self.axis)


_ACTIVATIONS = {"relu": ReLU, "gelu": GELU, "sigmoid": Sigmoid, "tanh": Tanh,
                "softmax": Softmax, "logsoftmax": LogSoftmax}


def get_activation(name):
    """The activation cell for a name ('relu', 'gelu', …); None gives None."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"For 'get_activation', the name must be a str, but got "
                        f"{type(name).__name__}.")
    cls = _ACTIVATIONS.get(name.lower())
    if cls is None:
        raise KeyError(f"For 'get_activation', the activation {name!r} is not supported; valid "
                       f"names are {sorted(_ACTIVATIONS)}.")
    return cls()
