"""Tensor, Parameter, dtype, context, seed, initializer and the layout vocabulary: the layer
above minispore/device and below everything else; it imports nothing above it.

`device` is bound here so `from minispore.common import device`, the path before the device
layer moved to minispore/device, still works in modules being rewritten (issue 11:
minispore/ops/interpreter.py); new code imports `from minispore import device`.
"""
from minispore import device  # noqa: F401
