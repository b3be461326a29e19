"""unique_values, unique_counts, unique_inverse and unique_all against NumPy's (whose NaNs are
distinct too) over random shapes, chunkings and dtypes with many repeated values."""

import numpy as np
from hypothesis import given, strategies as st

import tegula as tg
from strategies import assert_same, chunkings, dtypes, np_arrays, shapes


@given(data=st.data(), name=st.sampled_from(["unique_values", "unique_counts", "unique_inverse", "unique_all"]))
def test_unique_functions_are_numpys(data, name):
    dtype = data.draw(dtypes())
    shape = data.draw(shapes())
    repeats = data.draw(st.booleans())  # small whole numbers repeat often; full-range values rarely
    a = data.draw(np_arrays(dtype, shape, integral=repeats, small=repeats))
    if dtype.kind == "f" and data.draw(st.booleans()) and a.size:
        a.flat[data.draw(st.integers(0, a.size - 1))] = np.nan
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    out = getattr(tg, name)(x)
    if name == "unique_values":
        # NumPy's unique_values no longer promises an order; tegula's are sorted
        out, expected = (out,), (np.unique(a, equal_nan=False),)
    else:
        expected = getattr(np, name)(a)
        assert out._fields == expected._fields
    for o, e in zip(out, expected):
        assert o.shape == e.shape
        assert_same(o.compute(), e, exact=True)


def test_unique_composes_with_later_operations():
    """The result's length is known when built, so it feeds further lazy work directly."""
    a = np.array([[3, 1, 3], [2, 1, 3]])
    values = tg.unique_values(tg.asarray(a, chunks=2))
    assert values.shape == (3,)
    assert_same((values * 10).sum().compute(), np.int64(60))
