"""init() under plain mpirun sizes each rank's Numba and BLAS pools for the ranks sharing its
host (cores // local ranks) unless the user chose; every process is a worker there. MS_ROLE
processes form a dynamic cluster instead (tests/launch); the parameter-server role is refused."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from minispore.communication.cluster.roles import Role, role_from_environment
from minispore.communication.threads import (THREAD_VARS, host_cores, limit_threads,
                                             threads_per_rank)

ROOT = Path(__file__).resolve().parents[2]
MPIRUN = Path(sys.executable).parent / "mpirun"

REPORT_THREADS = """
import numba, threadpoolctl
import minispore as ms
from minispore.communication import init
from minispore.communication._comm import STATE
{before}
init()
blas = sorted({{i["num_threads"] for i in threadpoolctl.threadpool_info()
                if i["user_api"] == "blas"}})
line = (f"rank {{STATE.world.rank}} role {{STATE.role.value}} numba {{numba.get_num_threads()}} "
        f"blas {{blas}}")
lines = STATE.world.comm.gather(line, root=0)   # one writer: ranks' prints would interleave
if STATE.world.rank == 0:
    print("\\n".join(lines), flush=True)
"""


def _env(**extra):
    drop = ("PMI_", "PMIX_", "MPI_", "MPICH_", "HYDRA_", "MPIR_", "OMPI_", "MS_") + THREAD_VARS
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def _run(ranks, before="", **extra):
    script = REPORT_THREADS.format(before=before)
    proc = subprocess.run([str(MPIRUN), "-n", str(ranks), sys.executable, "-c", script],
                          capture_output=True, text=True, timeout=120, env=_env(**extra),
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return sorted(line for line in proc.stdout.splitlines() if line.startswith("rank"))


def test_threads_per_rank_rule():
    shared = (4, "8 cores shared by 2 local ranks")
    assert threads_per_rank(2, environ={}, cores=8) == {"numba": shared, "blas": shared}
    assert threads_per_rank(8, environ={}, cores=2)["numba"][0] == 1
    assert threads_per_rank(2, environ={}, runtime_num_threads=3, cores=8)["blas"][0] == 3


@pytest.mark.parametrize("var, kept, shared", [("NUMBA_NUM_THREADS", "numba", "blas"),
                                               ("OMP_NUM_THREADS", "blas", "numba"),
                                               ("OPENBLAS_NUM_THREADS", "blas", "numba"),
                                               ("MKL_NUM_THREADS", "blas", "numba")])
def test_a_variable_keeps_only_the_pool_it_sizes(var, kept, shared):
    pools = threads_per_rank(2, environ={var: "3"}, cores=8)
    assert pools[kept] == (None, f"{var}=3 is set")
    assert pools[shared] == (4, "8 cores shared by 2 local ranks")


def test_runtime_num_threads_beyond_numbas_pool_is_refused(monkeypatch):
    import numba
    monkeypatch.delenv("NUMBA_NUM_THREADS", raising=False)
    before = numba.get_num_threads()
    too_many = numba.config.NUMBA_NUM_THREADS + 1
    with pytest.raises(ValueError, match=rf"runtime_num_threads={too_many}\) asks for more "
                                         rf"threads than Numba's pool holds .* set "
                                         rf"NUMBA_NUM_THREADS={too_many} in the environment"):
        limit_threads(1, runtime_num_threads=too_many)
    assert numba.get_num_threads() == before


needs_mpirun = pytest.mark.skipif("PMI_RANK" in os.environ or not MPIRUN.exists(),
                                  reason="spawns its own mpirun; runs in the single-process "
                                         "suite")


@needs_mpirun
def test_plain_mpirun_gives_each_rank_its_share_of_the_cores():
    want = max(1, host_cores() // 2)
    lines = _run(2)
    assert lines == [f"rank {r} role MS_WORKER numba {want} blas [{want}]" for r in (0, 1)]


@needs_mpirun
def test_a_user_thread_setting_is_kept():
    lines = _run(2, NUMBA_NUM_THREADS="2", OPENBLAS_NUM_THREADS="2")
    assert all("numba 2 blas [2]" in line for line in lines), lines


@needs_mpirun
def test_omp_num_threads_one_still_shares_the_cores_among_numba_pools():
    # The usual cluster setting: it pins BLAS, and Numba still needs its share.
    want = max(1, host_cores() // 2)
    lines = _run(2, OMP_NUM_THREADS="1")
    assert lines == [f"rank {r} role MS_WORKER numba {want} blas [1]" for r in (0, 1)]


@needs_mpirun
def test_runtime_num_threads_is_used():
    lines = _run(2, before="ms.set_context(runtime_num_threads=3)", NUMBA_NUM_THREADS="4")
    # The environment variable wins over the context (it is the user's explicit choice too).
    assert all("numba 4" in line for line in lines), lines


def test_every_process_is_a_worker():
    assert role_from_environment({}) is Role.WORKER


@pytest.mark.parametrize("value, role", [("MS_SCHED", Role.SCHEDULER), ("MS_WORKER", Role.WORKER)])
def test_ms_role_names_the_dynamic_cluster_role(value, role):
    environ = {"MS_ROLE": value, "MS_SCHED_HOST": "127.0.0.1", "MS_SCHED_PORT": "8118",
               "MS_WORKER_NUM": "8"}
    assert role_from_environment(environ) is role
