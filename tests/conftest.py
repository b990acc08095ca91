"""Test-wide setup: the repo root on sys.path, and no context or tape state leaking between tests."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# `tests.ops.harness` and `tools.op_matrix` import from the repo root under any import mode.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from minispore.common.auto_parallel_context import reset_auto_parallel_context  # noqa: E402
from minispore.common.context import context  # noqa: E402


@pytest.fixture(autouse=True)
def isolated_context():
    """Restore set_context settings and the parallel context after each test, and drop tapes or
    cell scopes a failing test left open, so one failure does not cascade into others."""
    ctx = context()
    saved = dict(ctx._settings)
    yield
    ctx._settings.clear()
    ctx._settings.update(saved)
    reset_auto_parallel_context()
    ctx.tapes.clear()
    ctx.scopes.clear()
