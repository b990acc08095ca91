"""Neural-network operators: activations, softmax and losses, convolution, pooling, normalisation."""

__all__ = []
