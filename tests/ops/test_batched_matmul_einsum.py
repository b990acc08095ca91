"""ops.matmul with numpy's rules (1-D promotion, batch broadcasting), BatchMatMul's broadcast
batch dims and transposes, and ops.einsum / ops.Einsum: forward vs float64 numpy, gradients vs
central differences, errors, and GRAPH mode vs PYNATIVE on a small attention Cell."""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn, ops
from tests.ops.harness import check_forward, check_grad, rand

MATMUL_SHAPES = [
    ((3,), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3,)),
    ((2, 3), (3, 4)),
    ((2, 3, 4), (4, 5)),          # batch folds into the rows of one MatMul
    ((3, 4), (2, 4, 5)),          # 2-D @ 3-D: rank padded, the left operand broadcast
    ((4,), (2, 4, 5)),
    ((2, 3, 4), (4,)),
    ((2, 3, 4), (2, 4, 5)),
    ((2, 3, 4), (1, 4, 5)),
    ((1, 3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (1, 5, 4, 6)),  # a 1 inside the left batch: materialised broadcast
    ((2, 5, 3, 4), (5, 4, 6)),
    ((5, 1, 2, 3, 4), (2, 4, 6)),
    ((2, 0, 3, 4), (1, 4, 2)),     # an empty batch
    ((2, 3, 0), (2, 0, 4)),        # an empty contraction gives zeros
]


def _ids(shapes):
    return [f"{a}@{b}".replace(" ", "") for a, b in shapes]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=_ids(MATMUL_SHAPES))
def test_matmul_numpy_rules_forward(sa, sb):
    check_forward(ops.matmul, np.matmul, [rand(*sa, seed=1), rand(*sb, seed=2)])
    check_forward(lambda a, b: a @ b, np.matmul, [rand(*sa, seed=3), rand(*sb, seed=4)])
    check_forward(lambda a, b: a.matmul(b), np.matmul, [rand(*sa, seed=5), rand(*sb, seed=6)])


GRAD_SHAPES = [s for s in MATMUL_SHAPES if 0 not in s[0] + s[1]]


@pytest.mark.parametrize("sa,sb", GRAD_SHAPES, ids=_ids(GRAD_SHAPES))
def test_matmul_numpy_rules_grad(sa, sb):
    check_grad(ops.matmul, [rand(*sa, seed=1), rand(*sb, seed=2)])


def _op(x, t):
    return np.swapaxes(x, -1, -2) if t else x


