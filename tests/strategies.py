"""Hypothesis strategies and NumPy-oracle helpers shared by the test suite.

Every strategy here draws *inputs*; expected values always come from NumPy, never from tegula.
"""

import contextlib
import shutil
import tempfile
import warnings

import numpy as np
from hypothesis import settings, strategies as st
from hypothesis.extra import numpy as hnp

import tegula as tg

def more_examples(factor=3):
    """Settings for the properties with the largest input spaces (every op times every dtype
    pair): ``factor`` times the active profile's number of examples."""
    return settings(max_examples=settings.default.max_examples * factor)


BOOL = [np.dtype(bool)]
SIGNED = [np.dtype(f"int{b}") for b in (8, 16, 32, 64)]
UNSIGNED = [np.dtype(f"uint{b}") for b in (8, 16, 32, 64)]
INTEGER = SIGNED + UNSIGNED
FLOAT = [np.dtype(f"float{b}") for b in (16, 32, 64)]
COMPLEX = [np.dtype("complex64"), np.dtype("complex128")]
ALL_DTYPES = BOOL + INTEGER + FLOAT + COMPLEX

MAX_SIDE = 5


def dtypes(choices=ALL_DTYPES):
    return st.sampled_from(choices)


def shapes(min_dims=0, max_dims=3, min_side=0, max_side=MAX_SIDE):
    """Shapes including 0-d, zero-length axes and length-one axes."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


# --- chunkings -------------------------------------------------------------------------------

def split(n, block):
    """Dask's regular split of an axis of length ``n`` into blocks of ``block``."""
    if n == 0:
        return (0,)
    block = min(block, n)
    out = [block] * (n // block)
    if n % block:
        out.append(n % block)
    return tuple(out)


@st.composite
def explicit_axis(draw, n):
    """A tuple of block lengths summing to ``n``; only a zero-length axis has zero-length blocks."""
    if n == 0:
        return (0,) * draw(st.integers(1, 2))
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=n - 1))) if n > 1 else []
    bounds = [0] + cuts + [n]
    return tuple(b - a for a, b in zip(bounds, bounds[1:]))


@st.composite
def axis_chunking(draw, n):
    """One axis's entry of a per-axis ``chunks=`` tuple, with the block lengths it means."""
    kind = draw(st.sampled_from(["int", "full", "none", "auto", "explicit"]))
    if kind == "int":
        block = draw(st.integers(1, max(n, 1) + 1))
        return block, split(n, block)
    if kind == "full":
        return -1, (n,)
    if kind == "none":
        return None, (n,)
    if kind == "auto":  # tiny test arrays are far below the automatic byte target
        return "auto", (n,)
    blocks = draw(explicit_axis(n))
    return blocks, blocks


@st.composite
def chunkings(draw, shape):
    """A ``chunks=`` argument for ``shape`` and the tuple of tuples it must normalise to:
    an int for every axis, "auto", a per-axis tuple (ints, -1, None, "auto") or explicit
    block lengths (regular and irregular)."""
    kind = draw(st.sampled_from(["int", "auto", "per-axis", "explicit"]))
    if kind == "int":
        block = draw(st.integers(1, max(shape + (1,)) + 1))
        return block, tuple(split(n, block) for n in shape)
    if kind == "auto":
        return "auto", tuple((n,) for n in shape)
    if kind == "explicit":
        blocks = tuple(draw(explicit_axis(n)) for n in shape)
        return blocks, blocks
    pairs = [draw(axis_chunking(n)) for n in shape]
    return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)


def regular_chunks(shape):
    """Only the ``int``-per-axis form, for tests that need cheap chunkings."""
    return st.tuples(*[st.integers(1, max(n, 1)) for n in shape])


# --- values ----------------------------------------------------------------------------------

@st.composite
def stored_case(draw):
    """``(data, chunks, store_chunks)``: an array of any dtype, a chunking of it, and stored
    chunks (None: the writer's default) — a round trip through a store."""
    dtype = draw(dtypes(ALL_DTYPES))
    shape = draw(shapes(max_dims=3, max_side=6))
    data = draw(np_arrays(dtype, shape))
    spec, _ = draw(chunkings(shape))
    store_chunks = draw(st.one_of(st.none(), regular_chunks(shape)))
    return data, spec, store_chunks


