"""The one context object: execution mode, device, debug settings, and this thread's interpreter
stack (the Interpreter levels: tracer, eager SPMD region, autodiff tapes, over the eager base).

Registers its device_target with minispore/device (`set_target_source`) at import, so the
device layer below reads the setting from here without importing common.
"""
import logging
import os
import threading
import time
from contextlib import contextmanager

from minispore import device
from minispore.common import environment  # noqa: F401  (declares the variables read below)
from minispore.common.registry import REGISTRY, Option

GRAPH_MODE = 0
PYNATIVE_MODE = 1
# jit_syntax_level values, as MindSpore exports them (mindspore.STRICT, ...)
STRICT, COMPATIBLE, LAX = 0, 1, 2

logger = logging.getLogger("minispore")

# Keys MindSpore accepts that have no meaning in minispore: (default, why it has no effect).
# Setting one is accepted, so MindSpore scripts run unchanged, and logs a warning naming it.
_NO_EFFECT = {
    "max_device_memory": ("1024GB", "minispore's allocators have no upper limit to set"),
    "variable_memory_max_size": ("0", "it sizes Ascend's variable memory"),
    "enable_graph_kernel": (False, "GRAPH mode fuses elementwise chains into generated Numba "
                                   "kernels whatever it says"),
    "graph_kernel_flags": ("", "GRAPH mode fuses elementwise chains into generated Numba "
                               "kernels whatever it says"),
    "memory_optimize_level": ("O0", "GRAPH mode always plans buffers from value lifetimes"),
    "jit_config": (None, "there is one compile pipeline (no jit_level to choose)"),
    "enable_reduce_precision": (True, "it lets Ascend operators run in lower precision"),
    "check_bprop": (False, "a Cell cannot define its own bprop here, so there is nothing to "
                           "check"),
    "enable_compile_cache": (False, "compiled programs are cached in the process only, never "
                                    "on disk"),
    "compile_cache_path": ("", "compiled programs are cached in the process only, never on "
                               "disk"),
    "inter_op_parallel_num": (0, "operators run one at a time"),
    "ascend_config": (None, "it configures Ascend"),
    "jit_syntax_level": (0, "GRAPH mode traces Python, so every syntax level compiles the same "
                            "code"),
    "gpu_config": (None, "it configures cuDNN and cuBLAS, which minispore's Numba kernels do "
                         "not use"),
    "enable_profiling": (False, "use minispore.Profiler"),
    "reserve_class_name_in_scope": (True, "scope names are the cells' attribute paths, "
                                          "without class names"),
}


def _check_mode(value):
    if value not in (GRAPH_MODE, PYNATIVE_MODE):
        raise ValueError(f"For 'context.set_context', the argument 'mode' should be "
                         f"context.GRAPH_MODE (0) or context.PYNATIVE_MODE (1), but got {value}.")


def _check_deterministic(value):
    if value not in ("ON", "OFF"):
        raise ValueError(f"For 'context.set_context', the argument 'deterministic' must be one "
                         f"of ['ON', 'OFF'], but got {value}.")


def _check_device_target(value):
    if value not in ("CPU", "GPU", "Ascend"):
        raise ValueError(f"For 'context.set_context', the argument 'device_target' must be "
                         f"one of ['CPU', 'GPU', 'Ascend'], but got {value!r}.")
    if value == "Ascend":
        raise ValueError("For 'context.set_context', device_target 'Ascend' is not available "
                         "in minispore; use 'CPU' or 'GPU'.")


def _print_file_path(value):
    """The file ops.Print writes to, as MindSpore's set_print_file_path names it: the real
    path, with ``.<seconds since the epoch>`` appended when that file already exists (so a
    run never appends to an earlier run's prints)."""
    if value == "":
        return value    # the default: stdout again
    path = os.path.realpath(value)
    if os.path.isdir(path):
        raise IOError(f"For 'context.set_context', the argument 'print_file_path' should be "
                      f"file path, but got directory {value}.")
    if os.path.exists(path):
        path = f"{path}.{int(time.time())}"
        if os.path.exists(path):
            raise ValueError(f"For 'context.set_context', the argument 'print_file_path' "
                             f"{path} already exists, please check it.")
    return path


def _check_max_call_depth(value):
    if value <= 0:
        raise ValueError(f"For 'context.set_context', the argument 'max_call_depth' must be "
                         f"greater than 0, but got {value}.")


def _check_save_graphs(value):
    if not isinstance(value, (bool, int)) or not 0 <= int(value) <= 3:
        raise ValueError(f"For 'context.set_context', the argument 'save_graphs' must be a "
                         f"bool or an int in [0, 3], but got {value!r}.")


def _option(name, default, kind=None, check=None, keys_compile=False):
    return Option("context", name, default=default, kind=kind, check=check,
                  keys_compile=keys_compile)


