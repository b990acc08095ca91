"""Passes for cell and primitive annotations whose features are not built yet: each refuses
the compile with a NotImplementedError naming the annotated node, never ignoring it silently.
Their issues replace them with the real passes (pipeline stages; recompute is
minispore/graph/recompute.py, graph partition by `place` minispore/parallel/place_partition.py)."""

__all__ = ["assign_pipeline_stages"]


def _refuse(program, key, feature, what_works, applies=lambda value: True):
    for node in program.graph.nodes:
        value = node.annotations.get(key)
        if value is not None and applies(value):
            raise NotImplementedError(
                f"{feature} is not implemented in minispore yet, but node "
                f"'{node.prim.name}' (in {node.scope}) carries {key}={value!r}; {what_works}")
    return program


def assign_pipeline_stages(program, ctx):
    """Refuses a pipeline stage other than 0 (`Cell.pipeline_stage`)."""
    return _refuse(program, "pipeline_stage", "Pipeline parallel (Cell.pipeline_stage)",
                   "leave every cell in stage 0 (pipeline_stages=1).",
                   applies=lambda stage: stage != 0)

