"""Optimizers (nn.SGD, nn.Momentum, nn.Adam, nn.AdamWeightDecay, nn.Adagrad, nn.RMSProp, ...)
and learning-rate schedules."""
from minispore.nn.learning_rate_schedule import *  # noqa: F401,F403
from minispore.nn.optim.ada_grad import *  # noqa: F401,F403
from minispore.nn.optim.adadelta import *  # noqa: F401,F403
from minispore.nn.optim.adafactor import *  # noqa: F401,F403
from minispore.nn.optim.adam import *  # noqa: F401,F403
from minispore.nn.optim.adamax import *  # noqa: F401,F403
from minispore.nn.optim.adasum import *  # noqa: F401,F403
from minispore.nn.optim.asgd import *  # noqa: F401,F403
from minispore.nn.optim.ftrl import *  # noqa: F401,F403
from minispore.nn.optim.lamb import *  # noqa: F401,F403
from minispore.nn.optim.lazyadam import *  # noqa: F401,F403
from minispore.nn.optim.momentum import *  # noqa: F401,F403
from minispore.nn.optim.optimizer import *  # noqa: F401,F403
from minispore.nn.optim.rmsprop import *  # noqa: F401,F403
from minispore.nn.optim.rprop import *  # noqa: F401,F403
from minispore.nn.optim.sgd import *  # noqa: F401,F403
from minispore.nn.optim.thor import *  # noqa: F401,F403
