"""Operator sharding rules: each operator's call described as an einsum over labelled dims.

They live beside the operators (DESIGN.md "One operator, one definition"): an operator declares
its rule as a one-line class attribute (``sharding_rule = rules.elementwise``). A rule is plain
data -- which dims of which inputs are the same logical dim, which are contracted, which cannot
be cut and why -- so operators speak it without importing the parallel pass. The layout
vocabulary the rules are read against (TensorLayout, device matrices) is in
minispore/common/layout.py; the *machinery* that turns a strategy or input layouts into device
matrices, TensorLayouts, partial outputs and errors lives in minispore/parallel/strategy/check.py
and minispore/parallel/rules/.

A rule is an object with ``spec(prim, args, outs) -> Einsum``: `args` are the call's
arguments with tensors given as anything with ``.shape`` (Aval, Tensor, ndarray) and
non-tensor arguments (axis, perm, shape) as they are; `outs` are the inferred output Avals.

Einsum vocabulary (one label per tensor dim; labels are strings):
- a label in several inputs names one logical dim: its cuts must agree;
- a label in inputs but not in an output is contracted for that output: a cut of it leaves the
  output partial (pending sum unless ``partial_op`` says "max"/"min");
- ``None`` marks a dim that can never be cut (a broadcast size-1 dim, a fresh output dim);
- ``fixed`` maps labels that cannot be cut to the reason (the softmax axis, conv spatial dims);
- ``mean`` lists, per output, labels the operator averages over: a cut k scales that output
  by 1/k after its reduction (ReduceMean, the mean loss of SparseSoftmaxCrossEntropy);
- ``exclusive`` lists label groups of which at most one may be cut (Gather's table rows and
  its indices);
- ``notes`` say what the local computation needs beyond running the operator on the slices
  (Gather row split: shift indices by the row offset and mask; Dropout: per-slice seeds).
"""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Einsum:
    inputs: tuple
    outputs: tuple
    fixed: dict = field(default_factory=dict)
    partial_op: dict = field(default_factory=dict)
    mean: tuple = ()
    exclusive: tuple = ()
    notes: dict = field(default_factory=dict)


def is_tensor_arg(x):
    """Tensor-like call argument (Aval, Tensor, ndarray); Python scalars and tuples are not."""
    return hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, (int, float))


def tensor_args(args):
    return [a for a in args if is_tensor_arg(a)]


def _dims(n, prefix="d"):
    return tuple(f"{prefix}{i}" for i in range(n))


def _is_one(d):
    return isinstance(d, int) and d == 1


def _broadcast_labels(shape, out_rank):
    """Right-aligned output labels for an input of `shape`; size-1 (broadcast) dims get None."""
    lead = out_rank - len(shape)
    return tuple(None if _is_one(d) else f"d{lead + i}" for i, d in enumerate(shape))


def _axis(axis, ndim):
    return int(axis) % ndim if ndim else 0


class Rule:
    """Base: subclasses implement spec(prim, args, outs)."""

    replicate_only = False

    def spec(self, prim, args, outs):
        raise NotImplementedError

    def __repr__(self):
        return f"<sharding rule {type(self).__name__}>"


class _Elementwise(Rule):
    """All tensor inputs broadcast against each other (numpy rules); every output has the
    broadcast shape. `note` is recorded for every cut (Dropout's per-slice seeds)."""

    def __init__(self, note=None):
        self.note = note

    def spec(self, prim, args, outs):
        ins = tensor_args(args)
        rank = max(len(o.shape) for o in outs)
        out = _dims(rank)
        notes = {lab: self.note for lab in out} if self.note else {}
        return Einsum(tuple(_broadcast_labels(a.shape, rank) for a in ins),
                      tuple(out[rank - len(o.shape):] for o in outs), notes=notes)


elementwise = _Elementwise()


def is_elementwise(rule):
    """Whether `rule` is an elementwise one (ops/batching.py batches those elementwise)."""
    return isinstance(rule, _Elementwise)


def elementwise_with_note(note):
    return _Elementwise(note)


class _Matmul(Rule):
    """x (..., m, k) @ y (..., k, n) -> (..., m, n); transpose_a/b swap the last two dims.

    Batch dims cut freely and alike in x, y and the output; a batch dim one operand
    broadcasts (size 1 against the output's larger size) is None there: that operand stays
    whole along it while the other and the output are cut."""

    def spec(self, prim, args, outs):
        x, y = tensor_args(args)[:2]
        out_batch = tuple(outs[0].shape[:-2])
        batch = _dims(len(out_batch), "b")

        def labels(shape):
            return tuple(None if _is_one(d) and not _is_one(o) else lab
                         for d, o, lab in zip(shape[:-2], out_batch, batch))
        xs = ("k", "m") if prim.transpose_a else ("m", "k")
        ys = ("n", "k") if prim.transpose_b else ("k", "n")
        return Einsum((labels(x.shape) + xs, labels(y.shape) + ys), (batch + ("m", "n"),))


