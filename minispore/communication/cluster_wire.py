"""The dynamic cluster's messages on the scheduler's TCP connections: one JSON object per line.

Messages are small (a port name is the largest, a few hundred bytes), so a line longer than
MAX_LINE, or one that is not a JSON object, ends the connection as a protocol error: a stranger
cannot make the scheduler buffer without bound.

Worker -> scheduler: ``hello`` (token, node id, worker count, host, pid), ``port`` (rank 0's
MPI port name), ``joined`` (rank), ``failed`` (rank, error), ``finished``.
Scheduler -> worker: ``welcome``, ``refused`` (reason), ``assigned`` (rank, size),
``connect`` (port name), ``abort`` (reason).
"""
import json

PROTOCOL = "minispore-cluster/1"
MAX_LINE = 64 * 1024


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
        if len(self._buffer) > MAX_LINE:
            raise ProtocolError(f"a line longer than {MAX_LINE} bytes")
        messages = []
        for line in lines:
            try:
                message = json.loads(line)
            except (UnicodeDecodeError, json.JSONDecodeError):
                raise ProtocolError(f"not a JSON line: {line[:60]!r}") from None
            if not isinstance(message, dict) or not isinstance(message.get("kind"), str):
                raise ProtocolError(f"not a message object: {line[:60]!r}")
            messages.append(message)
        return messages


def receive(sock, reader, pending):
    """The next message on a blocking socket (None at end of stream); `pending` is a list of
    messages already read and not yet handed out, shared between calls."""
    while not pending:
        data = sock.recv(4096)
        if not data:
            return None
        pending.extend(reader.feed(data))
    return pending.pop(0)
