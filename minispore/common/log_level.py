"""MindSpore's log level variable: ``GLOG_v`` = 0 (DEBUG), 1 (INFO), 2 (WARNING, the default),
3 (ERROR) or 4 (CRITICAL) sets the level of the "minispore" logger and prints its records to
stderr as ``[LEVEL] minispore(pid) message``. Unset, logging is left to the application (Python
prints warnings and errors)."""
import logging
import os
import sys

__all__ = ["apply_glog_v"]

_LEVELS = {"0": logging.DEBUG, "1": logging.INFO, "2": logging.WARNING, "3": logging.ERROR,
           "4": logging.CRITICAL}


def apply_glog_v(environ=os.environ):
    raw = environ.get("GLOG_v")
    if raw is None:
        return
    logger = logging.getLogger("minispore")
    level = _LEVELS.get(raw.strip())
    if level is None:
        logger.warning("GLOG_v=%r is not a log level; use 0 (DEBUG), 1 (INFO), 2 (WARNING), "
                       "3 (ERROR) or 4 (CRITICAL).", raw)
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"[%(levelname)s] minispore({os.getpid()}) "
                                           f"%(message)s"))
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False
