"""The batch operation: groups of rows stacked into batches, with per_batch_map and
padded_batch's pad_info acting on each group before it is stacked."""
import inspect
import math

import numpy as np

from minispore.dataset.engine import chunk as ck
from minispore.dataset.engine.datasets import Dataset, check_columns, find_columns
from minispore.dataset.engine.operations import (check_int, check_no_effect_keys, op_name,
                                                 replaced_columns)


class BatchInfo:
    """What per_batch_map gets last: the batch's number in its epoch and the epoch's, both
    from 0 (MindSpore's BatchInfo)."""

    def __init__(self, batch_num, epoch_num):
        self._batch_num, self._epoch_num = batch_num, epoch_num

    def get_batch_num(self):
        return self._batch_num

    def get_epoch_num(self):
        return self._epoch_num


class BatchDataset(Dataset):
    """Groups of `batch_size` rows stacked along a new axis 0; each group is one output row.
    per_batch_map (with input_columns / output_columns) and pad_info act on a group's rows
    before they are stacked (see Dataset.batch and Dataset.padded_batch)."""

    def __init__(self, child, batch_size, drop_remainder, num_parallel_workers,
                 per_batch_map=None, input_columns=None, output_columns=None, pad_info=None,
                 **kwargs):
        super().__init__([child], num_parallel_workers)
        check_int("batch", "batch_size", batch_size, 1)
        if not isinstance(drop_remainder, bool):
            raise TypeError(f"For 'batch', drop_remainder must be a bool, got {drop_remainder!r}.")
        self.batch_size, self.drop_remainder = batch_size, drop_remainder
        check_no_effect_keys(kwargs)
        names = child.get_col_names()
        self.per_batch_map = per_batch_map
        self.pad_info = _check_pad_info(pad_info, names)
        if per_batch_map is None:
            for key, value in (("input_columns", input_columns),
                               ("output_columns", output_columns)):
                if value is not None:
                    raise ValueError(f"For 'batch', {key} can be specified only when "
                                     f"per_batch_map is set, but got {key}={value!r}.")
            self._names = list(names)
            return
        if not callable(per_batch_map):
            raise TypeError(f"For 'batch', per_batch_map must be callable, got "
                            f"{type(per_batch_map).__name__}.")
        if pad_info is not None:
            raise ValueError("For 'batch', pad_info and per_batch_map can't both be set.")
        self.input_columns = (check_columns("batch", input_columns)
                              if input_columns is not None else list(names))
        self._in_idx = find_columns("batch", self.input_columns, names)
        _check_arity(per_batch_map, len(self.input_columns))
        self.output_columns = (check_columns("batch", output_columns)
                               if output_columns is not None else list(self.input_columns))
        self._names = replaced_columns("batch", names, self.input_columns, self.output_columns)

    def get_col_names(self):
        return list(self._names)

    def get_batch_size(self):
        return self.batch_size

    def _size(self):
        n = self.children[0]._size()
        if n is None:
            return None
        return n // self.batch_size if self.drop_remainder else math.ceil(n / self.batch_size)

    def _mapped(self, columns, info):
        """The group's columns after per_batch_map: {name: list of row arrays}."""
        names = self.children[0].get_col_names()
        args = [ck.rows_of(columns[i]) for i in self._in_idx]
        try:
            out = self.per_batch_map(*args, info)
        except Exception as e:
            raise RuntimeError(f"batch's per_batch_map '{op_name(self.per_batch_map)}' on "
                               f"input_columns {self.input_columns} failed: "
                               f"{type(e).__name__}: {e}") from e
        out = out if isinstance(out, tuple) else (out,)
        if len(out) != len(self.output_columns):
            raise RuntimeError(f"batch's per_batch_map '{op_name(self.per_batch_map)}' "
                               f"returned {len(out)} columns, but output_columns "
                               f"{self.output_columns} names {len(self.output_columns)}; give "
                               f"output_columns when their number differs from "
                               f"input_columns.")
        by_name = {n: ck.rows_of(columns[i]) for i, n in enumerate(names)
                   if n not in self.input_columns}
        for name, rows in zip(self.output_columns, out):
            by_name[name] = [ck.as_array(r) for r in rows]
        return by_name

    def _make_batch(self, parts, info):
        names = self.children[0].get_col_names()
        columns = [ck.concat([p[j] for p in parts]) for j in range(len(names))]
        if self.per_batch_map is not None:
            by_name = self._mapped(columns, info)
        else:
            by_name = dict(zip(names, columns))
        out = []
        for name in self._names:
            col = by_name[name]
            if self.pad_info is not None:
                col = _pad_rows(name, ck.rows_of(col), *self.pad_info.get(name, (None, None)))
            col = ck.stack(list(col)) if isinstance(col, list) else col
            if not isinstance(col, np.ndarray):
                shapes = sorted({(tuple(r.shape), str(r.dtype)) for r in col})
                raise RuntimeError(f"batch: rows of column '{name}' differ in shape or dtype "
                                   f"({shapes[:4]}), so they cannot be stacked into a batch of "
                                   f"{self.batch_size}; padded_batch pads them to one shape.")
            out.append(col[None])
        return out

    def _chunks(self, ctx):
        pending, have, bs, count = [], 0, self.batch_size, 0
        for chunk in self.children[0]._chunks(ctx):
            pending.append(chunk)
            have += ck.num_rows(chunk)
            while have >= bs:
                parts, need = [], bs
                while need:
                    head = pending[0]
                    k = ck.num_rows(head)
                    if k <= need:
                        parts.append(pending.pop(0))
                        need -= k
                    else:
                        parts.append([ck.select(c, slice(0, need)) for c in head])
                        pending[0] = [ck.select(c, slice(need, None)) for c in head]
                        need = 0
                have -= bs
                yield self._make_batch(parts, BatchInfo(count, ctx.path[0]))
                count += 1
        if have and not self.drop_remainder:
            yield self._make_batch(pending, BatchInfo(count, ctx.path[0]))


