"""The dynamic cluster's messages on the scheduler's TCP connections: one JSON object per line.

Messages are small, flat objects (a port name is the largest, a few hundred bytes), so a line
longer than MAX_LINE, nested deeper than MAX_DEPTH, with an integer of more than MAX_DIGITS
digits, or that is not a JSON object, ends the connection as a protocol error. The bounds are
checked before or while parsing, never by catching what json gives up with: a stranger's line
of 50 KB of ``[`` (RecursionError) or a 5,000-digit integer (ValueError) must not escape
LineReader and stop the scheduler.

Worker -> scheduler: ``hello`` (nonce, node id, worker count, host, pid), ``answer`` (its proof
of the token, cluster_token.py), ``port`` (rank 0's MPI port name), ``joined`` (rank),
``failed`` (rank, error), ``finished``.
Scheduler -> worker: ``challenge`` (nonce, its proof of the token), ``welcome``, ``refused``
(reason), ``assigned`` (rank, size),
``connect`` (port name), ``abort`` (reason).
"""
import json
import re

PROTOCOL = "minispore-cluster/1"
MAX_LINE = 64 * 1024
MAX_DEPTH = 4        # a message is one object of scalars; a little room for a future list
MAX_DIGITS = 20      # ranks, pids and counts; a 64-bit integer has at most 20 digits

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(rb"[][{}]")


class ProtocolError(Exception):
    """The peer sent something that is not this protocol."""


def encode(kind, **fields):
    return (json.dumps({"kind": kind, **fields}) + "\n").encode()


def send(sock, kind, **fields):
    sock.sendall(encode(kind, **fields))


class LineReader:
    """Splits a byte stream into messages: feed() what recv() returned, get the complete ones."""

    def __init__(self):
        self._buffer = b""

    def feed(self, data):
        """The messages completed by `data` (dicts with a 'kind').

        Raises:
            ProtocolError: a line over MAX_LINE bytes, or one that is not a JSON object with a
                string 'kind'.
        """
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        if len(self._buffer) > MAX_LINE or any(len(line) > MAX_LINE for line in lines):
            raise ProtocolError(f"a line longer than {MAX_LINE} bytes")
        return [parse(line) for line in lines]


def parse(line):
    """One message from one line (bytes, without its newline), its size bounded before json
    sees it.

    Raises:
        ProtocolError: nested deeper than MAX_DEPTH, an integer longer than MAX_DIGITS digits,
            not JSON, or not an object with a string 'kind'.
    """
    if _depth(line) > MAX_DEPTH:
        raise ProtocolError(f"nested deeper than {MAX_DEPTH} levels: {line[:60]!r}")
    try:
        message = json.loads(line, parse_int=_bounded_int, parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ProtocolError(f"not a JSON line: {line[:60]!r}") from None
    if not isinstance(message, dict) or not isinstance(message.get("kind"), str):
        raise ProtocolError(f"not a message object: {line[:60]!r}")
    return message


def _depth(line):
    """The deepest bracket nesting of `line` outside its strings (an unbalanced line counts
    what it opens: json refuses it later)."""
    depth = deepest = 0
    for bracket in _BRACKET.findall(_STRING.sub(b"", line)):
        depth += 1 if bracket in b"[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _bounded_int(text):
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise ProtocolError(f"an integer of {digits} digits (at most {MAX_DIGITS})")
    return int(text)


def _no_constant(name):
    raise ProtocolError(f"{name} is not a value of this protocol")


def receive(sock, reader, pending):
    """The next message on a blocking socket (None at end of stream); `pending` is a list of
    messages already read and not yet handed out, shared between calls."""
    while not pending:
        data = sock.recv(4096)
        if not data:
            return None
        pending.extend(reader.feed(data))
    return pending.pop(0)
