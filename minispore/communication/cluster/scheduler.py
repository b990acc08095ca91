"""The dynamic cluster's scheduler (MS_ROLE=MS_SCHED): registers the workers, gives them ranks,
sequences their MPI connection, watches them until the job ends, and returns the job's status.

It never trains and never starts MPI: ``init()`` in the scheduler process calls ``serve`` and
exits with its status (0 when every worker finished its script, 1 otherwise), so the script
after ``init()`` never runs there.

One thread, one ``selectors`` loop over the listening socket and every connection:

1. Registration. A connection must say ``hello`` with a fresh nonce, take the ``challenge``
   (the scheduler's nonce and its proof of the job's token, cluster_token.py) and send the
   ``answer`` that proves it holds the token too, all within HANDSHAKE_TIMEOUT; anything else
   is refused, logged with the peer's address, and closed. Up to
   MS_WORKER_NUM workers (and MS_SERVER_NUM parameter servers) register; worker ranks go to
   integer MS_NODE_IDs first, then to the others in arrival order (assign_ranks); servers
   follow the workers. A process that hangs up now frees its place.
2. Joining MPI. Rank 0 opens an MPI port and sends its name; the scheduler hands it to rank 1,
   and to rank k+1 once rank k has joined (cluster_worker.py has the MPI side), so the merged
   communicator's ranks are the assigned ones.
3. Running. A worker or server that fails (its abort hook reports the exception) or whose
   connection closes before it said ``finished`` ends the job: every other one gets
   ``abort`` and exits non-zero within a second. When all have finished and hung up, the job succeeded.

MS_TOPO_TIMEOUT bounds registration, and again joining; when it passes, every registered worker
is told which ranks are missing and exits, and so does the scheduler.
"""
import contextlib
import errno
import logging
import math
import os
import selectors
import signal
import socket
import sys
import threading
import time

from minispore.communication.cluster import cluster_token, cluster_wire
from minispore.communication.cluster.roles import Role

logger = logging.getLogger("minispore.cluster")

HANDSHAKE_TIMEOUT = 10.0   # a connection must say hello within this, or it is dropped
ABORT_GRACE = 5.0          # how long aborted workers get to hang up before the scheduler exits
TICK = 0.25                # how often timeouts are checked


def _pinned(node_id):
    return node_id is not None and node_id.isdigit()


def assign_ranks(node_ids, worker_num):
    """The rank of each worker, given their MS_NODE_IDs in arrival order (None: not set).

    Integer node ids keep their value as rank; the others take the free ranks in arrival order.

    >>> assign_ranks(["b", "0", None], 3)
    [1, 0, 2]
    """
    free = iter(sorted(set(range(worker_num)) - {int(n) for n in node_ids if _pinned(n)}))
    return [int(n) if _pinned(n) else next(free) for n in node_ids]


def missing_ranks(node_ids, worker_num):
    """The ranks no registered worker would take (the workers that have not arrived).

    >>> missing_ranks(["2", None], 4)
    [1, 3]
    """
    free = sorted(set(range(worker_num)) - {int(n) for n in node_ids if _pinned(n)})
    return free[sum(1 for n in node_ids if not _pinned(n)):]


def _well_formed_hello(message):
    """The fields the scheduler uses have the types it expects (a stranger's message must not
    crash it)."""
    node_id = message.get("node_id")
    return ((node_id is None or isinstance(node_id, str) and 0 < len(node_id) <= 256)
            and isinstance(message.get("host"), str) and isinstance(message.get("pid"), int)
            and isinstance(message.get("worker_num"), int)
            and cluster_token.is_nonce(message.get("nonce")))


class Peer:
    """One connection: a stranger until its hello is accepted, then a registered worker."""

    def __init__(self, sock, address, now):
        self.sock, self.address, self.opened = sock, f"{address[0]}:{address[1]}", now
        self.reader = cluster_wire.LineReader()
        self.challenge = None      # (its hello, the scheduler's nonce) until it answers
        self.hello = None          # the accepted hello message: node_id, host, pid, role
        self.rank = None
        self.finished = False

    def describe(self):
        if self.hello is None:
            return f"connection from {self.address}"
        rank = "" if self.rank is None else f"rank {self.rank}, "
        node = self.hello.get("node_id")
        node = f"node id {node}, " if node is not None else ""
        what = "server" if self.is_server else "worker"
        return f"{what} ({rank}{node}host {self.hello['host']}, pid {self.hello['pid']})"

    @property
    def is_server(self):
        return self.hello is not None and self.hello["role"] == Role.SERVER.value


