"""nn.AdaSumByGradWrapCell / nn.AdaSumByDeltaWeightWrapCell (minispore/nn/optim/adasum.py).

The arguments MindSpore refuses, in one process; then a job on 16 and on 32 ranks (2 and 4
servers of 8; tests/parallel/adasum_job.py) whose weights must equal a float64 simulation of
MindSpore's algorithm written here from its source: each server's gradient (the mirror or the
data-parallel reducer over its 8 ranks only), the recursive-halving exchange between servers
with MindSpore's per-rank scaling, and the optimizer (before or after the exchange).
"""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minispore as ms
from minispore import nn
from minispore.nn.optim import adasum
from minispore.parallel.parameter_placement import _adasum_mirror_group
from minispore.parallel.settings import ParallelSettings
from tests.parallel import adasum_job as job

ROOT = Path(__file__).resolve().parents[2]
SERVER, EPS = 8, 1e-12


def _net_params():
    return nn.Dense(4, 2).trainable_params()


@pytest.fixture
def semi_auto_16():
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=16)
    yield
    ms.reset_auto_parallel_context()


@pytest.mark.parametrize("wrap", ["AdaSumByGradWrapCell", "AdaSumByDeltaWeightWrapCell"])
def test_stand_alone_is_refused(wrap):
    ms.reset_auto_parallel_context()
    with pytest.raises(RuntimeError, match=f"For '{wrap}', stand alone mode is not supported"):
        getattr(nn, wrap)(nn.SGD(_net_params(), 0.1))


@pytest.mark.parametrize("context, message", [
    ({"device_num": 8}, "at least 16 and a power of 2 .* but got 8"),
    ({"device_num": 24}, "at least 16 and a power of 2 .* but got 24"),
    ({"device_num": 32, "pipeline_stages": 2}, r"pipeline_stages=2\) is not supported"),
    ({"device_num": 16, "enable_parallel_optimizer": True}, "optimizer shard"),
])
def test_parallel_settings_mindspore_refuses(context, message):
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", **context)
    try:
        with pytest.raises(RuntimeError, match=message):
            nn.AdaSumByGradWrapCell(nn.SGD(_net_params(), 0.1))
    finally:
        ms.reset_auto_parallel_context()


def test_optimizer_must_be_an_optimizer(semi_auto_16):
    with pytest.raises(TypeError, match="'optimizer' must be an nn.Optimizer, but got Dense"):
        nn.AdaSumByGradWrapCell(nn.Dense(2, 2))


@pytest.mark.parametrize("shape, steps, uneven", [
    ((1,), 3, None), ((1, 1), 2, None),       # ones: averaged at every step
    ((3, 6), 1, None), ((3,), 1, None),       # one step: any split
    ((4, 6), 2, None), ((4,), 2, None), ((1, 4), 2, None),
    ((3,), 2, 1), ((1, 3), 2, 1), ((2,), 2, 1), ((6,), 3, 2),
])
def test_tensors_that_cannot_halve_evenly_are_found(shape, steps, uneven):
    assert adasum._uneven_step(shape, steps) == uneven


@pytest.mark.parametrize("replicas, rank, group", [
    (list(range(16)), 5, list(range(8))),                # replicated: its server's 8 ranks
    (list(range(16)), 12, list(range(8, 16))),
    (list(range(1, 16, 2)), 9, [9, 11, 13, 15]),         # sliced in two, replicas 2 apart
])
def test_mirror_sums_within_the_server(replicas, rank, group):
    settings = ParallelSettings(16, rank, "data_parallel", False, False)
    param = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="w")
    assert _adasum_mirror_group(param, replicas, settings, SERVER) == group


