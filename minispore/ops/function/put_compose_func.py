"""Tensor.masked_scatter and Tensor.index_put, composed from CumSum, Gather, Select and
TensorScatterUpdate/Add (MindSpore has no ops.* form of either, so nothing is exported)."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_func import stack
from minispore.ops.function.index_func import tensor_scatter_add, tensor_scatter_update
from minispore.ops.function.sort_func import cumsum
from minispore.ops.operations.math_ops import broadcast_to

__all__ = []


def masked_scatter(input, mask, source):  # noqa: A002
    """input with the places where mask (bool, broadcast to input) is True filled, in row-major
    order, by source's leading elements: the k-th True takes source.flat[k]."""
    if not isinstance(mask, Tensor) or mask.dtype != mstype.bool_:
        raise TypeError(f"For 'MaskedScatter', 'mask' must be a bool Tensor, but got "
                        f"{getattr(mask, 'dtype', type(mask).__name__)}.")
    if not isinstance(source, Tensor) or source.dtype != input.dtype:
        raise TypeError(f"For 'MaskedScatter', 'source' must be a Tensor of input's dtype "
                        f"({input.dtype}), but got {getattr(source, 'dtype', type(source))}.")
    shape = tuple(input.shape)
    flat_mask = A.reshape(broadcast_to(mask, shape), (-1,))
    taken = cumsum(A.cast(flat_mask, mstype.int32), 0)
    count = int(taken[-1].asnumpy()) if taken.shape[0] else 0
    if count > source.size:
        raise ValueError("For 'MaskedScatter', number of elements of updates < number of ones "
                         "in mask.")
    pos = M.maximum(M.sub(taken, 1), 0)
    filled = A.gather(A.reshape(source, (-1,)), pos, 0)
    return A.reshape(M.select(flat_mask, filled, A.reshape(input, (-1,))), shape)


def index_put(input, indices, values, accumulate=False):  # noqa: A002
    """input with values written (accumulate: added) at the points indices = (i_0, ..., i_k)
    pick on input's first k+1 dims (index tensors broadcast together; negative counts from the
    end); values broadcast to (points,) + the remaining dims."""
    if not isinstance(indices, (tuple, list)) or not indices:
        raise TypeError(f"For 'IndexPut', 'indices' must be a non-empty tuple or list of "
                        f"Tensors, but got {type(indices).__name__}.")
    if len(indices) > input.ndim:
        raise ValueError(f"For 'IndexPut', too many indices ({len(indices)}) for a {input.ndim}-D "
                         f"input.")
    for i, index in enumerate(indices):
        if not isinstance(index, Tensor) or index.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For primitive[IndexPut], the input argument[indices[{i}]:] must "
                            f"be a type of {{Tensor[Int32], Tensor[Int64]}}, but got "
                            f"{getattr(index, 'dtype', type(index).__name__)}.")
    if not isinstance(values, Tensor) or values.dtype != input.dtype:
        raise TypeError(f"For primitive[IndexPut], the input type must be same, but got input "
                        f"{input.dtype} and values {getattr(values, 'dtype', type(values))}.")
    if not isinstance(accumulate, bool):
        raise TypeError(f"For 'IndexPut', 'accumulate' must be a bool, but got "
                        f"{type(accumulate).__name__}.")
    points = np.broadcast_shapes(*(tuple(index.shape) for index in indices))
    cols = [M.floor_mod(broadcast_to(A.cast(index, mstype.int64), points), input.shape[d])
            for d, index in enumerate(indices)]
    coords = A.reshape(stack(cols, -1), (-1, len(indices)))
    rest = tuple(input.shape[len(indices):])
    updates = broadcast_to(values, (coords.shape[0],) + rest)
    scatter = tensor_scatter_add if accumulate else tensor_scatter_update
    return scatter(input, coords, updates)
