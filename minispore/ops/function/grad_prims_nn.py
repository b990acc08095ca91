"""mindspore.ops.operations._grad_ops' backward primitives of minispore's composed nn operators
(lrn, cdist, L2Normalize) and of bilinear resizing, with MindSpore's attributes and inputs:
LRNGrad is the forward's own autodiff gradient; CdistGrad and L2NormalizeGrad follow
MindSpore's formulas, which take the forward's output as given (so they are defined for any
`dist` / `output` passed in); ResizeBilinearGrad is the transpose of the resize's
interpolation matrices."""
import math

import numpy as np

from minispore.common import dtype as mstype

from minispore.common.tensor import Tensor
from minispore.ops.function import array_func as A
from minispore.ops.function import math_func as M
from minispore.ops.function.composite_func import where
from minispore.ops.function.pool_compose_func import lrn
from minispore.ops.vjp_jvp import vjp

__all__ = ["LRNGrad", "CdistGrad", "L2NormalizeGrad", "ResizeBilinearGrad"]


def _float_tensors(name, **tensors):
    for arg, t in tensors.items():
        if not isinstance(t, Tensor) or not t.dtype.is_float:
            got = t.dtype if isinstance(t, Tensor) else type(t).__name__
            raise TypeError(f"For '{name}', '{arg}' must be a float Tensor, but got {got}.")


def _number(name, arg, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"For '{name}', '{arg}' must be a float, but got {type(v).__name__}.")
    return float(v)


def _same_shape(name, args, *tensors):
    shape = tuple(tensors[0].shape)
    for arg, t in zip(args[1:], tensors[1:]):
        if tuple(t.shape) != shape:
            raise ValueError(f"For '{name}', '{arg}' must have the shape of '{args[0]}' "
                             f"{shape}, but got {tuple(t.shape)}.")


