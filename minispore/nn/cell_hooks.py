"""Cell's forward and backward hooks (MindSpore's Cell.register_*_hook), PYNATIVE only: the
registration methods and the hooked call Cell._run_construct switches to while a cell has any.
The backward hooks' gradient boundaries live in minispore/ops/autodiff.py."""
import logging
from collections import OrderedDict
from types import FunctionType, MethodType

from minispore.common.context import GRAPH_MODE, context
from minispore.common.hook_handle import HookHandle

logger = logging.getLogger("minispore")

_CTX = context()
HOOK_KINDS = ("forward_pre_hook", "forward_hook", "backward_hook", "backward_pre_hook")
HOOK_TABLES = tuple("_" + kind for kind in HOOK_KINDS)    # the Cell attributes holding them


class CellHooks:
    """Mixed into Cell; Cell.__init__ makes the four OrderedDict tables and `_hook_key`."""

    def _run_hooked(self, args, kwargs):
        """PYNATIVE call with hooks: forward pre hooks on the positional inputs, the cell between
        the backward hooks' gradient boundaries (minispore/ops/autodiff.py), then the forward
        hooks on the output. Keyword arguments reach construct only, as in MindSpore."""
        if _CTX.tracer is not None:
            kinds = [k for k, t in zip(HOOK_KINDS, HOOK_TABLES) if self.__dict__.get(t)]
            raise RuntimeError(
                f"{type(self).__name__} has hooks registered ({', '.join(kinds)}), but it is "
                f"being compiled (GRAPH_MODE or ms.jit), where Cell hooks do not run: they "
                f"work in PYNATIVE_MODE only, as in MindSpore. Remove them (handle.remove()) "
                f"or call set_context(mode=PYNATIVE_MODE) before running the cell.")
        d = self.__dict__
        for hook in tuple(d.get("_forward_pre_hook", {}).values()):
            ret = hook(self, args)
            if ret is not None:
                args = ret if isinstance(ret, tuple) else (ret,)
        backward, pre = d.get("_backward_hook", {}), d.get("_backward_pre_hook", {})
        if backward or pre:
            from minispore.ops.autodiff import run_backward_hooked
            out = run_backward_hooked(self, backward.values(), args,
                                      lambda a: self._run_annotated(a, kwargs), pre.values())
        else:
            out = self._run_annotated(args, kwargs)
        for hook in tuple(d.get("_forward_hook", {}).values()):
            ret = hook(self, args, out)
            if ret is not None:
                out = ret
        return out

    def _register_hook(self, kind, hook_fn):
        """Add `hook_fn` to the `kind` table (PYNATIVE); a HookHandle that removes it."""
        name = f"register_{kind}"
        if _CTX.mode != GRAPH_MODE and not isinstance(hook_fn, (FunctionType, MethodType)):
            raise TypeError(f"When using '{name}(hook_fn)', the type of 'hook_fn' must be "
                            f"python function, but got {type(hook_fn)}.")
        if _CTX.mode == GRAPH_MODE or _CTX.tracer is not None:
            logger.warning("'%s' function is only supported in pynative mode, you can use "
                           "context.set_context to set pynative mode. The hook is not "
                           "registered.", name)
            return HookHandle()
        if "_" + kind not in self.__dict__:     # a cell unpickled from before hooks existed
            object.__setattr__(self, "_" + kind, OrderedDict())
        table = self.__dict__["_" + kind]
        key = self.__dict__.get("_hook_key", 0)
        object.__setattr__(self, "_hook_key", key + 1)
        table[key] = hook_fn
        return HookHandle(table, key)

    def register_forward_pre_hook(self, hook_fn):
        """Call ``hook_fn(cell, inputs)`` before each run of this cell; ``inputs`` is the tuple
        of positional inputs, and a value other than None replaces it (a non-tuple is taken
        as the single input). PYNATIVE_MODE only, as in MindSpore: in GRAPH_MODE this logs a
        warning and registers nothing; a cell whose hooks were registered in PYNATIVE_MODE
        raises RuntimeError if it is then compiled (GRAPH_MODE, ms.jit).

        Returns:
            HookHandle: ``handle.remove()`` unregisters the hook.

        Raises:
            TypeError: `hook_fn` is not a Python function or method.

        >>> import numpy as np, minispore as ms
        >>> from minispore import nn
        >>> net = nn.ReLU()
        >>> handle = net.register_forward_pre_hook(lambda cell, inputs: (inputs[0] * 2,))
        >>> net(ms.Tensor(np.array([1.0, -1.0], np.float32)))
        Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  0.00000000e+00])
        >>> handle.remove()
        """
        return self._register_hook("forward_pre_hook", hook_fn)

    def register_forward_hook(self, hook_fn):
        """Call ``hook_fn(cell, inputs, output)`` after each run of this cell; a value other
        than None replaces the output. PYNATIVE_MODE only (see register_forward_pre_hook).

        Returns:
            HookHandle: ``handle.remove()`` unregisters the hook.

        Raises:
            TypeError: `hook_fn` is not a Python function or method.
        """
        return self._register_hook("forward_hook", hook_fn)

    def register_backward_hook(self, hook_fn):
        """Call ``hook_fn(cell, grad_input, grad_output)`` when the backward pass goes through
        this cell: ``grad_output`` is the tuple of cotangents at the cell's tensor outputs,
        ``grad_input`` those at its tensor inputs, computed even where nothing before the cell
        is differentiated (the first layer on data; None for each input of a cell without
        float inputs); a value other than None (one Tensor per input, same shapes) replaces
        grad_input for the rest of the backward.
        PYNATIVE_MODE only (see register_forward_pre_hook).

        Returns:
            HookHandle: ``handle.remove()`` unregisters the hook.

        Raises:
            TypeError: `hook_fn` is not a Python function or method.
            ValueError: (in the backward) the hook returned the wrong number or shapes.
        """
        return self._register_hook("backward_hook", hook_fn)

    def register_backward_pre_hook(self, hook_fn):
        """Call ``hook_fn(cell, grad_output)`` when the backward pass reaches this cell's
        outputs, before it goes through the cell: ``grad_output`` is the tuple of cotangents at
        the cell's tensor outputs; a value other than None (one Tensor per output, same
        shapes) replaces it, for the cell's own backward and its backward hooks.
        PYNATIVE_MODE only (see register_forward_pre_hook).

        Returns:
            HookHandle: ``handle.remove()`` unregisters the hook.

        Raises:
            TypeError: `hook_fn` is not a Python function or method.
            ValueError: (in the backward) the hook returned the wrong number or shapes.
        """
        return self._register_hook("backward_pre_hook", hook_fn)
