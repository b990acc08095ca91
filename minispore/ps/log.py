"""The parameter server's log (logger "minispore.ps"): INFO lines on stderr, each prefixed
with the process's role and index ("[MS_PSERVER 1]", "[MS_WORKER 0]") so a job's merged
output says who wrote what."""
import logging
import sys

__all__ = ["logger", "start_logging"]

logger = logging.getLogger("minispore.ps")


def start_logging(role, index):
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(f"[{role} {index}] %(asctime)s "
                                               f"%(levelname)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
