"""dask.array's own names in tegula: every public name of ``dir(dask.array)`` is tegula's or is
listed, with a reason, in README.md's "Not yet" paragraph; and Dask's functions that NumPy has
no counterpart for (``moment``, ``coarsen``, ``push``, ``reduction``, ``shuffle``,
``unify_chunks``, ``fromfunction``, ``atop``, ``gufunc``/``as_gufunc``, ``assert_eq``,
``PerformanceWarning``, ``euler_gamma``) against NumPy computations of what Dask documents,
over random shapes, chunkings and dtypes."""

import math
import pathlib
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from strategies import ALL_DTYPES, FLOAT, assert_same, chunkings, dtypes, error_class, np_arrays, quiet, shapes

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def chunked(data, a):
    return tg.asarray(a, chunks=data.draw(chunkings(np.shape(a)))[0])


def not_yet_names():
    """The names in backquotes in README.md's paragraph that starts "Not yet"."""
    text = README.read_text()
    start = text.index("Not yet (tracked as later work)")
    end = text.find("\n\n", start)
    return set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", text[start:end if end >= 0 else None]))


def test_every_dask_array_name_is_in_tegula_or_listed_as_not_yet():
    da = pytest.importorskip("dask.array")
    listed = not_yet_names()
    public = [n for n in dir(da) if not n.startswith("_")]
    missing = [n for n in public if not hasattr(tg, n) and n not in listed]
    assert not missing, f"dask.array names neither in tegula nor in README's 'Not yet' paragraph: {missing}"
    both = sorted(n for n in listed if hasattr(tg, n) and n in public)
    assert not both, f"README lists as not yet names tegula has: {both}"


def test_new_names_are_exported():
    for name in ("moment", "coarsen", "push", "reduction", "shuffle", "unify_chunks", "fromfunction", "atop",
                 "gufunc", "as_gufunc", "assert_eq", "PerformanceWarning", "euler_gamma", "isnull", "notnull",
                 "unique", "piecewise", "frexp", "divmod", "around", "asanyarray"):
        assert name in tg.__all__ and hasattr(tg, name), name
    assert tg.euler_gamma == np.euler_gamma
    assert issubclass(tg.PerformanceWarning, Warning)
    assert tg.around is tg.round and tg.asanyarray is tg.asarray


# --- moment -------------------------------------------------------------------------------------

def numpy_moment(a, order, axis, ddof, keepdims):
    """Dask's definition computed by NumPy in float64 (complex128 for the mean of complex
    values, whose deviations are taken in absolute value), cast to NumPy's ``var`` dtype."""
    dtype = np.var(np.ones(1, a.dtype)).dtype
    if order < 2:
        return np.full(np.sum(a, axis=axis, keepdims=keepdims).shape, float(order == 0))
    wide = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    deviations = wide - wide.mean(axis=axis, keepdims=True)
    if a.dtype.kind == "c":
        deviations = np.abs(deviations)
    n = (a.size if axis is None else math.prod(a.shape[i] for i in np.atleast_1d(axis))) - ddof
    return ((deviations ** order).sum(axis=axis, keepdims=keepdims) / (n if n >= 0 else np.nan)).astype(dtype)


@given(st.data(), st.integers(0, 5), st.integers(0, 2), st.booleans())
def test_moment_is_the_central_moment(data, order, ddof, keepdims):
    dtype = data.draw(dtypes())
    shape = data.draw(shapes(max_dims=3))
    a = data.draw(np_arrays(dtype, shape, max_magnitude=100, allow_infinity=False))
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1) if shape else st.none())
    with quiet():
        expected = numpy_moment(a, order, axis, ddof, keepdims)
        out = tg.moment(chunked(data, a), order, axis=axis, ddof=ddof, keepdims=keepdims)
        assert isinstance(out, tg.Array)
        eps = float(np.finfo(expected.dtype).eps)
        scale = np.abs(numpy_moment(np.abs(a).astype(np.float64), order, axis, 0, keepdims)) if order >= 2 else 0
        got = out.compute()
    assert got.dtype == expected.dtype and got.shape == expected.shape
    rtol = 1e-2 if expected.dtype == np.float16 else 1e3 * eps
    # cancellation in a - mean: errors grow with the magnitudes, not the (small) moment
    assert_same(got, expected, rtol=rtol, atol=np.maximum(rtol * (scale + np.abs(expected)), 1e-30))


