"""MindSpore Primitive classes that are a functional composition of existing primitives
(``ops.Acosh()(x)``, ``ops.AddN()(xs)``, ``ops.Elu(alpha)(x)`` ...): each takes its attributes
at construction, as the Primitive does, and applies the functional op of
math/array/nn_compose_func, so it differentiates and traces like them. Aliases of real
primitives (TensorAdd = Add, Gelu = GeLU) are the classes themselves."""
import numpy as np

from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.function import array_compose_func as AC
from minispore.ops.function import array_func as A
from minispore.ops.function import composite_func as C
from minispore.ops.function import histogram_func as HG
from minispore.ops.function import index_func as IX
from minispore.ops.function import random_func as RF
from minispore.ops.function import unique_func as UQ
from minispore.ops.function import math_compose_func as MC
from minispore.ops.function import math_func as M
from minispore.ops.function import matrix_compose_func as MX
from minispore.ops.function import nn_compose_func as NC
from minispore.ops.function import pool_compose_func as PC
from minispore.ops.function import reduce_compose_func as MR
from minispore.ops.function import scan_compose_func as SC
from minispore.ops.function import spectral_compose_func as SP
from minispore.ops.operations.activation_ops import GeLU
from minispore.ops.operations.math_ops import Add

__all__ = ["Acosh", "Asinh", "Atanh", "AddN", "AccumulateNV2", "ApproximateEqual", "Argmin",
           "ArgMaxWithValue", "ArgMinWithValue", "BCEWithLogitsLoss", "BinaryCrossEntropy",
           "CeLU", "Elu", "HShrink", "HSigmoid", "HSwish", "Mish", "ReLU6", "SeLU", "SoftShrink",
           "Softplus", "Softsign", "FastGeLU", "FastGelu", "Gelu", "GLU", "Cross", "Diag",
           "DiagPart", "Trace", "Tril", "Triu", "DivNoNan", "MulNoNan", "Xdivy", "Xlogy",
           "SquaredDifference", "Mod", "TruncateDiv", "TruncateMod", "Trunc", "Round", "Rint",
           "Inv", "Lerp", "Logit", "Heaviside", "IsClose", "Fmax", "Sinc", "NanToNum",
           "EqualCount", "L2Loss", "L2Normalize", "LpNorm", "KLDivLoss", "SmoothL1Loss",
           "SigmoidCrossEntropyWithLogits", "ReduceAll", "ReduceAny", "ReduceStd",
           "SquareSumAll", "Ones", "Zeros", "Pack", "Unpack", "Unstack", "Rank", "Shape", "Size",
           "TensorShape", "DynamicShape", "TensorAdd", "IdentityN", "Real", "Imag", "Conj", "Eps",
           "DType", "TupleToArray", "Cdist", "ChannelShuffle",
           "CumProd", "Dense", "Median", "NonZero", "NthElement", "ReduceProd", "SpaceToDepth",
           "AdaptiveAvgPool2D", "LRN", "Dropout2D", "AdaptiveAvgPool3D",
           "MatrixPower", "Pdist", "GatherNd", "Unique", "RandomShuffle", "Mvlgamma",
           "Histogram", "Im2Col", "TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
           "ScatterNd", "IndexFill", "Meshgrid", "NLLLoss"]

TensorAdd = Add
Gelu = GeLU


def _composite(name, fn, params=(), doc=None):
    """A Primitive-like class `name`: __init__ takes `params` ((name, default) pairs) as
    attributes, __call__(*inputs) returns fn(*inputs, **attributes)."""
    def __init__(self, *args, **kwargs):
        if len(args) > len(params):
            raise TypeError(f"For '{name}', expected at most {len(params)} attributes, but got "
                            f"{len(args)}.")
        values = dict(params)
        values.update(zip([p for p, _ in params], args))
        for key, value in kwargs.items():
            if key not in values:
                raise TypeError(f"For '{name}', unexpected attribute '{key}'.")
            values[key] = value
        self.attrs = values
        for key, value in values.items():
            setattr(self, key, value)

    def __call__(self, *inputs):
        return fn(*inputs, **self.attrs)

    def __repr__(self):
        return f"Prim[{name}]"

    return type(name, (), {"__init__": __init__, "__call__": __call__, "__repr__": __repr__,
                           "__doc__": doc or f"``ops.{name}``: {fn.__doc__ or fn.__name__}",
                           "__module__": __name__})


