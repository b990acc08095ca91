"""mindspore.communication.comm_func: the functional collectives, defined in the ops layer
(minispore/ops/function/comm_func.py) and re-exported here under MindSpore's module path."""
from minispore.ops.function.comm_func import *  # noqa: F401,F403
from minispore.ops.function.comm_func import __all__  # noqa: F401
