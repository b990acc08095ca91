"""Auto-parallel settings (parallel_mode, device_num …) as plain data; the parallel pass reads them."""

_DEFAULTS = {
    "parallel_mode": "stand_alone",
    "device_num": 1,
    "global_rank": 0,
    "gradients_mean": False,
    "gradient_fp32_sync": True,
    "full_batch": False,
    "dataset_strategy": "data_parallel",
    "search_mode": "recursive_programming",
    "enable_alltoall": False,
    "enable_parallel_optimizer": False,
    "parallel_optimizer_config": {},
    "pipeline_stages": 1,
    "pipeline_config": {},
    "strategy_ckpt_config": {},
    "strategy_ckpt_load_file": "",
    "strategy_ckpt_save_file": "",
    "all_reduce_fusion_config": [],
    "comm_fusion": {},
    "parameter_broadcast": False,
    "auto_parallel_search_mode": "recursive_programming",
    "grad_accumulation_step": 1,
}

class ParallelMode:
    """The parallel_mode names (``ms.ParallelMode.SEMI_AUTO_PARALLEL`` …)."""
    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL, HYBRID_PARALLEL]


_PARALLEL_MODES = tuple(ParallelMode.MODE_LIST)

_settings = dict(_DEFAULTS)


def set_auto_parallel_context(**kwargs):
    """Set parallel settings; unknown keys raise ValueError listing the valid ones."""
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise ValueError(f"For 'set_auto_parallel_context', the keyword argument {key!r} is "
                             f"not recognized! The valid keys are: {sorted(_DEFAULTS)}.")
        if key == "parallel_mode" and value not in _PARALLEL_MODES:
            raise ValueError(f"For 'set_auto_parallel_context', 'parallel_mode' must be one of "
                             f"{list(_PARALLEL_MODES)}, but got {value!r}.")
        if key == "device_num" and (not isinstance(value, int) or not 1 <= value <= 4096):
            raise ValueError(f"For 'set_auto_parallel_context', 'device_num' must be an int in "
                             f"[1, 4096], but got {value!r}.")
    _settings.update(kwargs)


def get_auto_parallel_context(key):
    if key not in _DEFAULTS:
        raise ValueError(f"For 'get_auto_parallel_context', the keyword argument {key!r} is not "
                         f"recognized! The valid keys are: {sorted(_DEFAULTS)}.")
    return _settings[key]


def reset_auto_parallel_context():
    _settings.clear()
    _settings.update(_DEFAULTS)
