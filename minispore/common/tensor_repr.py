"""The text of `repr(Tensor)`, laid out as MindSpore's C++ TensorStringifier lays it out.

`print(t)` / `str(t)` is numpy's text of the data (MindSpore's `Tensor.__str__` is
`str(self.asnumpy())`); `repr(t)` is MindSpore's own layout, which differs from numpy's:
floats in fixed-width scientific notation (`%15.8e`, `%11.4e` for float16), ints right-aligned
to the widest value, bools padded to 5, commas between items, at most 6 rows or columns per
dimension (3 each side of `...`) and 1000 items for a 1-D tensor, and a line break every
12 floats or bools / 24 ints in a long 1-D tensor. Scalars print as C++ `ostream <<` does (`%g`).

>>> import numpy as np
>>> tensor_value_text(np.array([0, 1, 2, 3], np.int32))
'[0, 1, 2, 3]'
"""
import numpy as np

THRESHOLD = 6            # a dimension longer than this shows its first and last 3
THRESHOLD_1D = 1000      # ... except a 1-D tensor, which shows up to this many
LINE_FLOAT = 12          # a long 1-D tensor breaks its line every so many items
LINE_BOOL = 12
LINE_INT = 24
HALF = THRESHOLD // 2


def _item_text(value, kind, float16):
    if kind == "f":
        return ("%11.4e" if float16 else "%15.8e") % value
    if kind == "b":
        return "%5s" % ("True" if value else "False")
    if kind == "c":
        return str(complex(value)).strip("()")
    return str(int(value))


def tensor_value_text(arr, use_comma=True):
    """The value part of MindSpore's Tensor repr for a host array."""
    arr = np.asarray(arr)
    if arr.size == 0:
        return ""
    kind = arr.dtype.kind
    kind = "i" if kind == "u" else kind
    float16 = arr.dtype == np.float16
    if arr.ndim == 0:
        value = arr.item()
        if kind == "f":
            return "%g" % value
        if kind == "b":
            return "True" if value else "False"
        return _item_text(value, kind, float16)
    sep = ", " if use_comma else " "
    line = {"f": LINE_FLOAT, "b": LINE_BOOL}.get(kind, LINE_INT)
    widths = []

    def items(row, idx):
        parts = []
        texts = [_item_text(row[i], kind, float16) for i in idx]
        widths.extend(len(t) for t in texts)
        for j, text in enumerate(texts):
            parts.append(text)
            if j != len(texts) - 1:
                parts.append(sep)
            # MindSpore breaks only runs of more than 3 items in a 1-D tensor.
            if arr.ndim == 1 and len(texts) > HALF and (j + 1) % line == 0:
                parts.append("\n ")
        return "".join(parts) if kind != "i" else parts

    def bottom(row):
        n = row.shape[0]
        limit = THRESHOLD_1D if arr.ndim == 1 else THRESHOLD
        if n > limit:
            return [items(row, range(HALF)), [" ... "], items(row, range(n - HALF, n))]
        return [items(row, range(n))]

    def walk(sub, depth):
        if depth == arr.ndim - 1:
            return ["["] + bottom(sub) + ["]"]
        n = sub.shape[0]
        indent = "\n" + " " * (depth + 1)
        comma = "," if use_comma else ""
        out = ["["]
        for i in range(min(HALF, n)):
            if i > 0:
                out.append(comma + indent)
            out += walk(sub[i], depth + 1)
        if n > THRESHOLD:
            out.append(comma + indent + "...")
        if n > HALF:
            for k, i in enumerate(range(max(HALF, n - HALF), n)):
                # After the "..." line MindSpore writes no comma before the next row.
                out.append((comma if (k != 0 or n <= THRESHOLD) else "") + indent)
                out += walk(sub[i], depth + 1)
        out.append("]")
        return out

    pieces = walk(arr, 0)
    if kind != "i":
        return "".join(_flatten(pieces))
    # Ints are right-aligned to the widest value in the whole tensor.
    width = max(widths)
    return "".join(p.rjust(width) if _is_number(p) else p for p in _flatten(pieces))


def _flatten(pieces):
    for p in pieces:
        if isinstance(p, list):
            yield from _flatten(p)
        else:
            yield p


def _is_number(text):
    return text.lstrip("-").isdigit()
