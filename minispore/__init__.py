"""minispore: a MindSpore-like deep-learning framework on Numba kernels and mpi4py."""
# First, before anything else runs: a dynamic-cluster worker (MS_ROLE=MS_WORKER) started without
# an MPI launcher is replaced here by a one-rank launcher running the same command line
# (communication/cluster/relaunch.py says why).
from minispore.communication.cluster.relaunch import relaunch_under_launcher

relaunch_under_launcher()

# Under `mpirun -iface IFACE` the ranks' netmods listen on IFACE only (listen.py says why).
from minispore.communication.cluster.listen import pin_netmods_to_launcher_interface

pin_netmods_to_launcher_interface()

from minispore.common.log_level import apply_glog_v

apply_glog_v()

from minispore.common.malloc_tuning import tune_malloc

tune_malloc()

from minispore.common import dtype
from minispore.common.auto_parallel_context import (ParallelMode, get_auto_parallel_context,
                                                    reset_auto_parallel_context,
                                                    set_auto_parallel_context)
from minispore.common.context import (COMPATIBLE, GRAPH_MODE, LAX, PYNATIVE_MODE, STRICT,
                                      get_context, set_context)
from minispore.common.dtype import (bool_, double, float16, float32, float64, half, int8, int16,
                                    int32, int64, single, uint8, uint16, uint32, uint64)
from minispore.common.jit_config import JitConfig
from minispore.common.mutable import mutable
from minispore.common.parameter import Parameter, ParameterTuple
from minispore.common.ps_context import get_ps_context, reset_ps_context, set_ps_context
from minispore.common.seed import get_seed, set_seed
from minispore.common.symbol import Symbol
from minispore.common.sparse_tensor import COOTensor, CSRTensor
from minispore.common.tensor import Tensor
from minispore import context, nn, ops
from minispore.graph.jit import jit
from minispore.ops.function.vmap_func import vmap
from minispore.ops.grad import grad, value_and_grad
from minispore.ops.jacobian import jacfwd, jacrev
from minispore.parallel.layout_api import Layout
from minispore.parallel.shard import shard
from minispore.train import (ConvertModelUtils, ConvertNetUtils, DatasetHelper,
                             DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager,
                             Model, Profiler, connect_network_with_dataset, export, load,
                             load_checkpoint, load_distributed_checkpoint, load_param_into_net,
                             merge_sliced_parameter, save_checkpoint, transform_checkpoints)
from minispore import amp  # noqa: E402,F401
from minispore import numpy  # noqa: E402,F401  (mindspore.numpy after `import mindspore`)
from minispore import ps  # noqa: E402,F401  (installs the parameter server's hooks)

__version__ = "0.1.0"
