"""Picks an operator's kernel for the current device: minispore.kernels.<cpu|cuda>.<family>.<name>."""
import importlib

from minispore.common.context import context
from minispore.common.registry import REGISTRY

_CTX = context()
_cache = REGISTRY.owned("ops.kernels", dict)   # (device, family, name) -> kernel
# [REGISTRY.version when read, the active device]: every kernel call of every operator asks,
# and reading the setting each time cost about 0.4 us of the 0.7 us lookup.
_DEVICE = REGISTRY.memo("ops.kernel_device", [-1, "cpu"])


def kernel(family, name, device=None):
    """The kernel function `name` of module `family` for the active device, or for `device`
    ("cpu" | "cuda") when the data's home is fixed, e.g. host-memory buffers (cached)."""
    if device is None:
        if _DEVICE[0] != REGISTRY.version:
            _DEVICE[1] = _CTX.device
            _DEVICE[0] = REGISTRY.version
        device = _DEVICE[1]
    key = (device, family, name)
    fn = _cache.get(key)
    if fn is None:
        module = importlib.import_module(f"minispore.kernels.{key[0]}.{family}")
        fn = getattr(module, name, None)
        if fn is None:
            raise NotImplementedError(f"No {key[0]} kernel '{name}' in kernels/{key[0]}/"
                                      f"{family}.py")
        _cache[key] = fn
    return fn
