"""`msrun` (also `python -m minispore.msrun`): MindSpore's launcher of a dynamic cluster, one
invocation per node.

    msrun --worker_num=8 --local_worker_num=8 train.py --epochs 2
    msrun --worker_num=8 --local_worker_num=4 --master_addr=10.0.0.1 --node_rank=0 train.py
    msrun --worker_num=8 --local_worker_num=4 --master_addr=10.0.0.1 --node_rank=1 train.py

It sets MindSpore's dynamic-cluster variables (MS_ROLE, MS_SCHED_HOST, MS_SCHED_PORT,
MS_WORKER_NUM, MS_NODE_ID, MS_TOPO_TIMEOUT) and starts, on this node, the scheduler (when
--master_addr is one of this node's addresses and this is node 0: --node_rank 0 or unset) and
--local_worker_num workers, each ``python -m minispore SCRIPT ARGS`` (MindSpore scripts run
unchanged, ``import mindspore`` resolving to minispore), with its output in
``LOG_DIR/scheduler.log`` and ``LOG_DIR/worker_<rank>.log``. The processes form one job at
``init()`` (minispore/communication/cluster/scheduler.py).

As MindSpore's msrun: when --local_worker_num equals --worker_num every worker runs here and
--node_rank is ignored; with --node_rank R worker i of this node gets MS_NODE_ID (so rank)
R * local_worker_num + i; without it ranks follow arrival order and the log is named after
the local index. --join=False (the default) returns once the processes are started;
--join=True waits, and when a worker fails gives the others ABORT_GRACE seconds to exit on
their own (the scheduler tells them to), stops the rest, prints the error lines of the logs
and exits with status 1. Each worker's Numba and BLAS pools get cores // local_worker_num
threads (minispore.run's rule), unless the user set their variables.
"""
import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from minispore.communication.threads import THREAD_VARS, host_cores
from minispore.run import rank_environment

ABORT_GRACE = 10.0        # seconds failed jobs' workers get to exit before they are stopped
POLL = 0.2
STOP_GRACE = 10.0         # seconds stopped processes get to clean up before SIGKILL


def _bool(text):
    """True or False, spelt as Python spells them (MindSpore's msrun evaluates the text; any
    other text, `True)` included, is a usage error, not a traceback)."""
    values = {"True": True, "False": False}
    if text.strip() not in values:
        raise argparse.ArgumentTypeError(f"must be True or False, but got {text!r}")
    return values[text.strip()]


def parser():
    p = argparse.ArgumentParser(
        prog="msrun", description="Start a minispore dynamic cluster (scheduler and workers) "
                                  "on this node.")
    p.add_argument("--worker_num", type=int, default=8,
                   help="workers in the whole job, on all nodes (default 8)")
    p.add_argument("--local_worker_num", type=int, default=8,
                   help="workers started on this node (default 8)")
    p.add_argument("--master_addr", default="127.0.0.1",
                   help="the scheduler's IP address or host name (default 127.0.0.1)")
    p.add_argument("--master_port", type=int, default=8118,
                   help="the scheduler's port, 1024-65535 (default 8118)")
    p.add_argument("--node_rank", type=int, default=-1,
                   help="this node's index; pins ranks node_rank * local_worker_num + i "
                        "(default -1: ranks in arrival order)")
    p.add_argument("--log_dir", default="",
                   help="folder of scheduler.log and worker_<rank>.log (default: current "
                        "folder)")
    p.add_argument("--join", type=_bool, default=False, choices=[True, False],
                   help="wait for the processes and exit with the job's status (default False)")
    p.add_argument("--cluster_time_out", type=int, default=600,
                   help="seconds the cluster may take to form (MS_TOPO_TIMEOUT; negative: "
                        "forever; default 600)")
    p.add_argument("task_script", help="the script (or python / python3 / pytest and its "
                                       "arguments)")
    p.add_argument("task_script_args", nargs=argparse.REMAINDER,
                   help="arguments of the script")
    return p


