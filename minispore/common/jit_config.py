"""mindspore.JitConfig: the compile options a Cell (``set_jit_config``) or ``ms.jit`` takes.

minispore has one compile pipeline, so the options are accepted, checked as MindSpore checks
them and kept (``get_jit_config``), with a warning naming what has no effect."""
import logging

__all__ = ["JitConfig"]

logger = logging.getLogger("minispore")

_CHOICES = {"jit_level": ("", "O0", "O1", "O2"), "exc_mode": ("auto", "sink", "no_sink"),
            "jit_syntax_level": ("", "STRICT", "COMPATIBLE", "LAX"),
            "debug_level": ("", "RELEASE", "DEBUG"), "infer_boost": ("", "on", "off")}


class JitConfig:
    """``JitConfig(jit_level="", exc_mode="auto", jit_syntax_level="", debug_level="",
    infer_boost="", **kwargs)``; ``jit_config_dict`` holds them as MindSpore's does."""

    def __init__(self, jit_level="", exc_mode="auto", jit_syntax_level="", debug_level="",
                 infer_boost="", **kwargs):
        given = {"jit_level": jit_level, "exc_mode": exc_mode,
                 "jit_syntax_level": jit_syntax_level, "debug_level": debug_level,
                 "infer_boost": infer_boost}
        for name, value in given.items():
            if not isinstance(value, str):
                raise TypeError(f"For 'JitConfig', '{name}' must be a str, but got "
                                f"{type(value).__name__}.")
            if value not in _CHOICES[name]:
                raise ValueError(f"For 'JitConfig', '{name}' must be one of "
                                 f"{list(_CHOICES[name])}, but got {value!r}.")
        self.jit_config_dict = dict(given, **{k: str(v) for k, v in kwargs.items()})


def note_jit_config(config, where):
    """Check `config` is a JitConfig and warn that its options do not change minispore's
    compilation (one pipeline: trace, passes, fused Numba kernels)."""
    if config is None:
        return None
    if not isinstance(config, JitConfig):
        raise TypeError(f"For '{where}', 'jit_config' must be a JitConfig, but got "
                        f"{type(config).__name__}.")
    set_options = {k: v for k, v in config.jit_config_dict.items()
                   if v not in ("", "auto")}
    if set_options:
        logger.warning("%s: JitConfig %s has no effect in minispore: there is one compile "
                       "pipeline (no jit levels, sink modes or syntax levels to choose).",
                       where, set_options)
    return config
