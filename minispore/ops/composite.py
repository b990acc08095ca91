"""mindspore.ops.composite (`from mindspore.ops import composite as C`): the composite
operations minispore has, under that module's names."""
from minispore.ops.functional import (augassign_add, augassign_div, augassign_floordiv,  # noqa: F401
                                      augassign_mod, augassign_mul, augassign_sub, batch_dot,
                                      count_nonzero, cummin, hyper_add, matmul, multinomial,
                                      ones_like, repeat_elements, repeat_interleave,
                                      sequence_mask, uniform, vecdot, zeros_like)
from minispore.ops.grad import GradOperation  # noqa: F401
