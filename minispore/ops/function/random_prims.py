"""Random primitives that are one random function each: ops.LogNormalReverse."""
from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function.random_func import log_normal

__all__ = ["LogNormalReverse"]


class LogNormalReverse:
    """``ops.LogNormalReverse(mean=1.0, std=2.0)(input)``: exp(mean + std * N(0, 1)) draws of
    input's shape and dtype (Float16, Float32 or Float64), from the global seed.

    MindSpore 2.7.2's CPU kernel ignores mean and std (LogNormalReverse(0.5, 0.25) draws with
    mean 1 and std 2); minispore uses them, as MindSpore's documentation says."""

    def __init__(self, mean=1.0, std=2.0):
        for name, value in (("mean", mean), ("std", std)):
            if not isinstance(value, float):
                raise TypeError(f"For 'LogNormalReverse', the type of '{name}' should be "
                                f"'float', but got type '{type(value).__name__}'.")
        self.mean, self.std = mean, std

    def __call__(self, input):  # noqa: A002 - MindSpore's argument name
        if not isinstance(input, Tensor) or input.dtype not in (mstype.float16, mstype.float32,
                                                                mstype.float64):
            got = input.dtype if isinstance(input, Tensor) else type(input).__name__
            raise TypeError(f"For 'LogNormalReverse', the input must be a Float16, Float32 or "
                            f"Float64 Tensor, but got {got}.")
        return log_normal(input, self.mean, self.std)

    def __repr__(self):
        return "Prim[LogNormalReverse]"
