"""The special functions of two (and three) inputs, MindSpore's names: Igamma and Igammac (the
regularized incomplete gamma functions), Zeta (Hurwitz), NextAfter, Polygamma and Betainc (the
regularized incomplete beta function). Each runs its body of kernels/scalar_gamma_inc.py
(scalar_beta_inc.py for Betainc) on either device; the bprops are MindSpore's, composed from
math_ops (each gradient summed back over the axes its input was broadcast along)."""
from minispore.common import dtype as mstype
from minispore.common.tensor import Tensor
from minispore.ops.operations._base import (broadcast_shape, cached_op, check_dtype,
                                            check_same_dtype, check_tensor)
from minispore.ops.operations.array_ops import ZerosLike
from minispore.ops.operations.elementwise import BinaryElementwise
from minispore.ops.operations.math_ops import Add, Exp, Log, Mul, Neg, Sub, sum_to_shape
from minispore.ops.operations.unary_math_ops import Lgamma, Log1p
from minispore.ops import sharding as rules
from minispore.ops.kernel_registry import kernel
from minispore.ops.primitive import Aval, Primitive

__all__ = ["Igamma", "Igammac", "Zeta", "NextAfter", "Polygamma", "Betainc"]

_FLOATS = (mstype.float32, mstype.float64)


def _mul(a, b):
    return cached_op(Mul)(a, b)


class _FloatPair(BinaryElementwise):
    """Two float32 or float64 tensors of one dtype, broadcast together. MindSpore neither
    promotes mixed dtypes nor takes Python numbers here: both are TypeErrors."""
    valid_dtypes = _FLOATS
    arg_names = ("x", "y")

    def _mixed(self, x, y):
        if not isinstance(x, Tensor) or not isinstance(y, Tensor):
            bad = self.arg_names[0] if not isinstance(x, Tensor) else self.arg_names[1]
            got = type(x if bad == self.arg_names[0] else y).__name__
            raise self.error(f"the inputs {list(self.arg_names)} must both be Tensors of the "
                             f"same dtype, but '{bad}' is a {got}.", TypeError)
        return Primitive.__call__(self, x, y)

    def infer(self, x, y):
        names = self.arg_names
        for name, t in zip(names, (x, y)):
            check_tensor(self, name, t)
            check_dtype(self, name, t, self.valid_dtypes)
        check_same_dtype(self, names, (x, y))
        return Aval(broadcast_shape(self, x.shape, y.shape, names), x.dtype)


def _igamma_grads(a, x, dout):
    """(dP/da * dout, dP/dx * dout) summed to the shapes of a and x, as MindSpore's Igamma
    bprop: dP/dx = exp(-x + (a - 1) log x - lgamma(a)), dP/da from _IgammaGradA."""
    partial_a = cached_op(_IgammaGradA)(a, x)
    log_density = cached_op(Sub)(
        cached_op(Add)(cached_op(Neg)(x), _mul(cached_op(Sub)(a, 1.0), cached_op(Log)(x))),
        cached_op(Lgamma)(a))
    partial_x = cached_op(Exp)(log_density)
    return (sum_to_shape(_mul(partial_a, dout), a.shape),
            sum_to_shape(_mul(partial_x, dout), x.shape))


class Igamma(_FloatPair):
    """out = P(a, x) = 1/Gamma(a) int_0^x t^(a-1) e^-t dt, the regularized lower incomplete
    gamma function: Igamma()(a, x), float32 or float64 of one dtype, broadcast together.
    0 at x = 0, 1 at x = +inf; NaN for a <= 0, x < 0 and NaN inputs (MindSpore's edges).
    da = dout * dP/da (the series and continued fraction differentiated in a, MindSpore's
    IgammaGradA), dx = dout * x^(a-1) e^-x / Gamma(a)."""
    kernel_name = "igamma"
    arg_names = ("a", "x")

    def bprop(self, inputs, out, dout):
        return _igamma_grads(inputs[0], inputs[1], dout)


class Igammac(_FloatPair):
    """out = Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma function:
    Igammac()(a, x). 1 at x = 0; NaN for a <= 0, x < 0, x = +inf and NaN inputs (MindSpore's
    edges). The gradients are Igamma's, negated."""
    kernel_name = "igammac"
    arg_names = ("a", "x")

    def bprop(self, inputs, out, dout):
        neg = cached_op(Neg)
        da, dx = _igamma_grads(inputs[0], inputs[1], dout)
        return neg(da), neg(dx)


class _IgammaGradA(_FloatPair):
    """dP(a, x)/da, Igamma's gradient in a (MindSpore's IgammaGradA)."""
    kernel_name = "igamma_grad_a"
    arg_names = ("a", "x")

    def bprop(self, inputs, out, dout):
        raise NotImplementedError("The gradient of IgammaGradA (a second derivative of Igamma "
                                  "or Igammac) is not implemented in minispore.")