BMM_SHAPES = [
    ((2, 3, 4), (2, 4, 5)),
    ((2, 3, 4), (1, 4, 5)),
    ((1, 3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (1, 5, 4, 6)),
    ((1, 5, 3, 4), (2, 1, 4, 6)),
    ((3, 2, 3, 4), (3, 2, 4, 2)),
    ((2, 1, 2, 3, 4), (1, 2, 2, 4, 2)),
]
FLAGS = [(False, False), (False, True), (True, False), (True, True)]


def _bmm_case(sa, sb, ta, tb):
    sa = sa[:-2] + ((sa[-1], sa[-2]) if ta else sa[-2:])
    sb = sb[:-2] + ((sb[-1], sb[-2]) if tb else sb[-2:])
    return [rand(*sa, seed=11), rand(*sb, seed=12)]


@pytest.mark.parametrize("ta,tb", FLAGS)
@pytest.mark.parametrize("sa,sb", BMM_SHAPES, ids=_ids(BMM_SHAPES))
def test_batch_matmul_broadcast_and_transposes_forward(sa, sb, ta, tb):
    check_forward(ops.BatchMatMul(ta, tb),
                  lambda x, y: np.matmul(_op(x, ta), _op(y, tb)), _bmm_case(sa, sb, ta, tb))


@pytest.mark.parametrize("ta,tb", FLAGS)
@pytest.mark.parametrize("sa,sb", BMM_SHAPES[:5], ids=_ids(BMM_SHAPES[:5]))
def test_batch_matmul_broadcast_and_transposes_grad(sa, sb, ta, tb):
    check_grad(ops.BatchMatMul(ta, tb), _bmm_case(sa, sb, ta, tb))


def test_batch_matmul_shape_rule_matches_output():
    x, y = Tensor(rand(2, 1, 3, 4)), Tensor(rand(1, 5, 6, 4))
    op = ops.BatchMatMul(transpose_b=True)
    assert op.infer(x, y).shape == op(x, y).shape == (2, 5, 3, 6)


def test_batch_matmul_errors():
    with pytest.raises(ValueError, match=r"For 'BatchMatMul'.*broadcastable.*\(2, 3, 4, 5\)"
                                         r".*\(3, 3, 5, 6\)"):
        ops.BatchMatMul()(Tensor(rand(2, 3, 4, 5)), Tensor(rand(3, 3, 5, 6)))
    with pytest.raises(ValueError, match=r"For 'BatchMatMul'.*equal ranks"):
        ops.BatchMatMul()(Tensor(rand(2, 3, 4, 5)), Tensor(rand(3, 5, 6)))
    with pytest.raises(ValueError, match=r"For 'BatchMatMul'.*contracted dims"):
        ops.BatchMatMul(transpose_a=True)(Tensor(rand(2, 3, 4)), Tensor(rand(2, 4, 5)))
    with pytest.raises(ValueError, match=r"For 'BatchMatMul'.*at least 3-D"):
        ops.BatchMatMul()(Tensor(rand(3, 4)), Tensor(rand(4, 5)))
    with pytest.raises(TypeError, match=r"For 'BatchMatMul'.*same dtype"):
        ops.BatchMatMul()(Tensor(rand(2, 3, 4)), Tensor(rand(2, 4, 5, dtype=np.float64)))


def test_matmul_errors():
    with pytest.raises(ValueError, match=r"For 'matmul'.*\(2, 3, 4\).*\(5, 6\)"):
        ops.matmul(Tensor(rand(2, 3, 4)), Tensor(rand(5, 6)))
    with pytest.raises(ValueError, match=r"For 'matmul'.*\(3,\).*\(4,\)"):
        ops.matmul(Tensor(rand(3)), Tensor(rand(4)))
    with pytest.raises(ValueError, match=r"For 'matmul'.*0-d"):
        ops.matmul(Tensor(np.float32(2.0)), Tensor(rand(3)))
    with pytest.raises(TypeError, match=r"For 'matmul'.*'other' must be a Tensor"):
        ops.matmul(Tensor(rand(2, 3)), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"For 'BatchMatMul'.*broadcastable"):
        ops.matmul(Tensor(rand(2, 3, 4)), Tensor(rand(3, 4, 5)))


def test_batch_matmul_sharding_rule_leaves_broadcast_dims_whole():
    x, y = Tensor(rand(2, 1, 3, 4)), Tensor(rand(1, 5, 4, 6))
    op = ops.BatchMatMul()
    spec = op.sharding_rule.spec(op, (x, y), (op.infer(x, y),))
    assert spec.inputs == (("b0", None, "m", "k"), (None, "b1", "k", "n"))
    assert spec.outputs == (("b0", "b1", "m", "n"),)


EINSUM2 = [
    ("ij,jk->ik", (2, 3), (3, 4)),
    ("ij,jk", (2, 3), (3, 4)),                     # implicit output
    ("ij,kj->ik", (2, 3), (4, 3)),
    ("bij,bjk->bik", (2, 3, 4), (2, 4, 5)),
    ("bhqd,bhkd->bhqk", (2, 2, 3, 4), (2, 2, 5, 4)),  # attention scores
    ("bhqk,bhkd->bqhd", (2, 2, 3, 5), (2, 2, 5, 4)),  # attention values, heads moved
    ("ijk,jil->kl", (2, 3, 4), (3, 2, 5)),
    ("abc,cd->dba", (2, 3, 4), (4, 5)),
    ("ijk,k->ij", (2, 3, 4), (4,)),
    ("i,i->", (3,), (3,)),
    ("i,j->ij", (3,), (4,)),
    ("ij,ij->ij", (2, 3), (2, 3)),
    ("ij,ij->", (2, 3), (2, 3)),
    ("ij,j->", (2, 3), (3,)),
    ("ij,kl->", (2, 3), (4, 2)),                   # every label summed out alone
    ("abz,bcz->ac", (2, 3, 4), (3, 5, 4)),
    ("ii,ij->j", (3, 3), (3, 4)),                  # a diagonal inside a product
    ("bn,anm->bam", (2, 3), (4, 3, 5)),
    ("ij,j->i", (2, 3), (1,)),                     # size-1 dims broadcast, as np.einsum
    ("bij,bjk->bik", (1, 2, 3), (4, 3, 5)),
    ("ij,ij->ij", (2, 1), (1, 3)),
]
EINSUM1 = [
    ("ij->ji", (2, 3)),
    ("ij->i", (2, 3)),
    ("i->", (3,)),
    ("ij", (2, 3)),
    ("ji", (2, 3)),
    ("ijk->kij", (2, 3, 4)),
    ("ii->", (3, 3)),
    ("ii->i", (3, 3)),
    ("iji->j", (2, 3, 2)),
]


@pytest.mark.parametrize("eq,sa,sb", EINSUM2, ids=[c[0] for c in EINSUM2])
def test_einsum_two_operands(eq, sa, sb):
    arrays = [rand(*sa, seed=21), rand(*sb, seed=22)]
    check_forward(lambda a, b: ops.einsum(eq, a, b), lambda a, b: np.einsum(eq, a, b), arrays)
    check_forward(lambda a, b: ops.Einsum(eq)((a, b)), lambda a, b: np.einsum(eq, a, b),
                  arrays)
    check_grad(lambda a, b: ops.einsum(eq, a, b), arrays)


@pytest.mark.parametrize("eq,sa", EINSUM1, ids=[c[0] for c in EINSUM1])
def test_einsum_one_operand(eq, sa):
    arrays = [rand(*sa, seed=23)]
    check_forward(lambda a: ops.einsum(eq, a), lambda a: np.einsum(eq, a), arrays)
    check_grad(lambda a: ops.einsum(eq, a), arrays)


@pytest.mark.parametrize("eq,shapes,exc,match", [
    ("ij,jk->ik", [(2, 3), (4, 5)], ValueError, r"dim 'j' has size 3 and 4"),
    ("ij,jk->ik", [(2, 3)], ValueError, r"names 2 operand\(s\), but 1 were given"),
    ("ijk,jk->ik", [(2, 3), (3, 4)], ValueError, r"operand 0 has rank 2"),
    ("ij,jk->iz", [(2, 3), (3, 4)], ValueError, r"output labels \['z'\] appear in no operand"),
    ("ij,jk->ii", [(2, 3), (3, 4)], ValueError, r"repeat a label"),
    ("i1,1k->ik", [(2, 3), (3, 4)], ValueError, r"only letters.*\['1'\]"),
    ("ij->i->j", [(2, 3)], ValueError, r"at most one '->'"),
    ("ii->i", [(2, 3)], ValueError, r"dim 'i' has size 2 and 3"),
    ("...ij,...jk->...ik", [(2, 3), (3, 4)], NotImplementedError, r"ellipsis"),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)], NotImplementedError, r"at most 2 operands"),
])
def test_einsum_errors(eq, shapes, exc, match):
    with pytest.raises(exc, match=r"For 'einsum'.*" + match):
        ops.einsum(eq, *[Tensor(rand(*s)) for s in shapes])


