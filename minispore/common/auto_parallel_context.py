"""set_auto_parallel_context's options (parallel_mode, device_num …), declared in the settings
registry; the parallel passes read them from the PassContext's options."""
import copy
import logging

from minispore.common.context import PYNATIVE_MODE
from minispore.common.layout import check_strategy_tuples
from minispore.common.registry import REGISTRY, Option

logger = logging.getLogger("minispore")

MAX_DEVICE_NUM = 4096         # MindSpore's upper bound on device_num

# MindSpore's _ParallelFusionConfig.CONFIG: what get_auto_parallel_context("comm_fusion") shows
# after a reset; a set merges its keys into it (openstate True when not given).
_COMM_FUSION_DEFAULT = {"openstate": True,
                        "allreduce": {"mode": "auto", "config": None},
                        "allgather": {"mode": "auto", "config": None},
                        "reducescatter": {"mode": "auto", "config": None}}


class ParallelMode:
    """The parallel_mode names (``ms.ParallelMode.SEMI_AUTO_PARALLEL`` …)."""
    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL, HYBRID_PARALLEL]


_PARALLEL_MODES = tuple(ParallelMode.MODE_LIST)


def set_auto_parallel_context(**kwargs):
    """Set parallel settings; unknown keys raise ValueError listing the valid ones."""
    for key, value in kwargs.items():
        REGISTRY.validate("auto_parallel", key, value)
    _check_global_rank(kwargs)
    for key, value in kwargs.items():
        _refuse_unbuilt(key, value)
    _refuse_unbuilt_search(kwargs)
    if "auto_parallel_search_mode" in kwargs:
        logger.warning("'auto_parallel_search_mode' is deprecated; use 'search_mode'.")
        kwargs = dict(kwargs, search_mode=kwargs["auto_parallel_search_mode"])
    if "search_mode" in kwargs:
        kwargs = dict(kwargs, auto_parallel_search_mode=kwargs["search_mode"])
    if "comm_fusion" in kwargs:
        merged = dict(_get("comm_fusion"), openstate=True)
        merged.update(copy.deepcopy(kwargs["comm_fusion"]))
        kwargs = dict(kwargs, comm_fusion=merged)
    REGISTRY.store("auto_parallel", _one_batch_state(kwargs))


def _get(key):
    return REGISTRY.get("auto_parallel", key)


def _one_batch_state(kwargs):
    """full_batch and a string dataset_strategy are one setting, as in MindSpore, whose
    set_dataset_strategy("full_batch" | "data_parallel") calls set_full_batch and whose
    get_dataset_strategy reads full_batch back (parallel/_auto_parallel_context.py)."""
    strategy = kwargs.get("dataset_strategy")
    if isinstance(strategy, str):
        return dict(kwargs, full_batch=strategy == "full_batch")
    if "full_batch" in kwargs and "dataset_strategy" not in kwargs and \
            isinstance(_get("dataset_strategy"), str):
        return dict(kwargs, dataset_strategy="full_batch" if kwargs["full_batch"]
                    else "data_parallel")
    return kwargs


def user_set(key):
    """Whether the script set `key` since the last reset (MindSpore's shard reads this)."""
    return REGISTRY.user_set("auto_parallel", key)


# Settings minispore validates but does not implement yet: each raises NotImplementedError
# naming itself and what works instead, never a silent no-op. Their issues replace the entries.
def _refuse_unbuilt(key, value):
    what = None
    if key == "grad_accumulation_step" and value != 1:
        what = (f"grad_accumulation_step={value} (gradient accumulation)",
                "use grad_accumulation_step=1")
    elif key == "parameter_broadcast" and value:
        what = ("parameter_broadcast=True (rank 0's parameters broadcast before training)",
                "give every rank the same ms.set_seed so that their parameters start equal")
    elif key == "pipeline_config" and value.get("pipeline_interleave"):
        what = ("pipeline_config['pipeline_interleave']=True (interleaved pipeline stages)",
                "leave it False: the 1f1b and gpipe schedules are built")
    if what is not None:
        raise NotImplementedError(f"For 'set_auto_parallel_context', {what[0]} is not "
                                  f"implemented in minispore yet; {what[1]}.")


def _refuse_unbuilt_search(kwargs):
    """auto_parallel is built for every search_mode in GRAPH_MODE, and for shard regions
    (sharding_propagation) in PYNATIVE_MODE."""
    mode = kwargs.get("parallel_mode", _get("parallel_mode"))
    if mode != ParallelMode.AUTO_PARALLEL:
        return
    search = kwargs.get("search_mode", kwargs.get("auto_parallel_search_mode",
                                                  _get("search_mode")))
    if REGISTRY.get("context", "mode") == PYNATIVE_MODE and search != "sharding_propagation":
        # In PYNATIVE only shard regions act, and they propagate (mindspore_semantics.md §6.2).
        raise NotImplementedError(
            f"For 'set_auto_parallel_context', parallel_mode='auto_parallel' in PYNATIVE_MODE "
            f"with search_mode={search!r} is not implemented in minispore: eager code runs "
            f"sharded only inside ms.shard / Cell.shard regions, which need "
            f"search_mode='sharding_propagation'.")


