"""Layers: basic, activation, convolution, pooling, normalisation, embedding, containers, sparse,
recurrent and attention."""
from minispore.nn.layer.activation import *  # noqa: F401,F403
from minispore.nn.layer.basic import *  # noqa: F401,F403
from minispore.nn.layer.container import *  # noqa: F401,F403
from minispore.nn.layer.conv import *  # noqa: F401,F403
from minispore.nn.layer.conv_compose import *  # noqa: F401,F403
from minispore.nn.layer.embedding import *  # noqa: F401,F403
from minispore.nn.layer.normalization import *  # noqa: F401,F403
from minispore.nn.layer.sync_batch_norm import *  # noqa: F401,F403
from minispore.nn.layer.pooling import *  # noqa: F401,F403
from minispore.nn.layer.rnns import *  # noqa: F401,F403
from minispore.nn.layer.transformer import *  # noqa: F401,F403
from minispore.nn.layer.transformer_decoder import *  # noqa: F401,F403
from minispore.nn.layer.activation_compose import *  # noqa: F401,F403
from minispore.nn.layer.basic_compose import *  # noqa: F401,F403
from minispore.nn.layer.pooling_compose import *  # noqa: F401,F403
from minispore.nn.layer.function_cells import *  # noqa: F401,F403
from minispore.nn.layer.math_cells import *  # noqa: F401,F403
from minispore.nn.layer.sparse import *  # noqa: F401,F403
from minispore.nn.layer.thor_layer import *  # noqa: F401,F403
