"""Integer-array and boolean-mask indexing against NumPy: ``take``, ``take_along_axis``,
``nonzero`` and ``getitem`` over random shapes, chunkings and dtypes, with negative, empty and
out-of-bounds indices (IndexError), 0-d arrays, lazy index arrays and masks computed from the
indexed array itself; results have known chunks and compose with later operations."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from tegula._gather import getitem, is_advanced, nonzero, take, take_along_axis
from strategies import assert_same, chunkings, dtypes, np_arrays, regular_chunks, shapes


def chunked(draw, a):
    return tg.asarray(a, chunks=draw(chunkings(a.shape))[0])


@st.composite
def arrays(draw, min_dims=0, max_dims=3, min_side=0):
    a = draw(np_arrays(draw(dtypes()), draw(shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side))))
    return a, chunked(draw, a)


def index_values(draw, n, shape, valid=True):
    """Integer indices into an axis of length ``n`` (negative ones included; one out of
    bounds when not ``valid``)."""
    lo, hi = (-n, n - 1) if valid else (-n - 2, n + 2)
    if n == 0 and valid:
        return np.zeros(shape, dtype=np.int64)[..., :0] if shape and shape[-1] == 0 else np.zeros((0,), np.int64)
    return draw(st.builds(lambda v: np.asarray(v, dtype=np.int64).reshape(shape),
                          st.lists(st.integers(lo, hi), min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))))


def lazy(draw, idx):
    """The indices as a lazy tegula expression: an array chunked at random, plus zero."""
    return tg.asarray(idx, chunks=draw(chunkings(idx.shape))[0]) + 0


def expect(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs), None
    except Exception as e:  # noqa: BLE001 - NumPy's exception is the oracle
        return None, e


def check(actual_fn, expected_fn):
    """The tegula result equals NumPy's (exactly), or both raise the same kind of error (for a
    lazy tegula expression, possibly only when computed)."""
    expected, error = expect(expected_fn)
    if error is not None:
        with pytest.raises(type(error) if isinstance(error, (IndexError, ValueError)) else Exception):
            actual_fn().compute()
        return
    out = actual_fn()
    assert out.shape == expected.shape
    assert sum(out.chunks[0]) == expected.shape[0] if expected.ndim else True
    assert_same(out.compute(), expected, exact=True)
    assert_same(out.compute(fuse=False), expected, exact=True)


@given(st.data())
def test_take_matches_numpy(data):
    a, x = data.draw(arrays())
    axis = data.draw(st.none() | st.integers(0, max(a.ndim - 1, 0))) if a.ndim else None
    n = a.size if axis is None else a.shape[axis]
    shape = data.draw(shapes(max_dims=2, max_side=4))
    idx = index_values(data.draw, n, shape, valid=data.draw(st.booleans()) or n == 0)
    check(lambda: take(x, idx, axis=axis), lambda: np.take(a, idx, axis=axis))
    if idx.size and ((idx >= -n) & (idx < n)).all():
        check(lambda: take(x, lazy(data.draw, idx), axis=axis), lambda: np.take(a, idx, axis=axis))


@given(st.data())
def test_runs_of_known_positions_are_slices_and_match_numpy(data):
    """Known indices going up one by one, or repeating one position, in long runs (a month of
    every year, xarray's groups, a climatology expanded to every day) are planned as slices
    joined, with no gather; through ``take`` and ``x[..., idx]``."""
    a, x = data.draw(arrays(min_dims=1, min_side=1))
    axis = data.draw(st.integers(0, a.ndim - 1))
    n = a.shape[axis]
    starts = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4))
    runs = []
    for s in starts:
        length = data.draw(st.integers(4, 12))
        # ascending by one (a month of each year), or one position repeated (a climatology
        # expanded to every day)
        runs.append(np.arange(s, min(n, s + length)) if data.draw(st.booleans()) else np.full(length, s))
    idx = np.concatenate(runs)
    if data.draw(st.booleans()):
        idx = idx - n  # the same positions, counted from the end
    if all(len(r) >= 4 for r in runs):
        assert "gather" not in take(x, idx, axis=axis).explain()
    check(lambda: take(x, idx, axis=axis), lambda: np.take(a, idx, axis=axis))
    key = (slice(None),) * axis + (idx,)
    check(lambda: getitem(x, key), lambda: a[key])


@given(st.data())
def test_take_along_axis_matches_numpy(data):
    a, x = data.draw(arrays(min_dims=1))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    shape = list(a.shape)
    shape[axis] = data.draw(st.integers(0, 4)) if a.shape[axis] else 0
    for d in range(a.ndim):
        if d != axis % a.ndim and data.draw(st.booleans()):
            shape[d] = 1  # broadcast against x
    idx = index_values(data.draw, a.shape[axis], tuple(shape))
    check(lambda: take_along_axis(x, idx, axis=axis), lambda: np.take_along_axis(a, idx, axis=axis))
    if idx.size:
        check(lambda: take_along_axis(x, lazy(data.draw, idx), axis=axis), lambda: np.take_along_axis(a, idx, axis=axis))


def test_take_along_axis_of_an_argsort_like_lazy_index():
    a = np.random.default_rng(0).normal(size=(7, 9))
    order = np.argsort(a, axis=1)
    x = tg.asarray(a, chunks=(3, 4))
    idx = tg.asarray(order, chunks=(2, 5)) * 1  # lazy: only its values' blocks are known
    assert_same(take_along_axis(x, idx, axis=1).compute(), np.sort(a, axis=1), exact=True)


@st.composite
def keys(draw, shape):
    """A key with one or more integer arrays (lists or NumPy arrays) among ints, slices, new
    axes and an ellipsis."""
    items, arrays = [], 0
    for n in shape:
        kind = draw(st.sampled_from(["slice", "int", "array", "array", "list"] if n else ["slice", "array"]))
        if kind == "slice":
            items.append(slice(draw(st.none() | st.integers(-n - 1, n)), None, draw(st.sampled_from([None, 1, 2, -1]))))
        elif kind == "int":
            items.append(draw(st.integers(-n, n - 1)))
        else:
            arrays += 1
            idx = index_values(draw, n, draw(st.sampled_from([(2,), (3,), (1,), (2, 1), (0,)])) if n else (0,))
            items.append(idx.tolist() if kind == "list" else idx)
        if draw(st.integers(0, 5)) == 0:
            items.append(None)
    if not arrays:
        items.append(np.array([0]) if shape and shape[-1] else None)
    return tuple(items)


@given(st.data())
def test_getitem_with_integer_arrays_matches_numpy(data):
    a, x = data.draw(arrays(min_dims=1))
    key = data.draw(keys(a.shape))
    check(lambda: getitem(x, key), lambda: a[key])


def test_getitem_adjacent_and_separated_index_arrays():
    a = np.arange(3 * 4 * 5 * 6).reshape(3, 4, 5, 6)
    x = tg.asarray(a, chunks=2)
    for key in [(0, slice(None), [1, 2]), (slice(None), [0, 2], [1, 3]), (slice(None), [0, 1], None, [0, 1]),
                ([[0], [2]], slice(1, 3), [1, -1]), (Ellipsis, [1, 0], [[2], [3]]), ([-1, 0], 1, slice(None), 2)]:
        assert_same(getitem(x, key).compute(), a[key], exact=True)


def test_getitem_with_a_lazy_index_array():
    a = np.arange(40.0).reshape(8, 5)
    x = tg.asarray(a, chunks=(3, 2))
    idx = tg.asarray(np.array([7, -1, 0, 3, 3]), chunks=2) * 1
    cols = tg.asarray(np.array([4, -1, 0, 3, 3]), chunks=3) - 0
    assert_same(getitem(x, (slice(None, None, -1), cols)).compute(), a[::-1, [4, -1, 0, 3, 3]], exact=True)
    assert_same(getitem(x, idx).compute(), a[[7, -1, 0, 3, 3]], exact=True)
    assert_same(getitem(x, (idx, idx - 3)).compute(), a[[7, -1, 0, 3, 3], [4, -4, -3, 0, 0]], exact=True)
    bad = tg.asarray(np.array([1, 9]), chunks=1) + 0
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 8"):
        getitem(x, bad).compute()
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 1 with size 5"):
        getitem(x, (slice(None), bad)).compute()


def test_out_of_bounds_known_indices_raise_at_build():
    x = tg.asarray(np.arange(12).reshape(3, 4), chunks=2)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 3"):
        take(x, [0, 5], axis=0)
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 1 with size 4"):
        getitem(x, (slice(None), [1, -5]))
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 1 with size 4"):
        getitem(x, ([1], [7]))
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 12"):
        take(x, np.array([12]))
    with pytest.raises(IndexError, match="integer"):
        getitem(x, [0.5])
    with pytest.raises(IndexError, match="shape mismatch"):
        getitem(x, ([0, 1], [0, 1, 2]))
    with pytest.raises(IndexError, match="non-empty take from an empty"):
        take(tg.zeros((0, 3)), [0], axis=0)


@given(st.data())
def test_boolean_masks_match_numpy(data):
    a, x = data.draw(arrays(min_dims=1))
    lead = data.draw(st.integers(1, a.ndim))
    m = data.draw(np_arrays(np.dtype(bool), a.shape[:lead]))
    check(lambda: getitem(x, m), lambda: a[m])
    lazy_mask = tg.asarray(m, chunks=data.draw(chunkings(m.shape))[0]) | False
    out = getitem(x, lazy_mask)
    assert_same(out.compute(), a[m], exact=True)
    # the result has known chunks: it composes with every later operation
    if out.size and a.dtype.kind in "iuf":
        assert_same((out[::-1] * 1).compute(), a[m][::-1] * 1, exact=True)


@given(st.data())
def test_mask_axes_of_length_zero_select_nothing(data):
    # The array API lets a mask axis of length zero stand for any length (NumPy raises there):
    # the result is empty, with the unmasked axes kept.
    a, x = data.draw(arrays(min_dims=1))
    lead = data.draw(st.integers(1, a.ndim))
    zeroed = data.draw(st.lists(st.booleans(), min_size=lead, max_size=lead).filter(any))
    mask = np.zeros(tuple(0 if z else n for z, n in zip(zeroed, a.shape)), bool)
    out = getitem(x, mask)
    assert_same(out.compute(), np.empty((0,) + a.shape[lead:], a.dtype), exact=True)


@given(st.data())
def test_masks_from_comparisons_of_the_same_array(data):
    a = data.draw(np_arrays(np.dtype("float64"), data.draw(shapes(min_dims=1)), allow_nan=False))
    x = chunked(data.draw, a)
    out = getitem(x, x > 0)
    assert sum(out.chunks[0]) == int((a > 0).sum())
    assert_same(out.compute(), a[a > 0], exact=True)
    assert_same((out.sum() + getitem(x, x <= 0).sum()).compute(), np.asarray(a.sum()), rtol=1e-9, atol=1e-9)


@given(st.data())
def test_nonzero_matches_numpy(data):
    a, x = data.draw(arrays(min_dims=1))
    got = nonzero(x)
    want = np.nonzero(a)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_same(g.compute(), w.astype(np.int64), exact=True)
    assert_same(getitem(x, got).compute(), a[want], exact=True)


def test_nonzero_of_0d_and_boolean_scalars():
    with pytest.raises(ValueError, match="0d"):
        nonzero(tg.asarray(1.0))
    a = np.arange(6).reshape(2, 3)
    x = tg.asarray(a, chunks=1)
    assert_same(getitem(x, True).compute(), a[True], exact=True)
    assert_same(getitem(x, False).compute(), a[False], exact=True)
    assert_same(getitem(tg.asarray(np.float32(2)), np.array(True)).compute(), np.float32(2)[np.array(True)], exact=True)
    with pytest.raises(IndexError, match="boolean index did not match"):
        getitem(x, np.ones(3, bool))
    m = np.array([[True, False, True], [False, True, True]])
    assert_same(getitem(x, (m,)).compute(), a[m], exact=True)
    assert_same(getitem(x, (slice(None), m[0])).compute(), a[:, m[0]], exact=True)


def test_0d_and_empty_indices():
    a = np.arange(10.0)
    x = tg.asarray(a, chunks=3)
    assert_same(take(x, np.int64(-2)).compute(), np.take(a, -2), exact=True)
    assert_same(take(x, []).compute(), np.take(a, np.array([], dtype=np.intp)), exact=True)
    assert_same(getitem(x, np.array([], dtype=np.int64)).compute(), a[np.array([], dtype=np.int64)], exact=True)
    assert_same(take(tg.zeros((0,)), []).compute(), np.take(np.zeros(0), np.array([], dtype=np.intp)), exact=True)


def test_take_over_many_blocks_holds_one_block_of_each():
    a = np.arange(100 * 6).reshape(100, 6)
    x = tg.asarray(a, chunks=(10, 6))
    idx = tg.asarray(np.arange(99, -1, -7), chunks=4) * 1
    out = take(x, idx, axis=0)
    assert_same(out.compute(), np.take(a, np.arange(99, -1, -7), axis=0), exact=True)
    assert max(out.chunks[0]) <= 10