def _check_global_rank(kwargs):
    if "global_rank" not in kwargs:
        return
    rank = kwargs["global_rank"]
    if isinstance(rank, bool) or not isinstance(rank, int):
        raise TypeError(f"For 'set_auto_parallel_context', the argument 'global_rank' must be "
                        f"int, but got the type : {type(rank).__name__}.")
    device_num = kwargs.get("device_num", _get("device_num"))
    if not 0 <= rank < max(device_num, 1) or rank > 4095:
        raise ValueError(f"For 'set_auto_parallel_context', 'global_rank' must be in [0, "
                         f"device_num) = [0, {device_num}) and at most 4095, but got {rank}.")


def _check_fusion_indices(name, value):
    """A non-empty, strictly ascending list of ints (all_reduce_fusion_config, index mode)."""
    if not isinstance(value, list):
        raise TypeError(f"For 'set_auto_parallel_context', '{name}' must be a list of ints, "
                        f"but got the type : {type(value).__name__}.")
    for v in value:
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"For 'set_auto_parallel_context', every index of '{name}' must "
                            f"be an int, but got {v!r} in {value}.")
    if not value:
        raise ValueError(f"For 'set_auto_parallel_context', '{name}' must not be empty.")
    if any(b <= a for a, b in zip(value, value[1:])):
        raise ValueError(f"For 'set_auto_parallel_context', '{name}' must be strictly "
                         f"ascending without duplicates, but got {value}.")


_FUSION_MODES = {"allreduce": ("auto", "size", "index"), "allgather": ("auto", "size"),
                 "reducescatter": ("auto", "size")}


def _check_comm_fusion(value):
    """comm_fusion = {"openstate": bool, "allreduce"|"allgather"|"reducescatter":
    {"mode": ..., "config": ...}} (mindspore_semantics.md §11.1)."""
    if not isinstance(value, dict):
        raise TypeError(f"For 'set_auto_parallel_context', 'comm_fusion' must be a dict, but "
                        f"got the type : {type(value).__name__}.")
    for key, sub in value.items():
        if key == "openstate":
            if not isinstance(sub, bool):
                raise TypeError(f"For 'comm_fusion', 'openstate' must be bool, but got the "
                                f"type : {type(sub).__name__}.")
            continue
        if key not in _FUSION_MODES:
            raise KeyError(f"For 'comm_fusion', the key must be one of ['openstate', "
                           f"'allreduce', 'allgather', 'reducescatter'], but got {key!r}.")
        if not isinstance(sub, dict):
            raise TypeError(f"For 'comm_fusion', the config of '{key}' must be a dict with "
                            f"'mode' and 'config', but got the type : {type(sub).__name__}.")
        for field in ("mode", "config"):
            if field not in sub:
                raise KeyError(f"For 'comm_fusion', the config of '{key}' must contain "
                               f"'{field}', but got {sub}.")
        mode, config = sub["mode"], sub["config"]
        if mode not in _FUSION_MODES[key]:
            raise KeyError(f"For 'comm_fusion', the mode of '{key}' must be one of "
                           f"{list(_FUSION_MODES[key])}, but got {mode!r}.")
        if mode == "size":
            if not isinstance(config, int) or isinstance(config, bool):
                raise TypeError(f"For 'comm_fusion', the 'size' config of '{key}' must be an "
                                f"int (MB), but got {config!r}.")
            if config < 0:
                raise ValueError(f"For 'comm_fusion', the 'size' config of '{key}' must be "
                                 f">= 0 (MB), but got {config}.")
        elif mode == "index":
            _check_fusion_indices(f"comm_fusion['{key}']['config']", config)


def _check_dataset_strategy(value):
    """"data_parallel", "full_batch", or one tuple of positive ints per dataset column."""
    if isinstance(value, str):
        if value not in ("data_parallel", "full_batch"):
            raise ValueError(f"For 'set_auto_parallel_context', 'dataset_strategy' must be "
                             f"'data_parallel', 'full_batch' or a tuple of int tuples, but got "
                             f"{value!r}.")
        return
    check_strategy_tuples("set_auto_parallel_context", "dataset_strategy", value)
    if REGISTRY.get("context", "mode") == PYNATIVE_MODE:
        raise ValueError("For 'set_auto_parallel_context', the tuple form of 'dataset_strategy' "
                         "is only supported in GRAPH_MODE (call set_context(mode=GRAPH_MODE) "
                         "first).")


