"""TransformerDecoderLayer, TransformerDecoder and Transformer (MindSpore 2.x signatures),
composed from MultiheadAttention, Dense, Dropout and LayerNorm like the encoder."""

from minispore.common import dtype as mstype
from minispore.nn.cell import Cell
from minispore.nn.layer.basic import Dense, Dropout, _check_bool, _check_positive_int
from minispore.nn.layer.normalization import LayerNorm
from minispore.nn.layer.transformer import (MultiheadAttention, TransformerEncoder,
                                            TransformerEncoderLayer, _activation_fn, _check_prob,
                                            stacked_layers)
from minispore.ops import functional as F

__all__ = ["TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


def _check_eps(name, eps):
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or eps <= 0:
        raise ValueError(f"For '{name}', 'layer_norm_eps' must be a positive float, but got "
                         f"{eps!r}.")
    return float(eps)


class TransformerDecoderLayer(Cell):
    """One Transformer decoder layer: self-attention over tgt, attention from tgt to memory,
    then the feed-forward block dense2(dropout(activation(dense1(x)))), each in a residual
    with dropout and LayerNorm:

    post-norm (default): x = norm1(x + sa(x)); x = norm2(x + mha(x, memory)); x = norm3(x + ff(x))
    ``norm_first``:      x = x + sa(norm1(x)); x = x + mha(norm2(x), memory); x = x + ff(norm3(x))

    Masks are MultiheadAttention's attn_mask / key_padding_mask (tgt_* for the self-attention,
    memory_* for the attention to memory). Shapes as TransformerEncoderLayer's.
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 dtype=mstype.float32):
        super().__init__()
        name = "TransformerDecoderLayer"
        _check_positive_int(name, "d_model", d_model)
        _check_positive_int(name, "nhead", nhead)
        _check_positive_int(name, "dim_feedforward", dim_feedforward)
        dropout = _check_prob(name, "dropout", dropout)
        eps = _check_eps(name, layer_norm_eps)
        self.norm_first = _check_bool(name, "norm_first", norm_first)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, dtype=dtype)
        self.dense1 = Dense(d_model, dim_feedforward, dtype=dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = Dense(dim_feedforward, d_model, dtype=dtype)
        self.norm1 = LayerNorm((d_model,), epsilon=eps, dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=eps, dtype=dtype)
        self.norm3 = LayerNorm((d_model,), epsilon=eps, dtype=dtype)
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)
        self.dropout3 = Dropout(p=dropout)
        self.activation = _activation_fn(activation)

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, memory, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, memory, memory, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.dense2(self.dropout(self.activation(self.dense1(x)))))

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None,
                  tgt_key_padding_mask=None, memory_key_padding_mask=None):
        x = tgt
        if self.norm_first:
            x = F.add(x, self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask))
            x = F.add(x, self._mha_block(self.norm2(x), memory, memory_mask,
                                         memory_key_padding_mask))
            x = F.add(x, self._ff_block(self.norm3(x)))
        else:
            x = self.norm1(F.add(x, self._sa_block(x, tgt_mask, tgt_key_padding_mask)))
            x = self.norm2(F.add(x, self._mha_block(x, memory, memory_mask,
                                                    memory_key_padding_mask)))
            x = self.norm3(F.add(x, self._ff_block(x)))
        return x


class TransformerDecoder(Cell):
    """``num_layers`` deep copies of ``decoder_layer`` applied in turn to tgt (each also reading
    memory), then ``norm`` (a Cell) when given."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers, self.num_layers, self.norm = stacked_layers(
            "TransformerDecoder", "decoder_layer", decoder_layer, num_layers, norm)

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None,
                  tgt_key_padding_mask=None, memory_key_padding_mask=None):
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                      memory_key_padding_mask)
        if self.norm is not None:
            x = self.norm(x)
        return x


class Transformer(Cell):
    """An encoder (num_encoder_layers TransformerEncoderLayers and a final LayerNorm) over src
    and a decoder (num_decoder_layers TransformerDecoderLayers and a final LayerNorm) over tgt
    reading the encoder's output; custom_encoder / custom_decoder replace either."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 dtype=mstype.float32):
        super().__init__()
        eps = _check_eps("Transformer", layer_norm_eps)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            eps, batch_first, norm_first, dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              LayerNorm((d_model,), epsilon=eps, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            eps, batch_first, norm_first, dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers,
                                              LayerNorm((d_model,), epsilon=eps, dtype=dtype))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def construct(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                  src_key_padding_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        batch_axis = 0 if self.batch_first else 1
        if src.ndim == 3 and tgt.ndim == 3 and src.shape[batch_axis] != tgt.shape[batch_axis]:
            raise ValueError(f"For 'Transformer', the batch size of src {src.shape[batch_axis]} "
                             f"and tgt {tgt.shape[batch_axis]} must be equal.")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError(f"For 'Transformer', the feature number of src {src.shape[-1]} and "
                             f"tgt {tgt.shape[-1]} must be equal to d_model {self.d_model}.")
        memory = self.encoder(src, src_mask=src_mask,
                              src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                            memory_key_padding_mask)
