"""Normalisation layers: LayerNorm."""
from minispore.common import dtype as mstype
from minispore.common.initializer import initializer
from minispore.common.parameter import Parameter
from minispore.nn.cell import Cell
from minispore.ops.operations.nn_ops import LayerNorm as LayerNormOp

__all__ = ["LayerNorm"]


class LayerNorm(Cell):
    """y = (x - mean) / sqrt(var + epsilon) * gamma + beta over the axes from begin_norm_axis;
    gamma and beta have shape ``normalized_shape`` (named 'gamma' and 'beta', so optimizers
    skip them for weight decay)."""

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1,
                 gamma_init="ones", beta_init="zeros", epsilon=1e-7, dtype=mstype.float32):
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"For 'LayerNorm', 'normalized_shape' must be a tuple or list, but "
                            f"got {type(normalized_shape).__name__}.")
        for name, v in (("begin_norm_axis", begin_norm_axis),
                        ("begin_params_axis", begin_params_axis)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For 'LayerNorm', '{name}' must be an int, but got "
                                f"{type(v).__name__}.")
        self.normalized_shape = tuple(normalized_shape)
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = float(epsilon)
        self.gamma = Parameter(initializer(gamma_init, self.normalized_shape, dtype),
                               name="gamma")
        self.beta = Parameter(initializer(beta_init, self.normalized_shape, dtype), name="beta")
        self.layer_norm = LayerNormOp(begin_norm_axis, begin_params_axis, self.epsilon)

    def construct(self, x):
        return self.layer_norm(x, self.gamma, self.beta)[0]

    def extend_repr(self):
        return (f"normalized_shape={self.normalized_shape}, "
                f"begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}, gamma={self.gamma}, "
                f"beta={self.beta}")
