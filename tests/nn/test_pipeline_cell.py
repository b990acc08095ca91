"""nn.PipelineCell, nn.MicroBatchInterleaved and nn.PipelineGradReducer on one device
(mindspore_semantics.md §9.2, §17 #24), and the pipeline schedules' slot orders (§9.3).
The multi-rank pipeline is tests/parallel/test_pipeline_mpi.py."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore.parallel.pipeline.schedule import stage_slots
from minispore.parallel.pipeline.stats import analytic_bubble


class Affine(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2)

    def construct(self, x):
        return self.dense(x)


def _x(rows=8):
    return np.arange(rows * 3, dtype=np.float32).reshape(rows, 3) / 10


@pytest.mark.parametrize("wrapper", [lambda n: nn.PipelineCell(n, 4),
                                     lambda n: nn.MicroBatchInterleaved(n, 4),
                                     lambda n: nn.GradAccumulationCell(n, 4)])
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_micro_batch_wrappers_sum_the_network_over_contiguous_micro_batches(wrapper, mode):
    """Micro-batch i is rows [2i, 2i + 2) of 8, as MindSpore's _MicroBatch slices; the outputs
    are summed."""
    ms.set_context(mode=mode)
    ms.set_seed(1)
    net = Affine()
    x = _x()
    out = wrapper(net)(Tensor(x)).asnumpy()
    w, b = net.dense.weight.asnumpy().astype(np.float64), net.dense.bias.asnumpy()
    want = sum(x[2 * i:2 * i + 2].astype(np.float64) @ w.T + b for i in range(4))
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_pipeline_cell_loss_is_the_sum_of_micro_batch_losses():
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(1)
    net = Affine()
    loss_fn = nn.MSELoss()
    x, y = _x(), np.ones((8, 2), np.float32)
    loss = nn.PipelineCell(nn.WithLossCell(net, loss_fn), 2)(Tensor(x), Tensor(y))
    pred = x @ net.dense.weight.asnumpy().T + net.dense.bias.asnumpy()
    want = sum(np.mean((pred[4 * i:4 * i + 4] - 1) ** 2) for i in range(2))
    np.testing.assert_allclose(float(loss.asnumpy()), want, rtol=1e-5)


@pytest.mark.parametrize("args, error, match", [
    ((object(), 2), TypeError, "'network' must be a Cell"),
    ((Affine(), 2.0), TypeError, "'micro_size' must be an int"),
    ((Affine(), True), TypeError, "'micro_size' must be an int"),
    ((Affine(), 0), ValueError, "'micro_size' must be a positive int"),
])
def test_pipeline_cell_argument_errors(args, error, match):
    with pytest.raises(error, match=match):
        nn.PipelineCell(*args)


def test_pipeline_cell_stage_config_sets_stages_and_rejects_unknown_names():
    net = nn.SequentialCell(nn.Dense(2, 2), nn.ReLU(), nn.Dense(2, 2))
    nn.PipelineCell(net, 2, stage_config={"0": 0, "2": 1})
    assert (net[0].pipeline_stage, net[2].pipeline_stage) == (0, 1)
    assert net[0].weight.pipeline_stages == [0] and net[2].weight.pipeline_stages == [1]
    with pytest.raises(KeyError, match="'9'"):
        nn.PipelineCell(net, 2, stage_config={"9": 1})
    with pytest.raises(NotImplementedError, match="segment_config"):
        nn.PipelineCell(net, 2, segment_config={"0": 0})


def test_pipeline_cell_runs_eagerly_only_without_a_pipeline():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    cell = nn.PipelineCell(Affine(), 2)
    cell(Tensor(_x()))
    ms.set_auto_parallel_context(pipeline_stages=2)
    try:
        with pytest.raises(RuntimeError, match="GRAPH_MODE only"):
            cell(Tensor(_x()))
    finally:
        ms.reset_auto_parallel_context()


@pytest.mark.parametrize("bad, error", [("x", TypeError), (0, ValueError)])
def test_micro_batch_interleaved_argument_errors(bad, error):
    with pytest.raises(error, match="interleave_num"):
        nn.MicroBatchInterleaved(Affine(), bad)


def test_pipeline_grad_reducer_needs_graph_mode_and_an_operator_parallel_mode():
    params = Affine().trainable_params()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(RuntimeError, match="GRAPH_MODE"):
        nn.PipelineGradReducer(params)
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(RuntimeError, match="'semi_auto_parallel' or 'auto_parallel'"):
        nn.PipelineGradReducer(params)
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel")
    try:
        reducer = nn.PipelineGradReducer(params, scale_sense=0.5)
        grads = (Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones(2, np.float32)))
        out = reducer(grads)
        np.testing.assert_allclose(out[0].asnumpy(), 0.5)
    finally:
        ms.reset_auto_parallel_context()


def test_one_f_one_b_slots_warm_up_then_alternate():
    # stage 0 of 4, 6 micro-batches: 3 warm-up forwards, then one forward / one backward
    assert stage_slots("1f1b", 0, 4, 6) == [
        ("F", 0), ("F", 1), ("F", 2), ("F", 3), ("B", 0), ("F", 4), ("B", 1), ("F", 5),
        ("B", 2), ("B", 3), ("B", 4), ("B", 5)]
    # the last stage has no warm-up; fewer micro-batches than warm-up slots
    assert stage_slots("1f1b", 3, 4, 2) == [("F", 0), ("B", 0), ("F", 1), ("B", 1)]
    assert stage_slots("1f1b", 0, 4, 2) == [("F", 0), ("F", 1), ("B", 0), ("B", 1)]
    assert stage_slots("gpipe", 1, 4, 3) == [("F", 0), ("F", 1), ("F", 2),
                                             ("B", 0), ("B", 1), ("B", 2)]


def test_analytic_bubble():
    assert analytic_bubble(4, 4) == pytest.approx(3 / 7)
    assert analytic_bubble(2, 8) == pytest.approx(1 / 9)
    assert analytic_bubble(1, 8) == 0
