"""Attention layers: MultiheadAttention, TransformerEncoderLayer, TransformerEncoder (MindSpore
2.x signatures), composed from MatMul/BatchMatMul, Softmax, Select and LayerNorm."""
import copy
import math

from minispore.common import dtype as mstype
from minispore.common.initializer import XavierNormal, XavierUniform, initializer
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.nn.layer.basic import Dense, Dropout, _check_bool, _check_positive_int
from minispore.nn.layer.container import CellList
from minispore.nn.layer.normalization import LayerNorm
from minispore.ops import functional as F
from minispore.ops.operations._base import dims_equal, shapes_equal

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder"]


def _check_prob(name, arg, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{name}', '{arg}' must be a float, but got "
                        f"{type(value).__name__}.")
    if not 0 <= value < 1:
        raise ValueError(f"For '{name}', '{arg}' must be in range [0.0, 1.0), but got {value}.")
    return float(value)


def _additive_mask(name, arg, mask, dtype):
    """A bool mask (True = not attended) as -inf where True, 0 elsewhere; a float mask is
    added as it is."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor or None, but got "
                        f"{type(mask).__name__}.")
    if mask.dtype == mstype.bool_:
        return F.masked_fill(F.zeros(tuple(mask.shape), dtype), mask, float("-inf"))
    if not mask.dtype.is_float:
        raise TypeError(f"For '{name}', '{arg}' must be a bool or float Tensor, but got "
                        f"{mask.dtype}.")
    return F.cast(mask, dtype)


class MultiheadAttention(Cell):
    """Multi-head attention (Attention Is All You Need), MindSpore's nn.MultiheadAttention:

    head_i = softmax(Q_i K_i^T / sqrt(d) + mask) V_i with Q = query W_q^T + b_q (likewise K, V)
    split into ``num_heads`` heads of d = embed_dim / num_heads features; the output is
    concat(head_1, ..., head_h) W_o^T + b_o.

    Parameters: ``in_proj_weight`` (3*embed_dim, embed_dim) when kdim == vdim == embed_dim,
    else ``q_proj_weight`` (embed_dim, embed_dim), ``k_proj_weight`` (embed_dim, kdim),
    ``v_proj_weight`` (embed_dim, vdim) (all Xavier-uniform); ``in_proj_bias`` (3*embed_dim,)
    zeros; ``out_proj`` a Dense(embed_dim, embed_dim) whose bias starts at zero. ``has_bias``
    False drops both biases. ``add_bias_kv`` appends a learnt key and value row
    (``bias_k``, ``bias_v`` of shape (1, 1, embed_dim), Xavier-normal) to the projected keys
    and values, ``add_zero_attn`` then a row of zeros per head; every query may attend to
    them, so attn_weights has S + 1 (or + 2) columns. ``dropout`` drops attention weights in
    training.

    Inputs: ``query`` (L, N, E) ((N, L, E) with ``batch_first``, or unbatched (L, E)),
    ``key`` (S, N, kdim), ``value`` (S, N, vdim); ``key_padding_mask`` (N, S) (or (S,)
    unbatched) and ``attn_mask`` (L, S) or (N*num_heads, L, S), bool (True = not attended)
    or float (added to the scores). Outputs: ``(attn_output, attn_weights)``: attn_output like
    query with embed_dim features; attn_weights (N, L, S) averaged over heads when
    ``average_attn_weights``, else (N, num_heads, L, S), and None when not ``need_weights``.

    Raises ValueError when embed_dim is not divisible by num_heads or an input has the wrong
    rank or size.

    >>> import numpy as np, minispore as ms
    >>> mha = ms.nn.MultiheadAttention(8, 2)
    >>> q = ms.Tensor(np.ones((5, 3, 8), np.float32))
    >>> out, w = mha(q, q, q)
    >>> out.shape, w.shape
    ((5, 3, 8), (3, 5, 5))
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False,
                 dtype=mstype.float32):
        super().__init__()
        name = "MultiheadAttention"
        self.embed_dim = _check_positive_int(name, "embed_dim", embed_dim)
        self.num_heads = _check_positive_int(name, "num_heads", num_heads)
        self.kdim = embed_dim if kdim is None else _check_positive_int(name, "kdim", kdim)
        self.vdim = embed_dim if vdim is None else _check_positive_int(name, "vdim", vdim)
        self.dropout = _check_prob(name, "dropout", dropout)
        self.has_bias = _check_bool(name, "has_bias", has_bias)
        self.batch_first = _check_bool(name, "batch_first", batch_first)
        self.add_bias_kv = _check_bool(name, "add_bias_kv", add_bias_kv)
        self.add_zero_attn = _check_bool(name, "add_zero_attn", add_zero_attn)
        if embed_dim % num_heads:
            raise ValueError(f"For '{name}', 'embed_dim' must be divisible by 'num_heads', but "
                             f"got embed_dim {embed_dim} and num_heads {num_heads}.")
        self.head_dim = embed_dim // num_heads
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(
                initializer(XavierUniform(), (3 * embed_dim, embed_dim), dtype),
                name="in_proj_weight")
        else:
            for arg, cols in (("q", embed_dim), ("k", self.kdim), ("v", self.vdim)):
                setattr(self, f"{arg}_proj_weight", Parameter(
                    initializer(XavierUniform(), (embed_dim, cols), dtype),
                    name=f"{arg}_proj_weight"))
        if has_bias:
            self.in_proj_bias = Parameter(initializer("zeros", (3 * embed_dim,), dtype),
                                          name="in_proj_bias")
        if add_bias_kv:
            self.bias_k = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype),
                                    name="bias_k")
            self.bias_v = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype),
                                    name="bias_v")
        self.out_proj = Dense(embed_dim, embed_dim, has_bias=has_bias,
                              bias_init="zeros" if has_bias else None, dtype=dtype)
        self.attn_dropout = Dropout(p=self.dropout)

    def _projections(self):
        if self._qkv_same_embed_dim:
            w = F.split_equal(self.in_proj_weight, 0, 3)
        else:
            w = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        b = F.split_equal(self.in_proj_bias, 0, 3) if self.has_bias else (None,) * 3
        return w, b

    def _check(self, query, key, value):
        name = "MultiheadAttention"
        for arg, t in (("query", query), ("key", key), ("value", value)):
            if not isinstance(t, Tensor):
                raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got "
                                f"{type(t).__name__}.")
        if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
            raise ValueError(f"For '{name}', query, key and value must all be 3-D (batched) or "
                             f"all 2-D (unbatched), but got shapes {tuple(query.shape)}, "
                             f"{tuple(key.shape)} and {tuple(value.shape)}.")
        for arg, t, size in (("query", query, self.embed_dim), ("key", key, self.kdim),
                             ("value", value, self.vdim)):
            if not dims_equal(name, t.shape[-1], size):
                raise ValueError(f"For '{name}', the last dim of '{arg}' must be {size}, but "
                                 f"got shape {tuple(t.shape)}.")
        if not shapes_equal(name, key.shape[:-1], value.shape[:-1]):
            raise ValueError(f"For '{name}', 'key' and 'value' must agree in every dim but the "
                             f"last, but got {tuple(key.shape)} and {tuple(value.shape)}.")
        if query.ndim == 3:
            b_axis = 0 if self.batch_first else 1
            if not dims_equal(name, query.shape[b_axis], key.shape[b_axis]):
                raise ValueError(f"For '{name}', 'query' and 'key' must have the same batch "
                                 f"size, but got shapes {tuple(query.shape)} and "
                                 f"{tuple(key.shape)}.")

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True,
                  attn_mask=None, average_attn_weights=True):
        name = "MultiheadAttention"
        self._check(query, key, value)
        unbatched = query.ndim == 2
        if unbatched:
            query, key, value = (F.expand_dims(t, 0) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = F.expand_dims(key_padding_mask, 0)
        elif not self.batch_first:
            query, key, value = (F.transpose(t, (1, 0, 2)) for t in (query, key, value))
        # Now (N, L, E), (N, S, kdim), (N, S, vdim).
        n, tgt, src = query.shape[0], query.shape[1], key.shape[1]
        heads, d = self.num_heads, self.head_dim
        (w_q, w_k, w_v), (b_q, b_k, b_v) = self._projections()

        # Keys (and values) the layer adds after the given ones: a learnt bias_k / bias_v row,
        # then a zero row; the masks let every query attend to them.
        extra = int(self.add_bias_kv) + int(self.add_zero_attn)

        def project(x, w, b, length, bias_row=None, zero_row=False):
            y = F.matmul(x, w, transpose_b=True)
            if b is not None:
                y = F.add(y, b)
            if bias_row is not None:
                y = F.concat([y, F.broadcast_to(bias_row, (n, 1, self.embed_dim))], 1)
                length = length + 1
            # (N, len, E) -> (N, heads, len, d)
            y = F.transpose(F.reshape(y, (n, length, heads, d)), (0, 2, 1, 3))
            if zero_row:
                y = F.concat([y, F.zeros((n, heads, 1, d), y.dtype)], 2)
            return y

        q = F.mul(project(query, w_q, b_q, tgt), 1.0 / math.sqrt(d))
        zero = self.add_zero_attn
        k = project(key, w_k, b_k, src, self.bias_k if self.add_bias_kv else None, zero)
        v = project(value, w_v, b_v, src, self.bias_v if self.add_bias_kv else None, zero)

        def pad(mask):
            if not extra:
                return mask
            return F.concat([mask, F.zeros(tuple(mask.shape[:-1]) + (extra,), mask.dtype)], -1)

        scores = F.matmul(q, k, transpose_b=True)                      # (N, heads, L, S)
        if attn_mask is not None:
            if attn_mask.ndim == 2:
                if not shapes_equal(name, attn_mask.shape, (tgt, src)):
                    raise ValueError(f"For '{name}', a 2-D 'attn_mask' must have shape "
                                     f"{(tgt, src)}, but got {tuple(attn_mask.shape)}.")
                mask = _additive_mask(name, "attn_mask", attn_mask, scores.dtype)
            elif attn_mask.ndim == 3:
                if not shapes_equal(name, attn_mask.shape, (n * heads, tgt, src)):
                    raise ValueError(f"For '{name}', a 3-D 'attn_mask' must have shape "
                                     f"{(n * heads, tgt, src)}, but got "
                                     f"{tuple(attn_mask.shape)}.")
                mask = F.reshape(_additive_mask(name, "attn_mask", attn_mask, scores.dtype),
                                 (n, heads, tgt, src))
            else:
                raise ValueError(f"For '{name}', 'attn_mask' must be 2-D or 3-D, but got shape "
                                 f"{tuple(attn_mask.shape)}.")
            scores = F.add(scores, pad(mask))
        if key_padding_mask is not None:
            if not shapes_equal(name, key_padding_mask.shape, (n, src)):
                raise ValueError(f"For '{name}', 'key_padding_mask' must have shape "
                                 f"{(n, src) if not unbatched else (src,)}, but got "
                                 f"{tuple(key_padding_mask.shape)}.")
            mask = _additive_mask(name, "key_padding_mask", key_padding_mask, scores.dtype)
            scores = F.add(scores, F.reshape(pad(mask), (n, 1, 1, src + extra)))
        weights = F.softmax(scores, -1)
        out = F.matmul(self.attn_dropout(weights), v)                 # (N, heads, L, d)
        out = F.reshape(F.transpose(out, (0, 2, 1, 3)), (n, tgt, self.embed_dim))
        out = self.out_proj(out)
        if unbatched:
            out = F.reshape(out, (tgt, self.embed_dim))
        elif not self.batch_first:
            out = F.transpose(out, (1, 0, 2))
        if not need_weights:
            return out, None
        if average_attn_weights:
            weights = F.mean(weights, 1)
        if unbatched:
            weights = F.reshape(weights, tuple(weights.shape[1:]))
        return out, weights

    def extend_repr(self):
        return (f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, "
                f"dropout={self.dropout}, has_bias={self.has_bias}, kdim={self.kdim}, "
                f"vdim={self.vdim}, add_bias_kv={self.add_bias_kv}, "
                f"add_zero_attn={self.add_zero_attn}, batch_first={self.batch_first}")


def _activation_fn(activation):
    if isinstance(activation, str):
        if activation == "relu":
            return F.relu
        if activation == "gelu":
            return F.gelu
        raise ValueError(f"For 'TransformerEncoderLayer', 'activation' must be 'relu', 'gelu', "
                         f"a Cell or a callable, but got {activation!r}.")
    if callable(activation):
        return activation
    raise TypeError(f"For 'TransformerEncoderLayer', 'activation' must be a str, a Cell or a "
                    f"callable, but got {type(activation).__name__}.")


class TransformerEncoderLayer(Cell):
    """One Transformer encoder layer, MindSpore's nn.TransformerEncoderLayer: self-attention
    then a feed-forward block dense2(dropout(activation(dense1(x)))), each wrapped in a
    residual with dropout and LayerNorm (eps ``layer_norm_eps``):

    post-norm (default): x = norm1(x + sa(x)); x = norm2(x + ff(x));
    ``norm_first``:      x = x + sa(norm1(x)); x = x + ff(norm2(x)).

    ``activation`` is 'relu', 'gelu' (exact erf form), a Cell or a callable. Inputs ``src``
    (S, N, d_model) ((N, S, d_model) with ``batch_first``, or unbatched (S, d_model)),
    ``src_mask`` and ``src_key_padding_mask`` as MultiheadAttention's attn_mask and
    key_padding_mask. Output like src.

    >>> import numpy as np, minispore as ms
    >>> layer = ms.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)
    >>> layer(ms.Tensor(np.ones((5, 3, 8), np.float32))).shape
    (5, 3, 8)
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 dtype=mstype.float32):
        super().__init__()
        name = "TransformerEncoderLayer"
        _check_positive_int(name, "d_model", d_model)
        _check_positive_int(name, "nhead", nhead)
        _check_positive_int(name, "dim_feedforward", dim_feedforward)
        dropout = _check_prob(name, "dropout", dropout)
        if isinstance(layer_norm_eps, bool) or not isinstance(layer_norm_eps, (int, float)) \
                or layer_norm_eps <= 0:
            raise ValueError(f"For '{name}', 'layer_norm_eps' must be a positive float, but got "
                             f"{layer_norm_eps!r}.")
        self.norm_first = _check_bool(name, "norm_first", norm_first)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, dtype=dtype)
        self.dense1 = Dense(d_model, dim_feedforward, dtype=dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = Dense(dim_feedforward, d_model, dtype=dtype)
        self.norm1 = LayerNorm((d_model,), epsilon=float(layer_norm_eps), dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=float(layer_norm_eps), dtype=dtype)
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)
        self.activation = _activation_fn(activation)

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.dense2(self.dropout(self.activation(self.dense1(x))))
        return self.dropout2(x)

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        x = src
        if self.norm_first:
            x = F.add(x, self._sa_block(self.norm1(x), src_mask, src_key_padding_mask))
            x = F.add(x, self._ff_block(self.norm2(x)))
        else:
            x = self.norm1(F.add(x, self._sa_block(x, src_mask, src_key_padding_mask)))
            x = self.norm2(F.add(x, self._ff_block(x)))
        return x


def stacked_layers(name, arg, layer, num_layers, norm):
    """(CellList of num_layers deep copies of layer, num_layers, norm), each argument checked
    as MindSpore's TransformerEncoder / TransformerDecoder check it."""
    if not isinstance(layer, Cell):
        raise TypeError(f"For '{name}', '{arg}' must be a Cell, but got "
                        f"{type(layer).__name__}.")
    num_layers = _check_positive_int(name, "num_layers", num_layers)
    if norm is not None and not isinstance(norm, Cell):
        raise TypeError(f"For '{name}', 'norm' must be a Cell or None, but got "
                        f"{type(norm).__name__}.")
    return CellList([copy.deepcopy(layer) for _ in range(num_layers)]), num_layers, norm


class TransformerEncoder(Cell):
    """``num_layers`` deep copies of ``encoder_layer`` applied in turn, then ``norm`` (a Cell)
    when given; MindSpore's nn.TransformerEncoder. Inputs as TransformerEncoderLayer's.

    >>> import numpy as np, minispore as ms
    >>> layer = ms.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
    >>> enc = ms.nn.TransformerEncoder(layer, 2)
    >>> enc(ms.Tensor(np.ones((3, 5, 8), np.float32))).shape
    (3, 5, 8)
    """

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers, self.num_layers, self.norm = stacked_layers(
            "TransformerEncoder", "encoder_layer", encoder_layer, num_layers, norm)

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            x = self.norm(x)
        return x
