"""MindSpore's dynamic-cluster launch: a shell loop starts one MS_SCHED and N MS_WORKER
processes without mpirun (as the tutorials' run.sh does); they train as ONE N-rank
data-parallel job whose losses and parameters equal, bit for bit, the same script's under
`mpirun -n N`, and the scheduler only schedules."""
import re

from tests.launch.harness import JOB, PYTHON, assert_same_training, cluster_env, free_port, \
    needs_own_launch, results, run_script

pytestmark = needs_own_launch

# The pattern of MindSpore's distributed_graph_partition/run.sh (its launch, in our words):
# the scheduler in the background, then the workers in a loop, each with its own log.
SHELL_LOOP = """
set -u
export MS_ROLE=MS_SCHED
{python} -m minispore {job} {out} > scheduler.log 2>&1 &
scheduler=$!
export MS_ROLE=MS_WORKER
for i in {order}; do
  {node_id} {python} -m minispore {job} {out} > worker_$i.log 2>&1 &
  pids[$i]=$!
done
for i in {order}; do wait ${{pids[$i]}}; echo "worker $i exit $?"; done
wait $scheduler; echo "scheduler exit $?"
"""


def run_shell_loop(tmp_path, workers, pin_node_ids=False, reverse=False):
    """(exit status by process name, logs by name, results by rank) of one shell-loop job."""
    out = tmp_path / "out"
    out.mkdir()
    order = range(workers - 1, -1, -1) if reverse else range(workers)
    script = SHELL_LOOP.format(python=PYTHON, job=JOB, out=out,
                               order=" ".join(map(str, order)),
                               node_id="MS_NODE_ID=$i" if pin_node_ids else "")
    status, output = run_script(["bash", "-c", script], cluster_env(free_port(), workers,
                                                                    tmp_path), tmp_path, 300)
    assert status == 0, output
    exits = dict((m[0], int(m[1])) for m in re.findall(r"(\w+ ?\d*) exit (\d+)", output))
    logs = {p.stem: p.read_text() for p in tmp_path.glob("*.log")}
    assert exits == {**{f"worker {i}": 0 for i in range(workers)}, "scheduler": 0}, \
        (exits, logs)
    return logs, results(out, workers)


def assert_scheduler_only_scheduled(log, workers):
    assert "Cluster is successfully initialized" in log, log
    assert f"Job finished: all {workers} workers finished their script." in log
    assert "loss" not in log and "epoch" not in log, log


def test_shell_loop_of_two_workers_trains_as_mpirun_does(tmp_path, mpirun_training):
    logs, got = run_shell_loop(tmp_path, 2)
    assert_same_training(got, mpirun_training(2))
    assert all(int(r["size"]) == 2 for r in got)
    assert_scheduler_only_scheduled(logs["scheduler"], 2)
    # Ranks follow arrival order: each worker's log names the rank it got, and the two differ.
    ranks = sorted(int(re.search(r"Global rank id (\d+)", logs[f"worker_{i}"]).group(1))
                   for i in range(2))
    assert ranks == [0, 1]


def test_node_ids_pin_the_ranks_of_four_workers_started_in_reverse(tmp_path, mpirun_training):
    logs, got = run_shell_loop(tmp_path, 4, pin_node_ids=True, reverse=True)
    assert_same_training(got, mpirun_training(4))
    for i in range(4):
        assert f"Global rank id {i}." in logs[f"worker_{i}"], logs[f"worker_{i}"]
        assert re.search(rf"rank {i} epoch 1 step \d+ loss", logs[f"worker_{i}"])
        # The relaunch chose libfabric's netmod, so init() had nothing to warn about.
        assert "MPI_Comm_connect" not in logs[f"worker_{i}"], logs[f"worker_{i}"]
    assert_scheduler_only_scheduled(logs["scheduler"], 4)
    for i in range(4):
        assert f"Assign rank id of node id: {i}, role: MS_WORKER" in logs["scheduler"]


def test_eight_workers_form_one_world(tmp_path):
    """The size of the graph-partition sample's job (1 scheduler + 8 workers): every worker
    sees the same 8-rank world, all-reduces across it, and its host's 8 local ranks."""
    workers = 8
    script = tmp_path / "world.py"
    script.write_text(
        "import numpy as np\n"
        "import mindspore as ms\n"
        "from mindspore import Tensor, ops\n"
        "from mindspore.communication import init, get_rank, get_group_size, "
        "get_local_rank_size\n"
        "init()\n"
        "total = ops.AllReduce()(Tensor(np.array([get_rank() + 1.0], np.float32)))\n"
        "print('rank', get_rank(), 'size', get_group_size(), 'local', get_local_rank_size(),"
        " 'sum', int(total.asnumpy()[0]), flush=True)\n")
    loop = ("export MS_ROLE=MS_SCHED; {py} -m minispore {s} > scheduler.log 2>&1 & sched=$!\n"
            "export MS_ROLE=MS_WORKER\n"
            "for i in $(seq 0 {last}); do {py} -m minispore {s} > worker_$i.log 2>&1 & "
            "pids[$i]=$!; done\n"
            "for i in $(seq 0 {last}); do wait ${{pids[$i]}} || echo \"worker $i failed\"; done\n"
            "wait $sched || echo 'scheduler failed'\n").format(py=PYTHON, s=script,
                                                               last=workers - 1)
    status, output = run_script(["bash", "-c", loop], cluster_env(free_port(), workers,
                                                                  tmp_path), tmp_path, 300)
    logs = "".join(p.read_text() for p in sorted(tmp_path.glob("worker_*.log")))
    assert status == 0 and "failed" not in output, output + logs
    lines = sorted(re.findall(r"rank (\d+) size (\d+) local (\d+) sum (\d+)", logs))
    want_sum = workers * (workers + 1) // 2
    assert lines == sorted((str(r), str(workers), str(workers), str(want_sum))
                           for r in range(workers)), logs
