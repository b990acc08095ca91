"""The temporary files checkpoint saves write before renaming them over their target: their
names, and removing those a killed save left behind.

A save writes ``.<file name>.<host>.<pid>.<random>.tmp`` next to its target, so a later save
into the same folder can tell, for every such file of this host, whether its writer still
lives: a pid that no longer exists, or one that a newer process took (it started after the
file was last written), marks the file as left by a save killed midway. Files of other hosts
(whose processes this host cannot see) and of older minispore versions (no pid in the name)
are kept.
"""
import logging
import os
import re
import socket
import tempfile

logger = logging.getLogger("minispore")

# How far /proc's boot time (whole seconds) may put a process's start before its true start.
_START_SLACK = 2.0


def create(path):
    """(descriptor, name) of a new temporary file for `path`, in its folder."""
    return tempfile.mkstemp(prefix=f".{os.path.basename(path)}.{_host()}.{os.getpid()}.",
                            suffix=".tmp", dir=os.path.dirname(path))


def remove_stale(directory):
    """Remove the temporary files in `directory` whose writer on this host is gone, each with
    a log line."""
    # Greedy: the file name may itself contain ".<host>.<digits>."; the writer is the last.
    pattern = re.compile(rf"\.(?P<file>.+)\.{re.escape(_host())}\.(?P<pid>\d+)\."
                         rf"[A-Za-z0-9_]+\.tmp")
    for name in os.listdir(directory):
        match = pattern.fullmatch(name)
        if match is None:
            continue
        tmp = os.path.join(directory, name)
        try:
            written = os.stat(tmp).st_mtime
        except FileNotFoundError:         # its writer finished, or another saver removed it
            continue
        pid = int(match.group("pid"))
        if _writer_lives(pid, written):
            continue
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            continue
        logger.warning("Removed %s, the temporary file of a save of %r that was killed midway "
                       "(its writer, pid %d on this host, is gone).", tmp, match.group("file"),
                       pid)


def _host():
    return socket.gethostname()


def _writer_lives(pid, written):
    """Whether process `pid` exists and started before `written` (an epoch time): a process
    started later only reuses the dead writer's pid."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:          # another user's process
        pass
    started = _start_time(pid)
    return started is None or started <= written + _START_SLACK


def _start_time(pid):
    """The epoch time process `pid` started (None where /proc cannot say: assume it lives)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/stat") as f:
            boot = next(int(line.split()[1]) for line in f if line.startswith("btime "))
    except (OSError, ValueError, IndexError, StopIteration):
        return None
    return boot + ticks / os.sysconf("SC_CLK_TCK")
