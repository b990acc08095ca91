"""The parameter-server context (MindSpore's set_ps_context / get_ps_context / reset_ps_context).

``enable_ps=True`` before ``init()`` turns on parameter-server training (minispore/ps/): the
MS_PSERVER processes of the job hold the parameters marked ``set_param_ps`` and update them.
``sync_mode`` is minispore's own key (MindSpore documents synchronous SGD only): True applies
the mean of every worker's gradient once per step, False applies each worker's push as it
arrives (asynchronous SGD). MindSpore's other keys are accepted at their defaults and refused
otherwise, each naming the mechanism minispore does not have.
"""

_DEFAULTS = {"enable_ps": False, "sync_mode": True, "config_file_path": "",
             "scheduler_manage_port": 11202, "enable_ssl": False, "client_password": "",
             "server_password": ""}
_TYPES = {"enable_ps": bool, "sync_mode": bool, "config_file_path": str,
          "scheduler_manage_port": int, "enable_ssl": bool, "client_password": str,
          "server_password": str}
# What a non-default value of these keys would ask for.
_UNBUILT = {
    "config_file_path": "parameter-server disaster recovery from a configuration file",
    "scheduler_manage_port": "the scheduler's HTTP port for scaling the cluster in and out",
    "enable_ssl": "SSL between the processes of the job",
    "client_password": "SSL between the processes of the job",
    "server_password": "SSL between the processes of the job",
}
_settings = dict(_DEFAULTS)

__all__ = ["set_ps_context", "get_ps_context", "reset_ps_context"]


def set_ps_context(**kwargs):
    """``set_ps_context(enable_ps=True, sync_mode=True)`` before ``init()``.

    Raises:
        ValueError: an unknown key.
        TypeError: a value of the wrong type.
        NotImplementedError: a non-default value of a key minispore does not implement.
    """
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise ValueError(f"For 'set_ps_context', the keyword argument {key!r} is not "
                             f"recognized! The valid keys are: {sorted(_DEFAULTS)}.")
        kind = _TYPES[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise TypeError(f"For 'set_ps_context', '{key}' must be {kind.__name__}, but got "
                            f"the type : {type(value).__name__}.")
        if key in _UNBUILT and value != _DEFAULTS[key]:
            raise NotImplementedError(
                f"For 'set_ps_context', {key}={value!r} asks for {_UNBUILT[key]}, which "
                f"minispore's parameter server does not have; leave {key} at its default "
                f"{_DEFAULTS[key]!r}.")
    _settings.update(kwargs)


def get_ps_context(key):
    if key not in _DEFAULTS:
        raise ValueError(f"For 'get_ps_context', the keyword argument {key!r} is not "
                         f"recognized! The valid keys are: {sorted(_DEFAULTS)}.")
    return _settings[key]


def reset_ps_context():
    _settings.clear()
    _settings.update(_DEFAULTS)
