"""The pipeline bubble, measured: per training step, each stage's busy and idle time.

A stage's program starts its clock at its first node and stops it at its last; idle is the
time its receives waited for their message (an activation from the previous stage, a
gradient from the next) plus the time its sends waited to complete; busy is the rest.
``bubble`` is idle / (busy + idle), beside the analytic ``(S - 1) / (m + S - 1)`` of S stages
and m micro-batches (equal work per stage and micro-batch, no communication cost).

Each rank measures its own stage; `bubble_report()` (a collective over the world) gathers
every rank's last steps.
"""
import logging
import time
from collections import deque
from dataclasses import dataclass

__all__ = ["StepTimes", "last_step", "step_history", "bubble_report", "analytic_bubble"]

logger = logging.getLogger("minispore")

_HISTORY = 64       # steps kept per rank


@dataclass(frozen=True)
class StepTimes:
    """One step of one stage (seconds)."""
    stage: int
    stages: int
    micro_size: int
    busy: float
    idle: float

    @property
    def bubble(self):
        total = self.busy + self.idle
        return self.idle / total if total > 0 else 0.0

    @property
    def analytic(self):
        return analytic_bubble(self.stages, self.micro_size)


def analytic_bubble(stages, micro_size):
    """(S - 1) / (m + S - 1): the idle fraction of an ideal pipeline schedule."""
    return (stages - 1) / (micro_size + stages - 1)


class _Clock:
    def __init__(self):
        self.history = deque(maxlen=_HISTORY)
        self.start = None
        self.idle = 0.0

    def begin(self):
        self.start = time.perf_counter()
        self.idle = 0.0

    def waited(self, seconds):
        self.idle += seconds

    def end(self, stage, stages, micro_size):
        total = time.perf_counter() - self.start
        step = StepTimes(stage, stages, micro_size, max(total - self.idle, 0.0), self.idle)
        self.history.append(step)
        logger.debug("pipeline stage %d/%d, %d micro-batches: busy %.3f ms, idle %.3f ms "
                     "(bubble %.1f%%, analytic %.1f%%)", stage, stages, micro_size,
                     step.busy * 1e3, step.idle * 1e3, step.bubble * 100, step.analytic * 100)


CLOCK = _Clock()


def last_step():
    """This rank's last pipeline step (a StepTimes), or None before the first."""
    return CLOCK.history[-1] if CLOCK.history else None


def step_history():
    """This rank's recent pipeline steps, oldest first."""
    return list(CLOCK.history)


def bubble_report(skip=1):
    """Every rank's pipeline steps (a collective over the world: call it on every rank):
    ``{world rank: [StepTimes, ...]}`` without each rank's first `skip` steps (compilation
    and first-touch costs)."""
    from minispore.communication._comm import STATE
    mine = step_history()[skip:]
    if not STATE.inited:
        return {0: mine}
    gathered = STATE.world.comm.allgather(mine)
    return dict(enumerate(gathered))
