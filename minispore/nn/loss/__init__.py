"""Loss functions."""
from minispore.nn.loss.loss import *  # noqa: F401,F403
from minispore.nn.loss.loss_compose import *  # noqa: F401,F403
from minispore.nn.loss.loss_more import *  # noqa: F401,F403
