"""ops.vmap: `fn` mapped over an axis of its inputs, run once on the whole batch.

`fn` runs once, under a batching level of the interpreter stack (ops/batching.py): its mapped
inputs are BatchedTensors that show it one slice's shape, and each operator it calls runs its
batching rule, one call on the whole batch. Operators without a rule run once per slice and
are stacked (MindSpore's general rule), with a warning naming them. Gradients flow through
the batched calls (grad of vmap) and into them (vmap of grad: a tape inside `fn` records the
slice-shaped calls, and their bprops are batched in turn); vmap nests; under GRAPH mode or
ms.jit the batched calls are traced into the graph.

Outputs are exact about what depends on the mapped inputs: an output that does not is
broadcast along an int ``out_axes`` or returned once for None, and one that does with None is
refused, as MindSpore refuses it. Random operators that read no mapped input draw once for all
slices (MindSpore's behaviour); ones that do draw per element of the batch.

A function that reads a mapped value (Python if/while on it, item(), or an operator that
checks its argument's values on the host) has no batched run: it then runs once per slice and
the results are stacked, with a warning naming where it read (MindSpore's compiled vmap
refuses such a function). Work the batched attempt did before the read is discarded, but
side effects it had (a Print, a random draw) have happened.

A CellList `fn` (model ensembling) runs cell i on slice i.
"""
import logging
import traceback

import numpy as np

from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.ops.batching import BatchLevel, MappedValueError
from minispore.ops.function.composite_func import stack

__all__ = ["vmap"]
logger = logging.getLogger("minispore")


def _error(message):
    return RuntimeError(message)


def _check_axis_spec(spec, name):
    """`spec`: an int, None, or (nested) tuples/lists of them."""
    if spec is None or (isinstance(spec, int) and not isinstance(spec, bool)):
        return
    if isinstance(spec, (tuple, list)):
        for s in spec:
            _check_axis_spec(s, name)
        return
    raise _error(f"The axis in vmap`s '{name}' can only be of type Int or None, but got "
                 f"{spec!r} ({type(spec).__name__}).")


def _leaves(value, spec, name):
    """[(tensor or value, axis or None)] for `value` under the axis spec `spec`, depth first."""
    if isinstance(value, (tuple, list)):
        if isinstance(spec, (tuple, list)):
            if len(spec) != len(value):
                raise _error(f"The '{name}' of vmap {tuple(spec)} has {len(spec)} entries for "
                             f"a sequence of {len(value)}: give one axis (or None) per item.")
            return [leaf for v, s in zip(value, spec) for leaf in _leaves(v, s, name)]
        return [leaf for v in value for leaf in _leaves(v, spec, name)]
    if isinstance(spec, (tuple, list)):
        raise _error(f"The '{name}' of vmap gives a sequence {tuple(spec)} for a "
                     f"{type(value).__name__}, which is not a tuple or list.")
    if spec is not None and not isinstance(value, Tensor):
        raise _error(f"vmap maps axis {spec} of an argument that is a "
                     f"{type(value).__name__}, not a Tensor: map Tensors only (give None in "
                     f"'{name}' for the others).")
    return [(value, spec)]


def _rebuild(value, leaves):
    """`value` with its leaves replaced, in order, by the next items of the iterator."""
    if isinstance(value, (tuple, list)):
        return type(value)(_rebuild(v, leaves) for v in value)
    return next(leaves)


def _normalized(axis, ndim, name):
    if not -ndim <= axis < ndim:
        raise _error(f"The axis: {axis} in '{name}' is out of bounds for array of dimension "
                     f"[{-ndim},{ndim}).")
    return axis % ndim


def _slice(x, axis, i):
    return x[(slice(None),) * axis + (i,)]


def _writable(x):
    return isinstance(x, Parameter) or getattr(x, "mapped_parameter", None) is not None


def _moved_to_front(x, axis):
    if axis == 0:
        return x
    from minispore.ops.operations.array_ops import Transpose
    return Transpose()(x, (axis,) + tuple(d for d in range(x.ndim) if d != axis))


