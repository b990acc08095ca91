"""ops.einsum and ops.Einsum: Einstein summation composed of Transpose, Reshape, ReduceSum, Mul
and one MatMul / BatchMatMul, so its gradient and graph mode come from those primitives."""
import math
import string

import numpy as np

from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M

__all__ = ["einsum", "Einsum"]

_LETTERS = frozenset(string.ascii_letters)


def _parse(equation, shapes):
    """(input label strings, output label string) of a valid equation for operands of
    `shapes`, and {label: size}; ValueError naming what is wrong otherwise."""
    if not isinstance(equation, str):
        raise TypeError(f"For 'einsum', 'equation' must be a str, but got "
                        f"{type(equation).__name__}.")
    eq = equation.replace(" ", "")
    if "." in eq:
        raise NotImplementedError(f"For 'einsum', the ellipsis '...' is not supported yet, "
                                  f"but got equation '{equation}'; name every dim with a "
                                  f"letter.")
    if eq.count("->") > 1:
        raise ValueError(f"For 'einsum', the equation may hold at most one '->', but got "
                         f"'{equation}'.")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    bad = sorted({c for c in lhs.replace(",", "") + rhs if c not in _LETTERS})
    if bad:
        raise ValueError(f"For 'einsum', the equation may use only letters, ',' and one "
                         f"'->', but '{equation}' has {bad}.")
    if len(terms) != len(shapes):
        raise ValueError(f"For 'einsum', the equation '{equation}' names {len(terms)} "
                         f"operand(s), but {len(shapes)} were given.")
    if len(shapes) > 2:
        raise NotImplementedError(f"For 'einsum', at most 2 operands are supported, but got "
                                  f"{len(shapes)}; chain two-operand einsums instead.")
    sizes = {}
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        if len(term) != len(shape):
            raise ValueError(f"For 'einsum', operand {i} has rank {len(shape)} (shape "
                             f"{tuple(shape)}) but its subscripts '{term}' name {len(term)} "
                             f"dims, in equation '{equation}'.")
        seen = {}
        for label, size in zip(term, shape):
            # Across operands a size-1 dim broadcasts (as np.einsum); a label repeated within
            # one operand (a diagonal) needs equal sizes.
            known = sizes.setdefault(label, size)
            if seen.setdefault(label, size) != size or (known != size and 1 not in (known,
                                                                                  size)):
                raise ValueError(f"For 'einsum', the dim '{label}' has size {known} and "
                                 f"{size} in equation '{equation}' with operand shapes "
                                 f"{[tuple(s) for s in shapes]}.")
            if known == 1:
                sizes[label] = size
    if not arrow:
        # numpy's implicit output: the labels named exactly once, in alphabetical order.
        counts = "".join(terms)
        rhs = "".join(sorted(c for c in set(counts) if counts.count(c) == 1))
    if len(set(rhs)) != len(rhs):
        raise ValueError(f"For 'einsum', the output subscripts '{rhs}' repeat a label in "
                         f"equation '{equation}'.")
    missing = sorted(set(rhs) - set(lhs))
    if missing:
        raise ValueError(f"For 'einsum', the output labels {missing} appear in no operand of "
                         f"equation '{equation}'.")
    return terms, rhs, sizes


def _diagonals(x, labels):
    """x with each repeated label reduced to its diagonal ('ii' -> 'i'): x times an identity
    mask over the two dims, summed over the second (a diagonal's gradient is the mask)."""
    while len(set(labels)) != len(labels):
        p = next(i for i, c in enumerate(labels) if labels.count(c) > 1)
        q = labels.index(labels[p], p + 1)
        n = x.shape[p]
        shape = [1] * x.ndim
        shape[p] = shape[q] = n
        eye = Tensor(np.eye(n, dtype=x.dtype.np_dtype).reshape(shape))
        x = M.reduce_sum(M.mul(x, eye), q)
        labels = labels[:q] + labels[q + 1:]
    return x, labels


def _sum_out(x, labels, keep):
    """x summed over the dims whose labels are not in `keep`."""
    axes = tuple(i for i, c in enumerate(labels) if c not in keep)
    if not axes:
        return x, labels
    return M.reduce_sum(x, axes), "".join(c for c in labels if c in keep)


def _permute(x, labels, order):
    """x with its dims (named by `labels`) in the order of the string `order`."""
    perm = tuple(labels.index(c) for c in order)
    if perm == tuple(range(len(perm))):
        return x
    return A.transpose(x, perm)


def _size(labels, sizes):
    return math.prod(sizes[c] for c in labels)


