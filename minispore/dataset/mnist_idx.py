"""Reading and writing IDX files (the MNIST format), plain or gzip-compressed, strictly checked."""
import gzip
import math
import os
import sys

import numpy as np

# IDX type code (third magic byte) -> big-endian numpy dtype.
_IDX_TYPES = {0x08: np.dtype(">u1"), 0x09: np.dtype(">i1"), 0x0B: np.dtype(">i2"),
              0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}
_CODE_OF = {dt.newbyteorder("=").kind + str(dt.itemsize): code for code, dt in _IDX_TYPES.items()}
_MAX_NDIM = 64                # numpy's limit on the number of dimensions


def _read_bytes(path):
    if not os.path.isfile(path):
        raise RuntimeError(f"IDX file '{path}' does not exist or is not a file.")
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            return f.read()
    except (OSError, EOFError) as e:   # gzip raises these on corrupt or truncated archives
        raise RuntimeError(f"IDX file '{path}' could not be read: {e}") from e


def read_idx(path, expected_ndim=None):
    """Return the array stored in the IDX file at `path` (native byte order).

    Layout: magic = 0x00 0x00 <type code> <ndim>, then ndim big-endian uint32 dims, then the
    data in row-major order. Raises RuntimeError naming the file for a bad magic, a wrong number
    of dims, dims too large for an array, or a data section that is shorter or longer than the
    header promises.
    """
    raw = _read_bytes(path)
    if len(raw) < 4:
        raise RuntimeError(f"IDX file '{path}' is truncated: {len(raw)} bytes, no full header.")
    magic = int.from_bytes(raw[:4], "big")
    code, ndim = raw[2], raw[3]
    if raw[0] != 0 or raw[1] != 0 or code not in _IDX_TYPES or ndim == 0:
        raise RuntimeError(f"IDX file '{path}' has an invalid magic number 0x{magic:08x}; "
                           f"expected 0x0000TTNN with a type code TT in "
                           f"{sorted(hex(c) for c in _IDX_TYPES)} and NN dims.")
    if expected_ndim is not None and ndim != expected_ndim:
        raise RuntimeError(f"IDX file '{path}' has magic 0x{magic:08x} ({ndim} dims) but "
                           f"{expected_ndim} dims (magic 0x{(code << 8) | expected_ndim:08x}) "
                           f"are expected here.")
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise RuntimeError(f"IDX file '{path}' is truncated inside its header "
                           f"({len(raw)} of {header} bytes).")
    dims = tuple(int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim))
    dtype = _IDX_TYPES[code]
    _check_array_fits(path, dims, dtype)
    # Exact integers: an int64 product of forged dims could wrap around to the file's size.
    expected = math.prod(dims) * dtype.itemsize
    found = len(raw) - header
    if found != expected:
        kind = "truncated" if found < expected else "longer than its header says"
        raise RuntimeError(f"IDX file '{path}' is {kind}: dims {list(dims)} need {expected} "
                           f"data bytes, found {found}.")
    arr = np.frombuffer(raw, dtype=dtype, offset=header).reshape(dims)
    return arr.astype(dtype.newbyteorder("="), copy=True)


def _check_array_fits(path, dims, dtype):
    """numpy holds at most _MAX_NDIM dims and sys.maxsize bytes (counting a zero dim as 1: an
    empty array with huge other dims is refused too)."""
    if len(dims) > _MAX_NDIM:
        raise RuntimeError(f"IDX file '{path}' declares {len(dims)} dims; at most {_MAX_NDIM} "
                           f"are supported.")
    if math.prod(max(d, 1) for d in dims) * dtype.itemsize > sys.maxsize:
        raise RuntimeError(f"IDX file '{path}' declares dims {list(dims)}, too large for an "
                           f"array.")


def write_idx(path, array):
    """Write `array` as an IDX file (gzip-compressed when `path` ends with .gz)."""
    arr = np.asarray(array)
    key = arr.dtype.kind + str(arr.dtype.itemsize)
    if key not in _CODE_OF or arr.ndim == 0 or arr.ndim > 255:
        raise ValueError(f"write_idx: cannot store dtype {arr.dtype} with {arr.ndim} dims in IDX; "
                         f"valid dtypes are uint8, int8, int16, int32, float32, float64.")
    code = _CODE_OF[key]
    head = bytes([0, 0, code, arr.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in arr.shape)
    body = np.ascontiguousarray(arr, dtype=_IDX_TYPES[code]).tobytes()
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wb") as f:
        f.write(head + body)
