"""CUDA kernels (numba-cuda): the same modules, function names and signatures as kernels/cpu.

Functions take numba device arrays (cuda.to_device / cuda.device_array) and launch `@cuda.jit`
kernels; only this package imports numba.cuda, so importing minispore never needs CUDA.
"""