def _stack_attr(x, axis):
    return C.stack(x, axis)


def _argmin(x, axis, output_type):
    return A.cast(C.argmin(x, axis), mstype.to_type(output_type))


def _arg_with_value(reduce, arg):
    def fn(x, axis, keep_dims):
        return arg(x, axis, keep_dims), reduce(x, axis, keep_dims)
    return fn


def _argmax_k(x, axis, keep_dims):
    return M.argmax(x, axis, keep_dims)


def _argmin_k(x, axis, keep_dims):
    idx = C.argmin(x, axis, keep_dims)
    return A.cast(idx, mstype.int64)


def _bce_with_logits(logits, label, weight=None, pos_weight=None, reduction="mean"):
    return NC.binary_cross_entropy_with_logits(logits, label, weight, pos_weight, reduction)


def _bce(logits, labels, weight=None, reduction="mean"):
    return NC.binary_cross_entropy(logits, labels, weight, reduction)


def _diag_part(x):
    if x.ndim != 2:
        raise ValueError(f"For 'DiagPart', 'input_x' must be 2-D here, but got rank {x.ndim}.")
    return MX.diagonal(x)


def _logit(x, eps):
    return MC.logit(x, None if eps < 0 else eps)


def _equal_count(x, y):
    return A.reshape(M.reduce_sum(A.cast(M.equal(x, y), x.dtype)), (1,))


def _lp_norm(x, axis, p, keep_dims, epsilon):
    return MR.vector_norm(x, p, tuple(axis) if isinstance(axis, (list, tuple)) else axis,
                          keep_dims)


def _sigmoid_ce(logits, label):
    return NC.binary_cross_entropy_with_logits(logits, label, reduction="none")


def _reduce_std(x, axis, unbiased, keep_dims):
    return MR.std_mean(x, axis if axis != () else None, 1 if unbiased else 0, keep_dims)


def _reduce_bool(fn):
    def reduce(x, axis=(), keep_dims=False):
        return fn(x, axis if axis != () else None, keep_dims)
    return reduce


def _shape_tensor(x):
    return Tensor(np.array(x.shape, np.int64), mstype.int64)


def _eps(x):
    return A.fill(x.dtype, tuple(x.shape), float(np.finfo(x.dtype.np_dtype).eps))


def _tuple_to_array(x):
    if isinstance(x, Tensor):
        raise TypeError("For 'TupleToArray', 'input_x' must be a tuple or list of numbers.")
    arr = np.array(x)
    dtype = mstype.float32 if arr.dtype.kind == "f" else mstype.int32
    return Tensor(arr.astype(dtype.np_dtype), dtype)


def _filled(value):
    def fn(shape, type_=mstype.float32):
        size = (shape,) if isinstance(shape, int) else tuple(shape)
        return A.fill(mstype.to_type(type_), size, value)
    return fn


Acosh = _composite("Acosh", MC.acosh)
Asinh = _composite("Asinh", MC.asinh)
Atanh = _composite("Atanh", MC.atanh)
AddN = _composite("AddN", MC.accumulate_n)
AccumulateNV2 = _composite("AccumulateNV2", MC.accumulate_n)
ApproximateEqual = _composite("ApproximateEqual", MC.approximate_equal, (("tolerance", 1e-5),))
Argmin = _composite("Argmin", _argmin, (("axis", -1), ("output_type", mstype.int32)))
ArgMaxWithValue = _composite("ArgMaxWithValue", _arg_with_value(M.reduce_max, _argmax_k),
                             (("axis", 0), ("keep_dims", False)),
                             "(index, value) of the max along axis.")
ArgMinWithValue = _composite("ArgMinWithValue", _arg_with_value(M.reduce_min, _argmin_k),
                             (("axis", 0), ("keep_dims", False)),
                             "(index, value) of the min along axis.")
