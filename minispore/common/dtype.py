"""MindSpore-style dtype objects (ms.float32 …) and their numpy interop."""
import numpy as np


class Type:
    """A minispore dtype. Compares equal to itself only; `np_dtype` gives the numpy dtype."""

    __slots__ = ("name", "np_dtype")

    def __init__(self, name, np_dtype):
        self.name = name
        self.np_dtype = np.dtype(np_dtype)

    def __str__(self):
        return self.name

    def __repr__(self):
        # MindSpore's repr names the module attribute (``mindspore.int64``), str the type.
        return f"mindspore.{self.name.lower()}"

    def __reduce__(self):
        return (pytype_to_dtype_by_name, (self.name,))

    @property
    def is_float(self):
        return self.np_dtype.kind == "f"

    @property
    def is_int(self):
        return self.np_dtype.kind in "iu"


float16 = Type("Float16", np.float16)
float32 = Type("Float32", np.float32)
float64 = Type("Float64", np.float64)
int8 = Type("Int8", np.int8)
int16 = Type("Int16", np.int16)
int32 = Type("Int32", np.int32)
int64 = Type("Int64", np.int64)
uint8 = Type("UInt8", np.uint8)
uint16 = Type("UInt16", np.uint16)
uint32 = Type("UInt32", np.uint32)
uint64 = Type("UInt64", np.uint64)
bool_ = Type("Bool", np.bool_)

half, single, double = float16, float32, float64

_ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool_)
_BY_NP = {t.np_dtype: t for t in _ALL}
_BY_NAME = {t.name: t for t in _ALL}

float_types = (float16, float32, float64)
int_types = (int8, int16, int32, int64, uint8)
number_types = float_types + int_types


def pytype_to_dtype_by_name(name):
    return _BY_NAME[name]


def dtype_to_nptype(t):
    """ms dtype -> numpy dtype."""
    return to_type(t).np_dtype


def to_type(x):
    """Accept an ms Type, a numpy dtype or a numpy scalar type and return the ms Type."""
    if isinstance(x, Type):
        return x
    if x is bool:
        return bool_
    if x is int:
        return int64
    if x is float:
        return float32
    try:
        np_dt = np.dtype(x)
    except TypeError:
        raise TypeError(f"Unsupported dtype {x!r}; valid dtypes are "
                        f"{', '.join(t.name for t in _ALL)}") from None
    if np_dt not in _BY_NP:
        raise TypeError(f"Unsupported dtype {np_dt}; valid dtypes are "
                        f"{', '.join(t.name for t in _ALL)}")
    return _BY_NP[np_dt]
