"""MindSpore's ConvertNetUtils (mindspore.train.ConvertNetUtils; nn.thor calls it): a network's
trainable Dense, Conv2d, Embedding and EmbeddingLookup cells replaced in place by their THOR
twins (nn/layer/thor_layer.py), which keep the statistics THOR preconditions with.

Two departures from MindSpore's converter, each of which would silently change the network:
a Conv2d keeps its dilation and its bias values (MindSpore's drops both, building a zero bias),
and a grouped Conv2d is refused by Conv2dThor rather than converted. A converted Dense computes
in float32, as MindSpore's GPU build does (its Ascend build casts to float16).
"""
from minispore.nn.cell import Cell
from minispore.nn.layer.basic import Dense
from minispore.nn.layer.conv import Conv2d
from minispore.nn.layer.embedding import Embedding, EmbeddingLookup
from minispore.nn.layer.thor_layer import Conv2dThor, DenseThor, EmbeddingLookupThor, \
    EmbeddingThor

__all__ = ["ConvertNetUtils"]

_THOR_CELLS = (DenseThor, Conv2dThor, EmbeddingThor, EmbeddingLookupThor)


def _prefix(param):
    """The path prefix of `param`'s name ('net.fc1.' of 'net.fc1.weight'; '' at the top)."""
    return param.name.rsplit(".", 1)[0] + "." if "." in param.name else ""


def _convert_dense(cell):
    new = DenseThor(cell.in_channels, cell.out_channels, weight_init=cell.weight.value(),
                    has_bias=cell.has_bias, activation=cell.activation)
    if cell.has_bias:
        new.bias = cell.bias
    return new


def _convert_embedding(cell):
    new = EmbeddingThor(cell.vocab_size, cell.embedding_size, use_one_hot=False)
    new.embedding_table = cell.embedding_table
    return new


def _convert_embedding_lookup(cell):
    new = EmbeddingLookupThor(cell.vocab_size, cell.embedding_size, target=cell.target,
                              sparse=cell.sparse)
    new.embedding_table = cell.embedding_table
    return new


def _convert_conv2d(cell):
    new = Conv2dThor(cell.in_channels, cell.out_channels, kernel_size=cell.kernel_size,
                     stride=cell.stride, pad_mode=cell.pad_mode, padding=cell.padding,
                     dilation=cell.dilation, group=cell.group, has_bias=cell.has_bias,
                     weight_init=cell.weight.value())
    if cell.has_bias:
        new.bias = cell.bias
    return new


_CONVERTERS = {Dense: _convert_dense, Conv2d: _convert_conv2d, Embedding: _convert_embedding,
               EmbeddingLookup: _convert_embedding_lookup}


class ConvertNetUtils:
    """``ConvertNetUtils().convert_to_thor_net(net)``: replace, in place, each trainable
    nn.Dense / nn.Conv2d / nn.Embedding / nn.EmbeddingLookup of `net` by its THOR layer, with
    the same Parameters (same names, same objects for biases and tables). As MindSpore's,
    the converter skips cells whose path contains 'wide' or lies under
    'rpn_with_loss.rpn_convs_list.' past its first convolution."""

    @staticmethod
    def _need_change(cell, path):
        lowered = path.lower()
        if isinstance(cell, (Dense, Conv2d)) and cell.weight.requires_grad:
            return not ("rpn_with_loss.rpn_convs_list." in lowered or "wide" in lowered)
        return isinstance(cell, (Embedding, EmbeddingLookup)) and \
            cell.embedding_table.requires_grad

    def _convert_to_thor_net(self, net, path):
        for name, cell in net.name_cells().items():
            cell_path = f"{path}.{name}" if path else name
            if cell is net or isinstance(cell, _THOR_CELLS):
                continue
            converter = _CONVERTERS.get(type(cell))
            if converter is None:
                self._convert_to_thor_net(cell, cell_path)
            elif self._need_change(cell, cell_path):
                new = converter(cell)
                new.update_parameters_name(_prefix(
                    cell.weight if hasattr(cell, "weight") else cell.embedding_table))
                net.insert_child_to_cell(name, new)

    def convert_to_thor_net(self, net):
        """Convert `net` in place (see the class docstring).

        Raises:
            TypeError: `net` is not a Cell.
        """
        if not isinstance(net, Cell):
            raise TypeError(f"For 'convert_to_thor_net', 'net' must be a Cell, but got "
                            f"{type(net).__name__}.")
        self._convert_to_thor_net(net, "")
