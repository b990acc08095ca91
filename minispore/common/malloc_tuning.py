"""glibc malloc settings for training processes: large buffers reused from the heap.

glibc serves an allocation above its mmap threshold (128 KB, rising with use to at most 32 MB)
with fresh pages every time, so each 1-32 MB activation or gradient page-faults anew on first
touch. Eager (PYNATIVE) steps allocate every output, which made a LeNet-5 batch-256 PYNATIVE
step take 14.9 ms in a fresh process against 10.8 ms with these settings (GRAPH mode reuses
its planned buffers and is unaffected: 9.3 ms either way). The price is that freed heap memory
goes back to the system later (above 1 GB free at the heap's top) rather than at once.

The launcher sets them for its ranks through the environment (MALLOC_VARS, read by glibc at
start); ``tune_malloc`` applies them to the running process with mallopt at ``import
minispore``. A variable the user set is left to the user, and elsewhere than glibc nothing
is changed.
"""
import ctypes
import os

# For processes minispore starts (glibc reads them before the first allocation).
MALLOC_VARS = {"MALLOC_MMAP_THRESHOLD_": "1073741824", "MALLOC_TRIM_THRESHOLD_": "2147483648"}

# mallopt's parameter, the largest value it takes (an int; the mmap threshold is capped at
# glibc's HEAP_MAX_SIZE / 2 = 32 MB on 64-bit) and the same setting's GLIBC_TUNABLES name.
_MALLOPT = {"MALLOC_MMAP_THRESHOLD_": (-3, 32 << 20, "glibc.malloc.mmap_threshold"),
            "MALLOC_TRIM_THRESHOLD_": (-1, 1 << 30, "glibc.malloc.trim_threshold")}


def tune_malloc(environ=None):
    """Apply the settings to this process's glibc malloc, except those the environment sets;
    returns {variable: value applied} ({} where there is no glibc mallopt)."""
    environ = os.environ if environ is None else environ
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return {}
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    tunables = environ.get("GLIBC_TUNABLES", "")
    applied = {}
    for var, (param, value, tunable) in _MALLOPT.items():
        if var not in environ and tunable not in tunables and mallopt(param, value) == 1:
            applied[var] = value
    return applied
