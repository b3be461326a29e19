"""tegula's dtypes are NumPy's dtype objects; this module converts what users pass."""

import numpy as np

bool = np.dtype("bool")
int8, int16, int32, int64 = (np.dtype(f"int{b}") for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (np.dtype(f"uint{b}") for b in (8, 16, 32, 64))
float16, float32, float64 = (np.dtype(f"float{b}") for b in (16, 32, 64))
complex64, complex128 = np.dtype("complex64"), np.dtype("complex128")

SUPPORTED = (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
             float16, float32, float64, complex64, complex128)


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
