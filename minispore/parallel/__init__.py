"""Operator parallel: the parallel passes and the pass list, layout redistribution, the
per-step communication counter, and device meshes."""
from minispore.common.mesh import DeviceMesh
from minispore.parallel import compiler as _compiler  # registers the pass list with graph
from minispore.parallel.comm.stats import comm_stats, reset_comm_stats
from minispore.parallel.compiler import on_mesh
from minispore.parallel.plan import describe_plan

__all__ = ["comm_stats", "reset_comm_stats", "DeviceMesh", "on_mesh", "describe_plan"]
