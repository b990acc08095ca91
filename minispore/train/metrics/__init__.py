"""mindspore.train.metrics: the metrics of minispore/nn/metrics under train's name."""
from minispore.nn.metrics import *  # noqa: F401,F403
from minispore.nn.metrics import __all__  # noqa: F401