class LRNGrad:
    """LRNGrad(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5)(grads, x, y) -> dx: the gradient
    of LRN (same attributes) at x, NCHW, for the incoming gradient `grads`; y (LRN's output)
    is only checked for its shape, the gradient being computed from x."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5):
        if isinstance(depth_radius, bool) or not isinstance(depth_radius, int):
            raise TypeError(f"For 'LRNGrad', 'depth_radius' must be an int, but got "
                            f"{type(depth_radius).__name__}.")
        if depth_radius < 0:
            raise ValueError(f"For 'LRNGrad', 'depth_radius' must be >= 0, but got "
                             f"{depth_radius}.")
        self.depth_radius = depth_radius
        self.bias, self.alpha, self.beta = (_number("LRNGrad", arg, v) for arg, v in
                                            (("bias", bias), ("alpha", alpha), ("beta", beta)))

    def __call__(self, grads, x, y):
        _float_tensors("LRNGrad", grads=grads, x=x, y=y)
        if x.ndim != 4:
            raise ValueError(f"For 'LRNGrad', 'x' must be 4-D (NCHW), but got shape "
                             f"{tuple(x.shape)}.")
        _same_shape("LRNGrad", ("x", "grads", "y"), x, grads, y)
        _, pullback = vjp(lambda t: lrn(t, self.depth_radius, self.bias, self.alpha,
                                        self.beta), x)
        return pullback(grads)[0]

    def __repr__(self):
        return "Prim[LRNGrad]"


class CdistGrad:
    """CdistGrad(p=2.0)(grad, x1, x2, dist) -> the gradient to x1 (.., P, M) of
    dist = cdist(x1, x2, p) (.., P, R) for the incoming `grad` (.., P, R): the sum over r of
    grad * sign(d) |d|^(p-1) / dist^(p-1), d = x1[p] - x2[r]; p = 1 gives grad * sign(d),
    p = inf grad * sign(d) where |d| equals dist. Terms with dist 0 count 0, and MindSpore's
    kernel gives 0 for every p < 1 (p = 0 included), as does its autodiff of cdist."""

    def __init__(self, p=2.0):
        p = _number("CdistGrad", "p", p)
        if p < 0 or math.isnan(p):
            raise ValueError(f"For 'CdistGrad', 'p' must be a non-negative float, but got {p}.")
        self.p = p

    def __call__(self, grad, x1, x2, dist):
        _float_tensors("CdistGrad", grad=grad, x1=x1, x2=x2, dist=dist)
        if x1.ndim < 2 or x1.ndim != x2.ndim or tuple(x1.shape[:-2]) != tuple(x2.shape[:-2]) \
                or x1.shape[-1] != x2.shape[-1]:
            raise ValueError(f"For 'CdistGrad', 'x1' (.., P, M) and 'x2' (.., R, M) must agree "
                             f"but for P and R, but got {tuple(x1.shape)} and "
                             f"{tuple(x2.shape)}.")
        want = tuple(x1.shape[:-1]) + (x2.shape[-2],)
        for arg, t in (("grad", grad), ("dist", dist)):
            if tuple(t.shape) != want:
                raise ValueError(f"For 'CdistGrad', '{arg}' must have shape {want}, but got "
                                 f"{tuple(t.shape)}.")
        if self.p < 1:
            return A.zeros_like(x1)
        d = M.sub(A.expand_dims(x1, -2), A.expand_dims(x2, -3))
        dist, g = A.expand_dims(dist, -1), A.expand_dims(grad, -1)
        zero = M.equal(dist, 0.0)
        # dist 0 is replaced by 1 before dividing, so no inf * 0 reaches the masked terms.
        safe = where(zero, A.ones_like(dist), dist)
        sign = M.sign(d)
        if self.p == 1:
            term = sign
        elif self.p == 2:
            term = M.div(d, safe)
        elif math.isinf(self.p):
            term = where(M.equal(M.abs(d), dist), sign, A.zeros_like(d))
        else:
            term = M.mul(sign, M.pow(M.div(M.abs(d), safe), self.p - 1))
        term = where(zero, A.zeros_like(d), M.mul(g, term))
        return M.reduce_sum(term, -2)

    def __repr__(self):
        return "Prim[CdistGrad]"


class L2NormalizeGrad:
    """L2NormalizeGrad(axis=0, epsilon=1e-4)(input_x, out, dout) ->
    (dout - out * sum(out * dout, axis)) / max(||input_x||_axis, epsilon): the gradient of
    L2Normalize given its output. MindSpore's formula clamps the norm by epsilon, where the
    forward clamps the squared norm, so below sqrt(epsilon) it differs from the forward's
    exact gradient; kept as MindSpore computes it."""

    def __init__(self, axis=0, epsilon=1e-4):
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        if not axes or any(isinstance(a, bool) or not isinstance(a, int) for a in axes):
            raise TypeError(f"For 'L2NormalizeGrad', 'axis' must be an int or a tuple of ints, "
                            f"but got {axis!r}.")
        self.axis = tuple(axes)
        self.epsilon = _number("L2NormalizeGrad", "epsilon", epsilon)

    def __call__(self, input_x, out, dout):
        _float_tensors("L2NormalizeGrad", input_x=input_x, out=out, dout=dout)
        _same_shape("L2NormalizeGrad", ("input_x", "out", "dout"), input_x, out, dout)
        nd = input_x.ndim
        if any(not -nd <= a < nd for a in self.axis):
            raise ValueError(f"For 'L2NormalizeGrad', 'axis' {self.axis} must lie in "
                             f"[{-nd}, {nd}) for an input of rank {nd}.")
        axes = tuple(a % nd for a in self.axis)
        norm = M.sqrt(M.reduce_sum(M.square(input_x), axes, True))
        along = M.reduce_sum(M.mul(out, dout), axes, True)
        return M.div(M.sub(dout, M.mul(out, along)), M.maximum(norm, self.epsilon))

    def __repr__(self):
        return "Prim[L2NormalizeGrad]"


def _bilinear_weights(n_in, n_out, align_corners, half_pixel_centers):
    """(n_out, n_in) matrix of ResizeBilinear's weights along one axis (MindSpore's, measured
    on 2.7.2): output i reads src = i * scale, or (i + 0.5) * scale - 0.5 with half-pixel
    centres, between floor(src) (at least 0) and ceil(src) (at most n_in - 1)."""
    if align_corners:
        scale = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        scale = n_in / n_out
    w = np.zeros((n_out, n_in))
    for i in range(n_out):
        src = (i + 0.5) * scale - 0.5 if half_pixel_centers else i * scale
        low = math.floor(src)
        w[i, min(max(low, 0), n_in - 1)] += 1 - (src - low)
        w[i, min(math.ceil(src), n_in - 1)] += src - low
    return w


class ResizeBilinearGrad:
    """ResizeBilinearGrad(align_corners=False, half_pixel_centers=False)(grads, original_image)
    -> the gradient to the (N, C, H, W) image of its bilinear resize to grads' (OH, OW):
    Wh^T @ grads @ Ww with Wh (OH, H) and Ww (OW, W) the resize's interpolation weights
    (the resize is linear, so this is exact). Output in original_image's dtype, as
    MindSpore's."""

    def __init__(self, align_corners=False, half_pixel_centers=False):
        for arg, v in (("align_corners", align_corners),
                       ("half_pixel_centers", half_pixel_centers)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'ResizeBilinearGrad', '{arg}' must be a bool, but got "
                                f"{type(v).__name__}.")
        if align_corners and half_pixel_centers:
            raise NotImplementedError("For 'ResizeBilinearGrad', align_corners and "
                                      "half_pixel_centers both True is not implemented in "
                                      "minispore (ResizeBilinearV2 refuses the pair).")
        self.align_corners, self.half_pixel_centers = align_corners, half_pixel_centers

    def __call__(self, grads, original_image):
        _float_tensors("ResizeBilinearGrad", grads=grads, original_image=original_image)
        if grads.ndim != 4 or original_image.ndim != 4 or \
                tuple(grads.shape[:2]) != tuple(original_image.shape[:2]):
            raise ValueError(f"For 'ResizeBilinearGrad', 'grads' {tuple(grads.shape)} and "
                             f"'original_image' {tuple(original_image.shape)} must be 4-D "
                             f"(N, C, H, W) with the same N and C.")
        # float16 goes through float32 (MindSpore's kernel also accumulates in float32).
        dt = grads.dtype if grads.dtype in (mstype.float32, mstype.float64) else mstype.float32
        (oh, ow), (h, w) = grads.shape[2:], original_image.shape[2:]
        wh, ww = (Tensor(_bilinear_weights(n, o, self.align_corners, self.half_pixel_centers)
                         .astype(dt.np_dtype)) for n, o in ((h, oh), (w, ow)))
        cols = M.matmul(A.cast(grads, dt), ww)                       # (N, C, OH, W)
        rows = M.matmul(A.transpose(cols, (0, 1, 3, 2)), wh)          # (N, C, W, H)
        return A.cast(A.transpose(rows, (0, 1, 3, 2)), original_image.dtype)

    def __repr__(self):
        return "Prim[ResizeBilinearGrad]"