def _product(a, la, b, lb, rhs, sizes):
    """The two-operand contraction, labels unique within each and every label outside rhs
    shared by both: returns the result and its labels."""
    batch = "".join(c for c in la if c in lb and c in rhs)
    contract = "".join(c for c in la if c in lb and c not in rhs)
    left = "".join(c for c in la if c not in lb)
    right = "".join(c for c in lb if c not in la)
    shape = tuple(sizes[c] for c in batch + left + right)
    if not contract:
        # No sum: a broadcast elementwise product (cheaper than a GEMM with K = 1).
        a = A.reshape(_permute(a, la, batch + left),
                      tuple(sizes[c] for c in batch + left) + (1,) * len(right))
        b = A.reshape(_permute(b, lb, batch + right),
                      tuple(sizes[c] for c in batch) + (1,) * len(left)
                      + tuple(sizes[c] for c in right))
        return M.mul(a, b), batch + left + right
    nb, nl, nk, nr = (_size(s, sizes) for s in (batch, left, contract, right))
    a = _permute(a, la, batch + left + contract)
    b = _permute(b, lb, batch + contract + right)
    if batch:
        out = M.batch_matmul(A.reshape(a, (nb, nl, nk)), A.reshape(b, (nb, nk, nr)))
    else:
        out = M.matmul(A.reshape(a, (nl, nk)), A.reshape(b, (nk, nr)))
    return A.reshape(out, shape), batch + left + right


def einsum(equation, *operands):
    """Einstein summation over one or two Tensors, as np.einsum: each operand's dims are named
    by letters; dims named in the output (after '->') are kept in that order, the others are
    summed; a label in both operands multiplies along it. Without '->' the output is the
    labels named once, alphabetically. A size-1 dim broadcasts against the same label's
    larger size in the other operand.

    Supports transposes ('ij->ji'), sums ('ij->i', 'i->'), traces and diagonals ('ii->',
    'ii->i'), inner, outer and elementwise products, matrix and batched products
    ('bhqd,bhkd->bhqk'). Built from Transpose, Reshape, ReduceSum, Mul and one
    MatMul / BatchMatMul: differentiable and traceable in GRAPH mode.
    Raises ValueError for a malformed equation, mismatched ranks or dim sizes;
    NotImplementedError for more than two operands or an ellipsis ('...').

    >>> import numpy as np, minispore as ms
    >>> x = ms.Tensor(np.ones((2, 3), np.float32)); y = ms.Tensor(np.ones((3, 4), np.float32))
    >>> ms.ops.einsum("ij,jk->ik", x, y).shape
    (2, 4)
    """
    for i, t in enumerate(operands):
        if not hasattr(t, "shape") or not hasattr(t, "dtype"):
            raise TypeError(f"For 'einsum', operand {i} must be a Tensor, but got "
                            f"{type(t).__name__}.")
    if not operands:
        raise ValueError("For 'einsum', at least one operand is needed, but got none.")
    terms, rhs, sizes = _parse(equation, [tuple(t.shape) for t in operands])
    if len(operands) == 2 and operands[0].dtype != operands[1].dtype:
        raise TypeError(f"For 'einsum', the operands must have the same dtype, but got "
                        f"{operands[0].dtype} and {operands[1].dtype}.")
    terms = list(terms)
    operands = list(operands)
    for i, (x, term) in enumerate(zip(operands, terms)):
        # A size-1 dim broadcast against a larger one drops out of its operand: the label then
        # lives in the other operand only.
        keep = [j for j, c in enumerate(term) if x.shape[j] == sizes[c]]
        if len(keep) != len(term):
            operands[i] = A.reshape(x, tuple(x.shape[j] for j in keep))
            terms[i] = "".join(term[j] for j in keep)
    xs, labels = [], []
    for i, (x, term) in enumerate(zip(operands, terms)):
        x, term = _diagonals(x, term)
        # A label that no other operand names and the output drops sums out first.
        others = "".join(t for j, t in enumerate(terms) if j != i) + rhs
        x, term = _sum_out(x, term, others)
        xs.append(x)
        labels.append(term)
    if len(xs) == 1:
        return _permute(xs[0], labels[0], rhs)
    out, lo = _product(xs[0], labels[0], xs[1], labels[1], rhs, sizes)
    return _permute(out, lo, rhs)


class Einsum:
    """``ops.Einsum(equation)(x)`` with `x` a tuple or list of Tensors: see `einsum`."""

    def __init__(self, equation):
        if not isinstance(equation, str):
            raise TypeError(f"For 'Einsum', 'equation' must be a str, but got "
                            f"{type(equation).__name__}.")
        self.equation = equation

    def __call__(self, x):
        if not isinstance(x, (tuple, list)):
            raise TypeError(f"For 'Einsum', the input must be a tuple or list of Tensors, but "
                            f"got {type(x).__name__}.")
        return einsum(self.equation, *x)
