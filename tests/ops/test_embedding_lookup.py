"""ops.EmbeddingLookup (rows indices - offset, zeros outside the table) and nn.EmbeddingLookup:
float64 references, finite-difference gradients, GRAPH parity, MindSpore's validation, and the
refusals of what is not built (a host-memory table beside GPU tensors, field_slice ...)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from tests.ops.harness import check_forward, check_grad, rand

INDICES = np.array([[5, 1], [6, 9], [4, 7]], np.int32)


def _reference(params, indices, offset):
    shifted = indices - offset
    inside = (shifted >= 0) & (shifted < params.shape[0])
    out = params[np.clip(shifted, 0, params.shape[0] - 1)]
    return np.where(inside[..., None], out, 0.0)


@pytest.mark.parametrize("offset", [0, 4])
def test_forward_and_gradient(offset):
    params = rand(6, 3, seed=1)
    check_forward(lambda p, i: ops.EmbeddingLookup()(p, i, offset),
                  lambda p, i: _reference(p, i, offset), [params, INDICES])
    check_grad(lambda p, i: ops.EmbeddingLookup()(p, i, offset), [params, INDICES],
               positions=[0])


def test_graph_mode_equals_eager():
    params, offset = rand(6, 3, seed=2), 2
    eager = ops.EmbeddingLookup()(Tensor(params), Tensor(INDICES), offset).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = ms.jit(lambda p, i: ops.EmbeddingLookup()(p, i, offset))(Tensor(params),
                                                                       Tensor(INDICES))
    np.testing.assert_array_equal(graph.asnumpy(), eager)


def test_operator_errors():
    with pytest.raises(TypeError, match="'offset' must be an int"):
        ops.EmbeddingLookup()(Tensor(rand(4, 2)), Tensor(INDICES), 1.5)
    with pytest.raises(ValueError, match="'primitive_target' must be"):
        ops.EmbeddingLookup().add_prim_attr("primitive_target", "TPU")(
            Tensor(rand(4, 2)), Tensor(INDICES), 0)


def test_layer_looks_up_its_table_on_the_cpu_target():
    ms.set_seed(1)
    layer = nn.EmbeddingLookup(10, 4)               # target 'CPU', MindSpore's default
    assert layer.lookup.attrs["primitive_target"] == "CPU"
    out = layer(Tensor(INDICES))
    np.testing.assert_array_equal(out.asnumpy(), layer.embedding_table.asnumpy()[INDICES])


@pytest.mark.parametrize("kwargs, error, match", [
    ({"target": "GPU"}, ValueError, "'target' must be 'CPU' or 'DEVICE'"),
    ({"slice_mode": "rows"}, ValueError, "'slice_mode' must be one of"),
    ({"slice_mode": "field_slice"}, NotImplementedError, "field_slice"),
    ({"max_norm": 1.0}, NotImplementedError, "max_norm"),
    ({"vocab_cache_size": 8}, NotImplementedError, "vocab_cache_size"),
    ({"sparse": 1}, TypeError, "sparse"),
])
def test_layer_validation(kwargs, error, match):
    with pytest.raises(error, match=match):
        nn.EmbeddingLookup(10, 4, **kwargs)
