"""The global seed: one numpy Generator behind initializers, Dropout and every random op.

Both live in the settings registry (scope "seed"), so a snapshot of the settings restores the
seed with the generator it made."""
import numpy as np

from minispore.common.registry import REGISTRY, Option

REGISTRY.declare(
    Option("seed", "seed", default=None),
    # the generator of the seed in force (advanced by every draw); a fresh one per reset
    Option("seed", "generator", default=np.random.default_rng),
)


def set_seed(seed):
    """Make initializers and random operators reproducible (``ms.set_seed(1)``)."""
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"For 'set_seed', the argument 'seed' must be a non-negative int, "
                         f"but got {seed!r}.")
    REGISTRY.store("seed", {"seed": seed, "generator": np.random.default_rng(seed)})


def get_seed():
    return REGISTRY.get("seed", "seed")


def rng():
    """The generator every random draw in minispore uses."""
    return REGISTRY.get("seed", "generator")
