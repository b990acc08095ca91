"""The role of this process in a job (MindSpore's MS_ROLE): a worker trains; a scheduler only
coordinates; a parameter server holds parameters. "The world" of collectives means the workers.

Only workers exist until the dynamic cluster (MS_ROLE scheduler/workers without mpirun) is
built: a process started with MindSpore's cluster variables is refused at init() instead of
training alone as a one-rank world (and a scheduler training too).
"""
import enum

__all__ = ["Role", "role_from_environment", "CLUSTER_VARS"]


class Role(enum.Enum):
    WORKER = "MS_WORKER"
    SCHEDULER = "MS_SCHED"
    SERVER = "MS_PSERVER"


# MindSpore's dynamic-networking variables (mindspore_semantics.md §7.2).
CLUSTER_VARS = ("MS_ROLE", "MS_SCHED_HOST", "MS_SCHED_PORT", "MS_WORKER_NUM", "MS_SERVER_NUM",
                "MS_NODE_ID")


def role_from_environment(environ):
    """Role.WORKER for a process started by mpirun (or alone).

    Raises:
        NotImplementedError: a cluster variable (MS_ROLE …) is set.
    """
    found = [v for v in CLUSTER_VARS if environ.get(v)]
    if found:
        setting = ", ".join(f"{v}={environ[v]}" for v in found)
        raise NotImplementedError(
            f"MindSpore's dynamic cluster ({setting}) is not implemented in minispore yet: "
            f"each process would train alone. Unset {', '.join(found)} and start the workers "
            f"with mpirun -n N python script.py (or python -m minispore.run -n N script.py).")
    return Role.WORKER