REGISTRY.declare(
    _option("mode", PYNATIVE_MODE, check=_check_mode),
    # the device a graph's constants and kernels belong to, so both key the compile cache
    _option("device_target", "CPU", check=_check_device_target, keys_compile=True),
    _option("device_id", 0, keys_compile=True),
    # read while compiling (graphs are dumped then), so they key the cache; their defaults are
    # MindSpore's environment variables (a script need not change)
    _option("save_graphs", lambda: REGISTRY.env("MS_DEV_SAVE_GRAPHS"),
            check=_check_save_graphs, keys_compile=True),
    _option("save_graphs_path", lambda: REGISTRY.env("MS_DEV_SAVE_GRAPHS_PATH"), kind=str,
            keys_compile=True),
    _option("runtime_num_threads", 0),
    _option("print_file_path", "", kind=str),     # ops.Print writes here instead of stdout
    # nested Cell calls while tracing a graph
    _option("max_call_depth", 1000, kind=int, check=_check_max_call_depth, keys_compile=True),
    _option("pynative_synchronize", False, kind=bool),  # synchronise after every eager op
    # "ON": kernels that would add in a varying order (the CUDA segment sum behind Gather's
    # gradient adds atomically) use a fixed order; the CPU kernels are deterministic anyway.
    _option("deterministic", "OFF", check=_check_deterministic),
    *(Option("context", key, default=default, no_effect=why)
      for key, (default, why) in _NO_EFFECT.items()),
)

# Values stored as something other than what was given.
_NORMALIZE = {"print_file_path": _print_file_path,
              "save_graphs": lambda v: (2 if v else 0) if isinstance(v, bool) else v}


class _ThreadState(threading.local):
    interpreter = None   # the top of the interpreter stack (None: only the base, eager)

    def __init__(self):
        # Made once per thread (threading.local runs __init__ in each), so a reader on the
        # eager hot path takes them as plain attributes; they are only ever changed in place.
        self.scopes = []
        self.frames = []


# [the function running a call at the base of every stack, the plain eager interpreter, its
# profiled twin]: the first is the second, or the third while a profiler records
# (common/profiling.py start/stop). ops/interpreter.py provides both at import.
BASE = REGISTRY.owned("common.base_interpreter", lambda: [None, None, None])


class Interpreter:
    """One level of this thread's interpreter stack (JAX's trace stack is the anchor).
    ``Primitive.__call__`` hands every call to the top level (ops/interpreter.py); a level
    handles it and may hand calls to the level below (`apply_below`), down to the base, the
    eager interpreter. Levels are entered as context managers:

    - the graph tracer (graph/tracer.py, ``traces``): records the call as a node, hands
      nothing below, so the levels under it never see a traced call;
    - an eager SPMD region (parallel/eager_region.py, ``expands``): runs each call as other
      calls on the levels below it;
    - an autodiff tape (ops/autodiff.py, ``records``): hands the call below and records it.
      A tape entered while expanding levels are on top goes beneath them, so it records the
      calls that really run (a region's per-block calls), never the ones they stand for;
    - a batching level (ops/batching.py, ``batches``): runs a call on mapped tensors as the
      operator's call on the whole batch, on the levels below.

    The profiler is the base's profiled twin (BASE). A level may be entered again while it is
    on the stack (a pass re-entering its graph's tracer): each entry keeps its own below.
    """
    traces = False
    expands = False
    records = False
    batches = False

    def __init__(self):
        self._belows = []
        self._reentries = 0

    @property
    def below(self):
        """The level under this one (None: the base)."""
        return self._belows[-1]

    def apply_below(self, prim, args):
        below = self._belows[-1]
        if below is None:
            return BASE[0](prim, args)
        return below.apply(prim, args)

    def apply(self, prim, args):
        raise NotImplementedError(f"{type(self).__name__}.apply")

    # An in-place write (Tensor.__setitem__) swaps the contents of two tensor objects; every
    # level that keeps tensors (a tape's entries, a tracer's node inputs) is told first.
    def check_replace(self, old, new, name):
        """Raise when this level cannot let `old` take `new`'s value in place."""

    def replace(self, old, new):
        """`old` and `new` are about to swap contents: swap them in what this level keeps."""

    def __enter__(self):
        local = _CONTEXT._local
        top = local.interpreter
        if top is self:
            self._reentries += 1
            return self
        if self._belows:
            raise RuntimeError(f"{type(self).__name__} entered again while it is on the "
                               f"interpreter stack below other levels (a minispore bug).")
        if self.records and top is not None and top.expands:
            above = top
            while above._belows[-1] is not None and above._belows[-1].expands:
                above = above._belows[-1]
            self._belows.append(above._belows[-1])
            above._belows[-1] = self
        else:
            self._belows.append(top)
            local.interpreter = self
        return self

    def __exit__(self, *exc):
        if self._reentries:
            self._reentries -= 1
            return False
        local = _CONTEXT._local
        below = self._belows.pop()
        if local.interpreter is self:
            local.interpreter = below
        else:   # a tape beneath expanding levels, or left by a level that exits later
            above = local.interpreter
            while above is not None and above._belows[-1] is not self:
                above = above._belows[-1]
            if above is not None:
                above._belows[-1] = below
        return False