def check(args):
    """Raises ValueError naming the flag when a value is out of range."""
    if args.worker_num <= 0:
        raise ValueError(f"msrun: --worker_num must be greater than 0, but got "
                         f"{args.worker_num}.")
    if not 0 < args.local_worker_num <= args.worker_num:
        raise ValueError(f"msrun: --local_worker_num must be in [1, --worker_num="
                         f"{args.worker_num}], but got {args.local_worker_num}.")
    if not 1024 <= args.master_port <= 65535:
        raise ValueError(f"msrun: --master_port must be in [1024, 65535], but got "
                         f"{args.master_port}.")
    if args.cluster_time_out == 0:
        raise ValueError("msrun: --cluster_time_out must be a number of seconds (negative "
                         "waits forever), but got 0.")
    if args.node_rank < -1:
        raise ValueError(f"msrun: --node_rank must be >= 0 (or -1: unset), but got "
                         f"{args.node_rank}.")


def workers_of_this_node(worker_num, local_worker_num, node_rank, log_dir):
    """[(MS_NODE_ID or None, log path)] of the workers this invocation starts."""
    log_dir = Path(log_dir)
    if local_worker_num == worker_num:
        return [(i, log_dir / f"worker_{i}.log") for i in range(local_worker_num)]
    if node_rank >= 0:
        ids = [node_rank * local_worker_num + i for i in range(local_worker_num)]
        return [(n, log_dir / f"worker_{n}.log") for n in ids]
    return [(None, log_dir / f"worker_{i}.log") for i in range(local_worker_num)]


def is_local_address(host):
    """Whether `host` names an address of this machine (a socket can bind to it)."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_DGRAM)
    except socket.gaierror:
        return False
    for family, kind, proto, _, address in infos:
        with socket.socket(family, kind, proto) as probe:
            try:
                probe.bind((address[0], 0) + tuple(address[2:]))
                return True
            except OSError:
                continue
    return False


def starts_scheduler(args):
    """This node runs the scheduler: the master address is its own, and it is node 0 (on one
    machine several invocations share the address, and only node 0's scheduler must start)."""
    single_node = args.local_worker_num == args.worker_num
    return is_local_address(args.master_addr) and (single_node or args.node_rank <= 0)


def command(task_script, task_args):
    """The argv of each process: a script runs under the `mindspore` alias
    (``python -m minispore``); ``python``/``python3`` run their arguments with this
    environment's interpreter (aliased too when the first is a script); ``pytest`` runs
    ``python -m pytest``."""
    if task_script in ("python", "python3"):
        if task_args and not task_args[0].startswith("-"):
            return [sys.executable, "-m", "minispore"] + task_args
        return [sys.executable] + task_args
    if task_script == "pytest":
        return [sys.executable, "-m", "pytest"] + task_args
    return [sys.executable, "-m", "minispore", task_script] + task_args


def environment(args, role, node_id=None):
    """The environment of one process of this node."""
    if role == "MS_SCHED":
        # The scheduler only coordinates: one thread per pool.
        env = dict(os.environ, **{v: os.environ.get(v, "1") for v in THREAD_VARS})
    else:
        env = rank_environment(args.local_worker_num, cores=host_cores())
    env.update(MS_ROLE=role, MS_SCHED_HOST=args.master_addr, MS_SCHED_PORT=str(args.master_port),
               MS_WORKER_NUM=str(args.worker_num), MS_TOPO_TIMEOUT=str(args.cluster_time_out),
               RANK_SIZE=str(args.worker_num))
    env.pop("MS_NODE_ID", None)
    if role == "MS_SCHED":
        env["RANK_ID"] = "0"
    elif node_id is not None:
        env.update(MS_NODE_ID=str(node_id), RANK_ID=str(node_id))
    return env


def spawn(argv, env, log_path):
    with open(log_path, "w") as log:
        return subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)


def say(message):
    print(f"msrun: {message}", file=sys.stderr, flush=True)


