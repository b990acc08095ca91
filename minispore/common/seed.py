"""The global seed: one numpy Generator behind initializers, Dropout and every random op."""
import numpy as np

_state = {"seed": None, "rng": np.random.default_rng()}


def set_seed(seed):
    """Make initializers and random operators reproducible (``ms.set_seed(1)``)."""
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"For 'set_seed', the argument 'seed' must be a non-negative int, "
                         f"but got {seed!r}.")
    _state["seed"] = seed
    _state["rng"] = np.random.default_rng(seed)


def get_seed():
    return _state["seed"]


def rng():
    """The generator every random draw in minispore uses."""
    return _state["rng"]
