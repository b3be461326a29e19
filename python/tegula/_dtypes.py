"""tegula's dtypes are NumPy's: the public names are NumPy's scalar types (`tg.float64 is
np.float64`), as in NumPy's own namespace, and arrays carry NumPy dtype objects, which compare
equal to them (`x.dtype == tg.float64`); this module converts what users pass.

The names are the scalar types rather than dtype instances because a dtype instance compares
equal to `None` (`np.dtype(None)` is float64), so `None == tg.float64` would be True."""

import numpy as np

bool = np.bool
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128

SUPPORTED = tuple(np.dtype(t) for t in (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
             float16, float32, float64, complex64, complex128))


def dtype_name(dtype):
    """The canonical name of anything NumPy accepts as a dtype (None stays None)."""
    if dtype is None:
        return None
    d = np.dtype(dtype)
    if d not in SUPPORTED:
        raise TypeError(f"tegula does not support dtype {d}")
    return d.name


def is_python_scalar(x):
    """Python's own bool/int/float/complex: "weak" in NumPy 2 promotion (NumPy scalars are not)."""
    return type(x) in (int, float, complex) or type(x) is type(True)