matmul = _Matmul()


class _BiasAdd(Rule):
    """x (N, C, ...) (or channels last) + bias (C,): the bias follows x's channel cut."""

    def spec(self, prim, args, outs):
        x = tensor_args(args)[0]
        labels = _dims(len(x.shape))
        c = labels[-1] if getattr(prim, "data_format", "NCHW") == "NHWC" or len(x.shape) < 2 \
            else labels[1]
        return Einsum((labels, (c,)), (labels,))


bias_add = _BiasAdd()


class _BiasAddGrad(Rule):
    """dy (N, C, ...) -> (C,): every other dim is summed, so its cut leaves a partial sum."""

    def spec(self, prim, args, outs):
        dy = tensor_args(args)[0]
        labels = _dims(len(dy.shape))
        c = labels[-1] if getattr(prim, "data_format", "NCHW") == "NHWC" or len(dy.shape) < 2 \
            else labels[1]
        return Einsum((labels,), ((c,),))


bias_add_grad = _BiasAddGrad()


class _Reduction(Rule):
    """x reduced over `axis` (call argument, or the `axis` attribute): a cut of a reduced dim
    leaves a partial result completed by AllReduce(op); "mean" also scales by 1/cut."""

    def __init__(self, op, reduced_fixed_reason=None):
        self.op = op
        self.reduced_fixed_reason = reduced_fixed_reason

    def spec(self, prim, args, outs):
        x = tensor_args(args)[0]
        n = len(x.shape)
        axis = args[1] if len(args) > 1 else getattr(prim, "axis", ())
        if axis is None or axis == () or axis == []:
            axes = set(range(n))
        else:
            axes = {_axis(a, n) for a in ((axis,) if isinstance(axis, int) else axis)}
        labels = _dims(n)
        keep = getattr(prim, "keep_dims", False)
        out = tuple(None if i in axes else lab for i, lab in enumerate(labels)) if keep else \
            tuple(lab for i, lab in enumerate(labels) if i not in axes)
        reduced = [labels[i] for i in sorted(axes)]
        if self.reduced_fixed_reason:
            return Einsum((labels,), (out,), fixed={lab: self.reduced_fixed_reason
                                                    for lab in reduced})
        op = "sum" if self.op == "mean" else self.op
        return Einsum((labels,), (out,), partial_op={lab: op for lab in reduced},
                      mean=((tuple(reduced) if self.op == "mean" else ()),))


def reduction(op):
    """ReduceSum/Mean/Max/Min: op is "sum", "mean", "max" or "min"."""
    return _Reduction(op)


argmax = _Reduction("argmax", "an index of the maximum cannot be combined across slices by "
                              "an AllReduce; keep the reduced axis whole")


class _AxisFixed(Rule):
    """Elementwise over same-shape inputs/outputs, except the dim `prim.axis` (Softmax,
    LogSoftmax and their grads, Concat, Split), which must stay whole for `reason`."""

    def __init__(self, reason):
        self.reason = reason

    def spec(self, prim, args, outs):
        ins = tensor_args(args)
        n = len(ins[0].shape)
        labels = _dims(n)
        axes = prim.axis if isinstance(prim.axis, (tuple, list)) else (prim.axis,)
        fixed = {labels[_axis(a, n)]: self.reason for a in axes}
        return Einsum(tuple(labels for _ in ins), tuple(labels for _ in outs), fixed=fixed)


def axis_fixed(reason):
    return _AxisFixed(reason)


SORT_AXIS = ("a sort or top-k ranks every element of its line against the others; keep the "
             "sorted axis whole (cut the other axes)")
_SCAN_AXIS = ("a cumulative sum needs every earlier element of its line; keep the scanned "
              "axis whole (cut the other axes)")


class _Scan(Rule):
    """CumSum (x, axis): elementwise over the other dims; the scanned axis stays whole."""

    def spec(self, prim, args, outs):
        x, axis = args[0], args[1]
        labels = _dims(len(x.shape))
        return Einsum((labels,), (labels,), fixed={labels[_axis(axis, len(labels))]: _SCAN_AXIS})


scan = _Scan()


MATRIX_DIMS = ("a determinant or an inverse needs its whole matrix; keep the last two dims "
               "whole (cut the batch dims)")


class _MatrixBatch(Rule):
    """(..., n, n) -> outputs (...) (determinants) or (..., n, n) (inverses): the batch dims
    may be cut, each matrix stays whole on one device."""

    def spec(self, prim, args, outs):
        labels = _dims(len(tensor_args(args)[0].shape))
        fixed = {labels[-2]: MATRIX_DIMS, labels[-1]: MATRIX_DIMS}
        return Einsum((labels,), tuple(labels if len(o.shape) == len(labels) else labels[:-2]
                                       for o in outs), fixed=fixed)