_SEARCH_MODES = ("recursive_programming", "sharding_propagation", "dynamic_programming")


def _check_search_mode(key):
    def check(value):
        if value not in _SEARCH_MODES:
            raise ValueError(f"For 'set_auto_parallel_context', '{key}' must be one of "
                             f"{list(_SEARCH_MODES)}, but got {value!r}.")
    return check


def _check_pipeline_stages(value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For 'set_auto_parallel_context', the argument 'pipeline_stages' must "
                        f"be int, but got the type : {type(value).__name__}.")
    if value < 1:
        raise ValueError(f"For 'set_auto_parallel_context', 'pipeline_stages' must be >= 1, "
                         f"but got {value}.")


PIPELINE_SCHEDULERS = ("1f1b", "gpipe")


def _check_pipeline_config(value):
    if not isinstance(value, dict):
        raise TypeError(f"For 'set_auto_parallel_context', the argument 'pipeline_config' must "
                        f"be dict, but got the type : {type(value).__name__}.")
    for key, item in value.items():
        if key == "pipeline_interleave":
            if not isinstance(item, bool):
                raise TypeError(f"For 'set_auto_parallel_context', "
                                f"pipeline_config['pipeline_interleave'] must be bool, but got "
                                f"the type : {type(item).__name__}.")
        elif key == "pipeline_scheduler":
            if item not in PIPELINE_SCHEDULERS:
                raise ValueError(f"For 'set_auto_parallel_context', "
                                 f"pipeline_config['pipeline_scheduler'] must be one of "
                                 f"{list(PIPELINE_SCHEDULERS)}, but got {item!r}.")
        else:
            raise ValueError(f"For 'set_auto_parallel_context', pipeline_config has the unknown "
                             f"key {key!r}; the valid keys are ['pipeline_interleave', "
                             f"'pipeline_scheduler'].")


_OPTIMIZER_CONFIG_KEYS = ("gradient_accumulation_shard", "parallel_optimizer_threshold",
                          "optimizer_weight_shard_size", "optimizer_level")


def _check_parallel_optimizer_config(value):
    if not isinstance(value, dict):
        raise TypeError(f"For 'set_auto_parallel_context', 'parallel_optimizer_config' must be "
                        f"a dict, but got the type : {type(value).__name__}.")
    unknown = [k for k in value if k not in _OPTIMIZER_CONFIG_KEYS]
    if unknown:
        raise ValueError(f"For 'set_auto_parallel_context', 'parallel_optimizer_config' has "
                         f"unknown config: {unknown}; the valid keys are "
                         f"{list(_OPTIMIZER_CONFIG_KEYS)}.")
    where = "For 'set_auto_parallel_context', parallel_optimizer_config"
    for key, want in (("gradient_accumulation_shard", bool), ("parallel_optimizer_threshold", int),
                      ("optimizer_weight_shard_size", int), ("optimizer_level", str)):
        if key in value and (not isinstance(value[key], want)
                             or (want is int and isinstance(value[key], bool))):
            raise TypeError(f"{where}[{key!r}] must be {want.__name__}, but got the type : "
                            f"{type(value[key]).__name__}.")
    if value.get("parallel_optimizer_threshold", 0) < 0:
        raise ValueError(f"{where}['parallel_optimizer_threshold'] must be >= 0 (KB), but got "
                         f"{value['parallel_optimizer_threshold']}.")
    size = value.get("optimizer_weight_shard_size", -1)
    if size != -1 and size <= 0:
        raise ValueError(f"{where}['optimizer_weight_shard_size'] must be -1 or a positive "
                         f"int, but got {size}.")
    if value.get("optimizer_level", "level1") != "level1":
        raise NotImplementedError(f"{where}['optimizer_level']={value['optimizer_level']!r} is "
                                  f"not implemented in minispore; 'level1' (weights and "
                                  f"optimizer state sharded, gradients reduce-scattered) is.")


def optimizer_shard_settings():
    """(enabled, threshold in KB, optimizer_weight_shard_size, gradient_accumulation_shard)
    of optimizer parallel."""
    config = _get("parallel_optimizer_config")
    return (bool(_get("enable_parallel_optimizer")),
            config.get("parallel_optimizer_threshold", 64),
            config.get("optimizer_weight_shard_size", -1),
            bool(config.get("gradient_accumulation_shard", False)))


_STRATEGY_CKPT_TYPES = {"load_file": str, "save_file": str, "only_trainable_params": bool}


def strategy_ckpt_files():
    """(load_file, save_file, only_trainable_params): from strategy_ckpt_config, else the
    legacy strategy_ckpt_load_file / strategy_ckpt_save_file ('' when unset)."""
    config = _get("strategy_ckpt_config")
    return (config.get("load_file") or _get("strategy_ckpt_load_file"),
            config.get("save_file") or _get("strategy_ckpt_save_file"),
            config.get("only_trainable_params", True))


