"""Passes for cell and primitive annotations whose features are not built yet: each refuses
the compile with a NotImplementedError naming the annotated node, never ignoring it silently.
Their issues replace them with the real passes (graph partition by `place`, pipeline stages;
recompute is minispore/graph/recompute.py)."""

__all__ = ["partition_by_place", "assign_pipeline_stages"]


def _refuse(program, key, feature, what_works, applies=lambda value: True):
    for node in program.graph.nodes:
        value = node.annotations.get(key)
        if value is not None and applies(value):
            raise NotImplementedError(
                f"{feature} is not implemented in minispore yet, but node "
                f"'{node.prim.name}' (in {node.scope}) carries {key}={value!r}; {what_works}")
    return program


def partition_by_place(program, ctx):
    """Refuses `Cell.place` / `Primitive.place` (distributed graph partition)."""
    return _refuse(program, "rank_id", "Distributed graph partition (Cell.place / "
                   "Primitive.place)", "remove the place() calls to train the whole network "
                   "on every worker.")


def assign_pipeline_stages(program, ctx):
    """Refuses a pipeline stage other than 0 (`Cell.pipeline_stage`)."""
    return _refuse(program, "pipeline_stage", "Pipeline parallel (Cell.pipeline_stage)",
                   "leave every cell in stage 0 (pipeline_stages=1).",
                   applies=lambda stage: stage != 0)

