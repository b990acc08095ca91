"""The one context object: execution mode, device, debug settings and the active tape.

Registers its device_target with minispore/device (`set_target_source`) at import, so the
device layer below reads the setting from here without importing common.
"""
import logging
import os
import threading
import time

from minispore import device

GRAPH_MODE = 0
PYNATIVE_MODE = 1

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
    "deterministic": ("OFF", "the CPU kernels are deterministic already, and making the CUDA "
                             "kernels that accumulate with atomics deterministic is not built"),
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


def _env_save_graphs():
    """MS_DEV_SAVE_GRAPHS (an int in [0, 3], as save_graphs takes) or 0."""
    value = os.environ.get("MS_DEV_SAVE_GRAPHS", "0")
    if value not in ("0", "1", "2", "3"):
        raise ValueError(f"The environment variable MS_DEV_SAVE_GRAPHS must be 0, 1, 2 or 3, "
                         f"but got {value!r}.")
    return int(value)


class _ThreadState(threading.local):
    tracer = None        # the innermost graph tracer on this thread (None: not tracing)
    interpreter = None   # the top of the interpreter stack (None: the eager interpreter)


class _Context:
    def __init__(self):
        self._settings = {
            "mode": PYNATIVE_MODE,
            "device_target": "CPU",
            "device_id": 0,
            # MindSpore's environment variables set the defaults (a script need not change)
            "save_graphs": _env_save_graphs(),
            "save_graphs_path": os.environ.get("MS_DEV_SAVE_GRAPHS_PATH", "."),
            "runtime_num_threads": 0,
            "print_file_path": "",         # ops.Print writes to this file instead of stdout
            "max_call_depth": 1000,        # nested Cell calls while tracing a graph
            "pynative_synchronize": False,  # synchronise the device after every eager op
        }
        self._settings.update({key: default for key, (default, _) in _NO_EFFECT.items()})
        self._local = _ThreadState()

    # -- settings ------------------------------------------------------------------------
    def set(self, **kwargs):
        for key in kwargs:
            if key not in self._settings:
                raise ValueError(f"For 'context.set_context', the keyword argument {key} is not "
                                 f"recognized! The valid keys are: {sorted(self._settings)}.")
        for key, value in kwargs.items():
            getattr(self, "_check_" + key, lambda v: v)(value)
            value = getattr(self, "_set_" + key, lambda v: v)(value)
            if key == "save_graphs" and isinstance(value, bool):
                value = 2 if value else 0
            if key in _NO_EFFECT:
                logger.warning("For 'context.set_context', the parameter '%s' has no effect "
                               "in minispore: %s.", key, _NO_EFFECT[key][1])
            self._settings[key] = value

    def get(self, key):
        if key not in self._settings:
            raise ValueError(f"For 'context.get_context', the keyword argument {key} is not "
                             f"recognized! The valid keys are: {sorted(self._settings)}.")
        return self._settings[key]

    @staticmethod
    def _check_mode(value):
        if value not in (GRAPH_MODE, PYNATIVE_MODE):
            raise ValueError(f"For 'context.set_context', the argument 'mode' should be "
                             f"context.GRAPH_MODE (0) or context.PYNATIVE_MODE (1), but got {value}.")

    def _check_device_target(self, value):
        if value not in ("CPU", "GPU", "Ascend"):
            raise ValueError(f"For 'context.set_context', the argument 'device_target' must be "
                             f"one of ['CPU', 'GPU', 'Ascend'], but got {value!r}.")
        if value == "Ascend":
            raise ValueError("For 'context.set_context', device_target 'Ascend' is not available "
                             "in minispore; use 'CPU' or 'GPU'.")
        if value == "GPU":
            # Fail here, at the clearest point, rather than at the first kernel launch.
            from minispore.device import cuda
            cuda.require(self._settings["device_id"])

    @staticmethod
    def _set_print_file_path(value):
        """The file ops.Print writes to, as MindSpore's set_print_file_path names it: the real
        path, with ``.<seconds since the epoch>`` appended when that file already exists (so a
        run never appends to an earlier run's prints)."""
        if not isinstance(value, str):
            raise TypeError(f"For 'context.set_context', the argument 'print_file_path' must be "
                            f"str, but got the type : {type(value).__name__}.")
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

    @staticmethod
    def _check_max_call_depth(value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"For 'context.set_context', the argument 'max_call_depth' must be "
                            f"int, but got the type : {type(value).__name__}.")
        if value <= 0:
            raise ValueError(f"For 'context.set_context', the argument 'max_call_depth' must be "
                             f"greater than 0, but got {value}.")

    @staticmethod
    def _check_pynative_synchronize(value):
        if not isinstance(value, bool):
            raise TypeError(f"For 'context.set_context', the argument 'pynative_synchronize' "
                            f"must be bool, but got the type : {type(value).__name__}.")

    @staticmethod
    def _check_save_graphs(value):
        if not isinstance(value, (bool, int)) or not 0 <= int(value) <= 3:
            raise ValueError(f"For 'context.set_context', the argument 'save_graphs' must be a "
                             f"bool or an int in [0, 3], but got {value!r}.")

    @property
    def mode(self):
        return self._settings["mode"]

    @property
    def device(self):
        return "cuda" if self._settings["device_target"] == "GPU" else "cpu"

    # -- per-thread interpreter state ----------------------------------------------------
    @property
    def tapes(self):
        """The stack of autodiff tapes recording right now (innermost last)."""
        local = self._local
        if not hasattr(local, "tapes"):
            local.tapes = []
        return local.tapes

    @property
    def scopes(self):
        """The stack of cell names being called right now (root first), for error messages."""
        local = self._local
        if not hasattr(local, "scopes"):
            local.scopes = []
        return local.scopes

    @property
    def annotation_frames(self):
        """The annotations (recompute, place, pipeline_stage …) of the cells running right
        now, outermost first: every node traced inside inherits them."""
        local = self._local
        if not hasattr(local, "frames"):
            local.frames = []
        return local.frames

    @property
    def interpreter(self):
        """The interpreter ``Primitive.__call__`` hands calls to (None: eager)."""
        return self._local.interpreter

    @interpreter.setter
    def interpreter(self, value):
        self._local.interpreter = value

    @property
    def tracer(self):
        """The graph tracer that primitives are handed to on this thread, or None."""
        return self._local.tracer

    @tracer.setter
    def tracer(self, value):
        self._local.tracer = value

    def scope_name(self, leaf=""):
        parts = list(self.scopes) + ([leaf] if leaf else [])
        return ".".join(parts)


_CONTEXT = _Context()
device.set_target_source(lambda: _CONTEXT._settings["device_target"])


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
