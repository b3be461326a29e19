"""Reductions against NumPy: sum, prod, mean, min, max, var, std, any, all over every dtype,
with axis as None, an int, a negative int or a tuple, keepdims, small split_every (so that
partials combine through a tree of several levels), as functions and as methods."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import (assert_same, chunkings, dtypes, error_class, float_to_int_defined,
                        more_examples, np_arrays, oracle, quiet, shapes)

REDUCTIONS = ["sum", "prod", "mean", "min", "max", "var", "std", "any", "all"]
EXACT = {"min", "max", "any", "all"}


@st.composite
def axes(draw, ndim):
    """None, an int (maybe negative), or a tuple of distinct axes in any order and sign."""
    if ndim == 0:
        return draw(st.sampled_from([None, ()]))
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none":
        return None
    if kind == "int":
        return draw(st.integers(-ndim, ndim - 1))
    chosen = draw(st.permutations(range(ndim)))[: draw(st.integers(0, ndim))]
    return tuple(a - ndim if draw(st.booleans()) else a for a in chosen)


def values_for(op, dtype):
    """Bounded floats where the two libraries' (both legitimate) accumulation orders would
    otherwise overflow at different points; NaN and infinities stay in, except in complex
    products: there ``inf * 0`` makes NaN parts that depend on the order of the
    multiplications (NumPy even turns ``prod([infj])`` into ``nan+infj``)."""
    if op == "prod":
        finite = np.dtype(dtype).kind == "c"
        return dict(max_magnitude=2.0, allow_nan=not finite, allow_infinity=not finite)
    if op in ("var", "std") and np.dtype(dtype) == np.float16:
        return dict(max_magnitude=8.0)  # NumPy squares and sums float16 deviations in float16 (max 65504)
    return dict(max_magnitude=1e4)


def tolerance(op, a, axis, expected, ddof):
    """``(rtol, atol)`` for float results: NumPy accumulates in the input's precision
    (pairwise), tegula in float64, so they may differ by a few roundings of the result's
    dtype relative to the magnitudes summed."""
    if expected.dtype.kind not in "fc":
        return None, None
    eps = float(np.finfo(expected.dtype).eps)
    with quiet():
        mag = np.abs(np.where(np.isfinite(a), a, 0).astype(np.complex128))
        n = max(int(np.prod([a.shape[i] for i in _axes_tuple(axis, a.ndim)], dtype=np.int64)), 1)
        if op == "sum":
            scale = np.sum(mag, axis=axis)
        elif op == "mean":
            scale = np.mean(mag, axis=axis) if mag.size else np.zeros(())
        elif op in ("var", "std"):
            scale = np.sum(mag**2, axis=axis) / max(n - ddof, 1)
            if op == "std":
                scale = np.sqrt(scale)
        else:
            # prod: the error grows with the number of factors, relative to the product's
            # magnitude (a complex product's parts can cancel; only its modulus is accurate)
            scale = np.abs(expected.astype(np.complex128))
            return 16 * n * eps, 16 * n * eps * np.nan_to_num(scale, posinf=0.0) + float(np.finfo(expected.dtype).tiny)
    scale = np.nan_to_num(np.asarray(scale, dtype=np.float64), posinf=0.0)
    slack = 64 if expected.dtype == np.float16 else 16
    if op == "std":
        # an error e in the variance moves its square root by up to sqrt(e)
        return slack * eps, np.sqrt(slack * eps) * scale + float(np.finfo(expected.dtype).tiny)
    return slack * eps, slack * eps * scale + float(np.finfo(expected.dtype).tiny)


def _axes_tuple(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        return (axis % ndim,)
    return tuple(a % ndim for a in axis)


def expand(atol, expected, axis, keepdims, ndim):
    """``atol`` computed without keepdims, shaped like a keepdims result."""
    if np.ndim(atol) in (0, expected.ndim) or not keepdims:
        return atol
    return np.expand_dims(atol, _axes_tuple(axis, ndim))


VIEWS = {
    "stored": lambda v: v,
    "transposed": lambda v: v.T,
    "reversed": lambda v: v[(slice(None, None, -1),) * v.ndim],
    "strided": lambda v: v[(slice(None, None, 2),) * v.ndim],
}


@more_examples()
@given(data=st.data(), op=st.sampled_from(REDUCTIONS), dtype=dtypes(), shape=shapes(max_side=6),
       keepdims=st.booleans(), split_every=st.sampled_from([None, 2, 3]), as_method=st.booleans(),
       view=st.sampled_from(sorted(VIEWS)))
def test_reduction(data, op, dtype, shape, keepdims, split_every, as_method, view):
    """``view``: reduce a transposed, reversed or strided view (blocks that are not contiguous)."""
    a = data.draw(np_arrays(dtype, shape, **values_for(op, dtype)))
    spec, _ = data.draw(chunkings(shape))
    x = VIEWS[view](tg.asarray(a, chunks=spec))
    a = VIEWS[view](a)
    shape = a.shape
    axis = data.draw(axes(len(shape)))
    kwargs = dict(axis=axis, keepdims=keepdims)
    np_kwargs = dict(kwargs)
    if op in ("var", "std"):
        np_kwargs["ddof"] = kwargs["ddof"] = data.draw(st.sampled_from([0, 1, 2]))
    expected, error = oracle(getattr(np, op), a, **np_kwargs)
    build = (lambda: getattr(x, op)(split_every=split_every, **kwargs)) if as_method else (
        lambda: getattr(tg, op)(x, split_every=split_every, **kwargs))
    if error is not None:
        with pytest.raises(error_class(error)):
            build()  # refused when the expression is built, before computing
        return
    out = build()
    assert out.dtype == expected.dtype and out.shape == expected.shape
    rtol, atol = tolerance(op, a, axis, expected, kwargs.get("ddof", 0))
    if atol is not None:
        atol = expand(atol, expected, axis, keepdims, len(shape))
    assert_same(out.compute(), expected, exact=op in EXACT, rtol=rtol, atol=atol)


@given(data=st.data(), op=st.sampled_from(["sum", "prod", "mean"]), dtype=dtypes(), target=dtypes(),
       shape=shapes(max_side=4))
def test_reduction_with_dtype_argument(data, op, dtype, target, shape):
    if op == "mean" and target.kind not in "fc":
        return  # NumPy's integer mean accumulates in the integer dtype; not supported
    a = data.draw(np_arrays(dtype, shape, **values_for(op, target if target.kind == "c" else dtype)))
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    axis = data.draw(axes(len(shape)))
    expected, error = oracle(getattr(np, op), a, axis=axis, dtype=target)
    if error is not None:
        with pytest.raises(error_class(error)):
            getattr(x, op)(axis=axis, dtype=target, split_every=2)
        return
    if not float_to_int_defined(a, target):
        return  # the elements are cast to the target first: undefined for out-of-range floats
    out = getattr(x, op)(axis=axis, dtype=target, split_every=2)
    assert out.dtype == expected.dtype
    rtol, atol = tolerance(op, a, axis, expected, 0)
    assert_same(out.compute(), expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_min_max_propagate_nan_across_blocks(op, dtype):
    a = np.arange(24, dtype=dtype).reshape(4, 6)
    a[2, 4] = np.nan
    x = tg.asarray(a, chunks=(1, 2))
    for axis in (None, 0, 1, (0, 1)):
        assert_same(getattr(x, op)(axis=axis, split_every=2).compute(), getattr(np, op)(a, axis=axis), exact=True)


@pytest.mark.parametrize("op", ["sum", "prod", "mean", "var", "std", "any", "all", "min", "max"])
def test_reductions_of_empty_arrays(op):
    for shape, axis in (((0,), None), ((0, 3), 0), ((0, 3), 1), ((3, 0), None), ((2, 0, 3), (0, 2))):
        a = np.zeros(shape)
        x = tg.asarray(a, chunks=2)
        expected, error = oracle(getattr(np, op), a, axis=axis)
        if error is not None:
            with pytest.raises(error_class(error)):
                getattr(x, op)(axis=axis)
            continue
        assert_same(getattr(x, op)(axis=axis).compute(), expected, exact=True)


def test_reduction_trees_of_many_blocks_are_exact_for_integers():
    a = np.arange(10_000, dtype=np.int64).reshape(100, 100) * 7919 - 3
    x = tg.asarray(a, chunks=(7, 9))
    for split_every in (2, 3, 8):
        for axis in (None, 0, 1):
            assert_same(x.sum(axis=axis, split_every=split_every).compute(), a.sum(axis=axis))
            assert_same(x.max(axis=axis, split_every=split_every).compute(), a.max(axis=axis))
    assert x.sum(split_every=2).task_count() > x.sum(split_every=8).task_count()


@given(data=st.data(), op=st.sampled_from(["sum", "mean", "var", "std", "min", "nansum", "nanmax", "nanmean"]),
       shape=st.lists(st.integers(1, 70), min_size=2, max_size=3).map(tuple), last=st.booleans(),
       offset=st.sampled_from([0.0, 1e3, -1e8]), spread=st.sampled_from([1e-3, 1.0]), nans=st.booleans(),
       view=st.sampled_from(sorted(VIEWS)), dtype=st.sampled_from(["float64", "float32"]))
def test_long_rows_and_lanes_reduce_like_numpy(data, op, shape, last, offset, spread, nans, view, dtype):
    """Reductions over the first or the last axis of blocks with many rows and lanes of
    sixteen and more: float64 rows and lanes are read in place several at a time, and moments
    over the first axis are shifted sums, accurate far from zero. The other kernels' tests draw
    sides of at most six."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    a = (offset + spread * rng.standard_normal(shape)).astype(dtype)
    if nans:
        a[tuple(rng.integers(0, n, 3) for n in shape)] = np.nan
    spec = data.draw(st.sampled_from([-1, 16, 23, tuple(max(1, n // 3) for n in shape)]))
    x, a = VIEWS[view](tg.asarray(a, chunks=spec)), VIEWS[view](a)
    axis = -1 if last else 0
    with quiet():
        got = getattr(tg, op)(x, axis=axis).compute()
        # The oracle: NumPy in float64 (tegula accumulates float32 in float64 too), moments of
        # data centred first, so that NumPy's own rounding of a mean far from zero stays out.
        wide = a.astype(np.float64)
        if op in ("var", "std"):
            wide = wide - np.mean(wide, axis=axis, keepdims=True)
        expected = getattr(np, op)(wide, axis=axis).astype(a.dtype)
    eps = float(np.finfo(a.dtype).eps)
    # Partials of blocks merge through the difference of their means, each rounded at the
    # offset's magnitude: the variance's error grows with spread * offset, as NumPy's would.
    scale = {"var": spread * (spread + abs(offset)), "std": spread + abs(offset)}.get(op, abs(offset) + spread)
    assert_same(got, expected, rtol=4 * eps, atol=16 * eps * a.shape[axis] * scale)
