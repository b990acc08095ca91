"""Global dataset settings (`ds.config`): seed, parallel workers, prefetch size."""
import os

from minispore.common import seed as _global_seed
from minispore.common.registry import REGISTRY, Option

# std::mt19937::default_seed: MindSpore's dataset seed before anyone sets one.
_DEFAULT_SEED = 5489
# MindSpore's default worker count: 8, or the machine's CPU count when smaller (2.7.2 reports 2
# on a 2-CPU machine, whatever the process's affinity).
_DEFAULT_WORKERS = min(8, os.cpu_count() or 1)
REGISTRY.declare(Option("dataset", "seed", default=None),
                 Option("dataset", "num_parallel_workers", default=_DEFAULT_WORKERS),
                 Option("dataset", "prefetch_size", default=16))


def _check_int(name, value, low):
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ValueError(f"For 'config.{name}', the argument must be an int >= {low}, "
                         f"but got {value!r}.")


def set_seed(seed):
    """Seed every random choice of the pipeline (shuffles, samplers, random transforms)."""
    _check_int("set_seed", seed, 0)
    if seed > 0xFFFFFFFF:
        raise ValueError(f"For 'config.set_seed', the seed must be in [0, 2**32 - 1], got {seed}.")
    REGISTRY.store("dataset", {"seed": seed})


def get_seed():
    """The dataset seed: ds.config.set_seed's value, else ms.set_seed's, else 5489."""
    return seed_if_set() if seed_if_set() is not None else _DEFAULT_SEED


def seed_if_set():
    """The seed a user chose (ds.config first, then ms.set_seed), or None."""
    if REGISTRY.get("dataset", "seed") is not None:
        return REGISTRY.get("dataset", "seed")
    return _global_seed.get_seed()


def set_num_parallel_workers(num):
    """Accepted for compatibility; the pipeline runs on one background thread per iterator."""
    _check_int("set_num_parallel_workers", num, 1)
    REGISTRY.store("dataset", {"num_parallel_workers": num})


def get_num_parallel_workers():
    return REGISTRY.get("dataset", "num_parallel_workers")


def set_prefetch_size(size):
    """How many rows the background thread may prepare ahead of the consumer."""
    _check_int("set_prefetch_size", size, 1)
    REGISTRY.store("dataset", {"prefetch_size": size})


def get_prefetch_size():
    return REGISTRY.get("dataset", "prefetch_size")
