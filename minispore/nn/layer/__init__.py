"""Layers: basic, activation, convolution, pooling, normalisation, embedding, containers."""
from minispore.nn.layer.activation import *  # noqa: F401,F403
from minispore.nn.layer.basic import *  # noqa: F401,F403
from minispore.nn.layer.container import *  # noqa: F401,F403
from minispore.nn.layer.conv import *  # noqa: F401,F403
from minispore.nn.layer.embedding import *  # noqa: F401,F403
from minispore.nn.layer.normalization import *  # noqa: F401,F403
from minispore.nn.layer.pooling import *  # noqa: F401,F403
