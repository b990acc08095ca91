"""A one-host MPI launcher with no TCP listener: starts N ranks and serves them MPICH's PMI-1 wire
protocol over inherited socket pairs (what MPICH's own ``gforker`` does).

Why not Hydra (the wheel's ``mpirun``/``mpiexec``): its mpiexec listens on an ephemeral TCP port
bound to every interface (INADDR_ANY, MPL_listen_anyport in hydra's sock.c) for its proxy to
connect back, and no option or variable binds it elsewhere (``-iface`` and ``-localhost`` only
choose the address it advertises); every rank even inherits that socket. Why not the wheel's
``mpiexec.gforker`` (no port either): it exits 0 when a rank is killed by a signal, so an
OOM-killed rank would pass as success.

PMI commands served (what MPICH 5's ch4 sends, traced): init, get_maxes, get_appnum,
get_my_kvsname, get_universe_size, put, get (``PMI_process_mapping``: every rank on this one
node), barrier_in, finalize, abort. Any other (MPI_Comm_spawn, name publishing) ends the job with
a message naming it, never a silent fallback: run such a job under mpirun.

How a job ends (Hydra's rules, which communication/watch/exits.py relies on, plus one Hydra lacks):
- a rank killed by a signal, or one that exits after PMI init and before PMI finalize
  (os._exit, a crash, MPI_Abort), ends the others at once with SIGKILL; so does one that exits
  without ever starting MPI while another rank did (Hydra leaves that job hanging in MPI_Init);
- the status: an MPI_Abort's exit code (at least 1); else 128 + the signal of a rank killed by
  one (Hydra gives the bare signal number); else the highest of the ranks' exit statuses, and
  at least 1 for a rank that never started MPI in an MPI job. Ranks this launcher killed do not
  count;
- SIGTERM, SIGINT, SIGHUP, SIGUSR1 and SIGUSR2 to the launcher go to every rank; after one of
  the first three the job ends as its ranks choose (the rules above no longer apply), and the
  status is the ranks' (128 + the signal for one it killed). Every rank gets SIGKILL when the
  launcher dies however it dies (PR_SET_PDEATHSIG), so none is orphaned.

Rank 0 reads the launcher's stdin, the others /dev/null; all write straight to the launcher's
stdout and stderr (nothing forwards them). Each rank gets PMI_FD, PMI_RANK, PMI_SIZE,
MPI_LOCALRANKID and MPI_LOCALNRANKS, as under Hydra.

Runs as a script file (``python -I .../forker.py -n N -- command ...``, cluster/listen.py builds
it) and imports only the standard library: importing the minispore package would run a
dynamic-cluster worker's relaunch again.
"""
import ctypes
import os
import selectors
import signal
import socket
import subprocess
import sys

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2)
STOPPING = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}   # once passed on, the job is ending
# PMI-1 limits told to the ranks (Hydra's values); MPICH splits longer values itself.
MAXES = "kvsname_max=256 keylen_max=64 vallen_max=1024"
USAGE = "usage: forker.py -n N [--] command [args ...]"


class Rank:
    """One rank: its process, the launcher's end of its PMI socket, and how far it got."""

    def __init__(self, index, proc, sock):
        self.index, self.proc, self.sock = index, proc, sock
        self.buffer = b""
        self.initialized = self.finalized = self.killed = False
        self.status = None        # the exit status once reaped (negative: the signal)

    def describe(self):
        return f"rank {self.index} (pid {self.proc.pid})"


