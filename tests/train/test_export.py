"""ms.export / ms.load / nn.GraphCell (minispore's MINDIR): a network exported on an input runs
again from the file alone, equal to the network, in both modes; its parameters train and take
params_init; files that are not minispore's, crafted ones included, are refused."""
import pickle

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.graph.mindir import MAGIC


class ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 3, 3, pad_mode="valid")
        self.pool = nn.MaxPool2d(2, 2)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(3 * 3 * 3, 4)

    def construct(self, x):
        h = self.pool(ops.relu(self.conv(x)))
        logits = self.fc(self.flatten(h))
        return logits, ops.softmax(logits)


X = Tensor(np.random.default_rng(0).standard_normal((2, 1, 8, 8)).astype(np.float32))


def exported(tmp_path, net, *inputs):
    with pytest.warns(UserWarning, match="minispore's own MINDIR.*MindSpore and MindSpore Lite"):
        ms.export(net, *inputs, file_name=str(tmp_path / "net"), file_format="MINDIR")
    return ms.load(str(tmp_path / "net.mindir"))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_loaded_graph_cell_computes_what_the_network_did(tmp_path, mode):
    net = ConvNet()
    net.set_train(True)
    want = [y.asnumpy() for y in net(X)]
    graph = exported(tmp_path, net, X)
    assert net.training            # export traced for inference and put the flag back
    ms.set_context(mode=mode)
    cell = nn.GraphCell(graph)
    got = cell(X)
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.asnumpy(), w)
    assert sorted(p.name for p in cell.trainable_params()) == sorted(
        p.name for p in net.trainable_params())


def test_its_parameters_train_like_the_networks(tmp_path):
    net = ConvNet()
    cell = nn.GraphCell(exported(tmp_path, net, X))

    def loss(model):
        return lambda x: model(x)[0].sum()
    _, want = ms.value_and_grad(loss(net), None, net.trainable_params())(X)
    _, got = ms.value_and_grad(loss(cell), None, cell.trainable_params())(X)
    by_name = dict(zip([p.name for p in cell.trainable_params()], got))
    for p, g in zip(net.trainable_params(), want):
        np.testing.assert_allclose(by_name[p.name].asnumpy(), g.asnumpy(), rtol=1e-6)


def test_params_init_replaces_a_parameter_by_name(tmp_path):
    net = nn.Dense(3, 2)
    graph = exported(tmp_path, net, Tensor(np.ones((1, 3), np.float32)))
    weight = np.arange(6, dtype=np.float32).reshape(2, 3)
    cell = nn.GraphCell(graph, params_init={"weight": Tensor(weight)})
    out = cell(Tensor(np.ones((1, 3), np.float32))).asnumpy()
    np.testing.assert_allclose(out, weight.sum(1)[None] + net.bias.asnumpy(), rtol=1e-6)
    with pytest.raises(ValueError, match=r"'params_init' names \['w'\].*\['bias', 'weight'\]"):
        nn.GraphCell(graph, params_init={"w": Tensor(weight)})
    with pytest.raises(ValueError, match=r"params_init\['weight'\]' must be of shape \(2, 3\)"):
        nn.GraphCell(graph, params_init={"weight": Tensor(np.ones((3, 2), np.float32))})


def test_inputs_unlike_the_exported_ones_are_refused(tmp_path):
    cell = nn.GraphCell(exported(tmp_path, nn.Dense(3, 2), Tensor(np.ones((1, 3), np.float32))))
    with pytest.raises(ValueError, match=r"GraphCell.*\(shape, dtype\) \[\(\(1, 3\), mindspore.float32\)\]"):
        cell(Tensor(np.ones((2, 3), np.float32)))


def test_files_that_are_not_minisporess_mindir_are_refused(tmp_path):
    protobuf = tmp_path / "mindspore.mindir"
    protobuf.write_bytes(b"\x0a\x0bmindspore ir")
    with pytest.raises(ValueError, match="not a MINDIR written by minispore's export"):
        ms.load(str(protobuf))
    with pytest.raises(ValueError, match="does not exist"):
        ms.load(str(tmp_path / "absent.mindir"))
    # A crafted file naming a function: the unpickler refuses it before anything runs.
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            import os
            return os.system, (f"touch {marker}",)
    crafted = tmp_path / "crafted.mindir"
    crafted.write_bytes(pickle.dumps({"format": MAGIC, "version": 1, "x": Evil()}))
    with pytest.raises(ValueError, match="system is not something a minispore MINDIR holds"):
        ms.load(str(crafted))
    assert not marker.exists()


def test_what_is_not_built_says_so(tmp_path):
    net, x = nn.Dense(2, 2), Tensor([[1.0, 2.0]])
    with pytest.raises(NotImplementedError, match="ONNX file.*'MINDIR' is"):
        ms.export(net, x, file_name="net", file_format="ONNX")
    with pytest.raises(NotImplementedError, match=r"\['enc_key'\]"):
        ms.export(net, x, file_name="net", file_format="MINDIR", enc_key=b"0" * 16)
    with pytest.raises(ValueError, match="'file_format' must be one of"):
        ms.export(net, x, file_name="net", file_format="PB")
    with pytest.raises(NotImplementedError, match="obf_random_seed"):
        nn.GraphCell(exported(tmp_path, net, x), obf_random_seed=1)
    from minispore.train.serialization import export
    assert export is ms.export

