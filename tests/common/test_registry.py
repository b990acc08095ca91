"""The registry's plug points (issue 27): the slots through which an upper layer plugs into a
lower one, declared once and read by name."""
import pytest

from minispore.common.registry import REGISTRY


def test_plug_points_are_declared_and_read_by_name():
    """The slots through which an upper layer plugs into a lower one live on the registry:
    graph plugged its jit and parallel its passes and PassContext when minispore was
    imported; an undeclared point is refused, naming the declared ones."""
    import minispore  # noqa: F401 - imports graph and parallel, which plug in
    from minispore.common.registry import PLUG_POINTS
    from minispore.graph.jit import jit
    from minispore.parallel.compiler import PASSES, pass_context
    assert REGISTRY.plugged("graph.jit") is jit
    assert REGISTRY.plugged("graph.passes") == tuple(PASSES)
    assert REGISTRY.plugged("graph.pass_context") is pass_context
    assert REGISTRY.plugged("nn.parameter_server").__name__ == "minispore.ps.runtime"
    assert set(PLUG_POINTS) >= {"graph.jit", "graph.passes", "graph.pass_context",
                                "graph.before_compile", "communication.after_init",
                                "nn.parameter_server", "ops.update_redirect"}
    with pytest.raises(ValueError, match=r"unknown plug point 'graph\.nope'.*graph\.jit"):
        REGISTRY.plug("graph.nope", object())


def test_restore_keeps_options_declared_after_the_snapshot():
    """A module first imported during a test declares its options after the test's snapshot
    (tests/conftest.py); restoring that snapshot must not drop them, or a later test reading
    one fails with a KeyError (seen with minispore.dataset.config's prefetch_size)."""
    from minispore.common.registry import Option, Registry
    reg = Registry(environ={})
    reg.declare(Option("demo", "old", default=1))
    saved = reg.snapshot()
    reg.declare(Option("demo", "late", default=lambda: [3]))
    reg.store("demo", {"late": [4], "old": 2})
    reg.restore(saved)
    assert reg.get("demo", "old") == 1
    assert reg.get("demo", "late") == [3]
