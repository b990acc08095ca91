"""Fused optimizer kernels keep float32 updates in float32: no local is typed float64.

A constant like ``lr - lr + 1`` types as float64 in Numba and silently promotes every
arithmetic step of the update; this reads the compiled kernels' type maps to catch it.
"""
import numpy as np
import pytest
from numba import njit
from numba.core import types

import minispore as ms
from minispore import Tensor, nn
from minispore.kernels.cpu import optim

OPTIMIZERS = {
    "sgd": (optim.sgd, lambda p: nn.SGD(p, 0.1, momentum=0.9, nesterov=True)),
    "apply_momentum": (optim.apply_momentum, lambda p: nn.Momentum(p, 0.1, 0.9)),
    "adam": (optim.adam, lambda p: nn.Adam(p, 1e-3)),
    "adam_weight_decay": (optim.adam_weight_decay,
                          lambda p: nn.AdamWeightDecay(p, 1e-3, weight_decay=0.01)),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_float32_update_has_no_float64_locals(name):
    kernel, make = OPTIMIZERS[name]
    w = ms.Parameter(Tensor(np.ones(4, np.float32)), name="w")
    make([w])((Tensor(np.full(4, 0.5, np.float32)),))
    float32_sigs = [sig for sig in kernel.signatures
                    if sig[0] == types.Array(types.float32, 1, "C")]
    assert float32_sigs, f"{name} was not compiled for float32 parameters"
    # Kernels loaded from the on-disk cache carry no type map: type a fresh, uncached copy
    # with the very signature the optimizer used.
    fresh = njit(kernel.py_func)
    for sig in float32_sigs:
        fresh.compile(sig)
        typemap = fresh.overloads[sig].type_annotation.typemap
        promoted = sorted(k for k, t in typemap.items()
                          if t == types.float64 and not k.startswith("$"))
        assert not promoted, f"{name}: float32 update computes {promoted} in float64"