class Scheduler:
    """The state machine of one job; `run()` returns its exit status."""

    def __init__(self, config, token, listener, drop_lost_workers=False):
        self.config, self.token, self.listener = config, token, listener
        self.drop_lost_workers = drop_lost_workers    # asynchronous parameter server
        self.lost = []             # ranks of the workers dropped (_drop)
        self.selector = selectors.DefaultSelector()
        self.selector.register(listener, selectors.EVENT_READ)
        self.members = []          # registered Peers (workers and servers), in arrival order
        self.phase = "registering"
        self.port_name = None
        self.next_to_join = None   # the rank told to connect and not yet joined
        self.status = None
        self.deadline = _deadline(config.topo_timeout)

    # -- loop ------------------------------------------------------------------------------
    def run(self):
        logger.info("Scheduler of the dynamic cluster listening on %s for %d workers%s "
                    "(MS_TOPO_TIMEOUT %s).", self.config.address, self.config.worker_num,
                    f" and {self.config.server_num} parameter servers"
                    if self.config.server_num else "",
                    "unlimited" if self.config.topo_timeout is None
                    else f"{self.config.topo_timeout:g} s")
        while not self._over():
            for key, _ in self.selector.select(TICK):
                if key.fileobj is self.listener:
                    self._accept()
                elif key.fileobj.fileno() >= 0:   # not closed by an earlier event of this batch
                    self._read_guarded(key.data)
            self._check_timeouts()
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()
        return self.status

    def _over(self):
        if self.phase != "ending":
            return False
        return not self.members or time.monotonic() > self.deadline

    def _accept(self):
        try:
            sock, address = self.listener.accept()
        except OSError:
            return
        # Sends block at most this long on a peer that stopped reading; reads only follow
        # readiness, so they never wait.
        sock.settimeout(5.0)
        self.selector.register(sock, selectors.EVENT_READ, Peer(sock, address, time.monotonic()))

    def _read_guarded(self, peer):
        """_read, where whatever one connection causes ends that connection only (a stranger's)
        or fails the job it belongs to (a member's), never the scheduler itself."""
        try:
            self._read(peer)
        except Exception as e:   # noqa: BLE001 -- the scheduler must outlive any one peer
            logger.exception("Error while handling the %s.", peer.describe())
            self._protocol_error(peer, f"{type(e).__name__}: {e}")

    def _read(self, peer):
        try:
            data = peer.sock.recv(4096)
        except OSError:
            data = b""
        if not data:
            self._hung_up(peer)
            return
        try:
            messages = peer.reader.feed(data)
        except cluster_wire.ProtocolError as e:
            self._protocol_error(peer, str(e))
            return
        for message in messages:
            if peer.sock.fileno() < 0:
                return
            if peer.hello is None:
                self._greet(peer, message)
            else:
                self._handle(peer, message)

    # -- registration ----------------------------------------------------------------------
    def _greet(self, peer, message):
        """A stranger's first message must be a hello, its second the answer to the challenge
        the hello got."""
        if peer.challenge is None:
            self._challenge(peer, message)
        else:
            self._admit(peer, message)

    def _challenge(self, peer, message):
        if message.get("kind") != "hello" or message.get("protocol") != cluster_wire.PROTOCOL:
            self._refuse(peer, f"not a minispore worker (first message {message.get('kind')!r})")
        elif not _well_formed_hello(message):
            self._refuse(peer, "not a minispore worker (malformed hello)")
        else:
            nonce = cluster_token.fresh_nonce()
            peer.challenge = (message, nonce)
            self._send(peer, "challenge", nonce=nonce, proof=cluster_token.proof(
                self.token, "scheduler", message["nonce"], nonce))

    def _admit(self, peer, answer):
        config = self.config
        message, nonce = peer.challenge
        if answer.get("kind") != "answer" or not cluster_token.proves(
                answer.get("proof"), self.token, "worker", nonce, message["nonce"]):
            self._refuse(peer, "wrong cluster token")
        elif message.get("role") not in (Role.WORKER.value, Role.SERVER.value):
            self._refuse(peer, f"MS_ROLE={message.get('role')} cannot join: only MS_WORKER "
                               f"and MS_PSERVER processes register with the scheduler")
        elif message.get("worker_num") != config.worker_num:
            self._refuse(peer, f"it has MS_WORKER_NUM={message.get('worker_num')} but the "
                               f"scheduler has MS_WORKER_NUM={config.worker_num}")
        elif message.get("server_num", 0) != config.server_num:
            self._refuse(peer, f"it has MS_SERVER_NUM={message.get('server_num', 0)} but the "
                               f"scheduler has MS_SERVER_NUM={config.server_num}")
        elif self.phase == "registering" and self._full(message["role"]):
            self._refuse(peer, f"all {self._wanted(message['role'])} {message['role']} "
                               f"processes have already registered")
        elif self.phase != "registering":
            self._refuse(peer, f"the job has already formed with MS_WORKER_NUM="
                               f"{config.worker_num} workers" if self.phase != "ending"
                               else "the job is ending")
        elif self._node_id_taken(message.get("node_id")):
            self._refuse(peer, f"MS_NODE_ID={message['node_id']} is already registered by "
                               f"{self._node_id_taken(message['node_id']).describe()}")
        else:
            peer.hello = {k: message.get(k) for k in ("node_id", "host", "pid", "role")}
            if peer.is_server:
                peer.hello["node_id"] = None      # a server's rank follows arrival order
            self.members.append(peer)
            logger.info("Registered %s: %d of %d.", peer.describe(), len(self.members),
                        config.size)
            self._send(peer, "welcome", registered=len(self.members), of=config.size)
            if len(self.members) == config.size:
                self._assign()

    def _wanted(self, role):
        return self.config.server_num if role == Role.SERVER.value else self.config.worker_num

    def _full(self, role):
        return sum(1 for m in self.members if m.hello["role"] == role) >= self._wanted(role)

    def _node_id_taken(self, node_id):
        if node_id is None:
            return None
        return next((w for w in self.members if w.hello["node_id"] == node_id), None)

    def _workers(self):
        return [m for m in self.members if not m.is_server]

    def _refuse(self, peer, reason):
        logger.warning("Refused the %s: %s.", peer.describe(), reason)
        self._send(peer, "refused", reason=reason)
        self._close(peer)

    def _assign(self):
        """Workers take ranks 0..W-1 (assign_ranks), servers W.. in arrival order: the ranks
        of the job's MPI communicator (servers are counted by MS_SERVER_NUM, 0 without a
        parameter server)."""
        workers = self._workers()
        ranks = assign_ranks([w.hello["node_id"] for w in workers], self.config.worker_num)
        servers = [m for m in self.members if m.is_server]
        ranks += list(range(self.config.worker_num, self.config.size))
        for member, rank in zip(workers + servers, ranks):
            member.rank = rank
            logger.info("Assign rank id of node id: %s, role: %s, host: %s, pid: %s, "
                        "new rank id: %d", member.hello["node_id"], member.hello["role"],
                        member.hello["host"], member.hello["pid"], rank)
        self.members.sort(key=lambda w: w.rank)
        self.phase = "joining"
        self.deadline = _deadline(self.config.topo_timeout)
        for member in self.members:
            self._send(member, "assigned", rank=member.rank, size=self.config.size)

    # -- joining and running ---------------------------------------------------------------
    def _handle(self, peer, message):
        kind = message["kind"]
        if kind == "port" and self.phase == "joining" and peer.rank == 0 and \
                isinstance(message.get("name"), str):
            self.port_name = message.get("name")
            self._joined(0)
        elif kind == "joined" and self.phase == "joining" and peer.rank == self.next_to_join:
            self._joined(peer.rank)
        elif kind == "failed":
            # The failing worker aborts itself (its abort hook sent this).
            self._fail(f"rank {peer.rank} failed: {message.get('error')}", culprit=peer)
        elif kind == "finished":
            peer.finished = True
        else:
            self._protocol_error(peer, f"unexpected message {kind!r} in phase {self.phase}")

    def _joined(self, rank):
        if rank + 1 < self.config.size:
            self.next_to_join = rank + 1
            self._send(self.members[rank + 1], "connect", port=self.port_name)
            return
        self.next_to_join = None
        self.phase = "running"
        logger.info("Cluster is successfully initialized: %d workers%s in one MPI "
                    "communicator.", self.config.worker_num,
                    f" and {self.config.server_num} parameter servers"
                    if self.config.server_num else "")

    def _hung_up(self, peer):
        if peer.sock.fileno() < 0:
            return    # already handled (a failed send, then its end of stream)
        self._close(peer)
        if peer.hello is None:
            if peer.challenge is not None:
                logger.warning("The %s hung up after the scheduler's challenge: a worker whose "
                               "cluster token differs from the scheduler's, or a program that does "
                               "not speak this protocol.", peer.describe())
            return
        self.members.remove(peer)
        if self.phase == "registering":
            logger.warning("The %s hung up before the cluster formed; its place is free "
                           "again (%d of %d registered).", peer.describe(), len(self.members),
                           self.config.size)
            return
        if self.status is not None:
            return    # the job has ended; the workers told to abort are hanging up
        if not peer.finished:
            if self._drop(peer):
                return
            self._fail(f"{peer.describe()} exited before finishing its script (killed, or "
                       f"its connection to the scheduler was lost)")
        elif not self.members:
            workers = (f"all {self.config.worker_num} workers" if not self.lost else
                       f"{self.config.worker_num - len(self.lost)} of {self.config.worker_num}"
                       f" workers (rank(s) {', '.join(map(str, self.lost))} lost)")
            logger.info("Job finished: %s%s finished their script.", workers,
                        f" and {self.config.server_num} parameter servers"
                        if self.config.server_num else "")
            self.status = 0
            self.phase = "ending"

    def _drop(self, peer):
        """An asynchronous parameter-server job goes on without a worker that died while
        another worker still trains: the others are told (``lost``), so the servers stop
        waiting for it and the workers' exits do not wait for it either."""
        if not self.drop_lost_workers or peer.is_server or self.phase != "running" or \
                not self._workers():
            return False
        self.lost.append(peer.rank)
        logger.warning("The %s exited before finishing its script; the asynchronous parameter "
                       "server drops it and training goes on with %d worker(s).",
                       peer.describe(), len(self._workers()))
        for member in list(self.members):
            self._send(member, "lost", rank=peer.rank)
        return True

    def _protocol_error(self, peer, what):
        if peer.hello is None:
            self._refuse(peer, f"not a minispore worker ({what})")
        else:
            self._fail(f"{peer.describe()} broke the protocol: {what}")

    def _fail(self, reason, culprit=None):
        if self.status is not None:
            logger.info("Also: %s.", reason)
            return
        logger.error("Job failed: %s. Telling every worker to exit.", reason)
        self.status = 1
        self.phase = "ending"
        self.deadline = time.monotonic() + ABORT_GRACE
        for worker in [w for w in self.members if w is not culprit]:
            self._send(worker, "abort", reason=reason)

    def _check_timeouts(self):
        now = time.monotonic()
        for key in list(self.selector.get_map().values()):
            peer = key.data
            if peer is not None and peer.hello is None and now - peer.opened > HANDSHAKE_TIMEOUT:
                self._refuse(peer, f"no hello within {HANDSHAKE_TIMEOUT:g} s")
        if self.phase == "registering" and now > self.deadline:
            workers = self._workers()
            node_ids = [w.hello["node_id"] for w in workers]
            missing = missing_ranks(node_ids, self.config.worker_num)
            servers = len(self.members) - len(workers)
            lacking = (f"; {servers} of {self.config.server_num} parameter servers registered"
                       if servers < self.config.server_num else "")
            self._fail(f"the cluster did not form within MS_TOPO_TIMEOUT="
                       f"{self.config.topo_timeout:g} s: {len(workers)} of "
                       f"{self.config.worker_num} workers registered (MS_NODE_ID "
                       f"{_names(node_ids)}); missing rank(s) "
                       f"{', '.join(map(str, missing)) or 'none'} "
                       f"(MS_NODE_ID {_names(map(str, missing))}, or workers without "
                       f"MS_NODE_ID){lacking}")
        elif self.phase == "joining" and now > self.deadline:
            waiting = range(self.next_to_join or 0, self.config.size)
            self._fail(f"rank(s) {', '.join(map(str, waiting))} did not join the MPI "
                       f"communicator within MS_TOPO_TIMEOUT={self.config.topo_timeout:g} s")

    def _send(self, peer, kind, **fields):
        """Send, treating a peer that cannot be written to as one that hung up."""
        try:
            cluster_wire.send(peer.sock, kind, **fields)
        except OSError:
            self._hung_up(peer)

    def _close(self, peer):
        if peer.sock.fileno() >= 0:
            self.selector.unregister(peer.sock)
            peer.sock.close()


