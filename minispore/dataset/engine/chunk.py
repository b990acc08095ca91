"""Chunks: how rows travel between pipeline nodes, several at a time.

A chunk is a list of columns holding the same number of rows. A column is either a numpy array
whose axis 0 indexes rows (all rows share shape and dtype, so vectorised transforms apply to the
whole column at once) or a list of per-row arrays (ragged rows).
"""
import numpy as np

CHUNK_ROWS = 128


def num_rows(chunk):
    return len(chunk[0]) if chunk else 0


def as_array(value):
    """A row's value as a numpy array (Tensors unwrapped, python numbers via numpy's rules)."""
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "asnumpy"):
        return value.asnumpy()
    arr = np.asarray(value)
    if arr.dtype.kind not in "biufUS":
        raise TypeError(f"a dataset value must be a number, string or an array of them, "
                        f"got {type(value).__name__}")
    return arr


def stack(rows):
    """One column from per-row arrays: stacked when every row has the same shape and dtype."""
    first = rows[0]
    for r in rows:
        if r.shape != first.shape or r.dtype != first.dtype:
            return list(rows)
    return np.stack(rows)


def rows_of(column):
    """The per-row arrays of a column."""
    return list(column)


def select(column, idx):
    """Rows `idx` (a slice or an index array) of a column."""
    if isinstance(column, np.ndarray):
        return column[idx]
    if isinstance(idx, slice):
        return column[idx]
    return [column[i] for i in idx]


def concat(columns):
    """Join the same column from several chunks."""
    if len(columns) == 1:
        return columns[0]
    if all(isinstance(c, np.ndarray) for c in columns):
        shapes = {c.shape[1:] for c in columns}
        dtypes = {c.dtype for c in columns}
        if len(shapes) == 1 and len(dtypes) == 1:
            return np.concatenate(columns)
    return stack([r for c in columns for r in rows_of(c)])
