"""Every functional operator, gathered from the per-family modules in ops/function/."""
from minispore.ops.function.array_func import *  # noqa: F401,F403
from minispore.ops.function.array_compose_func import *  # noqa: F401,F403
from minispore.ops.function.bitwise_func import *  # noqa: F401,F403
from minispore.ops.function.matrix_compose_func import *  # noqa: F401,F403
from minispore.ops.function.composite_func import *  # noqa: F401,F403
from minispore.ops.function.composite_prims import *  # noqa: F401,F403
from minispore.ops.function.einsum_func import *  # noqa: F401,F403
from minispore.ops.function.index_func import *  # noqa: F401,F403
from minispore.ops.function.math_func import *  # noqa: F401,F403
from minispore.ops.function.math_compose_func import *  # noqa: F401,F403
from minispore.ops.function.reduce_compose_func import *  # noqa: F401,F403
from minispore.ops.function.nn_func import *  # noqa: F401,F403
from minispore.ops.function.nn_compose_func import *  # noqa: F401,F403
from minispore.ops.function.pool_compose_func import *  # noqa: F401,F403
from minispore.ops.function.sort_func import *  # noqa: F401,F403
from minispore.ops.function.spectral_compose_func import *  # noqa: F401,F403
from minispore.ops.function.scan_compose_func import *  # noqa: F401,F403
