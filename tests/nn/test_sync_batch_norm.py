"""nn.SyncBatchNorm on one process equals MindSpore 2.7.2's (printed by
tests/nn/oracle_conv1d_transpose_sync_bn.py under the oracle venv): batch statistics and moving
averages in training, the moving statistics in evaluation; MindSpore's repr; bad
process_groups. Across ranks: tests/parallel/test_sync_batch_norm_mpi.py."""
import numpy as np
import pytest

from minispore import Tensor, nn

X = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2))


def test_one_process_computes_what_mindspore_does():
    sb = nn.SyncBatchNorm(3)
    sb.set_train(True)
    np.testing.assert_allclose(sb(X).asnumpy()[0, 0], [[-1.2288477, -1.0650014],
                                                       [-0.901155, -0.7373086]], rtol=1e-6)
    np.testing.assert_allclose(sb.moving_mean.asnumpy(), [0.75, 1.15, 1.5500001], rtol=1e-6)
    np.testing.assert_allclose(sb.moving_variance.asnumpy(), [5.157143] * 3, rtol=1e-6)
    sb.set_train(False)
    np.testing.assert_allclose(sb(X).asnumpy()[0, 0], [[-0.3302602, 0.11008673],
                                                       [0.55043364, 0.9907806]], rtol=1e-6)
    assert repr(sb).startswith("SyncBatchNorm<num_features=3, eps=1e-05, momentum=0.9, gamma=")


def test_bad_process_groups_are_refused():
    with pytest.raises(TypeError, match="'process_groups' must be a list of lists"):
        nn.SyncBatchNorm(3, process_groups=[0, 1])
    with pytest.raises(ValueError, match="more than one of 'process_groups'"):
        nn.SyncBatchNorm(3, process_groups=[[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="SyncBatchNorm', the input must be a 2-D or 4-D"):
        nn.SyncBatchNorm(3)(Tensor(np.ones((2, 3, 4), np.float32)))