BCEWithLogitsLoss = _composite("BCEWithLogitsLoss", _bce_with_logits, (("reduction", "mean"),))
BinaryCrossEntropy = _composite("BinaryCrossEntropy", _bce, (("reduction", "mean"),))
CeLU = _composite("CeLU", NC.celu, (("alpha", 1.0),))
Elu = _composite("Elu", NC.elu, (("alpha", 1.0),))
HShrink = _composite("HShrink", NC.hardshrink, (("lambd", 0.5),))
HSigmoid = _composite("HSigmoid", NC.hardsigmoid)
HSwish = _composite("HSwish", NC.hardswish)
Mish = _composite("Mish", NC.mish)
ReLU6 = _composite("ReLU6", NC.relu6)
SeLU = _composite("SeLU", NC.selu)
SoftShrink = _composite("SoftShrink", NC.softshrink, (("lambd", 0.5),))
Softplus = _composite("Softplus", NC.softplus)
Softsign = _composite("Softsign", NC.softsign)
FastGeLU = _composite("FastGeLU", NC.fast_gelu)
FastGelu = _composite("FastGelu", NC.fast_gelu)
GLU = _composite("GLU", NC.glu, (("axis", -1),))
Cross = _composite("Cross", AC.cross, (("dim", None),))
Diag = _composite("Diag", MX.diag)
DiagPart = _composite("DiagPart", _diag_part)
Trace = _composite("Trace", MX.trace)
Tril = _composite("Tril", MX.tril, (("diagonal", 0),))
Triu = _composite("Triu", MX.triu, (("diagonal", 0),))
DivNoNan = _composite("DivNoNan", MC.div_no_nan)
MulNoNan = _composite("MulNoNan", MC.mul_no_nan)
Xdivy = _composite("Xdivy", MC.xdivy)
Xlogy = _composite("Xlogy", MC.xlogy)
SquaredDifference = _composite("SquaredDifference", MC.squared_difference)
Mod = _composite("Mod", MC.truncate_mod)
TruncateDiv = _composite("TruncateDiv", MC.truncate_div)
TruncateMod = _composite("TruncateMod", MC.truncate_mod)
Trunc = _composite("Trunc", MC.trunc)
Round = _composite("Round", lambda x: MC.round(x))
Rint = _composite("Rint", MC.rint)
Inv = _composite("Inv", MC.inv)
Lerp = _composite("Lerp", MC.lerp)
Logit = _composite("Logit", _logit, (("eps", -1.0),))
Heaviside = _composite("Heaviside", MC.heaviside)
IsClose = _composite("IsClose", MC.isclose, (("rtol", 1e-05), ("atol", 1e-08),
                                              ("equal_nan", True)))
Fmax = _composite("Fmax", MC.fmax)
Sinc = _composite("Sinc", MC.sinc)
NanToNum = _composite("NanToNum", MC.nan_to_num, (("nan", 0.0), ("posinf", None),
                                                  ("neginf", None)))
EqualCount = _composite("EqualCount", _equal_count)
L2Loss = _composite("L2Loss", NC.l2_loss)
L2Normalize = _composite("L2Normalize", MR.l2_normalize, (("axis", 0), ("epsilon", 1e-4)))
LpNorm = _composite("LpNorm", _lp_norm, (("axis", 0), ("p", 2), ("keep_dims", False),
                                         ("epsilon", 1e-12)))
KLDivLoss = _composite("KLDivLoss", NC.kl_div, (("reduction", "mean"),))
SmoothL1Loss = _composite("SmoothL1Loss", NC.smooth_l1_loss, (("beta", 1.0),
                                                              ("reduction", "none")))
SigmoidCrossEntropyWithLogits = _composite("SigmoidCrossEntropyWithLogits", _sigmoid_ce)
ReduceAll = _composite("ReduceAll", _reduce_bool(MR.all), (("keep_dims", False),))
ReduceAny = _composite("ReduceAny", _reduce_bool(MR.any), (("keep_dims", False),))
ReduceStd = _composite("ReduceStd", _reduce_std, (("axis", ()), ("unbiased", True),
                                                  ("keep_dims", False)))
