"""mindspore.numpy: NumPy-style functions on Tensors (`import mindspore.numpy as mnp`).

Each function is a thin composition of minispore operators, so gradients flow through it
and it traces under GRAPH mode like any other operator call. Defaults follow MindSpore 2.7.2's
mnp: Python ints become int32, Python floats and float creation default to float32.
"""
from minispore.common.dtype import (bool_, float16, float32, float64, int8, int16, int32, int64,
                                    uint8, uint16, uint32, uint64)
from minispore.numpy import (array_creations, array_ops, linalg_ops, logic_ops, math_ops,
                             other_ops, reductions)
from minispore.numpy.array_creations import *  # noqa: F401,F403
from minispore.numpy.array_ops import *  # noqa: F401,F403
from minispore.numpy.linalg_ops import *  # noqa: F401,F403
from minispore.numpy.logic_ops import *  # noqa: F401,F403
from minispore.numpy.math_ops import *  # noqa: F401,F403
from minispore.numpy.other_ops import *  # noqa: F401,F403
from minispore.numpy.reductions import *  # noqa: F401,F403

# MindSpore's mnp aliases: float_ is float32 and int_ int32 (not NumPy's 64-bit defaults).
float_ = float32
int_ = int32

__all__ = (array_creations.__all__ + array_ops.__all__ + linalg_ops.__all__ + logic_ops.__all__
           + math_ops.__all__ + other_ops.__all__ + reductions.__all__
           + ["bool_", "float16", "float32", "float64", "float_", "int8", "int16", "int32",
              "int64", "int_", "uint8", "uint16", "uint32", "uint64"])
