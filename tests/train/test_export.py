"""ms.export is not built: it says so, naming the format and what keeps a network instead."""
import pytest

import minispore as ms
from minispore import nn


def test_export_is_refused_with_what_works_instead():
    with pytest.raises(NotImplementedError, match="MINDIR.*save_checkpoint"):
        ms.export(nn.Dense(2, 2), ms.Tensor([[1.0, 2.0]]), file_name="net", file_format="MINDIR")
    with pytest.raises(ValueError, match="'file_format' must be one of"):
        ms.export(nn.Dense(2, 2), file_name="net", file_format="PB")


def test_load_is_refused_and_export_resolves_where_mindspore_keeps_it():
    with pytest.raises(NotImplementedError, match="MINDIR file 'net.mindir'.*load_checkpoint"):
        ms.load("net.mindir")
    from minispore.train.serialization import export
    assert export is ms.export