SquareSumAll = _composite("SquareSumAll", MR.square_sum_all)
Ones = _composite("Ones", _filled(1))
Zeros = _composite("Zeros", _filled(0))
Pack = _composite("Pack", _stack_attr, (("axis", 0),))
Unpack = _composite("Unpack", AC.unstack, (("axis", 0),))
Unstack = _composite("Unstack", AC.unstack, (("axis", 0),))
Rank = _composite("Rank", MC.rank)
Shape = _composite("Shape", lambda x: tuple(x.shape))
Size = _composite("Size", MC.numel)
TensorShape = _composite("TensorShape", _shape_tensor)
DynamicShape = _composite("DynamicShape", _shape_tensor)
IdentityN = _composite("IdentityN", lambda xs: tuple(A.identity(t) for t in xs))
Real = _composite("Real", lambda x: x)
Imag = _composite("Imag", lambda x: A.zeros_like(x))
Conj = _composite("Conj", lambda x: x)
Eps = _composite("Eps", _eps)
DType = _composite("DType", lambda x: x.dtype)
TupleToArray = _composite("TupleToArray", _tuple_to_array)


def _channel_shuffle(x, group):
    if x.ndim <= 3:
        raise TypeError(f"For ChannelShuffle, expect input with > 3 dims, but got {x.ndim}.")
    return AC.channel_shuffle(x, group)


def _cumprod(x, axis, exclusive=False, reverse=False):
    if exclusive or reverse:
        raise NotImplementedError("For 'CumProd', 'exclusive' and 'reverse' are not implemented "
                                  "in minispore.")
    return SC.cumprod(x, axis)


def _median(x, global_median=False, axis=0, keep_dims=False):
    if global_median:
        return SC.median(A.reshape(x, (-1,)), 0, False)
    return SC.median(x, axis, keep_dims)


def _reduce_prod(x, axis=(), keep_dims=False):
    return SC.prod(x, None if axis == () else axis, keep_dims)


Cdist = _composite("Cdist", NC.cdist, (("p", 2.0),))
ChannelShuffle = _composite("ChannelShuffle", _channel_shuffle, (("group", 1),))
CumProd = _composite("CumProd", _cumprod, (("exclusive", False), ("reverse", False)))
Dense = _composite("Dense", MC.dense)
Median = _composite("Median", _median, (("global_median", False), ("axis", 0),
                                        ("keep_dims", False)))
NonZero = _composite("NonZero", AC.argwhere)
NthElement = _composite("NthElement", SC.nth_element, (("reverse", False),))
ReduceProd = _composite("ReduceProd", _reduce_prod, (("keep_dims", False),))
SpaceToDepth = _composite("SpaceToDepth", AC.space_to_depth, (("block_size", 2),))


def _dropout2d(x, keep_prob=0.5):
    """(output, mask): whole channels of NCHW x zeroed with probability 1 - keep_prob, the
    rest scaled by 1 / keep_prob; mask is True where kept."""
    if x.ndim != 4:
        raise ValueError(f"For 'Dropout2D', the input must be 4-D, but got rank {x.ndim}.")
    from minispore.ops.function import nn_func
    # Integer x is scaled in Float32 and cast back, as MindSpore does.
    work = x.dtype if x.dtype in mstype.float_types else mstype.float32
    scale = nn_func.dropout(A.ones(tuple(x.shape[:2]) + (1, 1), work), 1.0 - keep_prob)
    out = A.cast(M.mul(A.cast(x, work), scale), x.dtype)
    return out, A.broadcast_to(M.not_equal(scale, 0), tuple(x.shape))


AdaptiveAvgPool2D = _composite("AdaptiveAvgPool2D", PC.adaptive_avg_pool2d, (("output_size", 1),))
LRN = _composite("LRN", PC.lrn, (("depth_radius", 5), ("bias", 1.0), ("alpha", 1.0),
                                 ("beta", 0.5), ("norm_region", "ACROSS_CHANNELS")))
Dropout2D = _composite("Dropout2D", _dropout2d, (("keep_prob", 0.5),))
AdaptiveAvgPool3D = _composite("AdaptiveAvgPool3D", PC.adaptive_avg_pool3d, (("output_size", 1),))
MatrixPower = _composite("MatrixPower", SP.matrix_power, (("n", 1),))
Pdist = _composite("Pdist", SP.pdist, (("p", 2.0),))
GatherNd = _composite("GatherNd", IX.gather_nd)
TensorScatterUpdate = _composite("TensorScatterUpdate", IX.tensor_scatter_update)
TensorScatterAdd = _composite("TensorScatterAdd", IX.tensor_scatter_add)
TensorScatterSub = _composite("TensorScatterSub", IX.tensor_scatter_sub)
ScatterNd = _composite("ScatterNd", IX.scatter_nd)


