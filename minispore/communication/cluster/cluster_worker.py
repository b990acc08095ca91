"""A dynamic-cluster worker's side of init(): register with the scheduler, take the rank it
assigns, connect to the other workers into one MPI communicator, and stay connected so that a
failure anywhere ends the job.

The MPI connection (the process runs as a one-rank job of its own launcher, relaunch.py): rank 0
opens an MPI port and hands its name to the scheduler; each member of the growing
communicator calls ``MPI_Comm_accept`` on it (collective, rank 0 holds the port) and merges
the resulting inter-communicator, while the scheduler lets rank k connect only after rank k-1
has joined. So after N-1 accept/merge rounds every worker holds one N-rank intra-communicator
whose ranks are the assigned ones; it becomes the world of minispore.communication.

The connection to the scheduler stays open for the whole job. A watcher thread reads it: an
``abort`` (another worker died, failed, or never arrived) or the scheduler's disappearance
makes this process print why and exit with status 1 at once, whatever the main thread is
blocked in (an MPI collective waiting for a dead peer would never return). It also exits when
the process's launcher (the pid the user started, now the launcher's) is killed.
"""
import atexit
import os
import queue
import select
import socket
import sys
import threading
import time
import warnings

from minispore.common.environment import environment
from minispore.communication.cluster import cluster_token, cluster_wire
from minispore.communication.cluster.relaunch import LAUNCHER_PID_VAR, MPI_LAUNCHED_VARS, \
    NETMOD_VAR, runs_a_script, started_by_mpi_launcher, unsound_netmod_warning
from minispore.communication.state import STATE, mpi

RETRY_INTERVAL = 0.2        # between attempts to reach a scheduler that is not up yet
HANDSHAKE_TIMEOUT = 30.0    # a scheduler answers hello at once; silence means something else
# How long a worker whose MPI call failed waits for the scheduler's word on a lost peer: the
# scheduler sees a dead worker's connection close at once, a silent host within its heartbeat.
REASON_GRACE_S = 10.0
ABORT_STATUS = 1