def test_moment_agrees_with_dask_and_refuses_bad_orders():
    da = pytest.importorskip("dask.array")
    a = np.arange(24.0).reshape(4, 6) ** 1.5
    for order, axis in ((2, None), (3, 0), (4, 1)):
        np.testing.assert_allclose(tg.moment(tg.asarray(a, chunks=3), order, axis=axis).compute(),
                                   da.moment(da.from_array(a, chunks=3), order, axis=axis).compute(), rtol=1e-10)
    for order in (-1, 2.5):
        with pytest.raises(ValueError, match="Order"):
            tg.moment(tg.asarray(a), order)


# --- coarsen ------------------------------------------------------------------------------------

@given(st.data(), st.sampled_from(["sum", "mean", "max", "min"]), st.booleans())
def test_coarsen_reduces_each_window(data, name, trim_excess):
    dtype = data.draw(dtypes([d for d in ALL_DTYPES if d.kind in "iuf"]))
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=7))
    a = data.draw(np_arrays(dtype, shape, integral=True, small=True))
    axes = {i: data.draw(st.integers(1, 3)) for i in range(len(shape)) if data.draw(st.booleans())}
    if data.draw(st.booleans()) and axes:
        axes = {i - len(shape): f for i, f in axes.items()}  # negative axes count from the end
    factors = [1] * len(shape)
    for i, f in axes.items():
        factors[i] = f
    reduction = getattr(np, name)
    fits = all(n % f == 0 for n, f in zip(shape, factors))
    if not (fits or trim_excess):
        with pytest.raises(ValueError, match="Coarsening factors"):
            tg.coarsen(reduction, chunked(data, a), axes, trim_excess=trim_excess)
        return
    trimmed = a[tuple(slice(0, n - n % f) for n, f in zip(shape, factors))]
    windows = trimmed.reshape(tuple(v for n, f in zip(trimmed.shape, factors) for v in (n // f, f)))
    expected = reduction(windows, axis=tuple(range(1, 2 * len(shape), 2)))
    out = tg.coarsen(reduction, chunked(data, a), axes, trim_excess=trim_excess)
    assert isinstance(out, tg.Array)
    assert_same(out.compute(), expected)


def test_coarsen_takes_tegula_reductions_and_keywords():
    a = np.arange(24.0).reshape(4, 6)
    out = tg.coarsen(tg.mean, tg.asarray(a, chunks=(3, 4)), {0: 2, 1: 3}, keepdims=False)
    assert_same(out.compute(), a.reshape(2, 2, 2, 3).mean(axis=(1, 3)))


# --- push ---------------------------------------------------------------------------------------

def numpy_push(a, n, axis):
    """bottleneck's ``push`` along ``axis``, with ``dask.array.push``'s reading of ``n``: each
    NaN takes the last earlier non-NaN value, if that is at most ``n`` positions back."""
    limit = n if n is not None and 0 < n < a.shape[axis] - 1 else a.shape[axis]
    out = np.moveaxis(a, axis, -1).copy()  # C order: the lanes are rows of one buffer
    for lane in out.reshape(-1, out.shape[-1]) if out.size else []:
        last, where = None, None
        for i, v in enumerate(lane):
            if not np.isnan(v):
                last, where = v, i
            elif last is not None and i - where <= limit:
                lane[i] = last
    return np.moveaxis(out, -1, axis)


@given(st.data(), st.none() | st.integers(-1, 6))
def test_push_fills_forward(data, n):
    dtype = data.draw(dtypes(ALL_DTYPES))
    shape = data.draw(shapes(min_dims=1, max_dims=3, max_side=6))
    a = data.draw(np_arrays(dtype, shape))
    if dtype.kind in "fc" and a.size:
        a.flat[data.draw(st.lists(st.integers(0, a.size - 1), max_size=a.size))] = np.nan
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    expected = numpy_push(a, n, axis) if dtype.kind in "fc" else a
    out = tg.push(chunked(data, a), n, axis)
    assert isinstance(out, tg.Array)
    assert_same(out.compute(), expected, exact=True)


def test_push_checks_its_axis():
    with pytest.raises(np.exceptions.AxisError):
        tg.push(tg.zeros((2, 3)), None, 2)


# --- reduction ----------------------------------------------------------------------------------

@given(st.data(), st.sampled_from([("sum", "sum"), ("max", "max"), ("min", "min"), ("count_nonzero", "sum")]),
       st.booleans())
def test_reduction_runs_chunk_then_aggregate(data, pair, keepdims):
    dtype = data.draw(dtypes([d for d in ALL_DTYPES if d.kind in "iuf"]))
    shape = data.draw(shapes(max_dims=3, min_side=1))
    a = data.draw(np_arrays(dtype, shape, integral=True, small=True))
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1) | st.just(tuple(range(len(shape)))[:2])
                     if shape else st.none())
    chunk, aggregate = (getattr(np, f) for f in pair)
    if pair[0] == "count_nonzero":
        expected = np.count_nonzero(a, axis=axis, keepdims=keepdims)
    else:
        expected = chunk(a, axis=axis, keepdims=keepdims)
    out = tg.reduction(chunked(data, a), chunk, aggregate, axis=axis, keepdims=keepdims, dtype=expected.dtype)
    assert isinstance(out, tg.Array)
    assert_same(out.compute(), expected)


def test_reduction_needs_a_dtype_and_array_partials():
    x = tg.arange(6, chunks=2)
    with pytest.raises(ValueError, match="dtype"):
        tg.reduction(x, np.sum, np.sum)
    with pytest.raises(ValueError, match="concatenate"):
        tg.reduction(x, np.sum, np.sum, dtype=int, concatenate=False)


def test_reduction_keeps_output_size_elements():
    """A chunk function that keeps two elements per block (the block's two smallest), with an
    aggregate that keeps the two smallest of them: Dask's ``output_size``."""
    a = np.array([5.0, 1.0, 7.0, 3.0, 9.0, 2.0, 8.0])

    def two_smallest(block, axis, keepdims):
        return np.sort(block, axis=axis[0])[:2] if block.shape[0] >= 2 else np.concatenate([block, [np.inf]])[:2]

    out = tg.reduction(tg.asarray(a, chunks=3), two_smallest, two_smallest, axis=0, keepdims=True, dtype=float,
                       output_size=2)
    assert_same(out.compute(), np.array([1.0, 2.0]), exact=True)


# --- shuffle, unify_chunks ----------------------------------------------------------------------

@given(st.data())
def test_shuffle_takes_the_groups_in_order(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1))
    a = data.draw(np_arrays(data.draw(dtypes()), shape))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[axis]
    positions = data.draw(st.permutations(range(n)))
    cuts = sorted(data.draw(st.sets(st.integers(1, max(n - 1, 1)), max_size=3)))
    indexer = [list(positions[i:j]) for i, j in zip([0] + cuts, cuts + [n]) if positions[i:j]]
    out = tg.shuffle(chunked(data, a), indexer, axis)
    assert isinstance(out, tg.Array)
    assert_same(out.compute(), np.take(a, [i for g in indexer for i in g], axis=axis), exact=True)


