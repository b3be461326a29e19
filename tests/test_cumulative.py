"""cumulative_sum and cumulative_prod (and NumPy's cumsum/cumprod) against NumPy: every dtype,
0-d and empty inputs, random chunkings (the scanned axis split into several blocks, so block
totals carry across blocks), negative axes, ``dtype=`` and ``include_initial``."""

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

import tegula as tg
from tegula._sorting import cumprod, cumsum, cumulative_prod, cumulative_sum
from strategies import (assert_same, chunkings, dtypes, error_class, float_to_int_defined, more_examples,
                        np_arrays, oracle, quiet, shapes)

FUNCTIONS = {"sum": (cumulative_sum, np.cumulative_sum), "prod": (cumulative_prod, np.cumulative_prod)}


def values_for(op, dtype):
    """Bounded floats, so that association order cannot overflow at different places; complex
    products stay finite (``inf * 0`` makes order-dependent NaN parts)."""
    if op == "prod":
        finite = np.dtype(dtype).kind == "c"
        return dict(max_magnitude=2.0, allow_nan=not finite, allow_infinity=not finite)
    return dict(max_magnitude=1e3)


def tolerance(op, data, axis, expected):
    """Float results may differ from NumPy's by a few roundings per element scanned, relative
    to the running sum (product) of magnitudes: tegula adds the block totals before a block
    to its own running values, NumPy runs straight through."""
    if expected.dtype.kind not in "fc" or expected.size == 0:
        return {}
    eps = float(np.finfo(expected.dtype).eps)
    with quiet():
        mag = np.abs(np.where(np.isfinite(data), data, 0).astype(np.complex128))
        mag = mag.reshape(1) if mag.ndim == 0 else mag
        run = np.cumulative_sum if op == "sum" else np.cumulative_prod
        scale = run(mag, axis=axis, include_initial=expected.shape != mag.shape)
    n = max(data.shape[axis] if data.ndim else 1, 1)
    return dict(rtol=4 * n * eps, atol=4 * n * eps * scale + float(np.finfo(expected.dtype).tiny))


@st.composite
def cases(draw):
    op = draw(st.sampled_from(["sum", "prod"]))
    dtype = draw(dtypes())
    shape = draw(shapes())
    data = draw(np_arrays(dtype, shape, **values_for(op, dtype)))
    spec, _ = draw(chunkings(shape))
    ndim = len(shape)
    choices = [None] + list(range(-max(ndim, 1), max(ndim, 1)))
    axis = draw(st.sampled_from(choices))
    out = draw(st.one_of(st.none(), dtypes()))
    return op, data, spec, axis, out, draw(st.booleans())


@more_examples()
@given(cases())
def test_cumulative_matches_numpy(case):
    op, data, spec, axis, dtype, include_initial = case
    if dtype is not None:
        assume(float_to_int_defined(data, dtype))
    ours, theirs = FUNCTIONS[op]
    expected, err = oracle(theirs, data, axis=axis, dtype=dtype, include_initial=include_initial)
    x = tg.asarray(data, chunks=spec)
    if err is not None:
        with pytest.raises(error_class(err)):
            ours(x, axis=axis, dtype=dtype, include_initial=include_initial).compute()
        return
    with quiet():
        actual = ours(x, axis=axis, dtype=dtype, include_initial=include_initial).compute()
    along = 0 if axis is None else axis
    assert_same(actual, expected, **tolerance(op, data, along, expected))


@given(st.data())
def test_long_axis_in_many_blocks_is_exact_for_integers(data):
    n = data.draw(st.integers(1, 200))
    values = data.draw(np_arrays(np.int64, (3, n)))
    block = data.draw(st.integers(1, max(n // 3, 1)))
    x = tg.asarray(values, chunks=(2, block))
    assert_same(cumulative_sum(x, axis=1).compute(), np.cumulative_sum(values, axis=1))
    assert_same(cumulative_prod(x, axis=-1, include_initial=True).compute(),
                np.cumulative_prod(values, axis=-1, include_initial=True))


@given(st.data())
def test_cumsum_and_cumprod_are_numpys(data):
    dtype = data.draw(dtypes())
    shape = data.draw(shapes(max_dims=2))
    values = data.draw(np_arrays(dtype, shape, integral=True, small=True))
    spec, _ = data.draw(chunkings(shape))
    axis = data.draw(st.sampled_from([None] + list(range(len(shape)))))
    x = tg.asarray(values, chunks=spec)
    with quiet():
        assert_same(cumsum(x, axis).compute(), np.cumsum(values, axis))
        assert_same(cumprod(x, axis=axis).compute(), np.cumprod(values, axis=axis))


def test_errors():
    x = tg.asarray(np.ones((3, 4)), chunks=2)
    with pytest.raises(ValueError, match="axis"):
        cumulative_sum(x)
    with pytest.raises(np.exceptions.AxisError):
        cumulative_prod(x, axis=2)
    with pytest.raises(np.exceptions.AxisError):
        cumulative_sum(tg.asarray(np.float64(1.0)), axis=1)
    with pytest.raises(TypeError):
        cumulative_sum(x, axis=0, dtype="object")