def elements(dtype, *, allow_nan=True, allow_infinity=True, max_magnitude=None, integral=False, small=False):
    """Element values for ``dtype``. ``max_magnitude`` bounds floats (and complex parts);
    ``integral`` makes inexact dtypes hold small whole numbers (exact arithmetic), and with
    ``small`` integer dtypes too."""
    dtype = np.dtype(dtype)
    if integral and (dtype.kind in "fc" or small and dtype.kind in "iub"):
        ints = st.integers(0 if dtype.kind in "ub" else -4, 1 if dtype.kind == "b" else 4)
        return {"c": ints.map(complex), "f": ints.map(float), "b": ints.map(bool)}.get(dtype.kind, ints)
    if max_magnitude is None or dtype.kind not in "fc":
        return hnp.from_dtype(dtype, allow_nan=allow_nan, allow_infinity=allow_infinity)
    width = dtype.itemsize * 8 // (2 if dtype.kind == "c" else 1)
    part = st.floats(-max_magnitude, max_magnitude, width=width)
    if allow_nan:
        part = st.one_of(part, st.just(float("nan")))
    if allow_infinity:
        part = st.one_of(part, st.sampled_from([float("inf"), float("-inf")]))
    if dtype.kind == "c":
        return st.builds(complex, part, part)
    return part


def np_arrays(dtype, shape, **kwargs):
    return hnp.arrays(dtype, shape, elements=elements(dtype, **kwargs))


@st.composite
def chunked_arrays(draw, dtype=None, shape=None, **element_kwargs):
    """``(numpy_array, tegula_array)`` with the same values, the tegula one chunked at random."""
    dtype = draw(dtypes()) if dtype is None else np.dtype(dtype)
    shape = draw(shapes()) if shape is None else shape
    data = draw(np_arrays(dtype, shape, **element_kwargs))
    spec, _ = draw(chunkings(shape))
    return data, tg.asarray(data, chunks=spec)


def python_scalars(kinds=("bool", "int", "float", "complex"), int_range=(-300, 300)):
    """A Python bool/int/float/complex (NumPy 2 "weak" scalars)."""
    options = {
        "bool": st.booleans(),
        "int": st.one_of(st.integers(*int_range), st.integers(-(2**64), 2**64)),
        "float": st.floats(allow_nan=True, allow_infinity=True),
        "complex": st.complex_numbers(max_magnitude=1e6, allow_nan=False, allow_infinity=False),
    }
    return st.one_of(*[options[k] for k in kinds])


def float_to_int_defined(values, dtype):
    """Whether casting inexact ``values`` to ``dtype`` is defined in C (and so in NumPy): no
    NaN/inf and every value inside an integer dtype's range. Other casts are always defined."""
    dtype = np.dtype(dtype)
    values = np.asarray(values)
    if dtype.kind not in "iu" or values.dtype.kind not in "fc":
        return True
    with quiet():
        real = np.real(values).astype(np.float64)
        if not np.isfinite(real).all():
            return False
        info = np.iinfo(dtype)
        return bool(((real > info.min - 1) & (real < float(info.max) + 1)).all() and (real < 2.0**63).all())


# --- comparing with the oracle ---------------------------------------------------------------

@contextlib.contextmanager
def quiet():
    """NumPy's RuntimeWarnings (overflow, invalid, divide) and ComplexWarnings, silenced."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def oracle(fn, *args, **kwargs):
    """``(result, None)`` or ``(None, exception)`` of NumPy's ``fn``."""
    with quiet():
        try:
            return np.asarray(fn(*args, **kwargs)), None
        except Exception as e:  # noqa: BLE001 - the oracle's exception is what we compare
            return None, e


def error_class(exc):
    """The exception class tegula must raise where NumPy raised ``exc`` (NumPy's ufunc type
    errors are subclasses of TypeError)."""
    for cls in (OverflowError, np.exceptions.AxisError, IndexError, ZeroDivisionError, TypeError, ValueError):
        if isinstance(exc, cls):
            return cls
    return type(exc)