def test_shuffle_errors_are_dasks():
    x = tg.zeros((3, 4), chunks=2)
    with pytest.raises(ValueError, match="list of lists"):
        tg.shuffle(x, [0, 1], 1)
    with pytest.raises(IndexError, match="out of bounds"):
        tg.shuffle(x, [[0], [4]], 1)
    with pytest.raises(np.exceptions.AxisError):
        tg.shuffle(x, [[0]], 2)


@given(st.data())
def test_unify_chunks_merges_the_block_boundaries_of_each_label(data):
    n, m = data.draw(st.integers(1, 7)), data.draw(st.integers(1, 7))
    x = tg.ones((n, m), chunks=data.draw(chunkings((n, m)))[0])
    y = tg.ones((m,), chunks=data.draw(chunkings((m,)))[0])
    z = tg.ones((1, n), chunks=data.draw(chunkings((1, n)))[0])  # its length-one axis broadcasts
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tg.PerformanceWarning)
        chunkss, (x2, y2, z2, const) = tg.unify_chunks(x, "ij", y, "j", z, "ki", 5, None)
    bounds = lambda chunks: set(np.cumsum(chunks).tolist())  # noqa: E731
    assert bounds(chunkss["j"]) == bounds(x.chunks[1]) | bounds(y.chunks[0])
    assert bounds(chunkss["i"]) == bounds(x.chunks[0]) | bounds(z.chunks[1]) and chunkss["k"] == (1,)
    assert x2.chunks == (chunkss["i"], chunkss["j"]) and y2.chunks == (chunkss["j"],)
    assert z2.chunks[0] == (1,) and z2.chunks[1] == chunkss["i"] and const == 5
    assert_same(x2.compute(), np.ones((n, m)), exact=True)