def _warn_per_slice(fn, error):
    """Say that `fn` runs once per slice: it read a mapped value, which a batched run has no
    one value of (MindSpore's compiled vmap refuses such a function; minispore runs it)."""
    frames = traceback.extract_tb(error.__traceback__)
    where = next((f"{f.filename}:{f.lineno} ({f.name})" for f in reversed(frames)
                  if not f.filename.endswith(("common/tensor.py", "ops/batching.py"))), "?")
    logger.warning("vmap: %s reads the value of a mapped Tensor at %s, which a batched run "
                   "has no one value of; it runs once per slice of the mapped axis instead "
                   "and the results are stacked. (%s)", getattr(fn, "__name__", type(fn).__name__),
                   where, error)


def _is_cell_list(fn):
    """A CellList (model ensembling: cell i runs on slice i), known by its class name: ops
    sits below nn, so it cannot import the class."""
    return any(c.__name__ == "CellList" and c.__module__.startswith("minispore.nn")
               for c in type(fn).__mro__)


def vmap(fn, in_axes=0, out_axes=0):
    """``ops.vmap(fn, in_axes=0, out_axes=0)``: the function mapping `fn` over axis
    ``in_axes`` of its inputs (an int for all, or one int/None per positional argument,
    nested for tuple arguments), with the mapped axis at ``out_axes`` of its outputs (an int,
    or one per output; None returns an output that does not depend on the mapped inputs once).
    `fn` may be a CellList of as many cells as the mapped size: cell i runs on slice i.

    >>> import numpy as np, minispore as ms
    >>> from minispore import ops
    >>> x = ms.Tensor(np.array([[1., 2.], [3., 4.], [5., 6.]], np.float32))
    >>> ops.vmap(lambda a: a.sum(), in_axes=0)(x).asnumpy().tolist()
    [3.0, 7.0, 11.0]
    """
    _check_axis_spec(in_axes, "in_axes")
    _check_axis_spec(out_axes, "out_axes")
    ensemble = _is_cell_list(fn)
    if out_axes is None and not ensemble:
        raise _error("The 'out_axes' of 'vmap' cannot be a single None while 'fn' is not a "
                     "'CellList'.")

    def mapped(*args):
        if not ensemble and not callable(fn):     # checked when called, as MindSpore does
            raise TypeError(f"For 'vmap', 'fn' must be a function, a Cell or a CellList, but "
                            f"got {type(fn).__name__}.")
        if isinstance(in_axes, (tuple, list)) and len(in_axes) != len(args):
            raise _error(f"When vmap`s 'in_axes' is a tuple or list, and its size must be equal "
                         f"to the number of arguments of 'fn': {len(args)}, but got size: "
                         f"{len(in_axes)}.")
        spec = tuple(in_axes) if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
        leaves = _leaves(list(args), list(spec), "in_axes")
        mapped_leaves = [(x, _normalized(a, x.ndim, "in_axes")) if a is not None else (x, None)
                         for x, a in leaves]
        sizes = [x.shape[a] for x, a in mapped_leaves if a is not None]
        if not sizes and not ensemble:
            raise _error(f"The 'in_axes' of 'vmap' cannot be all None while 'fn' is not a "
                         f"'CellList', but got {spec}.")
        if any(s != sizes[0] for s in sizes):
            raise _error(f"The 'axis_size' of each argument in the scope of 'vmap' should be "
                         f"equal, but got {' and '.join(str(s) for s in dict.fromkeys(sizes))}.")
        size = sizes[0] if sizes else len(fn)
        if ensemble and len(fn) != size:
            raise _error(f"The CellList given to vmap has {len(fn)} cells, but the mapped axis "
                         f"has size {size}: give one cell per slice.")
        if ensemble:
            return _each_slice(lambda i: fn[i], args, mapped_leaves, size, out_axes)
        level = BatchLevel(size)
        # a mapped Parameter (or an outer vmap's mapped Parameter) stays known, so the writes
        # into it land in it
        mapped_inputs = iter([x if a is None else level.wrap(
            _moved_to_front(x, a), (x, a) if _writable(x) else None)
            for x, a in mapped_leaves])
        call_args = _rebuild(list(args), mapped_inputs)
        try:
            with level:
                out = fn(*call_args)
        except MappedValueError as e:
            if e.level is not level:
                raise
            _warn_per_slice(fn, e)
            return _each_slice(lambda i: fn, args, mapped_leaves, size, out_axes)
        return _unbatched(level, out, out_axes)
    return mapped


