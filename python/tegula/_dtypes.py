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


# The units of NumPy's datetime64/timedelta64 that tegula has: the generic unit, years, months,
# and those of a fixed length from weeks to nanoseconds (not multiples such as "5s", not finer
# than ns).
TIME_UNITS = ("generic", "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns")


def is_supported(d):
    """Whether tegula has the NumPy dtype ``d``."""
    if d.kind in "mM":
        return np.datetime_data(d) in ((u, 1) for u in TIME_UNITS) and d.isnative
    return d in SUPPORTED


def in_unit_of(items):
    """``items`` with NumPy times of no unit (``np.datetime64("NaT")``) in the unit of the first
    time array or value among them that has one, as NumPy converts them when they meet."""
    def unit(x):
        d = getattr(x, "dtype", None)
        return np.datetime_data(d)[0] if isinstance(d, np.dtype) and d.kind in "mM" else None

    units = [u for u in map(unit, items) if u not in (None, "generic")]
    if not units:
        return list(items)
    return [x.astype(f"{x.dtype.char}8[{units[0]}]") if unit(x) == "generic" else x for x in items]


def dtype_name(dtype):
    """The canonical name of anything NumPy accepts as a dtype (None stays None)."""
    if dtype is None:
        return None
    d = np.dtype(dtype)
    if not is_supported(d):
        raise TypeError(f"tegula does not support dtype {d}")
    return d.name


def is_python_scalar(x):
    """Python's own bool/int/float/complex: "weak" in NumPy 2 promotion (NumPy scalars are not)."""
    return type(x) in (int, float, complex) or type(x) is type(True)
