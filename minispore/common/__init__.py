"""Tensor, Parameter, dtype, context, seed, initializer and the layout vocabulary: the layer
above minispore/device and below everything else; it imports nothing above it."""
