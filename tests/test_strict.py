"""``tg.config.set(strict_promotion=True)``: operations mixing kinds (bool, integer, real and
complex floating point) raise TypeError, the array API's promotions still work and give
NumPy's results, and tegula's own compositions are not affected."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import ALL_DTYPES, assert_same, dtypes, np_arrays, oracle, quiet

CATEGORY = {"b": "bool", "i": "integer", "u": "integer", "f": "floating", "c": "floating"}
SCALAR_OK = {bool: {"b"}, int: {"i", "u", "f", "c"}, float: {"f", "c"}, complex: {"c"}}


@pytest.fixture
def strict():
    with tg.config.set(strict_promotion=True):
        yield


def mixes_kinds(d1, d2):
    return CATEGORY[d1.kind] != CATEGORY[d2.kind]


@given(dtypes(), dtypes(), st.sampled_from(["add", "multiply", "equal", "maximum", "bitwise_and"]), st.data())
def test_binary_operations(d1, d2, name, data):
    a = data.draw(np_arrays(d1, (3,), integral=True, small=True))
    b = data.draw(np_arrays(d2, (3,), integral=True, small=True))
    with tg.config.set(strict_promotion=True):
        if mixes_kinds(d1, d2):
            with pytest.raises(TypeError, match="strict promotion"):
                getattr(tg, name)(tg.asarray(a), tg.asarray(b))
            return
        want, error = oracle(getattr(np, name), a, b)
        if error is not None:
            with pytest.raises(type(error)):
                getattr(tg, name)(tg.asarray(a), tg.asarray(b)).compute()
            return
        with quiet():
            assert_same(getattr(tg, name)(tg.asarray(a), tg.asarray(b)).compute(), want)


@given(dtypes(), st.sampled_from([True, 2, 2.5, 1 + 2j]))
def test_python_scalars(dtype, scalar):
    x = tg.asarray(np.ones(3, dtype))
    with tg.config.set(strict_promotion=True):
        if dtype.kind not in SCALAR_OK[type(scalar)]:
            with pytest.raises(TypeError, match="strict promotion"):
                x * scalar
            with pytest.raises(TypeError, match="strict promotion"):
                scalar * x
        else:
            with quiet():
                assert_same((x * scalar).compute(), np.ones(3, dtype) * scalar)


@given(dtypes(ALL_DTYPES), dtypes(ALL_DTYPES))
def test_joins_where_and_result_type(d1, d2):
    x, y = tg.asarray(np.zeros(2, d1)), tg.asarray(np.zeros(2, d2))
    calls = [lambda: tg.concat([x, y]), lambda: tg.stack([x, y]), lambda: tg.where(x == x, x, y),
             lambda: tg.result_type(x, y), lambda: tg.result_type(d1, d2)]
    with tg.config.set(strict_promotion=True):
        for call in calls:
            if mixes_kinds(d1, d2):
                with pytest.raises(TypeError, match="strict promotion"):
                    call()
            else:
                call()


def test_in_place_operators_and_restoring(strict):
    x = tg.asarray(np.arange(4))
    with pytest.raises(TypeError, match="strict promotion"):
        x += tg.asarray(np.ones(4))
    with tg.config.set(strict_promotion=False):
        assert (x + 0.5).dtype == np.float64
    with pytest.raises(TypeError):
        x + 0.5


def test_compositions_are_not_affected(strict):
    a = np.arange(10)
    x = tg.asarray(a, chunks=3)
    assert_same(tg.quantile(x, 0.3).compute(), np.quantile(a, 0.3))
    assert_same(tg.median(x).compute(), np.median(a))
    assert_same(tg.pad(x, 2, mode="linear_ramp", end_values=3).compute(),
                np.pad(a, 2, mode="linear_ramp", end_values=3))


def test_default_is_off_and_bad_values_are_refused():
    assert tg.config.get("strict_promotion") is False
    assert (tg.asarray(np.arange(3)) + 0.5).dtype == np.float64
    with pytest.raises(TypeError):
        tg.config.set(strict_promotion="yes")