matrix_batch = _MatrixBatch()


FACTORED_DIMS = ("a matrix decomposition (SVD, QR, Cholesky, least squares) needs its whole "
                 "matrix; keep the matrix dims whole (cut the batch dims)")


class _MatrixFactor(Rule):
    """Decompositions and solves of (..., m, n) matrices: every tensor input and output is the
    batch dims of the first input followed by dims of its own (`core[i]` of them for input i;
    the rest of each output's dims), which stay whole; the batch dims may be cut alike."""

    def __init__(self, core):
        self.core = core

    def spec(self, prim, args, outs):
        ins = tensor_args(args)
        nb = len(ins[0].shape) - self.core[0]
        batch = _dims(nb, "b")
        fixed = {}
        in_labels = []
        for i, a in enumerate(ins):
            own = tuple(f"m{i}_{j}" for j in range(len(a.shape) - nb))
            fixed.update({lab: FACTORED_DIMS for lab in own})
            in_labels.append(batch + own)
        # An output without the batch dims (Svd's placeholder u, v without compute_uv) is
        # whole on every device.
        return Einsum(tuple(in_labels), tuple(batch + (None,) * (len(o.shape) - nb)
                                              if len(o.shape) >= nb else (None,) * len(o.shape)
                                              for o in outs), fixed=fixed)


def matrix_factor(*core):
    """The rule of a decomposition whose tensor inputs end in core[0], core[1], ... matrix
    dims after the shared batch dims."""
    return _MatrixFactor(core)


class _TopK(Rule):
    """TopK (x, k) -> (values, indices) on the last axis: the other dims may be cut; the last
    stays whole and the k outputs along it are a fresh dim."""

    def spec(self, prim, args, outs):
        labels = _dims(len(args[0].shape))
        out = labels[:-1] + (None,)
        return Einsum((labels,), (out, out), fixed={labels[-1]: SORT_AXIS})


topk = _TopK()


class _SortGrad(Rule):
    """SortGrad (x, indices, dout) -> dx along `prim.axis`: the other dims may be cut; the
    axis stays whole in x and dx, and indices/dout (of another extent there) are not cut."""

    def spec(self, prim, args, outs):
        labels = _dims(len(args[0].shape))
        axis = _axis(prim.axis, len(labels))
        line = labels[:axis] + (None,) + labels[axis + 1:]
        return Einsum((labels, line, line), (labels,), fixed={labels[axis]: SORT_AXIS})


sort_grad = _SortGrad()


class _Transpose(Rule):
    def spec(self, prim, args, outs):
        x, perm = args[0], args[1]
        labels = _dims(len(x.shape))
        return Einsum((labels,), (tuple(labels[p] for p in perm),))


transpose = _Transpose()


class _ReshapeLike(Rule):
    """Reshape/Flatten/ExpandDims/Squeeze: only the leading dim may stay cut, and only when it
    survives unchanged (same size at the front of the output); every other cut is dropped by a
    redistribution before the op (the layout change the parallel pass inserts)."""

    reason = "a reshape mixes these dims; only a leading dim that survives the reshape may stay cut"

    def spec(self, prim, args, outs):
        x = tensor_args(args)[0]
        out = outs[0].shape
        labels = _dims(len(x.shape))
        survives = bool(x.shape) and bool(out) and _same_dim(x.shape[0], out[0])
        fixed = {lab: self.reason for lab in labels[1 if survives else 0:]}
        out_labels = ((labels[0],) if survives else (None,)) + (None,) * (len(out) - 1) \
            if out else ()
        return Einsum((labels,), (out_labels,), fixed=fixed)


