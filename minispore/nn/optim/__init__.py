"""Optimizers (nn.SGD, nn.Momentum, nn.Adam, nn.AdamWeightDecay) and learning-rate schedules."""
from minispore.nn.learning_rate_schedule import *  # noqa: F401,F403
from minispore.nn.optim.adam import *  # noqa: F401,F403
from minispore.nn.optim.momentum import *  # noqa: F401,F403
from minispore.nn.optim.optimizer import *  # noqa: F401,F403
from minispore.nn.optim.sgd import *  # noqa: F401,F403
