"""MindSpore's mindspore.common.initializer: the initializer classes (defined in init_array.py,
below Tensor) and `initializer()`, which makes a Tensor filled by one."""
from minispore.common import dtype as mstype
from minispore.common.deferred_init import DeferredTensor, deferring
from minispore.common.init_array import (Constant, HeNormal, HeUniform, Initializer, Normal, One,
                                         TruncatedNormal, Uniform, XavierNormal, XavierUniform,
                                         Zero, check_shape, init_array, resolve_initializer)
from minispore.common.tensor import Tensor, tensor_of

__all__ = ["Initializer", "initializer", "Normal", "TruncatedNormal", "Uniform", "XavierUniform",
           "XavierNormal", "HeUniform", "HeNormal", "Zero", "One", "Constant"]


def initializer(init, shape=None, dtype=mstype.float32):
    """Make a Tensor of ``shape`` and ``dtype`` filled by ``init``.

    ``init`` is an Initializer, an alias string ('normal', 'zeros', 'ones', 'uniform',
    'xavier_uniform', 'he_uniform', 'he_normal', 'truncatedNormal', camelCase forms such as
    'heUniform' too), a number (a constant) or a Tensor (returned as is; its shape must equal
    ``shape`` when one is given, else ValueError).

    >>> import minispore as ms
    >>> initializer("ones", [2, 3], ms.float32).asnumpy().sum()
    6.0

    Inside ``no_init_parameters`` the values are drawn when first read (deferred_init.py).
    """
    if isinstance(init, Tensor):
        if shape is not None:
            want = (shape,) if isinstance(shape, int) else tuple(shape)
            if tuple(init.shape) != want:
                raise ValueError(f"For 'initializer', the shape of the 'init' Tensor "
                                 f"{tuple(init.shape)} is not equal to 'shape' {want}.")
        return init
    dtype = mstype.to_type(dtype)
    if deferring():     # no_init_parameters: drawn when first read
        return DeferredTensor(resolve_initializer(init), check_shape(shape), dtype)
    return tensor_of(init_array(init, shape, dtype), dtype)
