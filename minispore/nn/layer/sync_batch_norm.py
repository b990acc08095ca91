"""nn.SyncBatchNorm: batch normalisation whose batch statistics span the ranks of a process
group (data parallel with small per-rank batches)."""
from minispore.common import dtype as mstype
from minispore.communication import get_rank
from minispore.communication.management import GlobalComm, create_group, get_group_size
from minispore.communication.state import STATE
from minispore.nn.layer.normalization import _BatchNorm
from minispore.ops import functional as F
from minispore.ops.operations.comm_ops import AllReduce

__all__ = ["SyncBatchNorm"]


class SyncBatchNorm(_BatchNorm):
    """``SyncBatchNorm(num_features, eps=1e-5, momentum=0.9, affine=True, ..., process_groups=
    None)`` over (N, C) or (N, C, H, W) input: BatchNorm2d's formulas, with the mean and the
    variance per channel taken over the inputs of every rank of this rank's group (two
    AllReduce sums: of the values and counts, then of the squared deviations), so the result
    equals BatchNorm over the groups' batches concatenated, gradients included (AllReduce's
    backward is an AllReduce of the cotangents). `process_groups`: a list of lists of world
    ranks, each rank in at most one; None: the whole world. A rank alone in its group, a job
    without init(), and evaluation (moving statistics) compute exactly what BatchNorm2d does.
    The group named ``sync_bn_group<i>`` is created at the first call in training, by the
    ranks of that group (MindSpore creates it at construction, after init())."""
    _ranks = (2, 4)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, process_groups=None, dtype=mstype.float32):
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init,
                         moving_mean_init, moving_var_init, use_batch_statistics, dtype=dtype)
        if process_groups is not None:
            if not isinstance(process_groups, list) or not all(
                    isinstance(g, list) and all(isinstance(r, int) and not isinstance(r, bool)
                                                for r in g) for g in process_groups):
                raise TypeError(f"For 'SyncBatchNorm', 'process_groups' must be a list of "
                                f"lists of rank ids, but got {process_groups!r}.")
            ranks = [r for g in process_groups for r in g]
            if len(ranks) != len(set(ranks)):
                raise ValueError(f"For 'SyncBatchNorm', a rank appears in more than one of "
                                 f"'process_groups' {process_groups}.")
        self.process_groups = process_groups
        self._all_reduce = None       # this rank's group's AllReduce, once known

    def _group_reduce(self):
        """AllReduce over this rank's group, or None when the rank computes alone."""
        if self._all_reduce is None:
            self._all_reduce = False
            if STATE.inited:
                if self.process_groups is None:
                    if get_group_size() > 1:
                        self._all_reduce = AllReduce(group=GlobalComm.WORLD_COMM_GROUP)
                else:
                    me = get_rank()
                    for i, ranks in enumerate(self.process_groups):
                        if me in ranks and len(ranks) > 1:
                            name = f"sync_bn_group{i}"
                            create_group(name, ranks)
                            self._all_reduce = AllReduce(group=name)
        return self._all_reduce or None

    def construct(self, x):
        self._check_input(x)
        use_batch = self.training if self.use_batch_statistics is None \
            else self.use_batch_statistics
        reduce = self._group_reduce() if use_batch else None
        if reduce is None:
            return super().construct(x)
        axes = (0,) + tuple(range(2, x.ndim))
        keep = (1, -1) + (1,) * (x.ndim - 2)
        local = 1
        for axis in axes:
            local *= x.shape[axis]
        count_and_sum = reduce(F.concat((F.reduce_sum(x, axes), F.fill(x.dtype, (1,), local))))
        total = count_and_sum[-1]
        mean = count_and_sum[:-1] / total
        centered = x - mean.reshape(keep)
        var = reduce(F.reduce_sum(centered * centered, axes)) / total
        y = centered / F.sqrt(var + self.eps).reshape(keep) * self.gamma.reshape(keep) + \
            self.beta.reshape(keep)
        m = self.momentum
        unbiased = F.stop_gradient(var * total / (total - 1))
        F.assign(self.moving_mean, self.moving_mean * m + F.stop_gradient(mean) * (1 - m))
        F.assign(self.moving_variance, self.moving_variance * m + unbiased * (1 - m))
        return y
