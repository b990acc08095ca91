"""WeightedRandomSampler and PKSampler: samplers that draw rows by weight or by class."""
import numpy as np

from minispore.dataset.engine.samplers import Sampler


def _check_bool(name, value):
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a boolean value but was: {value!r}.")


class WeightedRandomSampler(Sampler):
    """num_samples rows drawn with probability weights[i] / sum(weights) among rows
    0..len(weights)-1 (fresh draws every epoch).

    num_samples None (or 0) means the dataset's row count, and it is never more than that.
    Without replacement, rows of weight 0 come last, only when the others run out (MindSpore
    2.7.2 gives them too). `weights` longer than the dataset is an error when it is read.

    >>> WeightedRandomSampler([0.1, 0.9], num_samples=4).get_num_samples(2)
    2
    """

    def __init__(self, weights, num_samples=None, replacement=True):
        if not isinstance(weights, list):
            weights = [weights]
        for i, w in enumerate(weights):
            if not isinstance(w, (int, float)) or isinstance(w, bool):
                raise TypeError(f"type of weights element must be number, but got w[{i}]: {w}, "
                                f"type: {type(w)}.")
        if num_samples is not None and (not isinstance(num_samples, int) or num_samples < 0):
            raise ValueError(f"num_samples exceeds the boundary between 0 and "
                             f"9223372036854775807(INT64_MAX)! Got {num_samples!r}.")
        _check_bool("replacement", replacement)
        if not weights:
            raise RuntimeError("WeightedRandomSampler: weights vector must not be empty")
        for i, w in enumerate(weights):
            if w < 0:
                raise RuntimeError(f"WeightedRandomSampler: weights vector must not contain "
                                   f"negative numbers, got: weights[{i}] = {w}")
        if not any(weights):
            raise RuntimeError("WeightedRandomSampler: elements of weights vector must not be "
                               "all zero")
        super().__init__(num_samples or None)
        self.weights, self.replacement = list(weights), replacement

    def is_random(self):
        return True

    def indices(self, n, rng, path):
        w = np.asarray(self.weights, np.float64)
        if len(w) > n:
            raise RuntimeError(f"Invalid parameter, size of sample weights must be less than or "
                               f"equal to num of data, but got weight size: {len(w)}, num of "
                               f"data: {n}")
        count = self.get_num_samples(n)
        if self.replacement:
            return rng.choice(len(w), size=count, p=w / w.sum()).astype(np.int64)
        # weighted sampling without replacement by exponential keys (Efraimidis-Spirakis):
        # the largest log(u) / w win; weight 0 gives -inf, so those rows come only last
        with np.errstate(divide="ignore"):
            keys = np.log(rng.random(len(w))) / w
        return np.argsort(-keys, kind="stable")[:count].astype(np.int64)

    def __repr__(self):
        return (f"WeightedRandomSampler(num_samples={self.num_samples}, "
                f"replacement={self.replacement})")


class PKSampler(Sampler):
    """num_val rows of every class: the classes in label order (shuffled when shuffle), and
    for each, num_val draws with replacement among its rows (MindSpore's PKSampler draws each
    uniformly, so a row can repeat even when its class has enough rows).

    Only sources that know their rows' classes take it (MnistDataset, FashionMnistDataset,
    Cifar10Dataset: their `label`); like them, class_column is not read (MindSpore uses it for
    MindDataset only). num_samples caps the rows (num classes x num_val).

    >>> PKSampler(2).num_val
    2
    """

    def __init__(self, num_val, num_class=None, shuffle=False, class_column="label",
                 num_samples=None):
        if not isinstance(num_val, int) or isinstance(num_val, bool):
            raise TypeError(f"num_val must be integer but was: {num_val!r}.")
        if num_class is not None:
            raise NotImplementedError("Not supported to specify num_class for PKSampler.")
        _check_bool("shuffle", shuffle)
        if not isinstance(class_column, str):
            raise TypeError(f"class_column must be a str value but was: {class_column!r}.")
        if num_val <= 0:
            raise RuntimeError(f"PKSampler: num_val must be greater than 0, but got: {num_val}")
        super().__init__(num_samples)
        self.num_val, self.shuffle, self.class_column = num_val, shuffle, class_column

    def is_random(self):
        return True

    def bound(self, labels):
        """This sampler over rows whose classes are `labels` (one per row)."""
        return _BoundPK(self, np.asarray(labels))


class _BoundPK(Sampler):
    """A PKSampler that knows its source's labels, so it can count and draw rows."""

    def __init__(self, pk, labels):
        super().__init__(pk.num_samples)
        self.pk, self.labels = pk, labels
        self.classes = np.unique(labels)

    def _full_count(self, n):
        return len(self.classes) * self.pk.num_val

    def is_random(self):
        return True

    def indices(self, n, rng, path):
        classes = rng.permutation(self.classes) if self.pk.shuffle else self.classes
        idx = [rng.choice(np.flatnonzero(self.labels == c), size=self.pk.num_val)
               for c in classes]
        return self._cap(np.concatenate(idx).astype(np.int64))
