"""The per-job secret that keeps strangers off the scheduler's port: where it comes from and
how it is stored.

A worker proves it belongs to the job by presenting the token the scheduler holds:

- ``MS_CLUSTER_TOKEN`` (any text), when set for the scheduler and every worker (several
  hosts without a shared home directory: set it on each);
- otherwise a fresh random token that the scheduler writes, once its port is bound, to a file
  only the user can read, ``~/.minispore/cluster/<port>.token`` (or ``MS_CLUSTER_TOKEN_FILE``),
  and removes when the job ends, however it ends short of SIGKILL (scheduler.py); workers read
  it when they connect. A file found there at start was left by a scheduler that could not
  remove it (killed): it is replaced, with a log line. This needs no setting on
  one host, or on several hosts that share the home directory.

A token file that others can read, or that someone else owns, is refused (as ssh refuses a
private key), since anyone who can read it can join the job.

The token itself never crosses the wire: each side proves it holds it by the HMAC-SHA256 of
the other side's fresh nonce (``proof``), the scheduler first, so a program squatting on
MS_SCHED_PORT learns nothing a worker knows, and a stranger learns nothing from the scheduler
it could replay (every connection gets new nonces; the proofs name who made them, so one
side's proof is never the other's).
"""
import hashlib
import hmac
import logging
import os
import secrets
import stat
from pathlib import Path

from minispore.common.environment import environment

TOKEN_VAR = "MS_CLUSTER_TOKEN"
TOKEN_FILE_VAR = "MS_CLUSTER_TOKEN_FILE"
NONCE_BYTES = 32

logger = logging.getLogger("minispore.cluster")


def _environ():
    """The token variables as the settings registry read them."""
    return environment([TOKEN_VAR, TOKEN_FILE_VAR])


def token_path(port, environ=None):
    environ = _environ() if environ is None else environ
    explicit = environ.get(TOKEN_FILE_VAR)
    if explicit:
        return Path(explicit)
    return Path.home() / ".minispore" / "cluster" / f"{port}.token"


def scheduler_token(port, environ=None):
    """(token, path of the file written, or None): MS_CLUSTER_TOKEN, else a fresh token
    written to token_path(port) with mode 0600 in a 0700 folder."""
    environ = _environ() if environ is None else environ
    if environ.get(TOKEN_VAR):
        return environ[TOKEN_VAR], None
    path = token_path(port, environ)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    token = secrets.token_hex(32)
    if path.exists():
        # The port is ours (bind succeeded), so no running job of this user uses this file.
        logger.warning("Replacing the stale cluster token file %s (left by a scheduler of "
                       "port %s that was killed before it could remove it).", path, port)
    partial = path.with_name(path.name + f".{os.getpid()}")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token)
    # A worker reading while the file is written must see the old token or the new, never half.
    os.replace(partial, path)
    return token, path


def worker_token(port, environ=None):
    """The token this worker presents: MS_CLUSTER_TOKEN, else the scheduler's token file.

    Raises:
        RuntimeError: no MS_CLUSTER_TOKEN and the file is missing, not the user's own, or
            readable by others.
    """
    environ = _environ() if environ is None else environ
    if environ.get(TOKEN_VAR):
        return environ[TOKEN_VAR]
    path = token_path(port, environ)
    try:
        info = path.stat()
        token = path.read_text().strip()
    except OSError as e:
        raise RuntimeError(
            f"The dynamic cluster's token is neither in {TOKEN_VAR} nor readable in {path} "
            f"({e.strerror}): set {TOKEN_VAR} to the same text for the scheduler and every "
            f"worker, or let the scheduler write the file on a file system the workers share "
            f"({TOKEN_FILE_VAR} chooses its path).") from None
    if info.st_uid != os.getuid() or info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise RuntimeError(
            f"The cluster token file {path} must belong to this user and be readable by no one "
            f"else (mode 0600), but it has owner uid {info.st_uid} and mode "
            f"{stat.S_IMODE(info.st_mode):04o}; anyone who reads it can join the job.")
    return token


def fresh_nonce():
    return secrets.token_hex(NONCE_BYTES)


def is_nonce(value):
    """A nonce as fresh_nonce makes them (what a peer sends is checked before it is used)."""
    return isinstance(value, str) and len(value) == 2 * NONCE_BYTES and \
        all(c in "0123456789abcdef" for c in value)


def proof(token, prover, challenge, own_nonce):
    """What `prover` ("scheduler" or "worker") sends to show it holds `token`: the HMAC-SHA256
    of the peer's `challenge` nonce, its own nonce and its name, in hex."""
    message = f"{prover}:{challenge}:{own_nonce}".encode()
    return hmac.new(token.encode(), message, hashlib.sha256).hexdigest()


def proves(presented, token, prover, challenge, own_nonce):
    """Whether `presented` is `prover`'s proof, compared in constant time (a stranger learns
    nothing from how long a refusal takes)."""
    return isinstance(presented, str) and hmac.compare_digest(
        presented.encode(), proof(token, prover, challenge, own_nonce).encode())
