"""Rolling's method codes, shared by its operator (ops/operations/window_ops.py) and its CPU
and CUDA kernels (kernels/{cpu,cuda}/window.py). Plain constants: the operator module must not
import a kernel module (that would create Numba dispatchers when minispore is imported, which
kept dynamic-cluster processes from exiting)."""

MAX, MIN, MEAN, SUM, STD, VAR = range(6)
