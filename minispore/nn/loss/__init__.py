"""Loss functions."""
from minispore.nn.loss.loss import *  # noqa: F401,F403
