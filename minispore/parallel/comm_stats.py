"""Per-step communication counter: how many collectives of each type ran and the bytes they sent.

Fed by the collective backend (minispore.communication.collectives calls ``record`` for every
collective, whoever issued it: redistribution, gradient reducers, user ops). Reset it at the
start of a step and read it at the end:

>>> reset_comm_stats()
>>> comm_stats()
{}

'bytes' is what this rank sends under the bandwidth-optimal algorithm for a collective of k
ranks on an n-byte input (the traffic cost of mindspore_semantics.md §3.1): AllGather (k-1)·n,
AllReduce 2(k-1)/k·n, ReduceScatter, AlltoAll, Broadcast and Reduce (k-1)/k·n, Barrier 0; a
point-to-point Send n and its Receive 0 (each side of a pair is counted on its own rank). The
redistribution planner prices its plans with the same ``sent_bytes``.
"""
from minispore.communication import collectives as _collectives

__all__ = ["comm_stats", "reset_comm_stats", "sent_bytes"]

_stats = {}


def sent_bytes(collective, nbytes, k):
    """Bytes one rank sends in `collective` over k ranks with an nbytes-byte input."""
    if collective == "Send":
        return nbytes
    if k <= 1 or collective in ("Barrier", "Receive"):
        return 0
    if collective == "AllGather":
        return (k - 1) * nbytes
    if collective == "AllReduce":
        return 2 * (k - 1) * nbytes // k
    return (k - 1) * nbytes // k


def record(collective, nbytes, k):
    entry = _stats.get(collective)
    if entry is None:
        entry = _stats[collective] = {"count": 0, "bytes": 0}
    entry["count"] += 1
    entry["bytes"] += sent_bytes(collective, nbytes, k)


def comm_stats():
    """{collective type: {'count': n, 'bytes': b}} since the last reset (a copy)."""
    return {kind: dict(entry) for kind, entry in _stats.items()}


def reset_comm_stats():
    _stats.clear()


_collectives.add_listener(record)
