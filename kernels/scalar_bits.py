"""Scalar bodies of the integer operators (bitwise logic, shifts, population count, gcd, lcm),
merged into kernels/scalar.py's ELEMENTWISE table, so the CPU ufuncs and the CUDA kernels are
generated from them like every other elementwise body.

MindSpore's CPU kernels compute these in C++: an operand narrower than 32 bits is promoted to
int, and the shift count is masked to the promoted width by the x86 shift instruction (1 << 33
is 2 for int8 and int32 alike; int64 masks by 63). The bodies here compute in int64 (in the
operand's own 64-bit type for the 64-bit dtypes) and return `type(x)(...)` of a numpy scalar:
that wraps to the operand's width on both devices and in the CUDA simulator (a numpy scalar
constructor wraps, where storing an out-of-range value into an array would raise).
"""
import numpy as np


def bitwise_and(x, y):
    return x & y


def bitwise_or(x, y):
    return x | y


def bitwise_xor(x, y):
    return x ^ y


def invert(x):
    return type(x)(~x)


def left_shift(x, y):
    """x << y for dtypes of at most 32 bits, the count taken mod 32 (C's promotion to int)."""
    return type(x)(np.int64(x) << (np.int64(y) & 31))


def right_shift(x, y):
    """x >> y (arithmetic for signed x) for dtypes of at most 32 bits, the count mod 32."""
    return type(x)(np.int64(x) >> (np.int64(y) & 31))


def left_shift64(x, y):
    """x << y for the 64-bit dtypes, the count mod 64."""
    return type(x)(x << (y & type(y)(63)))


def right_shift64(x, y):
    """x >> y for the 64-bit dtypes (arithmetic for int64, logical for uint64), count mod 64."""
    return type(x)(x >> (y & type(y)(63)))


def population_count(x):
    """The number of set bits of x, which arrives as the unsigned view of its dtype (so -1 of
    int8 counts 8 bits, not 64); each step clears the lowest set bit."""
    v = np.uint64(x)
    c = 0
    while v != 0:
        v &= v - np.uint64(1)
        c += 1
    return np.uint8(c)


def gcd(x, y):
    """The greatest common divisor of |x| and |y| (0 when both are 0); Euclid's algorithm in
    int64. |x| of the most negative value wraps to itself, as in C++'s std::gcd."""
    a = np.int64(x)
    b = np.int64(y)
    a = -a if a < 0 else a
    b = -b if b < 0 else b
    while b != 0:
        a, b = b, a % b
    return type(x)(a)


def lcm(x, y):
    """The least common multiple of |x| and |y| (0 when either is 0); |x| / gcd * |y| wraps
    to the operand's width on overflow, as C++'s std::lcm does."""
    a = np.int64(x)
    b = np.int64(y)
    a = -a if a < 0 else a
    b = -b if b < 0 else b
    if a == 0 or b == 0:
        return type(x)(0)
    g = a
    h = b
    while h != 0:       # gcd(a, b), inline: a body cannot call another on the device
        g, h = h, g % h
    return type(x)((a // g) * b)


# Each body -> the dtype of its result (None: the dtype of its last operand).
ELEMENTWISE = {
    "bitwise_and": None, "bitwise_or": None, "bitwise_xor": None, "invert": None,
    "left_shift": None, "right_shift": None, "left_shift64": None, "right_shift64": None,
    "population_count": "uint8", "gcd": None, "lcm": None,
}
