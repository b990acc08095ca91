"""`python -m minispore.run -n N script.py [args]`: an msrun-style launcher over mpirun.

It starts N ranks of ``python script.py args`` (or ``python -m module args``) with the MPI
launcher of the project's environment (the `mpich` wheel's ``mpirun`` beside the running
Python), gives every rank ``cores // ranks`` threads for Numba, OpenMP and BLAS (two thread
pools per core collapse training speed; see shared/reference/numba_performance.md), and exits
with mpirun's exit code, so a failure on any rank fails the launch.

SIGTERM and SIGINT sent to the launcher go to mpirun, which ends the ranks; mpirun is killed
if it has not ended GRACE_S later, and it gets SIGTERM if the launcher itself dies (even by
SIGKILL), so a launch never leaves mpirun or ranks behind. The ranks' network traffic stays on
loopback (LOOPBACK_VARS): every rank runs on this host.

Ports a job opens (single host, MPICH wheel, UCX netmod, measured with ``ss -ltnp``):
- mpirun (hydra) listens on one ephemeral TCP port on all interfaces, where its proxy connects
  back: hydra binds it to INADDR_ANY and has no option to bind it elsewhere (``-iface``,
  ``-localhost`` choose the address proxies connect to, not the bind), so it stays open to
  the network for the job's lifetime;
- each rank's UCX (or OFI) netmod listens on one ephemeral TCP port: on 127.0.0.1 only with
  LOOPBACK_VARS (without them, on the host's address as well);
- ranks talk to the proxy over inherited socket pairs (no port), and to each other over
  shared memory on one host.

>>> # python -m minispore.run -n 4 examples/data_parallel/train.py --epochs 1
"""
import ctypes
import os
import signal
import subprocess
import sys
import time

from minispore.common.malloc_tuning import MALLOC_VARS
from minispore.communication.relaunch import LOOPBACK_VARS
from minispore.communication.relaunch import find_mpiexec as find_mpirun
from minispore.communication.threads import THREAD_VARS, host_cores

# MALLOC_VARS (common/malloc_tuning.py): glibc serves allocations above its mmap threshold with
# fresh pages on every call, so each 1-32 MB output buffer page-faults anew; measured on 2
# ranks, AllReduce of 1 MB took 4.7x raw mpi4py because of it, and 0.85-1.11x from 1 to 64 MB
# with the ranks started with these settings.



