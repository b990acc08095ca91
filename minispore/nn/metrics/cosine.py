"""CosineSimilarity: the pairwise cosine (or dot) similarity matrix of a batch of vectors, as
MindSpore's metric computes it."""
import numpy as np

from minispore.nn.metrics.metric import Metric, _check_string, _check_type, rearrange_inputs

__all__ = ["CosineSimilarity"]


class CosineSimilarity(Metric):
    """``CosineSimilarity(similarity='cosine', reduction='none', zero_diagonal=True)``:
    ``update(inputs)`` takes an (N, D) matrix and keeps S = X X^T, its rows first scaled to unit
    L2 norm when similarity is 'cosine' ('dot' keeps X, and its integer dtype).

    ``eval()`` -> numpy array: S (N, N) with its diagonal zeroed when ``zero_diagonal``, or its
    row sums / means (N,) for reduction 'sum' / 'mean'. As in MindSpore, eval stores the
    reduced result, so a second eval reduces it again.

    Raises TypeError / ValueError for bad constructor arguments, RuntimeError when eval comes
    before update.
    """

    def __init__(self, similarity='cosine', reduction='none', zero_diagonal=True):
        super().__init__()
        self.similarity = _check_string("similarity", similarity, ['dot', 'cosine'])
        self.reduction = _check_string("reduction", reduction, ['none', 'sum', 'mean'])
        self.zero_diagonal = _check_type("zero_diagonal", zero_diagonal, (bool,))
        self.clear()

    def clear(self):
        self.sqr_mtx_res = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, inputs):
        data = self._convert_data(inputs)
        if self.similarity == 'cosine':
            data = data / np.expand_dims(np.linalg.norm(data, ord=2, axis=1), 1)
        self.sqr_mtx_res = np.dot(data, data.T)
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        if self.zero_diagonal:
            np.fill_diagonal(self.sqr_mtx_res, 0)
        if self.reduction == 'mean':
            self.sqr_mtx_res = np.mean(self.sqr_mtx_res, axis=-1)
        if self.reduction == 'sum':
            self.sqr_mtx_res = np.sum(self.sqr_mtx_res, axis=-1)
        return self.sqr_mtx_res