def _each_slice(fn_of, args, mapped_leaves, size, out_axes):
    """``fn_of(i)`` called on slice i of the mapped inputs for every i, the results stacked
    (the CellList ensemble; a function that reads mapped values)."""
    return _stacked([fn_of(i)(*_rebuild(list(args), iter(
        [x if a is None else _slice(x, a, i) for x, a in mapped_leaves])))
        for i in range(size)], out_axes)


def _output_axes(outputs, out_axes):
    if isinstance(out_axes, (tuple, list)):
        if len(out_axes) != len(outputs):
            raise _error(f"When vmap`s 'out_axes' is a tuple or list, its size must be equal to "
                         f"the number of outputs of 'fn': {len(outputs)}, but got size: "
                         f"{len(out_axes)}.")
        return list(out_axes)
    return [out_axes] * len(outputs)


def _unbatched(level, out, out_axes):
    """`fn`'s outputs under `level` as the caller's tensors, the mapped axis at `out_axes`."""
    single = not isinstance(out, (tuple, list))
    outputs = [out] if single else list(out)
    results = [_output(level, o, a) for o, a in zip(outputs, _output_axes(outputs, out_axes))]
    return results[0] if single else type(out)(results)


def _output(level, value, axis):
    if isinstance(value, (tuple, list)):
        sub = axis if isinstance(axis, (tuple, list)) else [axis] * len(value)
        return type(value)(_output(level, v, a) for v, a in zip(value, sub))
    if level.owns(value):
        if axis is None:
            raise _error("It is invalid that source is not None and dst is None: an output "
                         "with out_axes None depends on the mapped inputs; give it an int "
                         "out_axes.")
        batch = value._batched
        axis = _normalized(axis, batch.ndim, "out_axes")
        if axis == 0:
            return batch
        from minispore.ops.operations.array_ops import Transpose
        return Transpose()(batch, tuple(range(1, axis + 1)) + (0,)
                           + tuple(range(axis + 1, batch.ndim)))
    if axis is None:
        return value
    value = value if isinstance(value, Tensor) else Tensor(value)
    return stack([value] * level.size, _normalized(axis, value.ndim + 1, "out_axes"))


def _stacked(results, out_axes):
    """The per-slice results of `fn` stacked along `out_axes` (see vmap)."""
    first = results[0]
    single = not isinstance(first, (tuple, list))
    outputs = [first] if single else list(first)
    axes = _output_axes(outputs, out_axes)
    per_output = [[r] if single else list(r) for r in results]
    stacked = []
    for k, axis in enumerate(axes):
        column = [r[k] for r in per_output]
        stacked.append(_stack_output(column, axis))
    return stacked[0] if single else type(first)(stacked)


def _check_unmapped(column):
    """An output with out_axes None must not depend on the mapped inputs (MindSpore refuses
    one that does): here, the same object in every slice (an unmapped input handed back) or,
    eagerly, equal values in every slice."""
    head = column[0]
    if all(c is head for c in column) or not isinstance(head, Tensor):
        return
    if getattr(head, "traced", False):
        raise NotImplementedError(
            "vmap with out_axes None for an output computed inside 'fn' is not implemented "
            "in minispore while compiling (GRAPH_MODE or ms.jit): whether it depends on the "
            "mapped inputs is decided from its values, which are not known then; give that "
            "output an int out_axes, or return an unmapped input itself.")
    if any(not np.array_equal(c.asnumpy(), head.asnumpy()) for c in column[1:]):
        raise _error("It is invalid that source is not None and dst is None: an output with "
                     "out_axes None differs between the mapped slices (it depends on the "
                     "mapped inputs); give it an int out_axes.")


def _stack_output(column, axis):
    """One output's slices: nested sequences stack leaf by leaf; None keeps the first slice's
    value (an output that does not depend on the mapped inputs is the same for every slice)."""
    head = column[0]
    if isinstance(head, (tuple, list)):
        sub = axis if isinstance(axis, (tuple, list)) else [axis] * len(head)
        return type(head)(_stack_output([c[j] for c in column], a) for j, a in enumerate(sub))
    if axis is None:
        _check_unmapped(column)
        return head
    values = [c if isinstance(c, Tensor) else Tensor(c) for c in column]
    return stack(values, _normalized(axis, values[0].ndim + 1, "out_axes"))