def _check_strategy_ckpt_config(value):
    if not isinstance(value, dict):
        raise TypeError(f"For 'set_auto_parallel_context', 'strategy_ckpt_config' must be a "
                        f"dict, but got the type : {type(value).__name__}.")
    for key, item in value.items():
        if key not in _STRATEGY_CKPT_TYPES:
            raise ValueError(f"For 'set_auto_parallel_context', 'strategy_ckpt_config' has an "
                             f"unknown key {key!r}; the valid keys are "
                             f"{list(_STRATEGY_CKPT_TYPES)}.")
        if not isinstance(item, _STRATEGY_CKPT_TYPES[key]):
            raise TypeError(f"For 'set_auto_parallel_context', strategy_ckpt_config[{key!r}] "
                            f"must be {_STRATEGY_CKPT_TYPES[key].__name__}, but got the type : "
                            f"{type(item).__name__}.")


def _check_parallel_mode(value):
    if value not in _PARALLEL_MODES:
        raise ValueError(f"For 'set_auto_parallel_context', 'parallel_mode' must be one of "
                         f"{list(_PARALLEL_MODES)}, but got {value!r}.")
    if value in (ParallelMode.SEMI_AUTO_PARALLEL, ParallelMode.HYBRID_PARALLEL) and \
            REGISTRY.get("context", "mode") == PYNATIVE_MODE:
        raise ValueError(f"For 'set_auto_parallel_context', in PYNATIVE_MODE 'parallel_mode' "
                         f"must be one of ['stand_alone', 'data_parallel', 'auto_parallel'], "
                         f"but got {value!r}; call set_context(mode=GRAPH_MODE) first.")


def _check_device_num(value):
    if not 1 <= value <= MAX_DEVICE_NUM:
        raise ValueError(f"For 'set_auto_parallel_context', 'device_num' must be an int in "
                         f"[1, {MAX_DEVICE_NUM}], but got {value!r}.")


def _option(name, default, kind=None, check=None, keys_compile=True, no_effect=None):
    """Nearly every parallel setting shapes the compiled program, so keys the cache."""
    return Option("auto_parallel", name, default=default, kind=kind, check=check,
                  keys_compile=keys_compile, no_effect=no_effect)


# The types are those MindSpore's set_auto_parallel_context checks with args_type_check
# (context.py) before any value check; the list, dict and pipeline_stages keys check their
# types in their check.
REGISTRY.declare(
    _option("parallel_mode", "stand_alone", str, _check_parallel_mode),
    _option("device_num", 1, int, _check_device_num),
    # init() sets it; the rank a compile runs as comes from the world, not from here
    _option("global_rank", 0, int, keys_compile=False),
    _option("gradients_mean", False, bool),
    _option("gradient_fp32_sync", True, bool, keys_compile=False,
            no_effect="gradients are all-reduced in the dtype they have; no cast to float32 "
                      "is inserted around the reduction"),
    _option("loss_repeated_mean", True, bool),
    _option("full_batch", False, bool),
    _option("dataset_strategy", "data_parallel", check=_check_dataset_strategy),
    _option("search_mode", "recursive_programming", str, _check_search_mode("search_mode")),
    _option("enable_alltoall", False, bool),
    _option("enable_parallel_optimizer", False, bool),
    _option("parallel_optimizer_config", dict, check=_check_parallel_optimizer_config),
    _option("pipeline_stages", 1, check=_check_pipeline_stages),
    _option("pipeline_config", dict, check=_check_pipeline_config),
    _option("pipeline_result_broadcast", False, bool),
    _option("strategy_ckpt_config", dict, check=_check_strategy_ckpt_config),
    _option("strategy_ckpt_load_file", "", str),
    _option("strategy_ckpt_save_file", "", str),
    _option("all_reduce_fusion_config", list,
            check=lambda v: _check_fusion_indices("all_reduce_fusion_config", v)),
    _option("comm_fusion", lambda: copy.deepcopy(_COMM_FUSION_DEFAULT),
            check=_check_comm_fusion),
    # refused unless at their defaults (_refuse_unbuilt), so they cannot change a compile
    _option("parameter_broadcast", False, bool, keys_compile=False),
    _option("auto_parallel_search_mode", "recursive_programming", str,
            _check_search_mode("auto_parallel_search_mode")),
    _option("grad_accumulation_step", 1, int, keys_compile=False),
)
_NAMES = frozenset(REGISTRY.names("auto_parallel"))


def get_auto_parallel_context(key):
    if key not in _NAMES:
        raise ValueError(f"For 'get_auto_parallel_context', the keyword argument {key!r} is not "
                         f"recognized! The valid keys are: {sorted(_NAMES)}.")
    return _get(key)


def reset_auto_parallel_context():
    REGISTRY.reset("auto_parallel")
