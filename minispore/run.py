"""`python -m minispore.run -n N script.py [args]`: an mpirun-like launcher of N ranks on this host.

It starts N ranks of ``python script.py args`` (or ``python -m module args``) on this host with
minispore's launcher (communication/cluster/forker.py; ``--mpirun PATH`` picks an MPI launcher
instead, such as the `mpich` wheel's Hydra ``mpirun`` beside the running Python), gives every rank
``cores // ranks`` threads for Numba, OpenMP and BLAS (two thread pools per core collapse
training speed; see shared/reference/numba_performance.md), and exits with the launcher's exit
code, so a failure on any rank fails the launch.

SIGTERM and SIGINT sent to this process go to the launcher, which passes them to the ranks; the
launcher is killed if it has not ended GRACE_S later, and it gets SIGTERM if this process dies
(even by SIGKILL), so a launch never leaves a launcher or ranks behind.

Ports a job opens (MPICH wheel, UCX netmod, measured with ``ss -ltnp``): each rank's netmod
listens on one ephemeral TCP port on 127.0.0.1 only (listen.LOOPBACK_VARS, unless set); the
launcher listens nowhere (its ranks talk to it over inherited socket pairs, and to each other
over shared memory). Under ``--mpirun`` with Hydra, mpirun also listens on one ephemeral port on
every interface, which Hydra cannot bind elsewhere (forker.py says why), for the job's lifetime.

>>> # python -m minispore.run -n 4 examples/data_parallel/train.py --epochs 1
"""
import ctypes
import os
import signal
import subprocess
import sys
import time

from minispore.common.malloc_tuning import MALLOC_VARS
from minispore.communication.cluster.listen import LOOPBACK_VARS, launcher_command, \
    netmod_environment
from minispore.communication.threads import THREAD_VARS, host_cores

# MALLOC_VARS (common/malloc_tuning.py): glibc serves allocations above its mmap threshold with
# fresh pages on every call, so each 1-32 MB output buffer page-faults anew; measured on 2
# ranks, AllReduce of 1 MB took 4.7x raw mpi4py because of it, and 0.85-1.11x from 1 to 64 MB
# with the ranks started with these settings.



def rank_environment(ranks, environ=None, cores=None, single_host=False):
    """The environment for N ranks on this host: each thread pool sized cores // ranks (at
    least 1), glibc's malloc thresholds raised (MALLOC_VARS) and, for a job whose every rank
    runs here (`single_host`), the netmods on loopback (listen.netmod_environment), unless the
    user set that variable already. (msrun shares it for its node's workers, whose netmods
    relaunch.py places once it knows where the scheduler is.)"""
    env = dict(os.environ if environ is None else environ)
    threads = str(max(1, (cores or host_cores()) // ranks))
    for var in THREAD_VARS:
        env.setdefault(var, threads)
    for var, value in MALLOC_VARS.items():
        env.setdefault(var, value)
    if single_host:
        env.update(netmod_environment(None, env))
    return env


def _is_open_mpi(mpirun):
    try:
        out = subprocess.run([mpirun, "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "Open MPI" in out or "OpenRTE" in out


def build_command(ranks, target, args, mpirun=None, open_mpi=False, cores=1):
    """The launch argv: minispore's launcher (listen.launcher_command), or `mpirun` when one is
    named. MPICH's Hydra oversubscribes without asking (and rejects --oversubscribe); Open MPI
    refuses more ranks than cores unless told."""
    if mpirun is None:
        return launcher_command(ranks) + [sys.executable] + target + list(args)
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
    cores = host_cores()
    env = rank_environment(ranks, cores=cores, single_host=True)
    cmd = build_command(ranks, target, args, mpirun, mpirun is not None and _is_open_mpi(mpirun),
                        cores)
    if dry_run:
        print(" ".join(f"{v}={env[v]}" for v in THREAD_VARS + tuple(LOOPBACK_VARS)),
              " ".join(cmd))
        return 0
    return run_forwarding_signals(cmd, env)


GRACE_S = 10.0        # after a forwarded signal, how long the launcher may take to end the ranks
FORWARDED = (signal.SIGTERM, signal.SIGINT)


def _die_with_launcher():
    """In the launcher, before exec: SIGTERM when this process dies, however it dies (Linux's
    PR_SET_PDEATHSIG; elsewhere this process's handlers are the only guard)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def run_forwarding_signals(cmd, env):
    """Run the launcher `cmd` and return its exit status; SIGTERM/SIGINT to this process are
    forwarded to it (it passes them to every rank), and if it has not ended GRACE_S after one
    it is killed (forker.py's ranks die with it; Hydra's proxies end theirs). Returns 128 + the
    signal when the launcher ended with status 0 after a forwarded signal."""
    # Its own session: a terminal's Ctrl-C reaches the launcher once, through this process,
    # not twice (Hydra treats a second SIGINT as "kill now").
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
                    print(f"minispore.run: the launcher has not ended {GRACE_S:g} s after "
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
