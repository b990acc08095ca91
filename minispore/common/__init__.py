"""Tensor, Parameter, dtype, context, seed, initializer and the layout vocabulary: the layer
above minispore/device and below everything else; it imports nothing above it."""
# `from mindspore.common import Tensor, Parameter` is how much MindSpore code spells them.
from minispore.common import dtype  # noqa: E402,F401
from minispore.common.parameter import Parameter, ParameterTuple  # noqa: E402,F401
from minispore.common.seed import get_seed, set_seed  # noqa: E402,F401
from minispore.common.tensor import Tensor  # noqa: E402,F401
