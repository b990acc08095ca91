"""Cell: registration, parameter naming, traversal order, modes, scopes and annotations."""
from collections import OrderedDict

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.common.initializer import initializer


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)
        self.scale = Parameter(initializer("ones", [3]))
        self.relu = ops.ReLU()

    def construct(self, x):
        return self.relu(self.fc(x)) * self.scale


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.w = Parameter(initializer("zeros", [3, 2]), name="w")
        self.head = nn.SequentialCell([nn.Dense(3, 3), nn.ReLU(), nn.Dense(3, 2)])
        self.matmul = ops.MatMul()

    def construct(self, x):
        return self.head(self.block(x)) + self.matmul(self.block(x), self.w)


def test_parameter_names_follow_tree():
    names = [p.name for p in Net().get_parameters()]
    assert names == ["w", "block.scale", "block.fc.weight", "block.fc.bias", "head.0.weight",
                     "head.0.bias", "head.2.weight", "head.2.bias"]


def test_parameters_and_names_order_and_paths():
    net = Net()
    pairs = list(net.parameters_and_names())
    assert [n for n, _ in pairs] == [p.name for _, p in pairs]
    assert [n for n, _ in net.cells_and_names()] == ["", "block", "block.fc", "head", "head.0",
                                                     "head.1", "head.2"]
    assert list(net.name_cells()) == ["block", "head"]
    assert len(list(net.cells())) == 2


def test_trainable_and_untrainable():
    net = Net()
    net.w.requires_grad = False
    assert "w" not in [p.name for p in net.trainable_params()]
    assert [p.name for p in net.untrainable_params()] == ["w"]


def test_primitive_instance_name_and_error_scope():
    net = Net()
    assert net.matmul.instance_name == "matmul"
    with pytest.raises(ValueError, match=r"in Net\.block\.fc"):
        net(Tensor(np.ones((2, 5), np.float32)))


def test_set_train_recurses():
    net = Net()
    assert not net.training and not net.block.fc.training
    net.set_train()
    assert all(c.training for _, c in net.cells_and_names())
    net.set_train(False)
    assert not any(c.training for _, c in net.cells_and_names())


def test_dropout_obeys_training():
    ms.set_seed(0)
    drop = nn.Dropout(p=0.5)
    x = Tensor(np.ones((100, 100), np.float32))
    assert np.array_equal(drop(x).asnumpy(), x.asnumpy())
    drop.set_train()
    out = drop(x).asnumpy()
    assert set(np.unique(out)) <= {0.0, 2.0} and 0.4 < (out == 0).mean() < 0.6
    with pytest.raises(ValueError, match=r"'p' must be in range \[0, 1\)"):
        nn.Dropout(p=1.0)
    assert nn.Dropout(keep_prob=0.8).p == pytest.approx(0.2)


def test_insert_child_and_param():
    cell = nn.Cell()
    cell.insert_child_to_cell("fc", nn.Dense(2, 2))
    cell.insert_param_to_cell("bias", Parameter(Tensor(np.zeros(2, np.float32))))
    assert cell.fc is cell.name_cells()["fc"] and cell.bias.name == "bias"
    with pytest.raises(KeyError):
        cell.insert_child_to_cell("a.b", nn.Dense(2, 2))
    with pytest.raises(TypeError):
        cell.insert_child_to_cell("x", 3)
    cell.update_parameters_name("pre.")
    assert [p.name for p in cell.get_parameters()] == ["pre.bias", "pre.fc.weight", "pre.fc.bias"]


def test_reassign_attribute_unregisters():
    net = Net()
    net.head = None
    assert "head" not in net.name_cells()
    assert all(not p.name.startswith("head") for p in net.get_parameters())


def test_sequential_from_ordered_dict_and_celllist():
    seq = nn.SequentialCell(OrderedDict([("fc", nn.Dense(2, 3)), ("act", nn.ReLU())]))
    assert [p.name for p in seq.get_parameters()] == ["fc.weight", "fc.bias"]
    assert seq(Tensor(np.ones((1, 2), np.float32))).shape == (1, 3)
    cl = nn.CellList([nn.Dense(2, 2)])
    cl.append(nn.Dense(2, 4))
    assert len(cl) == 2 and cl[1].out_channels == 4
    assert [p.name for p in cl.get_parameters()][-1] == "1.bias"


def test_repr_like_mindspore():
    text = repr(nn.SequentialCell([nn.Dense(2, 3)]))
    assert text == ("SequentialCell<\n  (0): Dense<input_channels=2, output_channels=3, "
                    "has_bias=True>\n  >")


def test_set_inputs_validation():
    net = Net()
    x = Tensor(shape=[None, 4], dtype=ms.float32)
    net.set_inputs(x)
    assert net.get_inputs() == (x,)
    with pytest.raises(ValueError, match="either inputs or kwargs"):
        net.set_inputs(x, x=x)
    with pytest.raises(TypeError, match="must be a Tensor"):
        net.set_inputs("3")
    net.set_inputs(x, 3)        # a constant, as MindSpore takes (test_dynamic_shape.py)


def test_pipeline_stage_checks():
    net = Net()
    net.pipeline_stage = 1
    assert net.pipeline_stage == 1 and net.w.pipeline_stages == [1]
    with pytest.raises(ValueError, match="non-negative"):
        net.pipeline_stage = -1
    with pytest.raises(TypeError):
        net.pipeline_stage = True


def test_place_is_an_annotation_of_the_cell_not_of_its_primitives():
    # Every node traced inside inherits it (tests/graph/test_annotation_frames.py); the
    # primitives, which functional ops share, are never marked.
    net = Net()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net.place("MS_WORKER", 1)
        with pytest.raises(ValueError, match="MS_WORKER"):
            net.place("MS_SERVER", 0)
        with pytest.raises(ValueError, match="non-negative"):
            net.place("MS_WORKER", -1)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert net._annotations == {"ms_role": "MS_WORKER", "rank_id": 1}
    assert "rank_id" not in net.matmul.attrs and "rank_id" not in net.block.fc.matmul.attrs


def test_recompute_checks():
    net = Net()
    net.block.recompute()
    with pytest.raises(RuntimeError, match="only once"):
        net.recompute()
    with pytest.raises(RuntimeError, match="only once"):
        net.block.fc.recompute()
    with pytest.raises(ValueError, match="not recognized"):
        Net().recompute(foo=True)


def test_shard_checks_its_arguments_then_the_parallel_mode():
    # (tests/parallel/test_shard_api.py and test_shard_region_mpi.py cover the regions)
    net = Net()
    with pytest.raises(TypeError, match="'in_strategy' must be a tuple"):
        net.shard([(2, 1)])
    with pytest.raises(AssertionError, match="'auto_parallel' or 'semi_auto_parallel'"):
        net.shard(((2, 1),))


def test_to_float_casts_inputs():
    class Echo(nn.Cell):
        def construct(self, x):
            return x

    assert Echo().to_float(ms.float32)(Tensor(np.ones(2, np.float64))).dtype == ms.float32
    with pytest.raises(ValueError, match="float16 or float32"):
        Echo().to_float(ms.int32)


def test_parameter_tuple_clone():
    net = Net()
    pt = ms.nn.ParameterTuple(net.trainable_params())
    cl = pt.clone("moments", init="zeros")
    assert cl[0].name == "moments.w" and float(cl[2].asnumpy().sum()) == 0.0
    with pytest.raises(TypeError):
        ms.nn.ParameterTuple([1])
