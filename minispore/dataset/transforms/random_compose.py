"""Transforms that apply other transforms by chance: RandomApply (all of them, with probability
prob), RandomChoice (one, uniformly) and RandomOrder (all, in a uniformly random order).

Each row draws on its own from the pipeline's seeded generator, so these run row by row (the
members' vectorised `_compute` on a batch of one); rows that come out with different shapes or
dtypes stay a ragged column, as from any per-row transform.
"""
from minispore.dataset.engine import chunk as ck
from minispore.dataset.transforms.transforms import TensorOperation

__all__ = ["RandomApply", "RandomChoice", "RandomOrder"]


def _check_transforms(transforms):
    if not isinstance(transforms, (list, tuple)):
        raise TypeError(f"Argument transforms with value {transforms!r} is not of type "
                        f"[<class 'list'>, <class 'tuple'>].")
    if not transforms:
        raise ValueError("transforms list can not be empty.")
    for t in transforms:
        if not callable(t):
            raise TypeError(f"transforms[{transforms.index(t)}] is not callable: {t!r}.")
    return list(transforms)


def _run_one(op, row, rng):
    """`op` on one row (a list of batch-of-one arrays) -> a list of batch-of-one arrays."""
    compute = getattr(op, "_compute", None)
    if compute is not None:
        out = compute(*row, rng=rng)
        return list(out) if isinstance(out, tuple) else [out]
    out = op(*[a[0] for a in row])
    out = out if isinstance(out, (tuple, list)) else (out,)
    return [ck.as_array(o)[None] for o in out]


class _PerRowSelection(TensorOperation):
    def __init__(self, transforms):
        self.transforms = _check_transforms(transforms)

    def _chosen(self, rng):
        raise NotImplementedError

    def _compute(self, *columns, rng):
        rows = []
        for i in range(ck.num_rows(columns)):
            row = [c[i][None] for c in columns]
            for op in self._chosen(rng):
                row = _run_one(op, row, rng)
            rows.append([r[0] for r in row])
        if len({len(r) for r in rows}) != 1:
            raise RuntimeError(f"{type(self).__name__}: rows came out with different numbers "
                               f"of columns ({sorted({len(r) for r in rows})}).")
        return tuple(ck.stack([row[j] for row in rows]) for j in range(len(rows[0])))


class RandomApply(_PerRowSelection):
    """All `transforms`, in order, with probability `prob`; otherwise the row unchanged."""

    def __init__(self, transforms, prob=0.5):
        super().__init__(transforms)
        if isinstance(prob, bool) or not isinstance(prob, (int, float)):
            raise TypeError(f"Argument prob with value {prob!r} is not of type [<class "
                            f"'float'>, <class 'int'>].")
        if not 0.0 <= prob <= 1.0:
            raise ValueError("Input prob is not within the required interval of [0, 1].")
        self.prob = float(prob)

    def _chosen(self, rng):
        return self.transforms if rng.random() < self.prob else []


class RandomChoice(_PerRowSelection):
    """One of `transforms`, chosen uniformly for each row."""

    def _chosen(self, rng):
        return [self.transforms[rng.integers(len(self.transforms))]]


class RandomOrder(_PerRowSelection):
    """All of `transforms`, in a uniformly random order for each row."""

    def _chosen(self, rng):
        return [self.transforms[k] for k in rng.permutation(len(self.transforms))]
