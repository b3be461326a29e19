"""What the array API standard asks a namespace to tell about itself: dtype limits (``finfo``,
``iinfo``), dtype kinds (``isdtype``) and the inspection namespace (``__array_namespace_info__``).
tegula's devices are the CPU, ``"cpu"``, where every array starts, and those added to its
device table (``tegula._tegula.device_names()``)."""

import numpy as np

from . import _dtypes
from ._dtypes import SUPPORTED

CPU = "cpu"


class finfo_object:
    """Limits of a floating dtype as Python floats (the limits of a complex dtype's parts)."""

    def __init__(self, dtype):
        info = np.finfo(dtype)
        self.bits, self.dtype = info.bits, info.dtype
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.smallest_normal = float(info.smallest_normal)
        self.resolution, self.tiny = float(info.resolution), float(info.tiny)

    def __repr__(self):
        return f"finfo(dtype={self.dtype}, bits={self.bits}, eps={self.eps}, max={self.max})"


class iinfo_object:
    """Limits of an integer dtype as Python ints."""

    def __init__(self, dtype):
        info = np.iinfo(dtype)
        self.bits, self.dtype, self.max, self.min = info.bits, info.dtype, int(info.max), int(info.min)

    def __repr__(self):
        return f"iinfo(dtype={self.dtype}, bits={self.bits}, min={self.min}, max={self.max})"


def _dtype_of(type_):
    d = np.dtype(type_ if _is_dtype_object(type_) else getattr(type_, "dtype", type_))
    if d not in SUPPORTED:
        raise TypeError(f"tegula does not support dtype {d}")
    return d


def finfo(type, /):
    """Machine limits of a floating (or complex) dtype, or of an array's dtype."""
    d = _dtype_of(type)
    if d.kind not in "fc":
        raise TypeError(f"finfo needs a floating or complex dtype, not {d}")
    return finfo_object(d)


def iinfo(type, /):
    """Machine limits of an integer dtype, or of an array's dtype."""
    d = _dtype_of(type)
    if d.kind not in "iu":
        raise TypeError(f"iinfo needs an integer dtype, not {d}")
    return iinfo_object(d)


_KINDS = {
    "bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
    "real floating": "f", "complex floating": "c", "numeric": "iufc",
}


def _is_dtype_object(x):
    """A dtype instance or one of NumPy's scalar types (tegula's public dtype names)."""
    return isinstance(x, np.dtype) or (isinstance(x, type) and issubclass(x, np.generic))


def _exact_dtype(x):
    # Not strings or Python types: the standard's isdtype takes dtype objects only.
    if not _is_dtype_object(x):
        raise TypeError(f"isdtype needs a tegula dtype, not {x!r}")
    return _dtype_of(x)


def isdtype(dtype, kind):
    """Whether ``dtype`` is of ``kind``: a dtype, one of the standard's kind names, or a tuple
    of these (any of them)."""
    dtype = _exact_dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"unknown dtype kind {kind!r}; expected one of {sorted(_KINDS)}")
        return dtype.kind in _KINDS[kind]
    if _is_dtype_object(kind):
        return dtype == kind
    raise TypeError(f"kind must be a dtype, a kind name or a tuple of these, not {kind!r}")


def _check_device(device):
    """Refuses a ``device`` that is not one of tegula's (``None``: the default, the CPU)."""
    from . import _tegula

    if device is None or device in _tegula.device_names():
        return
    if device == "gpu":
        _tegula.find_device(device)  # opens the GPU, or says what is missing
        return
    raise ValueError(f"no device {device!r}; tegula's devices are {', '.join(map(repr, _tegula.device_names()))}")


def _on(device, x):
    """The array ``x`` (made on the CPU) on ``device`` (``None``: where it is)."""
    return x if device is None else x.to_device(device)


class Info:
    """The inspection namespace of the array API standard."""

    def capabilities(self):
        # Boolean masks and unique give shapes known only once computed.
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self):
        return CPU

    def devices(self):
        from . import _tegula

        try:
            _tegula.find_device("gpu")  # listed once opened, where there is one
        except ValueError:
            pass
        return tuple(_tegula.device_names())

    def default_dtypes(self, *, device=None):
        _check_device(device)
        return {"real floating": _dtypes.float64, "complex floating": _dtypes.complex128,
                "integral": _dtypes.int64, "indexing": _dtypes.int64}

    def dtypes(self, *, device=None, kind=None):
        _check_device(device)
        names = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float32", "float64", "complex64", "complex128")
        chosen = {n: getattr(_dtypes, n) for n in names}
        return {n: d for n, d in chosen.items() if kind is None or isdtype(d, kind)}


def __array_namespace_info__():
    return Info()
