"""Fixtures of the launch tests: processes killed after each test, and the mpirun runs of
data_parallel_job.py that the other launches must reproduce (one per world size, shared)."""
import pytest

from tests.launch.harness import JOB, MPIRUN, PYTHON, Processes, clean_env, results, run_script


@pytest.fixture
def processes(tmp_path):
    procs = Processes(tmp_path / "logs")
    yield procs
    procs.close()


@pytest.fixture(scope="session")
def mpirun_training(tmp_path_factory):
    """mpirun_training(n): data_parallel_job.py's results under `mpirun -n n` (run once)."""
    done = {}

    def run(ranks):
        if ranks not in done:
            out = tmp_path_factory.mktemp(f"mpirun_{ranks}")
            status, output = run_script([MPIRUN, "-n", ranks, PYTHON, "-m", "minispore", JOB,
                                         out], clean_env(), out, timeout=300)
            assert status == 0, output[-3000:]
            done[ranks] = results(out, ranks)
        return done[ranks]
    return run