def _names(node_ids):
    """Node ids for a message, in a stable order (integers by value, then names, then unset)."""
    order = sorted(node_ids, key=lambda n: (n is None, not _pinned(n), len(n or ""), n or ""))
    return ", ".join("unset" if n is None else str(n) for n in order) or "none"


def _deadline(timeout):
    return math.inf if timeout is None else time.monotonic() + timeout


def bind(config):
    """The scheduler's socket bound (not yet listening) to MS_SCHED_HOST:MS_SCHED_PORT.

    Raises:
        RuntimeError: the port is in use, or the host is not an address of this machine.
    """
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            config.sched_host, config.sched_port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as e:
        raise RuntimeError(f"The scheduler cannot resolve MS_SCHED_HOST={config.sched_host}: "
                           f"{e.strerror}.") from None
    sock = socket.socket(family, kind, proto)
    # A finished job's connections linger in TIME_WAIT; they must not block the next job's
    # scheduler. A live listener still does (SO_REUSEADDR on Linux does not share it).
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise RuntimeError(
                f"The scheduler cannot listen on MS_SCHED_HOST:MS_SCHED_PORT={config.address}: "
                f"the port is already in use (another job's scheduler, or another program). "
                f"Choose a free MS_SCHED_PORT (msrun --master_port).") from None
        raise RuntimeError(f"The scheduler cannot listen on MS_SCHED_HOST:MS_SCHED_PORT="
                           f"{config.address}: {e.strerror} (MS_SCHED_HOST must be an address "
                           f"of the scheduler's machine).") from None
    return sock