class SchedulerLink:
    """This worker's connection to the scheduler and the thread that watches it."""

    def __init__(self, config):
        self.config = config
        self.sock = None
        self.reader = cluster_wire.LineReader()
        self.inbox = queue.Queue()
        self.rank = None
        self.finished = False
        self._send_lock = threading.Lock()

    def who(self):
        if self.rank is not None:
            if self.rank >= self.config.worker_num:
                return f"parameter server {self.rank - self.config.worker_num}"
            return f"rank {self.rank}"
        node = self.config.node_id
        return f"worker pid {os.getpid()}" + (f", node id {node}" if node is not None else "")

    # -- registration (main thread, before the watcher starts) -----------------------------
    def connect(self):
        """Reach the scheduler, retrying until MS_TOPO_TIMEOUT (it may start after us)."""
        timeout = self.config.topo_timeout
        give_up = None if timeout is None else time.monotonic() + timeout
        host, port = self.config.sched_host, self.config.sched_port
        while True:
            try:
                self.sock = socket.create_connection((host, port), timeout=5.0)
                return
            except OSError as e:
                if give_up is not None and time.monotonic() > give_up:
                    raise RuntimeError(
                        f"For 'init', {self.who()} could not reach the scheduler at "
                        f"MS_SCHED_HOST:MS_SCHED_PORT={self.config.address} within "
                        f"MS_TOPO_TIMEOUT={timeout:g} s ({e.strerror or e}): start the "
                        f"MS_ROLE=MS_SCHED process there, or check the address.") from None
                time.sleep(RETRY_INTERVAL)

    def register(self):
        """Say hello, check the scheduler's proof of the job's token, prove ours (the token
        itself is never sent, cluster_token.py); RuntimeError with the scheduler's reason when
        refused, or when the process on the port cannot prove it holds the token."""
        token = cluster_token.worker_token(self.config.sched_port)
        nonce = cluster_token.fresh_nonce()
        self.sock.settimeout(HANDSHAKE_TIMEOUT)
        self.send("hello", protocol=cluster_wire.PROTOCOL, nonce=nonce,
                  role=self.config.role.value, node_id=self.config.node_id,
                  worker_num=self.config.worker_num, server_num=self.config.server_num,
                  host=socket.gethostname(), pid=os.getpid())
        pending = []
        reply = self._reply(pending, ("challenge", "refused"))
        if reply["kind"] == "challenge":
            if not (cluster_token.is_nonce(reply.get("nonce")) and cluster_token.proves(
                    reply.get("proof"), token, "scheduler", nonce, reply["nonce"])):
                self.sock.close()
                raise RuntimeError(
                    f"For 'init', the process at MS_SCHED_HOST:MS_SCHED_PORT="
                    f"{self.config.address} did not prove that it holds this job's cluster "
                    f"token, so {self.who()} told it nothing: the token ({cluster_token.TOKEN_VAR}"
                    f" or the token file) differs between this worker and the scheduler, or "
                    f"another program listens on that port.")
            self.send("answer", proof=cluster_token.proof(token, "worker", reply["nonce"],
                                                          nonce))
            reply = self._reply(pending, ("welcome", "refused"))
        if reply["kind"] == "refused":
            raise RuntimeError(f"For 'init', the scheduler at {self.config.address} refused "
                               f"{self.who()}: {reply['reason']}.")
        self.sock.settimeout(None)
        for message in pending:
            self.inbox.put(message)

    def _reply(self, pending, kinds):
        """The scheduler's next message during registration, which must be one of `kinds`."""
        try:
            reply = cluster_wire.receive(self.sock, self.reader, pending)
        except (OSError, cluster_wire.ProtocolError) as e:
            reply = {"kind": "no reply", "error": str(e)}
        if reply is None or reply["kind"] not in kinds:
            raise RuntimeError(
                f"For 'init', the process at MS_SCHED_HOST:MS_SCHED_PORT={self.config.address} "
                f"did not answer {self.who()} as a minispore scheduler "
                f"({'it closed the connection' if reply is None else reply.get('error', reply)}).")
        return reply

    # -- the job (watcher thread) ----------------------------------------------------------
    def start_watching(self):
        launcher = environment([LAUNCHER_PID_VAR]).get(LAUNCHER_PID_VAR)
        launcher_fd = _pidfd(int(launcher)) if launcher else None
        if launcher and launcher_fd is None:
            self.exit_job(f"its launcher (pid {launcher}) is gone")
        threading.Thread(target=self._watch, args=(launcher, launcher_fd),
                         name="minispore-cluster-watcher", daemon=True).start()

    def _watch(self, launcher, launcher_fd):
        watched = [self.sock] + ([launcher_fd] if launcher_fd is not None else [])
        while True:
            readable, _, _ = select.select(watched, [], [])
            if launcher_fd in readable:
                self.exit_job(f"its launcher (pid {launcher}) was killed")
            try:
                data = self.sock.recv(4096)
            except OSError:
                data = b""
            if not data:
                if self.finished:
                    return
                self.exit_job(f"the scheduler at {self.config.address} went away")
            try:
                messages = self.reader.feed(data)
            except cluster_wire.ProtocolError as e:
                self.exit_job(f"the scheduler broke the protocol: {e}")
            for message in messages:
                if message["kind"] == "abort":
                    self.exit_job(f"the job is aborting: {message.get('reason')}")
                if message["kind"] == "lost":
                    # A worker the scheduler dropped from an asynchronous parameter-server
                    # job: the servers stop waiting for it, the workers' exits too.
                    STATE.lost_ranks.add(message["rank"])
                    continue
                self.inbox.put(message)

    def exit_job(self, reason):
        """Print why and end this process with ABORT_STATUS, from any thread."""
        sys.stderr.write(f"[{self.who()}] minispore dynamic cluster: {reason}; exiting with "
                         f"status {ABORT_STATUS}.\n")
        sys.stderr.flush()
        sys.stdout.flush()
        os._exit(ABORT_STATUS)

    def await_reason(self, what):
        """`what` happened (an MPI call failed: its connection to a peer broke), usually the
        first sign of a worker the scheduler is about to report lost. Give the scheduler's
        abort, which names that worker and its host, REASON_GRACE_S to arrive (the watcher
        thread then ends the process) before the caller reports `what` itself."""
        sys.stderr.write(f"[{self.who()}] minispore dynamic cluster: {what}; waiting for the "
                         f"scheduler's reason (up to {REASON_GRACE_S:g} s).\n")
        sys.stderr.flush()
        time.sleep(REASON_GRACE_S)

    def expect(self, kind):
        """The next message from the scheduler (it must be `kind`)."""
        message = self.inbox.get()
        if message["kind"] != kind:
            self.exit_job(f"the scheduler sent {message['kind']!r} where {kind!r} was expected")
        return message

    def send(self, kind, **fields):
        with self._send_lock:
            cluster_wire.send(self.sock, kind, **fields)

    def report_failure(self, error):
        """Tell the scheduler this worker failed (best effort: the process is aborting)."""
        try:
            self.send("failed", error=error)
        except OSError:
            pass

    def finish(self):
        """At exit: the script ended; the scheduler counts this worker done when it hangs up."""
        if self.finished:
            return
        self.finished = True
        try:
            self.send("finished")
        except OSError:
            pass


