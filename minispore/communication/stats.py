"""The per-step communication counters the world keeps (STATE.stats): how many collectives of
each type this rank ran and the bytes it sent, priced by ``sent_bytes``.

'bytes' is what this rank sends under the bandwidth-optimal algorithm for a collective of k
ranks on an n-byte input (the traffic cost of mindspore_semantics.md §3.1): AllGather (k-1)·n,
AllReduce 2(k-1)/k·n, ReduceScatter, AlltoAll, Broadcast and Reduce (k-1)/k·n, Barrier 0; a
point-to-point Send n and its Receive 0 (each side of a pair is counted on its own rank).
minispore.parallel.comm_stats reads them; the redistribution planner prices its plans with
the same ``sent_bytes``.
"""

__all__ = ["sent_bytes", "CommStats"]


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


class CommStats:
    """{collective type: {'count': n, 'bytes': b}} since the last ``clear``."""

    def __init__(self):
        self.entries = {}

    def record(self, collective, nbytes, k):
        """Count one `collective` over k ranks with an nbytes-byte input (before it runs)."""
        self.add(collective, sent_bytes(collective, nbytes, k))

    def add(self, collective, sent):
        """Count one `collective` that sends `sent` bytes (``sent_bytes``, priced by a caller
        that calls it again and again on one signature)."""
        entry = self.entries.get(collective)
        if entry is None:
            entry = self.entries[collective] = {"count": 0, "bytes": 0}
        entry["count"] += 1
        entry["bytes"] += sent

    def snapshot(self):
        return {kind: dict(entry) for kind, entry in self.entries.items()}

    def clear(self):
        self.entries.clear()
