"""Test-wide setup: the repo root on sys.path; no context, seed, tape or communication run-time
state leaking between tests (a test that calls ms.set_seed(7) must not change what a later test
draws);
and, under mpirun (--with-mpi), ranks compare outcomes after each test: when a test failed on
some ranks only, the failing ranks print their traceback and the job aborts, because those
ranks skipped collectives the others still wait in (a hang instead of a red test)."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# `tests.ops.harness` and `tools.op_matrix` import from the repo root under any import mode.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import minispore  # noqa: E402,F401  (declares every setting in the registry)
from minispore.common.context import context  # noqa: E402
from minispore.common.registry import REGISTRY  # noqa: E402


def _reloading(change):
    def changed(self, *args, **kwargs):
        change(self, *args, **kwargs)
        REGISTRY.reload_environment()
    return changed


# The registry reads each environment variable once, as a process does at start; a test that
# changes one with monkeypatch has the registry read the environment again (and, through
# isolated_context below, again once monkeypatch has put it back).
pytest.MonkeyPatch.setenv = _reloading(pytest.MonkeyPatch.setenv)
pytest.MonkeyPatch.delenv = _reloading(pytest.MonkeyPatch.delenv)


@pytest.fixture(autouse=True)
def isolated_context():
    """Put the context back after each test, in one call: every setting (set_context, the
    parallel and parameter-server contexts, the seeds, the dataset config: one registry), the
    environment as the process has it, no tape or cell scope a failing test left open, and no
    communication run-time state (collective counters, parameter-server progress), so one
    failure does not cascade into others."""
    ctx = context()
    saved = ctx.snapshot()
    yield
    ctx.restore(saved)


_FAILED = pytest.StashKey[object]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and item.stash.get(_FAILED, None) is None:
        item.stash[_FAILED] = report


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    yield
    if not item.config.getoption("with_mpi", False):
        return
    from mpi4py import MPI
    world = MPI.COMM_WORLD
    if world.Get_size() == 1:
        return
    report = item.stash.get(_FAILED, None)
    failed = world.allreduce(int(report is not None))
    if 0 < failed < world.Get_size():
        if report is not None:
            capture = item.config.pluginmanager.getplugin("capturemanager")
            with capture.global_and_fixture_disabled():
                sys.stderr.write(f"\n[rank {world.Get_rank()}] {item.nodeid} failed here but "
                                 f"passed on {world.Get_size() - failed} other rank(s); "
                                 f"aborting the job so the ranks do not wait on each other "
                                 f"forever:\n{report.longreprtext}\n")
                sys.stderr.flush()
        world.Barrier()   # the failing ranks have printed before anyone aborts
        world.Abort(1)