class Job:
    """N ranks of one command, their PMI key-value space and their end."""

    def __init__(self, ranks, argv, environ=None):
        self.kvsname = f"minispore_{socket.gethostname()}_{os.getpid()}_{os.urandom(4).hex()}"
        self.size = ranks
        self.kvs = {}
        self.in_barrier = set()
        self.forwarded = set()    # signals passed on to the ranks
        self.outcome = None       # (status, why) once the job must end
        self.selector = selectors.DefaultSelector()
        self.wakeup_r, self.wakeup_w = socket.socketpair()
        for end in (self.wakeup_r, self.wakeup_w):
            end.setblocking(False)
        self.selector.register(self.wakeup_r, selectors.EVENT_READ)
        # The ranks' environment is this process's own, copied whole: forker runs as
        # `python -I forker.py`, without minispore (so without its settings registry).
        environ = dict(os.environ if environ is None else environ)
        self.ranks = [self._start(i, argv, environ) for i in range(ranks)]

    def _start(self, index, argv, environ):
        ours, theirs = socket.socketpair()
        env = dict(environ, PMI_FD=str(theirs.fileno()), PMI_RANK=str(index),
                   PMI_SIZE=str(self.size), MPI_LOCALRANKID=str(index),
                   MPI_LOCALNRANKS=str(self.size))
        proc = subprocess.Popen(argv, env=env, pass_fds=(theirs.fileno(),),
                                stdin=None if index == 0 else subprocess.DEVNULL,
                                preexec_fn=_die_with_parent(os.getpid()))
        theirs.close()
        rank = Rank(index, proc, ours)
        self.selector.register(ours, selectors.EVENT_READ, rank)
        return rank

    # -- the loop ----------------------------------------------------------------------------
    def run(self):
        """Serve the ranks until every one has ended; the job's exit status."""
        signal.set_wakeup_fd(self.wakeup_w.fileno())
        previous = {sig: signal.signal(sig, self._forward) for sig in FORWARDED}
        previous[signal.SIGCHLD] = signal.signal(signal.SIGCHLD, lambda *_: None)
        try:
            while True:
                self._reap()
                if all(r.status is not None for r in self.ranks):
                    self._remove_shared_memory()
                    return self._status()
                for key, _ in self.selector.select():
                    if key.data is None:
                        _drain(self.wakeup_r)
                    else:
                        self._read(key.data)
        finally:
            signal.set_wakeup_fd(-1)
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _forward(self, signum, frame):
        if signum in STOPPING and not self.forwarded & STOPPING:
            # Said once: a job that ends 128 + this signal then shows why in its output.
            print(f"minispore launcher: got {_signal_name(signum)}; passing it to the ranks",
                  file=sys.stderr, flush=True)
        self.forwarded.add(signum)
        for rank in self.ranks:
            if rank.status is None:
                _signal(rank.proc, signum)

    def _reap(self):
        for rank in self.ranks:
            if rank.status is not None or rank.proc.poll() is None:
                continue
            rank.status = rank.proc.returncode
            if rank.sock is not None:
                self._read(rank, last=True)     # what it said just before it went (an abort)
            # A job told to stop ends as its ranks choose; ranks this launcher killed are no news.
            if rank.killed or self.forwarded & STOPPING:
                continue
            if rank.status < 0:
                self.end(128 - rank.status, f"{rank.describe()} was killed by signal "
                                            f"{-rank.status} ({_signal_name(-rank.status)})")
            elif rank.initialized and not rank.finalized:
                self.end(rank.status, f"{rank.describe()} exited with status {rank.status} "
                                      f"without finalizing MPI")
            else:
                self._check_absent()

    def _check_absent(self):
        """End an MPI job one of whose ranks exited without ever starting MPI: the others
        could never complete a collective or MPI_Finalize with it."""
        if any(r.initialized for r in self.ranks):
            for rank in self.ranks:
                if rank.status is not None and not rank.initialized and not rank.killed:
                    self.end(max(rank.status, 1), f"{rank.describe()} exited with status "
                                                  f"{rank.status} without starting MPI, which "
                                                  f"the other ranks did")

    def end(self, status, why):
        """End every rank still running (SIGKILL): the job's outcome is `status`, for `why`."""
        if self.outcome is None:
            self.outcome = (status, why)
            running = [r for r in self.ranks if r.status is None]
            if running:
                print(f"minispore launcher: {why}; ending the other ranks", file=sys.stderr,
                      flush=True)
            for rank in running:
                rank.killed = True
                _signal(rank.proc, signal.SIGKILL)

    def _remove_shared_memory(self):
        """Unlink the job's node-local shared memory once every rank has ended. MPICH's ch4
        names it after the job id this launcher hands out (/dev/shm/mpich_shm_<world>_0 and
        mpich_vci_<world>_0, world = the FNV-1a hash of the kvsname, node 0 on one host) and
        unlinks it in MPI_Finalize, which a killed rank never reaches: without this, every
        failed job would leave its segment (1-2 MB) in /dev/shm until the machine restarts."""
        world = _fnv1a(self.kvsname.encode())
        for kind in ("shm", "vci"):
            try:
                os.unlink(f"/dev/shm/mpich_{kind}_{world:x}_0")
            except FileNotFoundError:
                pass

    def _status(self):
        if self.outcome is not None:
            return self.outcome[0]
        return max(r.status if r.status >= 0 else 128 - r.status for r in self.ranks)

    # -- PMI -----------------------------------------------------------------------------------
    def _read(self, rank, last=False):
        """Serve what `rank` has sent; `last`: all it sent before it ended, then close."""
        while rank.sock is not None:
            try:
                data = rank.sock.recv(65536, socket.MSG_DONTWAIT if last else 0)
            except BlockingIOError:
                data = b""
            except OSError:
                data = b""
            if not data:
                self._close(rank)
                return
            rank.buffer += data
            while b"\n" in rank.buffer:
                line, rank.buffer = rank.buffer.split(b"\n", 1)
                if line.strip():
                    self._serve(rank, line.decode("utf-8", "replace"))
            if not last:
                return

    def _close(self, rank):
        self.selector.unregister(rank.sock)
        rank.sock.close()
        rank.sock = None

    def _serve(self, rank, line):
        fields = dict(item.split("=", 1) for item in line.split() if "=" in item)
        cmd = fields.get("cmd")
        if cmd == "init" and fields.get("pmi_version") == "1":
            rank.initialized = True
            self._send(rank, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0")
            self._check_absent()
        elif cmd == "get_maxes":
            self._send(rank, f"cmd=maxes {MAXES} rc=0")
        elif cmd == "get_appnum":
            self._send(rank, "cmd=appnum appnum=0 rc=0")
        elif cmd == "get_my_kvsname":
            self._send(rank, f"cmd=my_kvsname kvsname={self.kvsname} rc=0")
        elif cmd == "get_universe_size":
            self._send(rank, f"cmd=universe_size size={self.size} rc=0")
        elif cmd == "put" and "key" in fields:
            self.kvs[fields["key"]] = fields.get("value", "")
            self._send(rank, "cmd=put_result rc=0")
        elif cmd == "get" and "key" in fields:
            value = self._lookup(fields.get("kvsname"), fields["key"])
            self._send(rank, "cmd=get_result rc=-1 msg=key_not_found" if value is None
                       else f"cmd=get_result rc=0 value={value}")
        elif cmd == "barrier_in":
            # PMI-1 barriers span the whole job: everyone's puts are visible after it.
            self.in_barrier.add(rank.index)
            if len(self.in_barrier) == self.size:
                self.in_barrier.clear()
                for other in self.ranks:
                    if other.sock is not None:
                        self._send(other, "cmd=barrier_out rc=0")
        elif cmd == "finalize":
            rank.finalized = True
            self._send(rank, "cmd=finalize_ack rc=0")
        elif cmd == "abort":
            code = int(fields.get("exitcode", "1") or 1)
            self.end(code or 1, f"{rank.describe()} called MPI_Abort (exit code {code})")
        else:
            self.end(1, f"{rank.describe()} asked for PMI command {line.strip()!r}, which "
                        f"this launcher does not serve (MPI_Comm_spawn and name publishing "
                        f"need mpirun: python -m minispore.run --mpirun PATH)")

    def _lookup(self, kvsname, key):
        if kvsname != self.kvsname:
            return None
        if key == "PMI_process_mapping":
            # (vector,(first node, nodes, ranks per node)): every rank on node 0, this host.
            return f"(vector,(0,1,{self.size}))"
        return self.kvs.get(key)

    def _send(self, rank, message):
        try:
            rank.sock.sendall(message.encode() + b"\n")
        except OSError:
            pass        # the rank is gone; reaping it decides what that means


def _fnv1a(data):
    """The 32-bit FNV-1a hash MPICH derives its world id from (uthash's HASH_FNV)."""
    h = 2166136261
    for byte in data:
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h


def _signal(proc, signum):
    try:
        proc.send_signal(signum)
    except ProcessLookupError:
        pass


def _signal_name(signum):
    try:
        return signal.Signals(signum).name
    except ValueError:
        return "a real-time signal"


def _drain(sock):
    try:
        while sock.recv(4096):
            pass
    except (BlockingIOError, InterruptedError):
        pass


def _die_with_parent(parent):
    """In each rank before exec: SIGKILL when the launcher dies (Linux's PR_SET_PDEATHSIG)."""
    def arm():
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))
        except (OSError, AttributeError):
            return
        if os.getppid() != parent:      # the launcher died before the line above
            os.kill(os.getpid(), signal.SIGKILL)
    return arm


def parse_args(argv):
    """(ranks, command)."""
    if len(argv) < 3 or argv[0] != "-n":
        raise SystemExit(USAGE)
    try:
        ranks = int(argv[1])
    except ValueError:
        ranks = 0
    command = argv[3:] if argv[2] == "--" else argv[2:]
    if ranks < 1 or not command:
        raise SystemExit(f"{USAGE}\nforker.py: -n must be a positive number of ranks and a "
                         f"command must follow, but got {argv!r}")
    return ranks, command


def main(argv=None):
    ranks, command = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        job = Job(ranks, command)
    except OSError as e:
        print(f"minispore launcher: cannot start {command[0]!r}: {e}", file=sys.stderr)
        return 127
    return job.run()


if __name__ == "__main__":
    sys.exit(main())
