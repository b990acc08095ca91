"""nn.no_init_parameters (mindspore.nn.utils): Parameters made from initializer() inside it
keep no buffer and draw no random numbers until read; a loaded checkpoint fills them undrawn.
MindSpore 2.7.2 prints has_init True after building nn.Dense inside it and False once the
network has run."""
import os
import tracemalloc

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn
from minispore.common.initializer import initializer
from minispore.nn.utils import no_init_parameters


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    return request.param


def test_parameters_stay_undrawn_until_the_network_runs(mode):
    with no_init_parameters():
        net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    weight = net.weight
    assert weight.has_init and "_data" not in weight.__dict__
    assert weight.shape == (2, 3) and weight.dtype == ms.float32
    out = net(Tensor(np.ones((1, 3), np.float32)))
    assert out.asnumpy().tolist() == [[3.0, 3.0]]
    assert type(weight) is Parameter and not weight.has_init


def test_an_undrawn_network_holds_no_buffer():
    tracemalloc.start()
    try:
        with no_init_parameters():
            nn.Dense(2048, 2048)
        undrawn = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        nn.Dense(2048, 2048)
        drawn = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert undrawn < 2 ** 20 and drawn > 16 * 2 ** 20, (undrawn, drawn)


def test_a_loaded_checkpoint_fills_the_parameters_without_drawing(tmp_path):
    source = nn.Dense(3, 2)
    path = os.path.join(tmp_path, "dense.ckpt")
    ms.save_checkpoint(source, path)
    ms.set_seed(11)
    with no_init_parameters():
        net = nn.Dense(3, 2)
    ms.load_checkpoint(path, net)
    after_load = initializer("normal", [4]).asnumpy()
    ms.set_seed(11)
    untouched = initializer("normal", [4]).asnumpy()
    np.testing.assert_array_equal(after_load, untouched)   # no random numbers were spent
    for param, saved in zip(net.get_parameters(), source.get_parameters()):
        assert type(param) is Parameter
        np.testing.assert_array_equal(param.asnumpy(), saved.asnumpy())


def test_only_initializer_parameters_are_deferred():
    with no_init_parameters():
        from_array = Parameter(Tensor(np.ones(2, np.float32)), name="a")
        from_initializer = Parameter(initializer("zeros", [2]), name="b")
    assert not from_array.has_init and from_initializer.has_init


def test_init_parameters_data_draws_every_parameter_and_the_decorator_form():
    @no_init_parameters()
    def build():
        return nn.Dense(2, 2, weight_init="ones")
    net = build()
    assert all(p.has_init for p in net.get_parameters())
    drawn = net.init_parameters_data()
    assert set(drawn) == set(net.get_parameters()) and all(k is v for k, v in drawn.items())
    assert not any(p.has_init for p in net.get_parameters())
    assert net.weight.asnumpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