def _same_dim(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


reshape = _ReshapeLike()


class _BroadcastTo(Rule):
    def spec(self, prim, args, outs):
        x = tensor_args(args)[0]
        rank = len(outs[0].shape)
        return Einsum((_broadcast_labels(x.shape, rank),), (_dims(rank),))


broadcast_to = _BroadcastTo()


class _Gather(Rule):
    """params (..., V, ...) gathered along `axis` by indices (I...): out = params[:axis] +
    indices + params[axis+1:]. A cut of the table axis V is a masked local lookup (indices
    shifted by the rank's row offset, out-of-range rows zero) leaving a partial sum; params and
    indices must then not both be cut (MindSpore's rule), and params must be 1-D or 2-D."""

    note = "masked lookup: shift indices by the row offset, zero rows outside the local block"

    def spec(self, prim, args, outs):
        params, indices, axis = args[0], args[1], args[2]
        axis = _axis(axis, len(params.shape))
        p = _dims(len(params.shape), "p")
        i = _dims(len(indices.shape), "i")
        fixed = {}
        if getattr(prim, "batch_dims", 0):
            fixed[p[axis]] = "with batch_dims > 0 the gathered axis of params cannot be cut"
        elif len(params.shape) > 2:
            fixed[p[axis]] = "a cut of the gathered axis needs params of rank 1 or 2"
        exclusive = ((p[axis],) + i,)
        return Einsum((p, i), (p[:axis] + i + p[axis + 1:],), fixed=fixed,
                      exclusive=exclusive, notes={p[axis]: self.note})


gather = _Gather()


class _OneHot(Rule):
    """indices (...) -> (..., depth at axis, ...): the depth dim is new, never cut."""

    def spec(self, prim, args, outs):
        indices = args[0]
        i = _dims(len(indices.shape))
        axis = len(i) if prim.axis == -1 else prim.axis
        scalars = [(None,) * len(a.shape) for a in tensor_args(args)[1:]]
        return Einsum((i,) + tuple(scalars), (i[:axis] + (None,) + i[axis:],))


one_hot = _OneHot()


class _SegmentSum(Rule):
    """x (J..., D...) summed by segment_ids (J...) into (num_segments, D...): a cut of the
    segmented dims leaves a partial sum."""

    def spec(self, prim, args, outs):
        x, ids = args[0], args[1]
        j = _dims(len(ids.shape), "j")
        d = _dims(len(x.shape) - len(ids.shape))
        return Einsum((j + d, j), ((None,) + d,))


segment_sum = _SegmentSum()


_CLASS_AXIS = "the class axis would need AllReduce MAX and SUM inside the softmax"


class _SoftmaxCE(Rule):
    """Dense (loss (N,), dlogits (N, C)) and sparse (mean loss (), dlogits (N, C) scaled by 1/N)
    softmax cross-entropy: the batch dim may be cut, the class dim may not."""

    def __init__(self, sparse):
        self.sparse = sparse

    def spec(self, prim, args, outs):
        if self.sparse:
            # The local loss is a mean over N/k rows and dlogits carries 1/(N/k): both need 1/k.
            return Einsum((("n", "c"), ("n",)), ((), ("n", "c")), fixed={"c": _CLASS_AXIS},
                          mean=(("n",), ("n",)))
        return Einsum((("n", "c"), ("n", "c")), (("n",), ("n", "c")), fixed={"c": _CLASS_AXIS})


softmax_cross_entropy = _SoftmaxCE(sparse=False)
sparse_softmax_cross_entropy = _SoftmaxCE(sparse=True)

class _OptimizerUpdate(Rule):
    """ApplyMomentum/SGD/Adam…: elementwise over the parameter's slice; inputs of another
    shape (scalar hyper-parameters, SGD's stat) stay whole."""

    def spec(self, prim, args, outs):
        ins = tensor_args(args)
        var = ins[0].shape
        labels = _dims(len(var))
        return Einsum(tuple(labels if tuple(a.shape) == tuple(var) else (None,) * len(a.shape)
                            for a in ins), (labels,))


optimizer_update = _OptimizerUpdate()


class _ReduceExtremumGrad(Rule):
    """(x, out, dout, axis) -> dx: a cut of a kept dim is elementwise; reduced dims stay whole
    (the tie count of each slice must see the whole reduced extent)."""

    def spec(self, prim, args, outs):
        x, out, axis = args[0], args[1], args[3]
        n = len(x.shape)
        labels = _dims(n)
        if axis is None or axis == () or axis == []:
            axes = set(range(n))
        else:
            axes = {_axis(a, n) for a in ((axis,) if isinstance(axis, int) else axis)}
        reduced = tuple(None if i in axes else lab for i, lab in enumerate(labels)) \
            if len(out.shape) == n else tuple(lab for i, lab in enumerate(labels) if i not in axes)
        fixed = {labels[i]: "the tie count of a max/min needs the whole reduced axis"
                 for i in axes}
        return Einsum((labels, reduced, reduced), (labels,), fixed=fixed)


reduce_extremum_grad = _ReduceExtremumGrad()


class _ReplicateOnly(Rule):
    """The operator runs on whole tensors: every dim of every input and output stays uncut."""

    replicate_only = True

    def __init__(self, reason):
        self.reason = reason

    def spec(self, prim, args, outs):
        ins = tensor_args(args)
        fixed = {}
        inputs = []
        for i, a in enumerate(ins):
            labels = _dims(len(a.shape), f"x{i}_")
            fixed.update({lab: self.reason for lab in labels})
            inputs.append(labels)
        return Einsum(tuple(inputs), tuple((None,) * len(o.shape) for o in outs), fixed=fixed)

    def __repr__(self):
        return f"<sharding rule replicate_only: {self.reason}>"


def replicate_only(reason):
    """Declare that an operator cannot be split, and why (shown in strategy errors)."""
    return _ReplicateOnly(reason)