class Zeta(_FloatPair):
    """out = zeta(x, q) = sum_{k>=0} (k + q)^-x, the Hurwitz zeta function: Zeta()(x, q),
    float32 or float64 tensors of one dtype and one shape (MindSpore's primitive does not
    broadcast; ops.zeta broadcasts the smaller input to the larger's shape). inf at x = 1, NaN
    for x < 1; at q a non-positive integer inf for even integer x, else NaN; for other q < 0
    defined at integer x only; NaN at q = +inf (MindSpore's edges).
    dq = -dout * x * zeta(x + 1, q); dx = 0 (MindSpore defines no gradient in x)."""
    kernel_name = "zeta"
    arg_names = ("x", "q")

    def infer(self, x, q):
        aval = super().infer(x, q)
        if tuple(x.shape) != tuple(q.shape):
            raise self.error(f"the shapes of 'x' {tuple(x.shape)} and 'q' {tuple(q.shape)} "
                             f"must be the same.")
        return aval

    def bprop(self, inputs, out, dout):
        x, q = inputs
        dq = _mul(cached_op(Neg)(_mul(x, cached_op(Zeta)(cached_op(Add)(x, 1.0), q))), dout)
        return cached_op(ZerosLike)(x), sum_to_shape(dq, q.shape)


class NextAfter(_FloatPair):
    """out = the representable value of x1's dtype next to x1 in the direction of x2 (x2 when
    they are equal; NaN when either is NaN): NextAfter()(x1, x2), float32 or float64 of one
    dtype, broadcast together; exact in both (MindSpore 2.7.2's CPU kernel steps float32 in
    float64 and rounds back, returning x1 itself; its documentation, and minispore, step in
    float32). dx1 = dout, dx2 = 0 (MindSpore's bprop)."""
    kernel_name = "nextafter"
    arg_names = ("x1", "x2")

    def bprop(self, inputs, out, dout):
        x1, x2 = inputs
        return sum_to_shape(dout, x1.shape), cached_op(ZerosLike)(x2)


class Polygamma(BinaryElementwise):
    """out = psi^(n)(x), the n-th derivative of the digamma function: Polygamma()(n, x), n a
    0-d int32 or int64 Tensor, x float16, float32 or float64 (float16 computed in float32).
    n = 0 is digamma; n >= 1 is (-1)^(n+1) n! zeta(n + 1, x), (-1)^(n+1) inf at the poles 0,
    -1, ... and NaN at x = +inf; NaN everywhere for n < 0 (MindSpore's answers).
    dx = dout * psi^(n+1)(x); n has no gradient."""
    kernel_name = "polygamma"
    valid_dtypes = mstype.float_types
    float16_in_float32 = True

    def __call__(self, n, x):
        for name, t in (("n", n), ("x", x)):
            if not isinstance(t, Tensor):
                raise self.error(f"the input '{name}' must be a Tensor, but got "
                                 f"{type(t).__name__}.", TypeError)
        return Primitive.__call__(self, n, x)

    def infer(self, n, x):
        check_tensor(self, "n", n)
        check_tensor(self, "x", x)
        check_dtype(self, "n", n, (mstype.int32, mstype.int64))
        check_dtype(self, "x", x, self.valid_dtypes)
        if len(n.shape) != 0:
            raise self.error(f"'n' must be a 0-dim Tensor, but got rank {len(n.shape)}.")
        return Aval(x.shape, x.dtype)

    def impl(self, n, x, out=None):
        return kernel(self.family, self.kernel_name)(n, x, out=out)

    def bprop(self, inputs, out, dout):
        n, x = inputs
        return None, _mul(dout, cached_op(Polygamma)(cached_op(Add)(n, 1), x))



class Betainc(Primitive):
    """out = I_x(a, b) = B(x; a, b) / B(a, b), the regularized incomplete beta function:
    Betainc()(a, b, x), float32 or float64 tensors of one dtype and one shape (MindSpore's
    primitive neither broadcasts nor promotes). NaN for a <= 0, b <= 0, x outside [0, 1];
    0 at x = 0, 1 at x = 1.
    dx = dout * x^(a-1) (1-x)^(b-1) / B(a, b); da = db = 0, as MindSpore's bprop returns (it
    defines no derivative in a and b, so neither does minispore)."""
    arg_names = ("a", "b", "x")
    sharding_rule = rules.elementwise

    def infer(self, a, b, x):
        for name, t in zip(self.arg_names, (a, b, x)):
            check_tensor(self, name, t)
            check_dtype(self, name, t, _FLOATS)
        check_same_dtype(self, self.arg_names, (a, b, x))
        for name, t in (("b", b), ("x", x)):
            if tuple(t.shape) != tuple(a.shape):
                raise self.error(f"shape of {name} {tuple(t.shape)} are not consistent with "
                                 f"the shape a {tuple(a.shape)}.")
        return Aval(a.shape, a.dtype)

    def impl(self, a, b, x):
        return kernel("elementwise", "betainc")(a, b, x)

    def bprop(self, inputs, out, dout):
        a, b, x = inputs
        log_beta = cached_op(Sub)(cached_op(Add)(cached_op(Lgamma)(a), cached_op(Lgamma)(b)),
                                  cached_op(Lgamma)(cached_op(Add)(a, b)))
        log_density = cached_op(Sub)(
            cached_op(Add)(_mul(cached_op(Sub)(a, 1.0), cached_op(Log)(x)),
                           _mul(cached_op(Sub)(b, 1.0), cached_op(Log1p)(cached_op(Neg)(x)))),
            log_beta)
        zeros = cached_op(ZerosLike)
        return zeros(a), zeros(b), _mul(cached_op(Exp)(log_density), dout)
