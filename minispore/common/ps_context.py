"""The parameter-server context (MindSpore's set_ps_context / get_ps_context / reset_ps_context).

The parameter server is not built yet: turning it on raises NotImplementedError instead of
training every parameter on the workers as if it had been accepted.
"""

_DEFAULTS = {"enable_ps": False}
_settings = dict(_DEFAULTS)

__all__ = ["set_ps_context", "get_ps_context", "reset_ps_context"]


def set_ps_context(**kwargs):
    """``set_ps_context(enable_ps=True)`` before ``init()`` (MindSpore's keys: enable_ps)."""
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise ValueError(f"For 'set_ps_context', the keyword argument {key!r} is not "
                             f"recognized! The valid keys are: {sorted(_DEFAULTS)}.")
        if not isinstance(value, bool):
            raise TypeError(f"For 'set_ps_context', '{key}' must be bool, but got the type : "
                            f"{type(value).__name__}.")
    if kwargs.get("enable_ps"):
        raise NotImplementedError(
            "For 'set_ps_context', enable_ps=True (parameter server training) is not "
            "implemented in minispore yet; train with data parallel "
            "(parallel_mode='data_parallel') or semi-auto parallel instead.")
    _settings.update(kwargs)


def get_ps_context(key):
    if key not in _DEFAULTS:
        raise ValueError(f"For 'get_ps_context', the keyword argument {key!r} is not "
                         f"recognized! The valid keys are: {sorted(_DEFAULTS)}.")
    return _settings[key]


def reset_ps_context():
    _settings.clear()
    _settings.update(_DEFAULTS)
