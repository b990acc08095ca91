"""The dynamic cluster (MindSpore's MS_ROLE networking): roles from the environment, the
scheduler, a worker's side of joining, the wire protocol and its token, and the launcher a
process relaunches itself under (relaunch, forker, listen). Builds the MPI world that
minispore.communication then uses; imports nothing of it but its state."""