def test_unify_chunks_is_dasks_and_warns_as_dask():
    da = pytest.importorskip("dask.array")
    for a_chunks, b_chunks in ((((5, 2, 3),), ((2, 3, 5),)), (((4, 6),), ((10,),))):
        ours, _ = tg.unify_chunks(tg.ones(10, chunks=a_chunks), "i", tg.ones(10, chunks=b_chunks), "i")
        theirs, _ = da.unify_chunks(da.ones(10, chunks=a_chunks), "i", da.ones(10, chunks=b_chunks), "i")
        assert ours == theirs
    assert tg.unify_chunks() == ({}, [])
    with pytest.warns(tg.PerformanceWarning):
        tg.unify_chunks(tg.ones((40, 1), chunks=(40, 1)), "ij", tg.ones((40, 40), chunks=(40, 4)), "jk",
                        tg.ones((40,), chunks=4), "i")
    with pytest.raises(ValueError):
        tg.unify_chunks(tg.ones(3), "i", tg.ones(4), "i")


def test_empty_axes_cut_into_different_numbers_of_blocks_unify():
    x = tg.asarray(np.zeros((0, 3)), chunks=((0, 0, 0), (1, 2)))
    y = tg.asarray(np.ones((0, 3)), chunks=((0,), (3,)))
    chunkss, (x2, y2) = tg.unify_chunks(x, "ij", y, "ij")
    assert chunkss == {"i": (0,), "j": (1, 2)} and x2.chunks == y2.chunks == ((0,), (1, 2))
    assert_same(tg.map_blocks(np.add, x, y).compute(), np.zeros((0, 3)), exact=True)
    assert_same(tg.piecewise(x, [y > 0], [lambda v: v * 2]).compute(), np.zeros((0, 3)), exact=True)


# --- fromfunction, atop, gufunc, assert_eq --------------------------------------------------------

@given(st.data(), st.sampled_from([None, "int64", "float32"]))
def test_fromfunction_calls_the_function_on_each_blocks_coordinates(data, dtype):
    shape = data.draw(shapes(min_dims=1, max_dims=3))
    chunks = data.draw(chunkings(shape))[0]
    func = lambda *grid: sum((k + 1) * g for k, g in enumerate(grid)) % 7  # noqa: E731
    out = tg.fromfunction(func, chunks=chunks, shape=shape, dtype=dtype)
    assert isinstance(out, tg.Array)
    assert_same(out.compute(), np.fromfunction(func, shape, dtype=dtype or float))


def test_atop_is_blockwise_with_dasks_warning():
    x = tg.asarray(np.arange(6.0), chunks=4)
    with pytest.warns(UserWarning, match="blockwise"):
        out = tg.atop(np.multiply, "i", x, "i", 2, None, dtype=float)
    assert_same(out.compute(), np.arange(6.0) * 2, exact=True)


def test_as_gufunc_and_gufunc_apply_the_function_to_core_axes():
    a = np.arange(24.0).reshape(4, 6)

    @tg.as_gufunc("(i)->()", output_dtypes=float)
    def spread(v):
        return v.max(axis=-1) - v.min(axis=-1)

    out = spread(tg.asarray(a, chunks=(2, 6)))
    assert isinstance(out, tg.Array) and spread.__name__ == "spread"
    assert_same(out.compute(), np.ptp(a, axis=-1), exact=True)
    stats = tg.gufunc(lambda v: (v.mean(axis=-1), v.sum(axis=-1)), signature="(i)->(),()",
                      output_dtypes=(float, float))
    mean, total = stats(tg.asarray(a, chunks=(1, 6)))
    assert_same(mean.compute(), a.mean(axis=-1))
    assert_same(total.compute(), a.sum(axis=-1))
    with pytest.raises(ValueError):
        tg.as_gufunc()


@settings(max_examples=30)
@given(st.data())
def test_assert_eq_compares_computed_values(data):
    dtype = data.draw(dtypes(FLOAT))
    a = data.draw(np_arrays(dtype, data.draw(shapes(max_dims=2)), allow_infinity=False))
    x = chunked(data, a)
    assert tg.assert_eq(x, a) is True
    assert tg.assert_eq(x, x) is True
    if a.size and not np.isnan(a).all():
        b = a.copy()
        b[~np.isnan(b)] += 1 + abs(b[~np.isnan(b)])
        with pytest.raises(AssertionError):
            tg.assert_eq(x, b)
    with pytest.raises(AssertionError, match="dtypes"):
        tg.assert_eq(x, a.astype(np.complex128))
    assert tg.assert_eq(x, a.astype(np.complex128), check_dtype=False)
