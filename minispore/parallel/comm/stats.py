"""Per-step communication counter: how many collectives of each type ran and the bytes they sent.

The collective backend counts every collective, whoever issued it (redistribution, gradient
reducers, user ops), in the world's counters (minispore.communication.stats, held by the
communication state); this module reads and resets them. Reset at the start of a step and read
at the end:

>>> reset_comm_stats()
>>> comm_stats()
{}

'bytes' is what this rank sends under the bandwidth-optimal algorithm for a collective of k
ranks on an n-byte input (the traffic cost of mindspore_semantics.md §3.1): AllGather (k-1)·n,
AllReduce 2(k-1)/k·n, ReduceScatter, AlltoAll, Broadcast and Reduce (k-1)/k·n, Barrier 0; a
point-to-point Send n and its Receive 0 (each side of a pair is counted on its own rank). The
redistribution planner prices its plans with the same ``sent_bytes``.
"""
from minispore.communication.state import STATE
from minispore.communication.stats import sent_bytes

__all__ = ["comm_stats", "reset_comm_stats", "sent_bytes"]


def comm_stats():
    """{collective type: {'count': n, 'bytes': b}} since the last reset (a copy)."""
    return STATE.stats.snapshot()


def reset_comm_stats():
    STATE.stats.clear()