def _pidfd(pid):
    """A descriptor that becomes readable when process `pid` ends (None when it is gone),
    zombie or not: os.kill(pid, 0) still succeeds on an unreaped zombie."""
    try:
        return os.pidfd_open(pid)
    except ProcessLookupError:
        return None


def connect_mpi(link, rank, size):
    """The N-rank MPI intra-communicator of the job, this process at `rank` (see the module
    docstring for the accept/merge rounds)."""
    MPI = mpi()
    if rank == 0:
        port = MPI.Open_port()
        link.send("port", name=port)
        comm = MPI.COMM_SELF
    else:
        port = None
        inter = MPI.COMM_SELF.Connect(link.expect("connect")["port"])
        comm = inter.Merge(high=True)     # the newcomer goes last: ranks follow join order
        inter.Free()
        link.send("joined", rank=rank)
    for _ in range(rank + 1, size):
        inter = comm.Accept(port, root=0)
        merged = inter.Merge(high=False)
        inter.Free()
        if comm is not MPI.COMM_SELF:
            comm.Free()
        comm = merged
    if rank == 0:
        MPI.Close_port(port)
    if (comm.Get_rank(), comm.Get_size()) != (rank, size):
        link.exit_job(f"the MPI communicator came out as rank {comm.Get_rank()} of "
                   f"{comm.Get_size()} instead of rank {rank} of {size}")
    return comm


def join(config):
    """Join the job `config` describes: (the job's MPI intra-communicator: the workers at ranks
    0..MS_WORKER_NUM-1, then the parameter servers; the SchedulerLink).

    Raises:
        RuntimeError: the process was not relaunched under a launcher (interactive interpreter),
            the scheduler is unreachable within MS_TOPO_TIMEOUT, or it refused this worker.
    """
    if not started_by_mpi_launcher(environment(MPI_LAUNCHED_VARS)):
        why = ("the interactive interpreter cannot be" if not runs_a_script()
               else "this process was not")
        raise RuntimeError(
            f"For 'init', a dynamic-cluster worker (MS_ROLE=MS_WORKER) must run under its own "
            f"one-rank MPI launcher (MPICH cannot connect singleton processes), which "
            f"'import minispore' arranges for a script, but {why} relaunched: run the worker "
            f"as 'python script.py' (or -m module / -c code) with minispore imported at the top.")
    warning = unsound_netmod_warning(environment((NETMOD_VAR,)))
    if warning:
        warnings.warn(warning, RuntimeWarning, stacklevel=2)
    link = SchedulerLink(config)
    link.connect()
    link.register()
    link.start_watching()
    assigned = link.expect("assigned")
    link.rank = assigned["rank"]
    comm = connect_mpi(link, assigned["rank"], assigned["size"])
    atexit.register(link.finish)
    if link.rank < config.worker_num:
        sys.stderr.write(f"[rank {link.rank}] minispore dynamic cluster: joined as rank "
                         f"{link.rank} of {config.worker_num} (node id {config.node_id}); "
                         f"Global rank id {link.rank}.\n")
    else:
        sys.stderr.write(f"[{link.who()}] minispore dynamic cluster: joined as parameter "
                         f"server {link.rank - config.worker_num} of {config.server_num} (job "
                         f"rank {link.rank}).\n")
    sys.stderr.flush()
    return comm, link
