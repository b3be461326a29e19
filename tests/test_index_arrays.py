"""``argwhere``, ``ravel_multi_index``, ``unravel_index`` and the triangle indices against
NumPy over random shapes, chunkings, modes and orders; and their errors (coordinates outside
the array: NumPy's ValueError, now for known ones and when computed for lazy ones)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import tegula as tg
from strategies import ALL_DTYPES, assert_same, chunkings, dtypes, np_arrays, shapes


def chunked(data, a):
    return tg.asarray(a, chunks=data.draw(chunkings(a.shape))[0])


def assert_tuple_same(got, want):
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        assert_same(g.compute(), np.asarray(w))


@given(st.data(), dtypes(ALL_DTYPES))
def test_argwhere_matches_numpy(data, dtype):
    a = data.draw(np_arrays(dtype, data.draw(shapes()), integral=True, small=True))
    assert_same(tg.argwhere(chunked(data, a)).compute(), np.argwhere(a))


@st.composite
def coordinates(draw, inside=True):
    dims = draw(st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple))
    shape = draw(shapes(max_dims=2))
    low, high = (0, None) if inside else (-2, 2)
    arrays = [draw(hnp.arrays(np.int64, shape, elements=st.integers(low, n - 1 + (high or 0)))) for n in dims]
    return dims, arrays


@given(st.data(), coordinates(inside=False), st.sampled_from(["wrap", "clip"]), st.sampled_from(["C", "F"]))
def test_ravel_multi_index_wrap_and_clip(data, case, mode, order):
    dims, arrays = case
    got = tg.ravel_multi_index(tuple(chunked(data, a) for a in arrays), dims, mode=mode, order=order)
    assert_same(got.compute(), np.asarray(np.ravel_multi_index(tuple(arrays), dims, mode=mode, order=order)))


@given(st.data(), coordinates(), st.sampled_from(["C", "F"]), st.booleans())
def test_ravel_and_unravel_match_numpy(data, case, order, lazy):
    dims, arrays = case
    given_arrays = tuple(chunked(data, a) if lazy else a for a in arrays)
    flat = np.ravel_multi_index(tuple(arrays), dims, order=order)
    assert_same(tg.ravel_multi_index(given_arrays, dims, order=order).compute(), np.asarray(flat))
    given_flat = chunked(data, np.asarray(flat)) if lazy else flat
    assert_tuple_same(tg.unravel_index(given_flat, dims, order=order), np.unravel_index(flat, dims, order=order))


def test_coordinates_outside_are_numpys_value_error():
    with pytest.raises(ValueError, match="invalid entry"):
        tg.ravel_multi_index((np.array([0, 3]), np.array([1, 1])), (3, 4))
    lazy = tg.ravel_multi_index((tg.asarray(np.array([0, 3]), chunks=1), np.array([1, 1])), (3, 4))
    with pytest.raises(ValueError, match="invalid entry"):
        lazy.compute()
    with pytest.raises(ValueError):
        tg.unravel_index(np.array([12]), (3, 4))
    lazy = tg.unravel_index(tg.asarray(np.array([1, -1])), (3, 4))
    with pytest.raises(ValueError):
        tg.compute(*lazy)
    with pytest.raises(TypeError):
        tg.ravel_multi_index((np.array([0.5]), np.array([1])), (3, 4))
    with pytest.raises(TypeError):
        tg.unravel_index(np.array([1.0]), (3, 4))
    with pytest.raises(ValueError, match="order"):
        tg.unravel_index(1, (3, 4), order="K")
    with pytest.raises(ValueError, match="clipmode"):
        tg.ravel_multi_index((np.array([0]), np.array([1])), (3, 4), mode="bad")
    with pytest.raises(ValueError, match="sequence of length"):
        tg.ravel_multi_index((np.array([0]),), (3, 4))


@given(st.integers(0, 7), st.integers(-8, 8), st.one_of(st.none(), st.integers(0, 7)),
       st.sampled_from(["tril", "triu"]))
def test_triangle_indices_match_numpy(n, k, m, which):
    got = getattr(tg, f"{which}_indices")(n, k, m)
    assert_tuple_same(got, getattr(np, f"{which}_indices")(n, k, m))
    square = np.zeros((n, n if m is None else m))
    assert_tuple_same(getattr(tg, f"{which}_indices_from")(tg.asarray(square), k),
                      getattr(np, f"{which}_indices_from")(square, k))


def test_triangle_indices_from_needs_a_2d_array():
    for fn in (tg.tril_indices_from, tg.triu_indices_from):
        with pytest.raises(ValueError, match="2-d"):
            fn(tg.ones((2, 2, 2)))
