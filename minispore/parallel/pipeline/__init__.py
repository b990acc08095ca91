"""Pipeline parallel: the passes that give every node a stage and cut out this rank's (stages),
the StageSend/StageReceive and step-clock operators they insert (ops), the order of a stage's
micro-batches (schedule) and the bubble measured per step (stats)."""
