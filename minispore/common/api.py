"""mindspore.common.api: the names MindSpore's code imports from this path (jit, the eager
executor's handle). A facade of the graph layer kept at common's path for the import name
(tests/test_import_layers.py FACADES): nothing in common imports it."""
from minispore import device
from minispore.graph.jit import jit

__all__ = ["jit"]


class _PyNativeExecutor:
    """The eager executor's handle MindSpore's tests call `sync()` on. minispore runs eager
    operators when called, so only kernels still queued on the GPU can be outstanding."""

    def sync(self):
        """Wait until every launched kernel has finished."""
        device.synchronize()


_pynative_executor = _PyNativeExecutor()
