"""Communication reads its environment variables through the settings registry (DESIGN.md "The
execution context"): each is declared (minispore/common/environment.py), read once, and read
again when the registry reloads the environment, as a process reads it at start."""
import os

from minispore.common.registry import REGISTRY
from minispore.communication import _comm
from minispore.communication.watch import watchdog
from minispore.communication.cluster.cluster_token import TOKEN_FILE_VAR, TOKEN_VAR
from minispore.communication.watch.fault_report import TIMEOUT_ENV
from minispore.communication.cluster.relaunch import LAUNCHER_PID_VAR, MPI_LAUNCHED_VARS
from minispore.communication.cluster.roles import ENVIRONMENT_VARS
from minispore.communication.threads import THREAD_VARS, threads_per_rank


def test_every_variable_communication_reads_is_declared():
    read = set(ENVIRONMENT_VARS) | set(THREAD_VARS) | set(MPI_LAUNCHED_VARS) | {
        TOKEN_VAR, TOKEN_FILE_VAR, TIMEOUT_ENV, watchdog.WATCHDOG_ENV, _comm.CHECK_ENV,
        LAUNCHER_PID_VAR}
    assert read - set(REGISTRY.names("env")) == set()


def test_the_watchdog_and_thread_settings_come_from_the_registry(monkeypatch):
    monkeypatch.setenv(TIMEOUT_ENV, "8")
    monkeypatch.setenv("NUMBA_NUM_THREADS", "3")
    assert watchdog.settings_from_environment().timeout == 8.0
    assert threads_per_rank(2, cores=8)["numba"] == (None, "NUMBA_NUM_THREADS=3 is set")
    # A change behind the registry's back is seen once it reads the environment again.
    monkeypatch.setitem(os.environ, TIMEOUT_ENV, "9")
    assert watchdog.settings_from_environment().timeout == 8.0
    REGISTRY.reload_environment()
    assert watchdog.settings_from_environment().timeout == 9.0
