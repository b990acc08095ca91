"""RNN cells' MindSpore weight lists (w_ih_list, w_hh_list, b_ih_list, b_hh_list)."""
import numpy as np
import pytest

from minispore import Tensor, nn


def test_rnn_weight_lists_read_and_replace_the_parameters():
    """MindSpore's _RNNBase keeps w_ih_list / w_hh_list / b_ih_list / b_hh_list; assigning new
    ParameterTuples there sets the weights the network runs with (MindSpore's own LSTM tests
    do this to give a GRAPH and a PYNATIVE network the same weights)."""
    from minispore import Parameter, ParameterTuple
    net = nn.LSTM(3, 2, num_layers=1, bidirectional=True)
    assert [p.name for p in net.w_ih_list] == ["weight_ih_l0", "weight_ih_l0_reverse"]
    rng = np.random.default_rng(0)
    new = {k: ParameterTuple(Parameter(Tensor(rng.uniform(-0.5, 0.5, p.shape).astype(np.float32)),
                                       name=p.name) for p in getattr(net, k))
           for k in ("w_ih_list", "w_hh_list", "b_ih_list", "b_hh_list")}
    x = Tensor(rng.standard_normal((4, 2, 3)).astype(np.float32))
    outs = []
    for _ in range(2):
        other = nn.LSTM(3, 2, num_layers=1, bidirectional=True)
        for k, v in new.items():
            setattr(other, k, v)
        assert other.w_hh_list[1] is new["w_hh_list"][1]
        outs.append(other(x)[0].asnumpy())
    np.testing.assert_array_equal(outs[0], outs[1])
    with pytest.raises(ValueError, match="'w_ih_list' must hold 2 Parameters"):
        net.w_ih_list = ParameterTuple(list(new["w_ih_list"])[:1])