def _index_fill_prim(x, dim, index, value):
    # The Primitive takes value as a Tensor only (ops.index_fill also takes a number).
    if not isinstance(value, Tensor):
        raise TypeError(f"For Primitive[IndexFill], the type of input argument[value] must be "
                        f"Tensor but got {type(value).__name__}.")
    return IX.index_fill(x, dim, index, value)


IndexFill = _composite("IndexFill", _index_fill_prim, doc=(
    "``ops.IndexFill()(x, dim, index, value)``: ops.index_fill with a 0-d Tensor value."))
Mvlgamma = _composite("Mvlgamma", M.mvlgamma, (("p", None),))
Histogram = _composite("Histogram", HG.histc, (("bins", 100), ("min", 0.0), ("max", 0.0)))


def _im2col(x, ksizes, strides=1, dilations=1, pads=0):
    """(N, C, kh * kw, L): ops.unfold's columns with the channel split out (MindSpore's
    Im2Col layout); pads one int or a (pad_h, pad_w) pair."""
    if isinstance(pads, (tuple, list)) and len(pads) not in (1, 2):
        raise ValueError(f"For 'Im2Col', the pads size should be in : [1, 2], but got "
                         f"{len(pads)}.")
    if isinstance(pads, (tuple, list)) and len(pads) == 1:
        pads = pads[0]
    cols = PC.unfold(x, ksizes, dilations, pads, strides)
    n, c = x.shape[0], x.shape[1]
    return A.reshape(cols, (n, c, cols.shape[1] // c, cols.shape[2]))


Im2Col = _composite("Im2Col", _im2col, (("ksizes", None), ("strides", 1), ("dilations", 1),
                                        ("pads", 0)))
Unique = _composite("Unique", UQ.unique)
RandomShuffle = _composite("RandomShuffle", lambda x, seed, seed2: RF.shuffle(x, seed or seed2),
                           (("seed", 0), ("seed2", 0)))


def _meshgrid(inputs, indexing):
    if not isinstance(inputs, (tuple, list)):
        raise TypeError(f"For 'Meshgrid', the input must be a tuple or list of 1-D Tensors, but "
                        f"got {type(inputs).__name__}.")
    return AC.meshgrid(*inputs, indexing=indexing)


Meshgrid = _composite("Meshgrid", _meshgrid, (("indexing", "xy"),))


class NLLLoss:
    """``ops.NLLLoss(reduction='mean', ignore_index=-100)(logits, labels, weight)``: (nll_loss
    of 2-D log-probabilities (N, C) at int labels (N,) with class weights (C,), the summed
    weights of the labels counted), as MindSpore's primitive; differentiable through
    nll_loss. Errors of the types MindSpore 2.7.2 raises."""

    def __init__(self, reduction="mean", ignore_index=-100):
        if reduction not in ("none", "sum", "mean"):
            raise ValueError(f"Failed to convert the value {reduction!r} of input "
                             f"'reduction' of 'NLLLoss' to enum: it must be 'none', 'sum' or "
                             f"'mean'.")
        self.reduction, self.ignore_index = reduction, ignore_index

    def __call__(self, logits, labels, weight):
        if not isinstance(logits, Tensor) or logits.ndim != 2:
            got = logits.ndim if isinstance(logits, Tensor) else type(logits).__name__
            raise RuntimeError(f"For 'NLLLoss', the dimension of 'logits' should be 2, but "
                               f"got: {got}.")
        if not isinstance(labels, Tensor) or labels.dtype not in (mstype.int32, mstype.int64):
            got = labels.dtype if isinstance(labels, Tensor) else type(labels).__name__
            raise TypeError(f"For 'NLLLoss', 'labels' must be an Int32 or Int64 Tensor, but "
                            f"got {got}.")
        loss = NC.nll_loss(logits, labels, weight, self.ignore_index, self.reduction)
        kept = A.cast(M.not_equal(labels, self.ignore_index), weight.dtype)
        safe = M.mul(labels, A.cast(kept, labels.dtype))
        return loss, M.reduce_sum(M.mul(A.gather(weight, safe, 0), kept))

    def __repr__(self):
        return "Prim[NLLLoss]"
