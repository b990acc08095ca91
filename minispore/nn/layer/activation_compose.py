"""Activation cells composed of existing primitives through ops' functional forms (ELU, SeLU,
LeakyReLU, ReLU6, SiLU, Mish, the hard and soft shrinks, GLU, PReLU ...): each cell validates
its attributes as MindSpore does and calls one function of ops/function/nn_compose_func.py."""
from minispore.common import dtype as mstype
from minispore.common.initializer import initializer
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.ops import functional as F

__all__ = ["ELU", "CELU", "SeLU", "LeakyReLU", "ReLU6", "SiLU", "Mish", "HSwish", "HSigmoid",
           "Softsign", "Hardtanh", "LogSigmoid", "Tanhshrink", "SoftShrink", "HShrink",
           "Threshold", "Softmin", "Softmax2d", "GLU", "FastGelu", "PReLU", "PReLUExt",
           "RReLU"]


def _float(name, arg, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"For '{name}', '{arg}' must be a float, but got {type(v).__name__}.")
    return float(v)


def _int(name, arg, v):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"For '{name}', '{arg}' must be an int, but got {type(v).__name__}.")
    return v


def _stateless(name, fn, doc):
    """A Cell `name` without attributes whose construct(x) is fn(x)."""
    def construct(self, x):
        return fn(x)
    return type(name, (Cell,), {"construct": construct, "__doc__": doc, "__module__": __name__})


SeLU = _stateless("SeLU", F.selu, "scale * elu(x, alpha) with SELU's fixed constants.")
ReLU6 = _stateless("ReLU6", F.relu6, "min(max(x, 0), 6).")
SiLU = _stateless("SiLU", F.silu, "x * sigmoid(x).")
Mish = _stateless("Mish", F.mish, "x * tanh(softplus(x)).")
HSwish = _stateless("HSwish", F.hardswish, "x * relu6(x + 3) / 6.")
HSigmoid = _stateless("HSigmoid", F.hardsigmoid, "relu6(x + 3) / 6.")
Softsign = _stateless("Softsign", F.softsign, "x / (1 + |x|).")
LogSigmoid = _stateless("LogSigmoid", F.logsigmoid, "log(sigmoid(x)) = -softplus(-x).")
Tanhshrink = _stateless("Tanhshrink", F.tanhshrink, "x - tanh(x).")
FastGelu = _stateless("FastGelu", F.fast_gelu, "x * sigmoid(1.702 x).")


class ELU(Cell):
    """x where x > 0, else alpha * (exp(x) - 1)."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = _float("ELU", "alpha", alpha)

    def construct(self, x):
        return F.elu(x, self.alpha)


class CELU(Cell):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); alpha must not be 0."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = _float("CELU", "alpha", alpha)
        if self.alpha == 0:
            raise ValueError("For 'CELU', 'alpha' must not be 0.")

    def construct(self, x):
        return F.celu(x, self.alpha)


class LeakyReLU(Cell):
    """x where x > 0, else alpha * x (alpha defaults to 0.2)."""

    def __init__(self, alpha=0.2):
        super().__init__()
        self.alpha = _float("LeakyReLU", "alpha", alpha)

    def construct(self, x):
        return F.leaky_relu(x, self.alpha)


class Hardtanh(Cell):
    """x clamped to [min_val, max_val]."""

    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        self.min_val = _float("Hardtanh", "min_val", min_val)
        self.max_val = _float("Hardtanh", "max_val", max_val)
        if self.min_val > self.max_val:
            raise ValueError(f"For 'Hardtanh', 'min_val' ({min_val}) must not exceed 'max_val' "
                             f"({max_val}).")

    def construct(self, x):
        return F.hardtanh(x, self.min_val, self.max_val)


class SoftShrink(Cell):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = _float("SoftShrink", "lambd", lambd)
        if self.lambd < 0:
            raise ValueError(f"For 'SoftShrink', 'lambd' must be >= 0, but got {lambd}.")

    def construct(self, x):
        return F.softshrink(x, self.lambd)


class HShrink(Cell):
    """x where |x| > lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = _float("HShrink", "lambd", lambd)

    def construct(self, x):
        return F.hardshrink(x, self.lambd)


class Threshold(Cell):
    """x where x > threshold, else value."""

    def __init__(self, threshold, value):
        super().__init__()
        self.threshold = _float("Threshold", "threshold", threshold)
        self.value = _float("Threshold", "value", value)

    def construct(self, x):
        return F.threshold(x, self.threshold, self.value)


class Softmin(Cell):
    """softmax(-x) along axis."""

    def __init__(self, axis=-1):
        super().__init__()
        if not isinstance(axis, (int, tuple)) or isinstance(axis, bool):
            raise TypeError(f"For 'Softmin', 'axis' must be an int or a tuple, but got "
                            f"{type(axis).__name__}.")
        self.axis = axis

    def construct(self, x):
        return F.softmin(x, self.axis)


class Softmax2d(Cell):
    """softmax over the channels (dim -3) of a (C, H, W) or (N, C, H, W) input."""

    def construct(self, x):
        if x.ndim not in (3, 4):
            raise ValueError(f"For 'Softmax2d', the input must be 3-D or 4-D, but got rank "
                             f"{x.ndim}.")
        return F.softmax(x, -3)


class GLU(Cell):
    """a * sigmoid(b), a and b the halves of x along axis."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = _int("GLU", "axis", axis)

    def construct(self, x):
        return F.glu(x, self.axis)


class PReLU(Cell):
    """x where x > 0, else w * x, with a learnable slope w per channel (channel=1: one slope
    for all), initialised to `w`."""

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        self.channel = _int("PReLU", "channel", channel)
        if channel < 1:
            raise ValueError(f"For 'PReLU', 'channel' must be >= 1, but got {channel}.")
        if isinstance(w, Tensor):
            init = w
        else:
            init = initializer(_float("PReLU", "w", w), [channel], mstype.float32)
        self.w = Parameter(init, name="a")

    def construct(self, x):
        return F.prelu(x, self.w)


class PReLUExt(Cell):
    """PReLU with MindSpore's mint-style arguments: `num_parameters` slopes initialised to
    `init`, stored as `weight`."""

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        n = _int("PReLUExt", "num_parameters", num_parameters)
        if n < 1:
            raise ValueError(f"For 'PReLUExt', 'num_parameters' must be >= 1, but got {n}.")
        self.weight = Parameter(initializer(_float("PReLUExt", "init", init), [n],
                                            dtype or mstype.float32), name="weight")

    def construct(self, x):
        return F.prelu(x, self.weight)


class RReLU(Cell):
    """Randomized leaky ReLU (ops.rrelu): negative elements times slopes drawn from
    U[lower, upper) at every call. As in MindSpore 2.7.2, in training and evaluation alike."""

    def __init__(self, lower=1 / 8, upper=1 / 3):
        super().__init__()
        for arg, value in (("upper", upper), ("lower", lower)):
            if not isinstance(value, (float, int)) or isinstance(value, bool):
                raise TypeError(f"For 'RReLU', the type of '{arg}' should be one of "
                                f"'['float', 'int']', but got type '{type(value).__name__}'.")
        if lower > upper:
            raise ValueError(f"For RReLU, the value of 'upper' must be greater than or equal to "
                             f"'lower', but got upper: {upper}, lower: {lower}. ")
        self.lower, self.upper = float(lower), float(upper)

    def construct(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'rrelu', the input must be a Tensor, but got {type(x)}.")
        return F.rrelu(x, self.lower, self.upper)
