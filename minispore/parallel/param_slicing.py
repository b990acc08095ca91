"""Parameters under operator parallelism: slice a whole parameter to this rank's block, gather
it back, and keep the optimizer state that mirrors a parameter on the same layout.

A Parameter is created whole (from the global seed, so every rank starts from the
single-device weights) and sliced once, when the parallel pass first fixes its layout. From
then on its buffer holds only this rank's block, while ``param.layout`` (a TensorLayout) and
``param.global_shape`` record what the block is a slice of: later compiles trace the
parameter at its global shape, checkpoints store the layout, and `gather_parameter` rebuilds
the whole value.

Optimizer state created by ``ParameterTuple.clone`` (momenta, Adam moments) is registered on
its source parameter (``param.derived``) and sliced with it, so the optimizer's update runs
on matching blocks.
"""
import numpy as np

from minispore import device
from minispore.common.layout import TensorLayout

__all__ = ["slice_parameter", "gather_parameter", "global_shape_of", "is_sliced",
           "fixed_layout"]


def global_shape_of(param):
    """The logical shape of `param` (its own shape unless it has been sliced)."""
    return tuple(param.global_shape) if param.global_shape is not None else tuple(param.shape)


def is_sliced(param):
    return param.layout is not None


def fixed_layout(param, device_num):
    """The layout `param` must have whatever its consumers want: the one it is sliced with,
    or the one a shard ``parameter_plan`` gave it (``param.planned_cuts``), or whole on every
    rank for a parameter-server parameter (its server sends it whole, minispore/ps/; a
    consumer that wants a block cuts it locally); None when the parallel pass may choose."""
    if param.layout is not None:
        return param.layout
    cuts = getattr(param, "planned_cuts", None)
    if param.is_param_ps:
        cuts = (1,) * len(param.shape)
    if cuts is None:
        return None
    from minispore.parallel.settings import layout_of_cuts
    return layout_of_cuts(cuts, device_num)


def _block(array, layout, rank):
    return np.ascontiguousarray(array[layout.local_slices(array.shape, rank)])


def local_block_of(param, value):
    """`value` (a Tensor of `param`'s logical shape, e.g. its whole gradient) cut to the block
    `param` holds; unchanged when `param` is not sliced or `value` already has its block's
    shape."""
    from minispore.common.tensor import tensor_of
    if not is_sliced(param) or tuple(value.shape) != tuple(param.global_shape):
        return value
    block = _block(value.asnumpy(), param.layout, param.layout_rank)
    return tensor_of(device.asarray(np.ascontiguousarray(block)), value.dtype)


def slice_parameter(param, layout, rank, mesh=None):
    """Keep only `rank`'s block of the whole `param` under `layout` (no communication: every
    rank holds the whole value before); `rank` is a position in `mesh` (a DeviceMesh, None:
    the world). Its derived optimizer state follows. Returns param.

    Raises:
        ValueError: the parameter is already sliced with another layout, or a dim is not
            divisible by its cut.
    """
    if not isinstance(layout, TensorLayout):
        raise TypeError(f"slice_parameter: layout must be a TensorLayout, got "
                        f"{type(layout).__name__}.")
    if param.layout is not None:
        if param.layout != layout:
            raise ValueError(f"Parameter '{param.name}' is already sliced with {param.layout}; "
                             f"it cannot be sliced again with {layout}.")
        return param
    if layout.partial:
        raise ValueError(f"Parameter '{param.name}': a parameter layout cannot be partial "
                         f"({layout}).")
    # (not asnumpy: slicing may happen while a graph compiles)
    whole = device.to_host(param._data)
    try:
        block = _block(whole, layout, rank)
    except ValueError as e:
        raise ValueError(f"Parameter '{param.name}' of shape {whole.shape} cannot take layout "
                         f"{layout}: {e}") from None
    param._data = device.asarray(block)      # back on the parameter's device
    param.global_shape = whole.shape
    param.layout = layout
    param.layout_rank = rank     # which block: checkpoints record it
    param.layout_mesh = mesh     # whose devices: gathering communicates among them
    for state in param.derived:
        if state.layout is None and tuple(state.shape) == whole.shape:
            slice_parameter(state, layout, rank, mesh)
    return param


def slice_rows_manually(param, layout, splits, rank, mesh=None):
    """Keep only `rank`'s rows of `param` under a non-uniform row split (Gather's
    ``manual_split``): block b of dim 0 (as `layout` cuts it) is rows sum(splits[:b]) ..
    sum(splits[:b + 1]); no other dim may be cut. Its derived optimizer state follows."""
    if param.layout is not None:
        if param.layout != layout or getattr(param, "manual_split", None) != tuple(splits):
            raise ValueError(f"Parameter '{param.name}' is already sliced with {param.layout}; "
                             f"it cannot take the manual split {tuple(splits)}.")
        return param
    whole = device.to_host(param._data)
    b = layout.block_index(rank)[0]
    start = sum(splits[:b])
    param._data = device.asarray(np.ascontiguousarray(whole[start:start + splits[b]]))
    param.global_shape = whole.shape
    param.layout = layout
    param.layout_rank = rank
    param.layout_mesh = mesh
    param.manual_split = tuple(splits)
    for state in param.derived:
        if state.layout is None and tuple(state.shape) == whole.shape:
            slice_rows_manually(state, layout, splits, rank, mesh)
    return param


def gather_parameter(param):
    """The whole value of `param` as a numpy array (an AllGather over the ranks of its layout
    when it is sliced; collective: every rank of its mesh must call it)."""
    if param.layout is None:
        return param.asnumpy()
    from minispore.parallel.redistribution import redistribute
    splits = getattr(param, "manual_split", None)
    if splits is not None:
        # pad every block to the longest, gather the uniform blocks, cut the padding away
        rows = max(splits)
        local = param.asnumpy()
        padded = np.zeros((rows,) + local.shape[1:], local.dtype)
        padded[:local.shape[0]] = local
        shape = (rows * len(splits),) + tuple(param.global_shape[1:])
        replicated = TensorLayout(param.layout.dev_matrix, (-1,) * len(param.layout.tensor_map))
        mesh = getattr(param, "layout_mesh", None)
        rank = param.layout_rank if mesh is not None else None
        whole = redistribute(padded, param.layout, replicated, shape, rank, mesh=mesh)
        return np.concatenate([whole[b * rows:b * rows + n] for b, n in enumerate(splits)])
    replicated = TensorLayout(param.layout.dev_matrix, (-1,) * len(param.layout.tensor_map))
    mesh = getattr(param, "layout_mesh", None)
    rank = param.layout_rank if mesh is not None else None
    return redistribute(param.asnumpy(), param.layout, replicated, param.global_shape, rank,
                        mesh=mesh)
