"""BleuScore: corpus BLEU (clipped n-gram precisions, geometric mean, brevity penalty), as
MindSpore's metric computes it."""
from collections import Counter

import numpy as np

from minispore.nn.metrics.metric import Metric, _check_type, rearrange_inputs

__all__ = ["BleuScore"]


def _count_ngram(words, n_gram):
    """Counter of every 1..n_gram-gram (as a tuple of words) in `words`."""
    counter = Counter()
    for n in range(1, n_gram + 1):
        for j in range(len(words) - n + 1):
            counter[tuple(words[j:j + n])] += 1
    return counter


class BleuScore(Metric):
    """``BleuScore(n_gram=4, smooth=False)``: ``update(candidate_corpus, reference_corpus)``
    takes a list of candidate sentences (lists of words) and, for each, a list of reference
    sentences; counts accumulate over updates.

    ``eval()`` -> numpy.float64 ``BP * exp(mean_n log p_n)``, where p_n is the clipped n-gram
    precision (with ``smooth``: (matches + 1) / (candidates + 1)) and BP = 1 when the candidate
    length c exceeds the closest reference length r, else exp(1 - r / c). When some order has no
    match at all, the result is ``numpy.array(0.0)`` (a 0-d array, as MindSpore returns).

    Raises TypeError / ValueError for a non-int n_gram or one outside 1..4, a non-bool smooth,
    ValueError when update gets other than 2 inputs or corpora of different lengths,
    RuntimeError when eval comes before update.
    """

    def __init__(self, n_gram=4, smooth=False):
        super().__init__()
        self.n_gram = _check_type("n_gram", n_gram, (int,))
        if self.n_gram > 4 or self.n_gram < 1:
            raise ValueError(f"For 'BleuScore', the argument 'n_gram' should range from 1 to 4, "
                             f"but got {n_gram}.")
        self.smooth = _check_type("smooth", smooth, (bool,))
        self.clear()

    def clear(self):
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._c = 0.0
        self._r = 0.0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For 'BleuScore.update', it needs 2 inputs (candidate_corpus, "
                             f"reference_corpus), but got {len(inputs)}.")
        candidate_corpus, reference_corpus = inputs
        if len(candidate_corpus) != len(reference_corpus):
            raise ValueError(f"For 'BleuScore.update', 'translate_corpus' (inputs[0]) and "
                             f"'reference_corpus' (inputs[1]) should be equal in length, but got "
                             f"{len(candidate_corpus)}, {len(reference_corpus)}")
        for candidate, references in zip(candidate_corpus, reference_corpus):
            self._c += len(candidate)
            ref_lens = [len(ref) for ref in references]
            # The reference closest in length to the candidate (the first on a tie).
            self._r += min(ref_lens, key=lambda n: abs(len(candidate) - n))
            translation = _count_ngram(candidate, self.n_gram)
            reference = Counter()
            for ref in references:
                reference |= _count_ngram(ref, self.n_gram)
            for ngram, count in (translation & reference).items():
                self._numerator[len(ngram) - 1] += count
            for ngram, count in translation.items():
                self._denominator[len(ngram) - 1] += count
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        if min(self._numerator) == 0.0:
            return np.array(0.0)
        if self.smooth:
            precision = (self._numerator + 1.0) / (self._denominator + 1.0)
        else:
            precision = self._numerator / self._denominator
        # (1/n) * log p, not log p / n: MindSpore's rounding, to the last bit.
        weights = np.full(self.n_gram, 1.0 / self.n_gram)
        geometric_mean = np.exp(np.sum(weights * np.log(precision)))
        brevity = 1.0 if self._c > self._r else np.exp(1.0 - self._r / self._c)
        return np.float64(brevity * geometric_mean)