def join(scheduler, workers, log_dir):
    """Wait for the job; 0 when every process exited with 0, else 1 (after stopping what is
    left and printing the logs' error lines)."""
    failed_at = None
    everyone = [p for p, _ in workers] + ([scheduler] if scheduler is not None else [])
    while any(p.poll() is None for p in everyone):
        if failed_at is None and any(p.poll() not in (None, 0) for p in everyone):
            failed_at = time.monotonic()
            say(f"a process failed; the others get {ABORT_GRACE:g} s to exit.")
        if failed_at is not None and time.monotonic() - failed_at > ABORT_GRACE:
            stop_all(everyone)
            break
        time.sleep(POLL)
    for p, log in workers:
        if p.wait() != 0:
            say(f"worker process {p.pid} ({log}) exited with status {p.returncode}.")
    if scheduler is not None and scheduler.wait() != 0:
        say(f"the scheduler (pid {scheduler.pid}) exited with status {scheduler.returncode}.")
    if all(p.returncode == 0 for p, _ in workers) and (scheduler is None
                                                       or scheduler.returncode == 0):
        say("all processes exited normally.")
        return 0
    print_errors(log_dir)
    say(f"the distributed job exited with an error; see the logs in "
        f"{Path(log_dir).resolve()}.")
    return 1


ERROR_LINE = re.compile(r"Error|Traceback|CRITICAL|aborting|exiting with status")


def print_errors(log_dir):
    for log in sorted(Path(log_dir).glob("*.log")):
        lines = [line for line in log.read_text(errors="replace").splitlines()
                 if ERROR_LINE.search(line)]
        for line in lines[-10:]:
            print(f"{log.name}: {line}", file=sys.stderr)


def main(argv=None):
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        check(args)
    except ValueError as e:
        parser().error(str(e))
    log_dir = args.log_dir or "."
    Path(log_dir).mkdir(mode=0o700, parents=True, exist_ok=True)
    argv_of_each = command(args.task_script, args.task_script_args)
    if args.local_worker_num == args.worker_num and args.node_rank not in (-1, 0):
        say(f"all workers run on this node, so --node_rank={args.node_rank} is ignored.")
    scheduler = None
    if starts_scheduler(args):
        scheduler = spawn(argv_of_each, environment(args, "MS_SCHED"),
                          Path(log_dir) / "scheduler.log")
    workers = []
    for node_id, log in workers_of_this_node(args.worker_num, args.local_worker_num,
                                             args.node_rank, log_dir):
        workers.append((spawn(argv_of_each, environment(args, "MS_WORKER", node_id), log), log))
        say(f"started worker pid {workers[-1][0].pid}"
            + (f" with rank id {node_id}" if node_id is not None else
               " (rank assigned at init: grep 'Global rank id' in its log)")
            + f", log {log}.")
    if not args.join:
        return 0
    say("distributed job started; waiting for all processes to exit.")
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        return join(scheduler, workers, log_dir)
    except (KeyboardInterrupt, _Stopped) as stop:
        # the job ends with msrun: a SIGTERM or Ctrl-C reaches every process it started
        signum = stop.signum if isinstance(stop, _Stopped) else signal.SIGINT
        say(f"{signal.Signals(signum).name}: stopping the job's processes.")
        stop_all([p for p in [scheduler] + [p for p, _ in workers] if p is not None])
        return 128 + signum
    finally:
        signal.signal(signal.SIGTERM, previous)


def stop_all(processes):
    """SIGTERM each process, and wait STOP_GRACE seconds for them before SIGKILL: msrun returns
    only once they are gone (the scheduler's token file removed with it)."""
    for p in processes:
        if p.poll() is None:
            p.terminate()
    give_up = time.monotonic() + STOP_GRACE
    for p in processes:
        try:
            p.wait(timeout=max(0.0, give_up - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


class _Stopped(Exception):
    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def _stop(signum, frame):
    raise _Stopped(signum)


if __name__ == "__main__":
    sys.exit(main())
