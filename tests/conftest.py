"""Test-wide setup: the repo root on sys.path, and no context, seed or tape state leaking
between tests (a test that calls ms.set_seed(7) must not change what a later test draws)."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# `tests.ops.harness` and `tools.op_matrix` import from the repo root under any import mode.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from minispore.common import seed as global_seed  # noqa: E402
from minispore.common.auto_parallel_context import reset_auto_parallel_context  # noqa: E402
from minispore.common.context import context  # noqa: E402
from minispore.dataset import config as dataset_config  # noqa: E402


@pytest.fixture(autouse=True)
def isolated_context():
    """Restore set_context settings, the parallel context, the global and dataset seeds after
    each test, and drop tapes or cell scopes a failing test left open, so one failure does not
    cascade into others."""
    ctx = context()
    saved = [(state, dict(state)) for state in (ctx._settings, global_seed._state,
                                                 dataset_config._state)]
    yield
    for state, values in saved:
        state.clear()
        state.update(values)
    reset_auto_parallel_context()
    ctx.tapes.clear()
    ctx.scopes.clear()
