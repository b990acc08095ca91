"""Distributed graph partition by `place`: the split of the traced program into per-worker
segments joined by Send/Receive, and the local optimizer update that pipeline stages share."""