def test_einsum_type_errors():
    with pytest.raises(TypeError, match=r"For 'Einsum', 'equation' must be a str"):
        ops.Einsum(3)
    with pytest.raises(TypeError, match=r"For 'Einsum', the input must be a tuple or list"):
        ops.Einsum("ij->ji")(Tensor(rand(2, 3)))
    with pytest.raises(TypeError, match=r"For 'einsum', operand 1 must be a Tensor"):
        ops.einsum("i,i->", Tensor(rand(3)), [1.0, 2.0, 3.0])


class _Attention(nn.Cell):
    """Scores by einsum and BatchMatMul, values by ops.matmul with a broadcast 2-D weight."""

    def __init__(self):
        super().__init__()
        self.wo = ms.Parameter(Tensor(rand(4, 3, seed=31)), name="wo")
        self.bmm = ops.BatchMatMul(transpose_b=True)

    def construct(self, q, k, v):
        scores = ops.einsum("bhqd,bhkd->bhqk", q, k) + self.bmm(q, k)
        ctx = ops.matmul(ops.softmax(scores, -1), v)        # (2, 2, 3, 4) @ (1, 2, 5, 4)
        return ops.matmul(ctx, self.wo)


def _attention_inputs():
    return (Tensor(rand(2, 2, 3, 4, seed=32)), Tensor(rand(2, 2, 5, 4, seed=33)),
            Tensor(rand(1, 2, 5, 4, seed=34)))


def test_graph_mode_equals_pynative_on_attention_cell():
    net = _Attention()
    args = _attention_inputs()
    grad_fn = ms.grad(net, grad_position=(0, 1, 2), weights=net.trainable_params())
    eager_out = net(*args).asnumpy()
    eager_grads = grad_fn(*args)
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(net(*args).asnumpy(), eager_out, rtol=1e-5, atol=1e-6)
    graph_grads = grad_fn(*args)
    for got, want in zip(_leaves(graph_grads), _leaves(eager_grads), strict=True):
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)
    assert eager_out.shape == (2, 2, 3, 3)


def _leaves(tree):
    if isinstance(tree, (tuple, list)):
        return [leaf for t in tree for leaf in _leaves(t)]
    return [tree]


def test_graph_mode_einsum_diagonal_and_vector_matmul_equal_pynative():
    a, b, v = Tensor(rand(3, 3, seed=41)), Tensor(rand(3, 4, seed=42)), Tensor(rand(3, seed=43))

    def fn(a, b, v):
        return (ops.einsum("ii,ij->j", a, b) + ops.matmul(v, b) + ops.einsum("ij->j", b)
                + ops.matmul(ops.reshape(b, (1, 3, 4)).transpose(0, 2, 1), v).sum(0))

    eager, eager_grads = fn(a, b, v).asnumpy(), ms.grad(fn, (0, 1, 2))(a, b, v)
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(ms.jit(fn)(a, b, v).asnumpy(), eager, rtol=1e-6)
    for got, want in zip(ms.grad(ms.jit(fn), (0, 1, 2))(a, b, v), eager_grads, strict=True):
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-6)
