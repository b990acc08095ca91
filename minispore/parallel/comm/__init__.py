"""The parallel passes over a compiled program's collectives -- fusion, overlap with
computation, subgraph reuse -- and the per-step communication counter they are measured by."""