def _start_logging():
    """The scheduler's log (its stderr, msrun's scheduler.log) shows registration and failures
    unless the script configured the 'minispore.cluster' logger itself."""
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("[MS_SCHED] %(asctime)s %(levelname)s "
                                               "%(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False


class Terminated(Exception):
    """The scheduler process got SIGTERM or SIGHUP (msrun stopping the job, a batch system,
    a closed terminal)."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_terminated(signum, frame):
    raise Terminated(signum)


@contextlib.contextmanager
def _terminations_raise():
    """SIGTERM and SIGHUP raise Terminated in the scheduler's loop, so serve's `finally`
    removes the token file (their default action ends the process without it). Python sets
    handlers only in the main thread; a scheduler run in another thread (tests) keeps the
    process's own."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, _raise_terminated) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def serve(config, drop_lost_workers=False):
    """Run the scheduler of the job `config` describes until the job ends; its exit status.
    `drop_lost_workers`: an asynchronous parameter-server job, which goes on without a worker
    that dies (Scheduler._drop).

    Raises:
        Terminated: SIGTERM or SIGHUP arrived (the token file is removed first, as on every
            other way out).
    """
    _start_logging()
    listener = bind(config)
    with _terminations_raise():
        # The token file is written only once the port is ours (a failed second scheduler must
        # not replace the running job's token), and before listening (a worker that connects
        # reads it).
        token, token_file = cluster_token.scheduler_token(config.sched_port)
        try:
            listener.listen(max(16, config.worker_num))
            return Scheduler(config, token, listener, drop_lost_workers).run()
        finally:
            listener.close()
            if token_file is not None:
                token_file.unlink(missing_ok=True)


def serve_and_exit(config, drop_lost_workers=False):
    """``init()`` in the scheduler: serve the job, then end the process with its status (128 +
    the signal's number when SIGTERM, SIGHUP or Ctrl-C stopped it), so that the script's
    training code after ``init()`` never runs here."""
    try:
        status = serve(config, drop_lost_workers)
    except (Terminated, KeyboardInterrupt) as stop:
        signum = stop.signum if isinstance(stop, Terminated) else signal.SIGINT
        logger.error("Scheduler stopped by %s; the workers lose it and exit.",
                     signal.Signals(signum).name)
        status = 128 + signum
    sys.stdout.flush()
    sys.stderr.flush()
    # os._exit, not SystemExit: a `finally:` or atexit hook of the script must not run
    # training-side code (get_rank(), collectives) in a process that has no world.
    os._exit(status)
