"""ms.JitConfig: checked as MindSpore checks it, kept by Cell.set_jit_config, and said to have
no effect (minispore has one compile pipeline) when it sets anything."""
import logging

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn


def test_jit_config_is_checked_kept_and_said_to_have_no_effect(caplog):
    config = ms.JitConfig(jit_level="O1", exc_mode="auto")
    assert config.jit_config_dict["jit_level"] == "O1"
    net = nn.Dense(2, 2)
    with caplog.at_level(logging.WARNING, logger="minispore"):
        net.set_jit_config(config)
    assert "'jit_level': 'O1'" in caplog.text and "has no effect" in caplog.text
    assert net.get_jit_config()["jit_level"] == "O1"

    @ms.jit(jit_config=ms.JitConfig())
    def double(x):
        return x * 2
    np.testing.assert_array_equal(double(Tensor(np.ones(2, np.float32))).asnumpy(), [2, 2])
    with pytest.raises(ValueError, match="'jit_level' must be one of"):
        ms.JitConfig(jit_level="O3")
    with pytest.raises(TypeError, match="'jit_config' must be a JitConfig"):
        net.set_jit_config({"jit_level": "O0"})
