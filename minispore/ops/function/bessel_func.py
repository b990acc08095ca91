"""Functional forms of the Bessel operators (ops.bessel_i0 ... ops.bessel_y1, ops.i0)."""
from minispore.ops.operations import bessel_ops as _B
from minispore.ops.operations._base import cached_op

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1",
           "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e", "bessel_y0", "bessel_y1", "i0"]


def _functional(cls, name, doc):
    """ops.<name>(x): the operator `cls` (one cached instance) applied to x."""
    def op(x):
        return cached_op(cls)(x)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc + " x: a float16, float32 or float64 Tensor (TypeError otherwise)."
    return op


bessel_i0 = _functional(_B.BesselI0, "bessel_i0", "I0(x) elementwise.")
bessel_i0e = _functional(_B.BesselI0e, "bessel_i0e", "exp(-|x|) I0(x) elementwise.")
bessel_i1 = _functional(_B.BesselI1, "bessel_i1", "I1(x) elementwise.")
bessel_i1e = _functional(_B.BesselI1e, "bessel_i1e", "exp(-|x|) I1(x) elementwise.")
bessel_j0 = _functional(_B.BesselJ0, "bessel_j0", "J0(x) elementwise.")
bessel_j1 = _functional(_B.BesselJ1, "bessel_j1", "J1(x) elementwise.")
bessel_k0 = _functional(_B.BesselK0, "bessel_k0", "K0(x) elementwise (+inf for x <= 0).")
bessel_k0e = _functional(_B.BesselK0e, "bessel_k0e",
                         "exp(x) K0(x) elementwise (+inf for x <= 0).")
bessel_k1 = _functional(_B.BesselK1, "bessel_k1", "K1(x) elementwise (+inf for x <= 0).")
bessel_k1e = _functional(_B.BesselK1e, "bessel_k1e",
                         "exp(x) K1(x) elementwise (+inf for x <= 0).")
bessel_y0 = _functional(_B.BesselY0, "bessel_y0", "Y0(x) elementwise (-inf for x <= 0).")
bessel_y1 = _functional(_B.BesselY1, "bessel_y1", "Y1(x) elementwise (-inf for x <= 0).")


def i0(input):  # noqa: A002 - MindSpore's argument name
    """I0(input) elementwise: ops.bessel_i0 under MindSpore's other name."""
    return cached_op(_B.BesselI0)(input)