def _check_arity(fn, n_inputs):
    """MindSpore's rule: per_batch_map takes one argument per input column plus BatchInfo."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return      # a builtin without a signature: its call will tell
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return
    if len(params) != n_inputs + 1:
        raise ValueError(f"For 'batch', per_batch_map '{op_name(fn)}' takes {len(params)} "
                         f"arguments, but it must take one per input column ({n_inputs}) "
                         f"and the BatchInfo last ({n_inputs + 1}).")


def _check_pad_info(pad_info, names):
    """{column: (pad_shape or None, pad_value or None)}, checked as MindSpore's
    check_pad_info checks it; None (no padding) stays None."""
    if pad_info is None:
        return None
    if not isinstance(pad_info, dict):
        raise TypeError(f"For 'padded_batch', pad_info must be a dict, got "
                        f"{type(pad_info).__name__}.")
    for key, value in pad_info.items():
        if not isinstance(key, str):
            raise TypeError(f"For 'padded_batch', a key of pad_info must be a column name "
                            f"(str), got {key!r}.")
        find_columns("padded_batch", [key], names)
        if not isinstance(value, tuple) or len(value) != 2:
            raise TypeError(f"For 'padded_batch', pad_info[{key!r}] must be a tuple "
                            f"(pad_shape, pad_value), got {value!r}.")
        shape, pad = value
        if shape is not None and (not isinstance(shape, list) or not all(
                d is None or (isinstance(d, int) and not isinstance(d, bool) and d > 0)
                for d in shape)):
            raise TypeError(f"For 'padded_batch', the pad_shape of {key!r} must be a list of "
                            f"positive ints or None, got {shape!r}.")
        if pad is not None and (not isinstance(pad, (int, float)) or isinstance(pad, bool)):
            raise TypeError(f"For 'padded_batch', the pad_value of {key!r} must be an int or "
                            f"a float, got {pad!r}.")
    return dict(pad_info)


def _pad_rows(name, rows, shape, value):
    """`rows` padded at the end of every dim to `shape` (a None shape or dim: the largest in
    the group) with `value` (None: 0)."""
    ndim = rows[0].ndim
    if any(r.ndim != ndim for r in rows):
        raise RuntimeError(f"padded_batch: rows of column '{name}' differ in rank "
                           f"({sorted({r.ndim for r in rows})}), so they cannot be padded to "
                           f"one shape.")
    largest = [max(r.shape[d] for r in rows) for d in range(ndim)]
    if shape is None:
        shape = largest
    if len(shape) != ndim:
        raise RuntimeError(f"padded_batch: the pad_shape {shape} of column '{name}' has "
                           f"{len(shape)} dims, but its rows have {ndim}.")
    target = [big if d is None else d for d, big in zip(shape, largest)]
    if any(t < big for t, big in zip(target, largest)):
        raise RuntimeError(f"padded_batch: a row of column '{name}' has the shape {largest} "
                           f"at most, larger than the pad_shape {shape}; padding never cuts.")
    fill = 0 if value is None else value
    return [np.pad(r, [(0, t - n) for t, n in zip(target, r.shape)], constant_values=fill)
            for r in rows]
