"""Semi-auto parallel: layout redistribution and the per-step communication counter."""
from minispore.parallel.comm_stats import comm_stats, reset_comm_stats

__all__ = ["comm_stats", "reset_comm_stats"]
