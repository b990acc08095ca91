"""The operator classes (MindSpore's mindspore.ops.operations), one family module each."""
from minispore.ops.operations.activation_ops import *  # noqa: F401,F403
from minispore.ops.operations.array_ops import *  # noqa: F401,F403
from minispore.ops.operations.binary_math_ops import *  # noqa: F401,F403
from minispore.ops.operations.bitwise_ops import *  # noqa: F401,F403
from minispore.ops.operations.combine_ops import *  # noqa: F401,F403
from minispore.ops.operations.comm_ops import *  # noqa: F401,F403
from minispore.ops.operations.conv_ops import *  # noqa: F401,F403
from minispore.ops.operations.debug_ops import *  # noqa: F401,F403
from minispore.ops.operations.indexing_ops import *  # noqa: F401,F403
from minispore.ops.operations.logic_ops import *  # noqa: F401,F403
from minispore.ops.operations.math_ops import *  # noqa: F401,F403
from minispore.ops.operations.matmul_ops import *  # noqa: F401,F403
from minispore.ops.operations.nn_ops import *  # noqa: F401,F403
from minispore.ops.operations.optim_ops import *  # noqa: F401,F403
from minispore.ops.operations.norm_ops import *  # noqa: F401,F403
from minispore.ops.operations.sort_ops import *  # noqa: F401,F403
from minispore.ops.operations.unary_math_ops import *  # noqa: F401,F403
