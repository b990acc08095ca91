"""Cell wrappers for training and evaluation."""
from minispore.nn.wrap.cell_wrapper import *  # noqa: F401,F403
