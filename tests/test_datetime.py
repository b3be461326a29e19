"""datetime64 and timedelta64 arrays against NumPy: conversions in and out, arithmetic between
times, durations and numbers (units mixed), the NaT tests, casts, reductions, sorting,
selection and joining, with NaT among the values and random shapes and chunkings."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import assert_same, chunkings, error_class, more_examples, oracle, shapes

UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns"]
# Counts small enough that converting any unit to nanoseconds does not overflow int64.
BOUND = {"Y": 250, "M": 3000}
CALENDAR = ("Y", "M")


@st.composite
def times(draw, kind=None, shape=None, unit=None):
    """A NumPy datetime64 or timedelta64 array (NaT at random places) and a chunking of it."""
    kind = kind or draw(st.sampled_from("Mm"))
    unit = unit or draw(st.sampled_from(UNITS))
    shape = draw(shapes(max_dims=2)) if shape is None else shape
    bound = BOUND.get(unit, 10**4)
    counts = draw(st.lists(st.integers(-bound, bound), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    values = np.array(counts, dtype=np.int64).reshape(shape).view(f"{kind}8[{unit}]")
    nat = draw(st.lists(st.booleans(), min_size=values.size, max_size=values.size))
    values[np.array(nat, dtype=bool).reshape(shape)] = np.datetime64("NaT") if kind == "M" else np.timedelta64("NaT")
    chunks, _ = draw(chunkings(shape))
    return values, chunks


@st.composite
def numbers(draw, shape):
    dtype = draw(st.sampled_from(["int64", "int32", "bool", "float64", "float32"]))
    if dtype == "bool":
        return np.array(draw(st.lists(st.booleans(), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))).reshape(shape)
    if dtype.startswith("int"):
        values = draw(st.lists(st.integers(-50, 50), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    else:
        values = draw(st.lists(st.one_of(st.floats(-50, 50), st.just(np.nan)), min_size=int(np.prod(shape)),
                               max_size=int(np.prod(shape))))
    return np.array(values, dtype=dtype).reshape(shape)


def check_like_numpy(fn, tegula_args, numpy_args):
    expected, error = oracle(fn[1], *numpy_args)
    if error is not None:
        with pytest.raises(error_class(error)):
            fn[0](*tegula_args).compute()
        return
    assert_same(fn[0](*tegula_args).compute(), expected)


BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "maximum", "minimum",
          "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "fmax", "fmin"]


@more_examples()
@given(st.data(), st.sampled_from(BINARY), st.sampled_from(["time-time", "time-number", "number-time"]))
def test_binary_operations_match_numpy(data, name, pairing):
    a, a_chunks = data.draw(times())
    if pairing == "time-time":
        b, _ = data.draw(times(shape=a.shape))
    else:
        b = data.draw(numbers(a.shape))
    if pairing == "number-time":
        a, b = b, a
    fn = (getattr(tg, name), getattr(np, name))
    check_like_numpy(fn, (tg.asarray(a, chunks=a_chunks), tg.asarray(b)), (a, b))


@given(st.data(), st.sampled_from(["add", "subtract", "multiply", "divide", "floor_divide", "less", "equal"]),
       st.one_of(st.integers(-5, 5), st.floats(-5, 5)), st.booleans())
def test_python_numbers_next_to_times(data, name, number, reflected):
    a, chunks = data.draw(times())
    fn = getattr(np, name)
    args = (number, a) if reflected else (a, number)
    expected, error = oracle(fn, *args)
    x = tg.asarray(a, chunks=chunks)
    targs = (number, x) if reflected else (x, number)
    if error is not None:
        with pytest.raises(error_class(error)):
            getattr(tg, name)(*targs).compute()
        return
    assert_same(getattr(tg, name)(*targs).compute(), expected)


@given(times(), st.sampled_from(["negative", "positive", "abs", "sign", "isnan", "isfinite", "isinf", "isnat", "real",
                                 "imag", "sqrt", "conj"]))
def test_unary_functions_match_numpy(case, name):
    a, chunks = case
    check_like_numpy((getattr(tg, name), getattr(np, name)), (tg.asarray(a, chunks=chunks),), (a,))


@given(times(), st.sampled_from(UNITS + ["int64", "int32", "float64", "bool", "other-kind"]))
def test_casts_match_numpy(case, target):
    a, chunks = case
    unit = np.datetime_data(a.dtype)[0]
    if target in UNITS:
        if a.dtype.kind == "m" and (unit in CALENDAR) != (target in CALENDAR) and unit != target:
            # NumPy converts durations between years or months and days by an average
            # year's length; tegula refuses, as NumPy's own arithmetic does
            with pytest.raises(TypeError, match="no fixed length"):
                tg.asarray(a).astype(f"m8[{target}]")
            return
        target = f"{a.dtype.char}8[{target}]"
    elif target == "other-kind":
        target = f"{'m' if a.dtype.kind == 'M' else 'M'}8[s]"
    assert_same(tg.asarray(a, chunks=chunks).astype(target).compute(), a.astype(target))


@given(st.lists(st.one_of(st.integers(-10**6, 10**6), st.just(None)), max_size=40), st.sampled_from(["D", "h", "W"]),
       st.sampled_from(CALENDAR), st.integers(1, 9))
def test_calendar_units_match_numpy(days, unit, calendar, block):
    """Datetimes across 5500 years to years or months and back, through the calendar."""
    values = np.array([np.datetime64("NaT") if d is None else np.datetime64(d, "D") for d in days],
                      dtype="datetime64[D]").astype(f"M8[{unit}]")
    x = tg.asarray(values, chunks=block)
    coarse = values.astype(f"M8[{calendar}]")
    assert_same(x.astype(f"M8[{calendar}]").compute(), coarse)
    assert_same(tg.asarray(coarse, chunks=block).astype(f"M8[{unit}]").compute(), coarse.astype(f"M8[{unit}]"))
    assert_same((x - tg.asarray(coarse)).compute(), values - coarse)


@given(st.data(), st.sampled_from(["M", "m"]), st.sampled_from(UNITS))
def test_numbers_cast_to_times_match_numpy(data, kind, unit):
    values = data.draw(numbers(data.draw(shapes(max_dims=2))))
    target = f"{kind}8[{unit}]"
    with np.errstate(invalid="ignore"):
        expected = values.astype(target)
    assert_same(tg.asarray(values).astype(target).compute(), expected)


REDUCTIONS = ["min", "max", "nanmin", "nanmax", "sum", "mean", "argmin", "argmax", "any", "all", "prod", "var"]


@more_examples()
@given(st.data(), st.sampled_from(REDUCTIONS))
def test_reductions_match_numpy(data, name):
    a, chunks = data.draw(times())
    axis = data.draw(st.one_of(st.none(), st.integers(0, a.ndim - 1))) if a.ndim else None
    fn = (lambda x: getattr(tg, name)(x, axis=axis), lambda x: getattr(np, name)(x, axis=axis))
    check_like_numpy(fn, (tg.asarray(a, chunks=chunks),), (a,))


@given(times(), st.sampled_from(["cumsum", "cumprod"]))
def test_running_sums_of_durations_match_numpy(case, name):
    a, chunks = case
    axis = -1 if a.ndim else None
    fn = (lambda x: getattr(tg, name)(x, axis=axis), lambda x: getattr(np, name)(x, axis=axis))
    check_like_numpy(fn, (tg.asarray(a, chunks=chunks),), (a,))


@given(times(), st.booleans())
def test_sorting_puts_nat_last_as_numpy(case, arg):
    a, chunks = case
    if a.ndim == 0:
        return
    x = tg.asarray(a, chunks=chunks)
    if arg:
        assert_same(tg.argsort(x, axis=-1).compute(), np.argsort(a, axis=-1, kind="stable"))
    else:
        assert_same(tg.sort(x, axis=-1).compute(), np.sort(a, axis=-1))


@given(st.data())
def test_searchsorted_in_sorted_times(data):
    unit = data.draw(st.sampled_from(UNITS))
    a, _ = data.draw(times(kind="M", shape=(data.draw(st.integers(0, 12)),), unit=unit))
    v, v_chunks = data.draw(times(kind="M", shape=(5,)))
    a = np.sort(a)
    side = data.draw(st.sampled_from(["left", "right"]))
    got = tg.searchsorted(tg.asarray(a, chunks=4), tg.asarray(v, chunks=v_chunks), side=side).compute()
    assert_same(got, np.searchsorted(a, v, side=side))


@given(st.data())
def test_where_and_concatenate_align_units(data):
    a, chunks = data.draw(times(kind="M"))
    b, _ = data.draw(times(kind="M", shape=a.shape))
    cond = a > b
    got = tg.where(tg.asarray(cond), tg.asarray(a, chunks=chunks), tg.asarray(b))
    assert_same(got.compute(), np.where(cond, a, b))
    with_nat = tg.where(tg.asarray(cond), tg.asarray(a, chunks=chunks), np.datetime64("NaT"))
    assert_same(with_nat.compute(), np.where(cond, a, np.datetime64("NaT")))
    if a.ndim:
        joined = tg.concatenate([tg.asarray(a, chunks=chunks), tg.asarray(b)], axis=0)
        assert_same(joined.compute(), np.concatenate([a, b], axis=0))


def test_selection_and_gathering_keep_the_dtype():
    times_ = np.arange("2000-01-01", "2000-03-01", dtype="datetime64[D]").astype("datetime64[ns]")
    times_[5] = np.datetime64("NaT")
    x = tg.asarray(times_, chunks=7)
    index = np.array([3, 0, 5, 40, 5])
    assert_same(x[index].compute(), times_[index])
    assert_same(x[2:50:3].compute(), times_[2:50:3])
    assert_same(x.reshape(4, 15).T.compute(), times_.reshape(4, 15).T)
    assert x.dtype == times_.dtype and x[index].dtype == times_.dtype


def test_generic_unit_takes_the_unit_it_meets():
    """xarray's mean of datetimes casts a float mean to "timedelta64" (no unit) and adds a
    datetime64[ns]: the count is taken in nanoseconds, as NumPy takes it."""
    means = np.array([1.5e9, np.nan, -3.0])
    offset = np.datetime64("2000-01-01T00:00:00", "ns")
    got = tg.asarray(means, chunks=2).astype("timedelta64") + offset
    assert got.dtype == np.dtype("datetime64[ns]")
    assert_same(got.compute(), means.astype("timedelta64") + offset)


def test_filled_arrays_of_times():
    nat = tg.full((2, 3), np.datetime64("NaT"), dtype="datetime64[s]")
    assert_same(nat.compute(), np.full((2, 3), np.datetime64("NaT"), dtype="datetime64[s]"))
    day = np.timedelta64(1, "D")
    assert_same(tg.full(4, day, chunks=3).compute(), np.full(4, day))
    assert_same(tg.full(2, day, dtype="timedelta64[h]").compute(), np.full(2, day, dtype="timedelta64[h]"))
    assert_same(tg.zeros(3, dtype="datetime64[ms]").compute(), np.zeros(3, dtype="datetime64[ms]"))
    like = tg.asarray(np.arange(4).astype("datetime64[D]"))
    assert_same(tg.full_like(like, np.datetime64("2000-01-01")).compute(),
                np.full_like(np.arange(4).astype("datetime64[D]"), np.datetime64("2000-01-01")))


def test_mixed_kinds_are_refused_as_numpy_refuses_them():
    dt = tg.asarray(np.array(["2000-01-01"], dtype="datetime64[s]"))
    td = tg.asarray(np.array([5], dtype="timedelta64[s]"))
    for bad in (lambda: dt + dt, lambda: dt * 2, lambda: td * td, lambda: dt < 1, lambda: tg.sqrt(td),
                lambda: dt @ dt, lambda: tg.cumsum(dt), lambda: tg.isnat(tg.asarray([1.0])),
                lambda: tg.concatenate([dt, td]), lambda: td.sum(dtype="float64"), lambda: dt == 1):
        with pytest.raises(TypeError):
            bad().compute()


@pytest.mark.parametrize("dtype", ["timedelta64[ps]", "datetime64[as]", "datetime64[5s]"])
def test_units_tegula_lacks_are_refused(dtype):
    with pytest.raises(TypeError, match="not support"):
        tg.asarray(np.zeros(3, dtype=dtype))


def test_map_blocks_sees_blocks_of_the_dtype():
    values = np.arange(10).astype("datetime64[h]")
    x = tg.asarray(values, chunks=4)
    seen = []

    def shift(block):
        seen.append(block.dtype)
        return block + np.timedelta64(1, "D")

    out = tg.map_blocks(shift, x, dtype=values.dtype)
    assert_same(out.compute(), values + np.timedelta64(1, "D"))
    assert set(seen) <= {values.dtype}


def test_zarr_v3_and_npy_round_trips(tmp_path):
    """Times are stored as zarr-python stores them in Zarr v3 (its numpy.datetime64 and
    numpy.timedelta64 data types); Zarr v2, which the Rust Zarr library cannot read them from,
    is refused."""
    import zarr

    values = np.array(["2001-02-03T04:05", "NaT", "1969-12-31T23:59"], dtype="datetime64[m]")
    tg.to_zarr(tg.asarray(values, chunks=2), tmp_path / "t.zarr")
    back = tg.from_zarr(tmp_path / "t.zarr")
    assert back.dtype == values.dtype
    assert_same(back.compute(), values)
    assert_same(zarr.open_array(tmp_path / "t.zarr", mode="r")[:], values)
    durations = np.array([5, -7, np.timedelta64("NaT")], dtype="timedelta64[ms]")
    theirs = zarr.create_array(tmp_path / "d.zarr", shape=durations.shape, chunks=(2,), dtype=durations.dtype)
    theirs[:] = durations
    assert_same(tg.from_zarr(tmp_path / "d.zarr").compute(), durations)
    tg.to_npy(tg.asarray(durations), tmp_path / "d.npy")
    assert_same(np.load(tmp_path / "d.npy"), durations)
    assert_same(tg.from_npy(tmp_path / "d.npy").compute(), durations)
    with pytest.raises(TypeError, match="zarr_format=3"):
        tg.to_zarr(tg.asarray(values), tmp_path / "v2.zarr", zarr_format=2)


def test_xarray_time_variables_stay_lazy_on_tegula(tmp_path):
    """A datetime64 data variable of a Zarr store (CF-decoded by xarray) opened on tegula:
    arithmetic with the time coordinate, extremes, sums of durations, masks and idxmax, against
    NumPy-backed xarray."""
    xr = pytest.importorskip("xarray")
    days = np.arange("2000-01-01", "2000-03-01", dtype="datetime64[D]").astype("datetime64[ns]")
    seen = (days[:, None] + np.arange(4).astype("timedelta64[h]")).astype("datetime64[ns]")
    seen[3, 1] = np.datetime64("NaT")
    rng = np.random.default_rng(5)
    ds = xr.Dataset({"seen": (("time", "x"), seen), "v": (("time", "x"), rng.random((len(days), 4)))},
                    coords={"time": days})
    ds.to_zarr(tmp_path / "t.zarr")
    lazy = xr.open_zarr(tmp_path / "t.zarr", chunked_array_type="tegula", chunks={"time": 10})
    steps = [lambda d: (d.seen - d.time).max("time"), lambda d: d.seen.min("x"),
             lambda d: (d.seen - d.time).sum("x"), lambda d: d.seen.mean("time"),
             lambda d: (d.seen - d.time).mean("time"), lambda d: d.v.idxmax("time"),
             lambda d: d.seen.where(d.v > 0.5)]
    for step in steps:
        result = step(lazy)
        assert isinstance(result.data, tg.Array)
        xr.testing.assert_identical(result.compute(), step(ds.load()))