@pytest.mark.parametrize("replicas", [
    [4],                         # sliced over every device: nothing to combine
    list(range(8)),              # sliced across the servers
    [0, 8],                      # replicas a server apart
])
def test_parameters_sliced_across_servers_are_refused(replicas):
    settings = ParallelSettings(16, replicas[0], "data_parallel", False, False)
    param = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="w")
    with pytest.raises(NotImplementedError, match="AdaSum over parameter 'w'"):
        _adasum_mirror_group(param, replicas, settings, SERVER)


# -- the float64 simulation --------------------------------------------------------------------

def _halves(piece, left):
    """(kept, sent) halves of a piece, split as MindSpore does (first axis > 1 after squeeze),
    or None for a piece of ones."""
    dims = [d for d in piece.shape if d != 1]
    if not dims:
        return None
    x = piece.reshape(dims)
    lower, upper = x[:dims[0] // 2], x[dims[0] // 2:]
    return (upper, lower) if left else (lower, upper)


def adasum_reference(vectors):
    """AdaSum over the servers' `vectors` (float64), as every rank of a server computes it."""
    g = len(vectors)
    pieces = [np.asarray(v, np.float64) for v in vectors]
    sizes = []
    for step in range(int(np.log2(g))):
        left = [(k >> step) % 2 == 0 for k in range(g)]
        partner = [k ^ (1 << step) for k in range(g)]
        block = [k >> (step + 1) for k in range(g)]
        if _halves(pieces[0], True) is None:       # same shapes on every server
            pieces = [np.mean([pieces[j] for j in range(g) if block[j] == block[k]], axis=0)
                      for k in range(g)]
            sizes.append(None)
            continue
        kept, sent = zip(*(_halves(pieces[k], left[k]) for k in range(g)))
        sizes.append([s.size for s in sent])
        # each rank's sums over its half and the partner's same half (the one the partner
        # sent), scaled by its own half's max; then summed over the block
        sums = []
        for k in range(g):
            own, other = kept[k], sent[partner[k]]
            scale = own.max() + EPS
            own_s, other_s = own / scale, other / scale
            dot = (own_s * other_s).sum() + EPS
            norms = ((own_s ** 2).sum() + EPS, (other_s ** 2).sum() + EPS)
            sums.append((dot,) + (norms if left[k] else norms[::-1]))
        new = []
        for k in range(g):
            d, na, nb = (sum(sums[j][i] for j in range(g) if block[j] == block[k])
                         for i in range(3))
            own, other = kept[k], sent[partner[k]]
            a, b = (own, other) if left[k] else (other, own)
            new.append((1 - d / (2 * na)) * a + (1 - d / (2 * nb)) * b)
        pieces = new
    for step in reversed(range(len(sizes))):
        if sizes[step] is None:
            continue
        partner = [k ^ (1 << step) for k in range(g)]
        flat = [p.ravel() for p in pieces]
        pieces = [np.concatenate((flat[partner[k]], flat[k]) if (k >> step) % 2 == 0
                                 else (flat[k], flat[partner[k]])) for k in range(g)]
    return [p.reshape(np.shape(v)) for p, v in zip(pieces, vectors)]


def _gradients(w, x, y, logical_rows):
    """Gradients of sum((out - y)^2) / (logical_rows * 1) w.r.t. (W1, b1, W2, b2) on rows x."""
    w1, b1, w2, b2 = w
    h = x @ w1.T + b1
    dout = 2 * (h @ w2.T + b2 - y) / logical_rows
    dh = dout @ w2
    return [dh.T @ x, dh.sum(0), dout.T @ h, dout.sum(0)]


def simulate(case, n, combine=adasum_reference):
    """The weights every server's ranks hold after the job's steps, in float64; `combine`:
    what joins the servers' vectors."""
    mode, wrap, optimizer, mean = job.CASES[case]
    servers = n // SERVER
    weights = [[job.W1.astype(np.float64), np.zeros(job.HIDDEN), job.W2.astype(np.float64),
                np.zeros(1)]
               for _ in range(servers)]
    moments = [[np.zeros_like(p) for p in weights[0]] for _ in range(servers)]
    xs, ys = job.batches(n)
    per_rank = job.BATCH_PER_RANK
    for x, y in zip(xs.astype(np.float64), ys.astype(np.float64)):
        server_grads = []
        for k in range(servers):
            rows = slice(k * SERVER * per_rank, (k + 1) * SERVER * per_rank)
            if mode == "data_parallel":     # mean of the ranks' own-batch means
                grads = _gradients(weights[k], x[rows], y[rows], SERVER * per_rank)
            else:                           # the mirror sums shares of the logical batch's mean
                grads = _gradients(weights[k], x[rows], y[rows], n * per_rank)
                grads = [g / SERVER if mean else g for g in grads]
            server_grads.append(grads)

        def apply(k, grads):
            if optimizer == "sgd":
                return [p - job.LR * g for p, g in zip(weights[k], grads)]
            moments[k] = [job.MOMENTUM * v + g for v, g in zip(moments[k], grads)]
            return [p - job.LR * v for p, v in zip(weights[k], moments[k])]

        if wrap == "AdaSumByGradWrapCell":
            combined = list(zip(*(combine([server_grads[k][i] for k in range(servers)])
                                  for i in range(4))))
            weights = [apply(k, combined[k]) for k in range(servers)]
        else:
            stepped = [apply(k, server_grads[k]) for k in range(servers)]
            deltas = list(zip(*(combine([weights[k][i] - stepped[k][i]
                                                  for k in range(servers)])
                                for i in range(4))))
            weights = [[p - d for p, d in zip(weights[k], deltas[k])] for k in range(servers)]
    return weights


def test_reference_adds_orthogonal_and_averages_equal_vectors():
    # (each half's max is 1, so MindSpore's per-rank scaling cancels)
    a, b = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_allclose(adasum_reference([a, b])[0], a + b)
    np.testing.assert_allclose(adasum_reference([a, a])[1], a)


# ranks -> the cases run there: 16 ranks (2 servers, one exchange step) run every case; 32
# (4 servers: two steps, each halving again, then two back) the one exercising most (the
# optimizer's step before the exchange, with momentum), to keep the suite's time down
JOBS = {16: list(job.CASES), 32: ["semi_delta_momentum"]}


@pytest.fixture(scope="module")
def job_output(request, tmp_path_factory):
    """(ranks, output folder) of the job on that many ranks."""
    ranks = request.param
    out = tmp_path_factory.mktemp(f"adasum{ranks}")
    drop = ("PMI_", "PMIX_", "MPI_", "MPICH_", "HYDRA_", "MPIR_", "OMPI_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "minispore.run", "-n", str(ranks), "-m",
                           "tests.parallel.adasum_job", str(out)] + JOBS[ranks], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return ranks, out


@pytest.mark.parametrize("job_output, case",
                         [(ranks, case) for ranks, cases in JOBS.items() for case in cases],
                         indirect=["job_output"])
def test_ranks_equal_the_float64_simulation(job_output, case):
    ranks, out = job_output
    expected = simulate(case, n=ranks)
    names = ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    steps = int(np.log2(ranks // SERVER))
    for rank in range(ranks):
        got = np.load(out / f"{case}_rank{rank}.npz")
        for name, want in zip(names, expected[rank // SERVER]):
            np.testing.assert_allclose(got[name], want, rtol=1e-4, atol=1e-5,
                                       err_msg=f"{case}, rank {rank}, {name}")
        # the last step's exchange: three tensors halved and sent at each step, and sent back
        # (the one-element bias is averaged instead)
        assert got["count_Send"] == got["count_Receive"] == 2 * 3 * steps, case
    # AdaSum had work to do: each server stepping alone ends far outside the tolerance
    alone = simulate(case, ranks, combine=lambda vectors: vectors)
    assert np.abs(alone[0][0] - expected[0][0]).max() > 100 * 1e-5
