"""Server checkpoints for parameter-server recovery (MindSpore's MS_ENABLE_RECOVERY=1 with
MS_RECOVERY_PATH).

Every MS_RECOVERY_INTERVAL steps (minispore counts steps here, not MindSpore's seconds, so that
every server saves at the same steps; default 30) each server writes its parameters, their
optimizer state and the optimizer's shared state (global_step, Adam's beta powers) to
``<MS_RECOVERY_PATH>/ps_server_<s>_step_<N>.ckpt`` with save_checkpoint (written to a temporary
file and renamed: a kill never leaves half a file), keeping its last two.

A job started again with the same settings restores: the servers agree on the newest step
every one of them has saved (they are at most one step apart in synchronous mode, so keeping
two files suffices) and load it; the workers receive those values before their first step
(the servers always send their step and values first: worker.pull_initial). The workers'
scripts run from their beginning and learn the restored step there: Model.train skips the
batches of the steps done, a hand-written loop starts at minispore.ps.resume_step().
"""
import os
import re

import numpy as np

from minispore.common.tensor import Tensor
from minispore.communication._comm import STATE

__all__ = ["RecoverySettings", "recovery_settings", "ServerCheckpoints"]

DEFAULT_INTERVAL = 30
_STEP_ENTRY = "ps_server_step"


class RecoverySettings:
    def __init__(self, path, interval):
        self.path, self.interval = path, interval


def recovery_settings(environ):
    """RecoverySettings from MS_ENABLE_RECOVERY / MS_RECOVERY_PATH / MS_RECOVERY_INTERVAL, or
    None when recovery is off.

    Raises:
        ValueError: MS_ENABLE_RECOVERY=1 without MS_RECOVERY_PATH, or a bad interval.
    """
    if environ.get("MS_ENABLE_RECOVERY", "0") in ("", "0"):
        return None
    path = environ.get("MS_RECOVERY_PATH", "")
    if not path:
        raise ValueError("MS_ENABLE_RECOVERY=1 needs MS_RECOVERY_PATH, the directory the "
                         "parameter servers checkpoint to, but it is not set.")
    text = environ.get("MS_RECOVERY_INTERVAL") or str(DEFAULT_INTERVAL)
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"MS_RECOVERY_INTERVAL must be a positive number of steps between "
                         f"the parameter servers' checkpoints, but got {text!r}.")
    return RecoverySettings(path, int(text))


class ServerCheckpoints:
    """One server's checkpoints of `params` (its keys) and the optimizer state they need."""

    def __init__(self, settings, server, optimizer, params):
        from minispore.train.serialization import load_checkpoint, save_checkpoint
        self._save, self._load = save_checkpoint, load_checkpoint
        self.settings, self.server = settings, server
        derived = {id(d) for p in optimizer.parameters for d in p.derived}
        own = {id(p) for p in optimizer.parameters}
        shared = [p for p in optimizer.get_parameters()
                  if id(p) not in derived and id(p) not in own]
        self.state = list(params) + [d for p in params for d in p.derived] + shared
        os.makedirs(settings.path, exist_ok=True)

    def _file(self, step):
        return os.path.join(self.settings.path, f"ps_server_{self.server}_step_{step}.ckpt")

    def saved_steps(self):
        pattern = re.compile(rf"ps_server_{self.server}_step_(\d+)\.ckpt$")
        found = (pattern.match(name) for name in os.listdir(self.settings.path))
        return sorted(int(m.group(1)) for m in found if m)

    def after_step(self, step):
        """Save at every interval-th step; keep the last two files. True when saved."""
        if step % self.settings.interval:
            return False
        items = [{"name": p.name, "data": Tensor(p.asnumpy())} for p in self.state]
        items.append({"name": _STEP_ENTRY, "data": Tensor(np.array(step, np.int64))})
        self._save(items, self._file(step))
        for old in self.saved_steps()[:-2]:
            os.unlink(self._file(old))
        return True

    def restore(self):
        """Load the newest step every server has saved (0: start afresh); that step."""
        steps = self.saved_steps()
        common = STATE.world.comm.allreduce(steps[-1] if steps else 0, op=_mpi_min())
        if common == 0:
            return 0
        if common not in steps:
            raise RuntimeError(f"Parameter server {self.server} cannot recover step {common} "
                               f"(the newest step every server saved): its checkpoints in "
                               f"MS_RECOVERY_PATH={self.settings.path} are of steps {steps}.")
        saved = self._load(self._file(common))
        for p in self.state:
            if p.name not in saved:
                raise RuntimeError(f"Parameter server {self.server}'s checkpoint "
                                   f"{self._file(common)} has no {p.name!r}: the job's "
                                   f"parameters or MS_SERVER_NUM changed since it was saved.")
            p.set_data(saved[p.name])
        return common


def _mpi_min():
    from minispore.communication._comm import mpi
    return mpi().MIN