def _levels():
    """This thread's stack, top first."""
    level = _CONTEXT._local.interpreter
    while level is not None:
        yield level
        level = level._belows[-1]


class _Context:
    """The execution context: the set_context view over the settings registry, and this
    thread's interpreter stack and cell scopes."""

    def __init__(self):
        self._local = _ThreadState()

    # -- settings ------------------------------------------------------------------------
    def set(self, **kwargs):
        for key, value in kwargs.items():
            REGISTRY.validate("context", key, value)
        if kwargs.get("device_target") == "GPU":
            # Fail here, at the clearest point, rather than at the first kernel launch.
            from minispore.device import cuda
            cuda.require(kwargs.get("device_id", REGISTRY.get("context", "device_id")))
        REGISTRY.store("context", {key: _NORMALIZE.get(key, lambda v: v)(value)
                                   for key, value in kwargs.items()})

    def get(self, key):
        if key not in _NAMES:
            raise ValueError(f"For 'context.get_context', the keyword argument {key} is not "
                             f"recognized! The valid keys are: {sorted(_NAMES)}.")
        return REGISTRY.get("context", key)

    def snapshot(self):
        """The settings (every registry scope) as they are now, for `restore`."""
        return REGISTRY.snapshot()

    def restore(self, snapshot):
        """Put the settings back as `snapshot` took them, read the environment again, empty
        this thread's interpreter stack and cell scopes and let the layers above forget their
        per-run state (the "common.after_restore" hooks): what tests/conftest.py does after
        every test, in one call."""
        REGISTRY.restore(snapshot)
        REGISTRY.reload_environment()
        self._local.interpreter = None
        self.scopes.clear()
        for hook in REGISTRY.plugged("common.after_restore", ()):
            hook()

    @property
    def mode(self):
        return REGISTRY.get("context", "mode")

    @property
    def device(self):
        return "cuda" if REGISTRY.get("context", "device_target") == "GPU" else "cpu"

    # -- per-thread interpreter state ----------------------------------------------------
    def levels(self):
        """This thread's interpreter stack, top first."""
        return list(_levels())

    @property
    def tapes(self):
        """The autodiff tapes on the interpreter stack (outermost first)."""
        return [level for level in _levels() if level.records][::-1]

    @property
    def batching(self):
        """Whether a vmap's batching level is on the stack above every tracer: a compiled
        function or GRAPH-mode Cell called now runs inline, its calls batched one by one
        (its arguments hold one value per slice, which a compiled graph cannot take)."""
        for level in _levels():
            if level.batches:
                return True
            if level.traces:
                return False
        return False

    @property
    def scopes(self):
        """The stack of cell names being called right now (root first), for error messages."""
        return self._local.scopes

    @property
    def annotation_frames(self):
        """The annotations (recompute, place, pipeline_stage …) of the cells running right
        now, outermost first: every node traced inside inherits them."""
        return self._local.frames

    @property
    def interpreter(self):
        """The top of the interpreter stack, which ``Primitive.__call__`` hands calls to
        (None: the base, eager)."""
        return self._local.interpreter

    @interpreter.setter
    def interpreter(self, value):
        self._local.interpreter = value

    @property
    def tracer(self):
        """The graph tracer on this thread's interpreter stack (the innermost), or None: what
        decides whether a call compiles (the outermost one) or is traced into the graph
        being built."""
        for level in _levels():
            if level.traces:
                return level
        return None

    @contextmanager
    def tapes_suspended(self):
        """The tapes taken off the stack while the block runs (the levels between them keep
        their order): the calls in it are recorded by none of them."""
        levels = list(_levels())
        saved = [(level, level._belows[-1]) for level in levels]
        kept = [level for level in levels if not level.records]
        for upper, lower in zip(kept, kept[1:] + [None]):
            upper._belows[-1] = lower
        self._local.interpreter = kept[0] if kept else None
        try:
            yield
        finally:
            for level, below in saved:
                level._belows[-1] = below
            self._local.interpreter = levels[0] if levels else None

    def scope_name(self, leaf=""):
        parts = list(self.scopes) + ([leaf] if leaf else [])
        return ".".join(parts)


_CONTEXT = _Context()
device.set_target_source(lambda: REGISTRY.get("context", "device_target"))
_NAMES = frozenset(REGISTRY.names("context"))


def context():
    return _CONTEXT


def set_context(**kwargs):
    """Set global settings, MindSpore style: ``set_context(mode=GRAPH_MODE, device_target='CPU')``.

    Unknown keys raise ValueError listing the valid ones. Keys MindSpore has that mean nothing
    in minispore (``enable_graph_kernel``, ``jit_config``, ``enable_compile_cache`` …) are
    stored and log a warning that names them and says why they have no effect.
    """
    _CONTEXT.set(**kwargs)


def get_context(key):
    return _CONTEXT.get(key)
