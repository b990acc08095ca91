"""MindSpore's own samples, run unchanged from ../shared/samples, across two namespace hosts
(`mpirun` with a hostfile) print the losses the same samples print on one host (`mpirun` on
node0): the data-parallel sample and the pipeline sample with one stage per host (one rank per
host: its activations and gradients cross the link), and the semi-auto tutorial (its
strategies need 8 ranks: 4 per host). Small synthetic MNIST data keeps them short.
"""
import re

import pytest

from minispore.dataset.synth_mnist import synth_mnist
from tests.launch.harness import MPIRUN, PYTHON, clean_env, run_script
from tests.multihost.test_mpirun_hosts import TIMEOUT_S, mpirun_across
from tests.parallel.test_mindspore_samples import SAMPLES, TENSOR_LOSS

pytestmark = pytest.mark.skipif(not SAMPLES.is_dir(), reason="MindSpore's samples "
                                "(../shared/samples) are not beside this checkout")


def per_rank_output(folder, ranks):
    return [(folder / f"rank.{r}.out").read_text() for r in range(ranks)]


def run_both(hosts, folder, sample, images, per_host=1):
    """(one host's, two hosts') per-rank stdout of `sample` on 2 * per_host ranks."""
    data = folder / "MNIST_Data"
    synth_mnist(str(data), images, 32, seed=0)
    argv = [PYTHON, "-m", "minispore", SAMPLES / sample]
    outputs = []
    for name in ("one_host", "two_hosts"):
        logs = folder / name
        logs.mkdir()
        per_rank = ["-outfile-pattern", f"{logs}/rank.%r.out",
                    "-errfile-pattern", f"{logs}/rank.%r.err"]
        if name == "one_host":
            status, output = run_script(hosts[0].command([MPIRUN, "-n", 2 * per_host,
                                                          *per_rank, *argv]),
                                        clean_env(DATA_PATH=data / "train"), folder, TIMEOUT_S)
        else:
            status, output = mpirun_across(hosts, folder, (per_host, per_host), *per_rank, *argv,
                                           DATA_PATH=data / "train")
        errors = "".join(p.read_text()[-2000:] for p in logs.glob("rank.*.err"))
        assert status == 0, output[-2000:] + errors
        outputs.append(per_rank_output(logs, 2 * per_host))
    return outputs


def test_data_parallel_sample_across_hosts_prints_the_one_host_losses(hosts, job_folder):
    one, two = run_both(hosts, job_folder, "distributed_data_parallel/"
                        "distributed_data_parallel.py", 64)
    for rank in range(2):
        losses = re.findall(TENSOR_LOSS, one[rank])
        assert len(losses) == 10, one[rank][-2000:]          # 1 step per epoch, 10 epochs
        assert re.findall(TENSOR_LOSS, two[rank]) == losses, (rank, two[rank][-2000:])


def test_pipeline_sample_with_one_stage_per_host_prints_the_one_host_losses(hosts, job_folder):
    one, two = run_both(hosts, job_folder, "distributed_pipeline_parallel/"
                        "distributed_pipeline_parallel.py", 128)
    # Stage 0 (node0) returns a placeholder loss; stage 1 (node1) the sum of 4 micro-batches'.
    assert re.findall(TENSOR_LOSS, one[0]) == ["0.0"] * 10, one[0][-2000:]
    losses = re.findall(TENSOR_LOSS, one[1])
    assert len(losses) == 10 and float(losses[0]) > 8, one[1][-2000:]
    for rank in range(2):
        assert re.findall(TENSOR_LOSS, two[rank]) == re.findall(TENSOR_LOSS, one[rank]), rank
    # 4 steps of 4 micro-batches, 10 epochs: layer1's Print runs on stage 0's host alone.
    assert [o.count("out is:") for o in two] == [160, 0]


def test_semi_auto_tutorial_across_hosts_prints_the_one_host_losses(hosts, job_folder):
    one, two = run_both(hosts, job_folder, "parallel_support_dynamic_shape/main.py", 64,
                        per_host=4)
    pattern = r"epoch: \d+ step: \d+, loss is ([-\d.e]+)"
    for rank in range(8):
        losses = re.findall(pattern, one[rank])
        assert len(losses) == 10, one[rank][-2000:]        # 2 steps per epoch, 5 epochs
        assert re.findall(pattern, two[rank]) == losses, (rank, two[rank][-2000:])
