"""Sharding rules of the layer operators (minispore/ops/sharding.py's vocabulary): Conv2D and
its backprops, the pools and argmax pools, LayerNorm and BatchNorm."""
from minispore.ops.sharding import Einsum, Rule, _axis, _dims, tensor_args

_SPATIAL = "a spatial cut needs a halo exchange between neighbouring slices"
_KERNEL = "the kernel window is applied whole"


class _Conv(Rule):
    """Conv2D and its backprops in NCHW: batch n and out-channel o may be cut; a cut of the
    in-channel c is a partial sum (contracted); spatial and kernel dims stay whole."""

    def __init__(self, form):
        self.form = form

    def spec(self, prim, args, outs):
        x, w, y = ("n", "c", "h", "w"), ("o", "c", "kh", "kw"), ("n", "o", "oh", "ow")
        fixed = {lab: _SPATIAL for lab in ("h", "w", "oh", "ow")}
        fixed.update({"kh": _KERNEL, "kw": _KERNEL})
        ins, out = {"forward": ((x, w), y), "input": ((y, w), x), "filter": ((y, x), w)}[self.form]
        return Einsum(ins, (out,), fixed=fixed)


conv2d = _Conv("forward")
conv2d_backprop_input = _Conv("input")
conv2d_backprop_filter = _Conv("filter")


class _Pool(Rule):
    """MaxPool/AvgPool (and grads, whose inputs are x, out, dout): batch and channel cuts."""

    def spec(self, prim, args, outs):
        fixed = {lab: _SPATIAL for lab in ("h", "w", "oh", "ow")}
        x, y = ("n", "c", "h", "w"), ("n", "c", "oh", "ow")
        ins = tensor_args(args)
        if len(ins) == 1:
            return Einsum((x,), (y,), fixed=fixed)
        return Einsum((x, y, y), (x,), fixed=fixed)


pool = _Pool()


class _PoolArgmax(Rule):
    """The argmax pools: x -> (out, argmax), and their gradient (x, dout, argmax) -> dx. Batch
    cuts always; channel cuts only where argmax indexes each (H, W) plane, not the sample's
    (C, H, W) (`prim.plane_offsets`: a slice would number its channels from 0)."""

    def spec(self, prim, args, outs):
        fixed = {lab: _SPATIAL for lab in ("h", "w", "oh", "ow")}
        if prim.plane_offsets:
            fixed["c"] = "argmax indexes the sample's (C, H, W), counted from channel 0"
        x, y = ("n", "c", "h", "w"), ("n", "c", "oh", "ow")
        if len(tensor_args(args)) == 1:
            return Einsum((x,), (y, y), fixed=fixed)
        return Einsum((x, y, y), (x,), fixed=fixed)


pool_argmax = _PoolArgmax()


class _LayerNorm(Rule):
    """LayerNorm (x, gamma, beta) -> (y, mean, variance) and LayerNormGrad (x, dy, variance, mean,
    gamma) -> (dx, dgamma, dbeta): only dims before begin_norm_axis may be cut; their cut
    leaves dgamma/dbeta partial."""

    reason = "the normalised dims need the whole row for the mean and variance"

    def spec(self, prim, args, outs):
        ins = tensor_args(args)
        x = ins[0]
        n = len(x.shape)
        norm = _axis(prim.begin_norm_axis, n)
        labels = _dims(n)
        fixed = {lab: self.reason for lab in labels[norm:]}
        stat = labels[:norm] + (None,) * (n - norm)

        def param(a):
            return labels[n - len(a.shape):]
        if len(ins) == 3:
            return Einsum((labels, param(ins[1]), param(ins[2])), (labels, stat, stat),
                          fixed=fixed)
        return Einsum((labels, labels, stat, stat, param(ins[4])),
                      (labels, labels[norm:], labels[norm:]), fixed=fixed)


layer_norm = _LayerNorm()


class _BatchNorm(Rule):
    """BatchNorm (x, scale, bias, mean, variance) -> (y, batch_mean, batch_variance, saved
    mean, saved rstd) and BatchNormGrad (dy, x, scale, saved mean, saved rstd) -> (dx,
    dscale, dbias), x (N, C, ...): only the channel dim may be cut (every per-channel vector
    follows it). The batch and spatial dims stay whole: a cut would need the per-channel sums
    all-reduced across the slices (SyncBatchNorm), which minispore does not insert."""

    reason = ("the batch statistics need every sample of a channel; a cut of the batch or "
              "spatial dims would need the per-channel sums all-reduced (SyncBatchNorm), "
              "which minispore does not do; cut the channel dim only")

    def spec(self, prim, args, outs):
        ins = tensor_args(args)
        x = ins[1] if len(outs) == 3 else ins[0]
        labels = _dims(len(x.shape))
        c = (labels[1],)
        fixed = {lab: self.reason for i, lab in enumerate(labels) if i != 1}
        if len(outs) == 3:
            return Einsum((labels, labels, c, c, c), (labels, c, c), fixed=fixed)
        return Einsum((labels, c, c, c, c), (labels, c, c, c, c), fixed=fixed)


batch_norm = _BatchNorm()
