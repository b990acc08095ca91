"""HookHandle: what the Cell hook registrations return; ``remove()`` unregisters the hook."""


class HookHandle:
    """Removes one hook from the table it was registered in (``Cell.register_forward_hook``
    and its siblings return one). A handle made for a registration that did not happen (GRAPH
    mode, where MindSpore warns and registers nothing) removes nothing.

    >>> table = {}
    >>> handle = HookHandle(table, 0)
    >>> table[0] = print
    >>> handle.remove(); table
    {}
    """

    def __init__(self, hooks=None, key=None):
        self._hooks = hooks
        self._key = key

    def remove(self):
        if self._hooks is not None:
            self._hooks.pop(self._key, None)