def rank_environment(ranks, environ=None, cores=None, single_host=False):
    """The environment for N ranks on this host: each thread pool sized cores // ranks (at
    least 1), glibc's malloc thresholds raised (MALLOC_VARS) and, for a job whose every rank
    runs here (`single_host`), the netmods on loopback (LOOPBACK_VARS), unless the user set
    that variable already. (msrun shares it for its node's workers, which may talk to other
    nodes: no loopback there.)"""
    env = dict(os.environ if environ is None else environ)
    threads = str(max(1, (cores or host_cores()) // ranks))
    for var in THREAD_VARS:
        env.setdefault(var, threads)
    for var, value in {**MALLOC_VARS, **(LOOPBACK_VARS if single_host else {})}.items():
        env.setdefault(var, value)
    return env


def _is_open_mpi(mpirun):
    try:
        out = subprocess.run([mpirun, "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "Open MPI" in out or "OpenRTE" in out


def build_command(ranks, target, args, mpirun, open_mpi, cores):
    """The mpirun argv. MPICH's Hydra oversubscribes without asking (and rejects
    --oversubscribe); Open MPI refuses more ranks than cores unless told."""
    cmd = [mpirun, "-n", str(ranks)]
    if open_mpi and ranks > cores:
        cmd.append("--oversubscribe")
    return cmd + [sys.executable] + target + list(args)


USAGE = ("usage: python -m minispore.run [-n N] [--mpirun PATH] [--dry-run] "
         "(script.py | -m module) [args ...]")


def parse_args(argv):
    """(ranks, mpirun, dry_run, target, args). Launcher options come first; everything from
    the script (or ``-m module``) on belongs to the script, options included."""
    ranks, mpirun, dry_run = 1, None, False
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            print(USAGE + "\n\n" + __doc__.split("\n\n")[1])
            raise SystemExit(0)
        if arg == "--dry-run":
            dry_run = True
        elif arg in ("-n", "-np", "--worker_num", "--mpirun"):
            if i + 1 == len(argv):
                raise SystemExit(f"{USAGE}\nminispore.run: {arg} needs a value")
            if arg == "--mpirun":
                mpirun = argv[i + 1]
            else:
                ranks = _ranks(argv[i + 1])
            i += 1
        elif arg.startswith("--worker_num="):
            ranks = _ranks(arg.split("=", 1)[1])
        elif arg == "-m":
            if i + 1 == len(argv):
                raise SystemExit(f"{USAGE}\nminispore.run: -m needs a module name")
            return ranks, mpirun, dry_run, ["-m", argv[i + 1]], argv[i + 2:]
        elif arg.startswith("-"):
            raise SystemExit(f"{USAGE}\nminispore.run: unknown option {arg!r}")
        else:
            return ranks, mpirun, dry_run, [arg], argv[i + 1:]
        i += 1
    raise SystemExit(f"{USAGE}\nminispore.run: a script (or -m module) to run is required")


def _ranks(text):
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise SystemExit(f"{USAGE}\nminispore.run: -n must be a positive number of ranks, "
                         f"but got {text!r}")
    return n


def main(argv=None):
    ranks, mpirun, dry_run, target, args = parse_args(sys.argv[1:] if argv is None else argv)
    mpirun, note = find_mpirun(mpirun)
    if note:
        print(note, file=sys.stderr)
    cores = host_cores()
    env = rank_environment(ranks, cores=cores, single_host=True)
    cmd = build_command(ranks, target, args, mpirun, _is_open_mpi(mpirun), cores)
    if dry_run:
        print(" ".join(f"{v}={env[v]}" for v in THREAD_VARS + tuple(LOOPBACK_VARS)),
              " ".join(cmd))
        return 0
    return run_forwarding_signals(cmd, env)


GRACE_S = 10.0        # after a forwarded signal, how long mpirun may take to end the ranks
FORWARDED = (signal.SIGTERM, signal.SIGINT)


def _die_with_launcher():
    """In mpirun, before exec: SIGTERM when the launcher dies, however it dies (Linux's
    PR_SET_PDEATHSIG; elsewhere the launcher's handlers are the only guard)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def run_forwarding_signals(cmd, env):
    """Run mpirun and return its exit status; SIGTERM/SIGINT to this process are forwarded to
    it (hydra passes them to every rank), and if it has not ended GRACE_S after one it is
    killed (its proxies then end the ranks). Returns 128 + the signal when mpirun ended with
    status 0 after a forwarded signal."""
    # Its own session: a terminal's Ctrl-C reaches mpirun once, through the launcher, not
    # twice (hydra treats a second SIGINT as "kill now").
    proc = subprocess.Popen(cmd, env=env, start_new_session=True,
                            preexec_fn=_die_with_launcher)
    received = []     # (signal, time) of each forwarded signal

    def forward(signum, frame):
        received.append((signum, time.monotonic()))
        if proc.poll() is None:
            proc.send_signal(signum)

    previous = {sig: signal.signal(sig, forward) for sig in FORWARDED}
    try:
        while True:
            try:
                # A short wait, so the grace period is checked soon after a signal.
                status = proc.wait(timeout=0.5)
                break
            except subprocess.TimeoutExpired:
                if received and time.monotonic() - received[0][1] > GRACE_S:
                    print(f"minispore.run: mpirun has not ended {GRACE_S:g} s after "
                          f"{signal.Signals(received[0][0]).name}; killing it",
                          file=sys.stderr)
                    proc.kill()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if received and status == 0:
        return 128 + received[0][0]
    return status if status >= 0 else 128 - status


if __name__ == "__main__":
    sys.exit(main())