ELEMENTWISE_RTOL = {"float16": 1e-3, "float32": 1e-6, "float64": 1e-12, "complex64": 1e-6, "complex128": 1e-12}


def tiny(dtype):
    return float(np.finfo(dtype).tiny) if np.dtype(dtype).kind in "fc" else 0.0


def assert_same(actual, expected, *, rtol=None, atol=None, exact=False):
    """``actual`` (computed by tegula) equals NumPy's ``expected``: same shape and dtype; equal
    values, exactly for bool and integer results (and floats when ``exact``), else within
    ``rtol``/``atol`` (default: the dtype's elementwise tolerance); NaNs in the same places."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != numpy's {expected.dtype}"
    assert actual.shape == expected.shape, f"shape {actual.shape} != numpy's {expected.shape}"
    if expected.dtype.kind in "biumM" or exact:
        np.testing.assert_array_equal(actual, expected, strict=True)
        return
    rtol = ELEMENTWISE_RTOL[expected.dtype.name] if rtol is None else rtol
    atol = tiny(expected.dtype) if atol is None else atol
    atol = np.broadcast_to(np.asarray(atol, dtype=np.float64), expected.shape)
    if expected.dtype.kind == "c":
        # NaN in either part is "a NaN" for both libraries; compare the other parts separately.
        nan_a, nan_e = np.isnan(actual), np.isnan(expected)
        np.testing.assert_array_equal(nan_a, nan_e, err_msg="NaNs in different places")
        keep = ~nan_e
        for part in (np.real, np.imag):
            _assert_close(part(actual[keep]), part(expected[keep]), rtol, atol[keep])
        return
    _assert_close(actual, expected, rtol, atol)


def _assert_close(actual, expected, rtol, atol):
    """Like numpy.testing.assert_allclose (NaNs and infinities must match), with an ``atol``
    per element."""
    with quiet():
        ok = np.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
    if not ok.all():
        where = [tuple(int(i) for i in w) for w in np.argwhere(~ok)[:6]]
        lines = [f"  at {w}: {actual[w]!r} (tegula) vs {expected[w]!r} (numpy), atol {atol[w]:.3g}" for w in where]
        raise AssertionError(f"{(~ok).sum()} of {ok.size} elements differ beyond rtol={rtol:.3g}:\n"
                             + "\n".join(lines))


def same_bytes(a, b):
    """Equal shape, dtype and bits (NaN payloads and signed zeros included)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


@contextlib.contextmanager
def scratch_dir():
    """A fresh directory for one property example (pytest's ``tmp_path`` lasts a whole test)."""
    path = tempfile.mkdtemp(prefix="tegula-test-")
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


# --- xarray objects ----------------------------------------------------------------------------

def assert_lazy(obj):
    """Every data variable of a Dataset (the data of a DataArray) is a lazy tegula array."""
    variables = obj.data_vars.items() if hasattr(obj, "data_vars") else [(obj.name, obj)]
    for name, v in variables:
        assert isinstance(v.data, tg.Array), (name, type(v.data))


def assert_matches(actual, expected, rtol=None, atol=None):
    """Every variable of the Dataset ``actual`` (computed) equals ``expected``'s: dtype, dims,
    values (NaN where NumPy has NaN) within ``rtol`` and ``atol`` (by default float32 to its
    precision, other dtypes to 1e-10, ``atol`` 100 times ``rtol``), and the attributes."""
    assert set(actual.data_vars) == set(expected.data_vars)
    for name, e in expected.data_vars.items():
        a = actual[name]
        assert a.dims == e.dims and a.dtype == e.dtype, (name, a.dims, e.dims, a.dtype, e.dtype)
        tolerance = rtol if rtol is not None else 1e-4 if e.dtype == np.float32 else 1e-10
        np.testing.assert_allclose(a.values, e.values, rtol=tolerance,
                                   atol=tolerance * 100 if atol is None else atol, equal_nan=True, err_msg=name)
        assert a.attrs == e.attrs
    assert actual.attrs == expected.attrs
