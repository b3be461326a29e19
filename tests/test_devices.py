"""Devices through the array API (``x.device``, ``x.to_device``, ``device=``), proven with host
devices: the host's cores and memory with a budget of their own and their transfers counted,
standing in for an accelerator. Plans placed on one give NumPy's results and the CPU's bit for
bit, each block moved is counted, a device keeps to its budget, and devices do not mix."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from tegula import _tegula
from strategies import assert_same, chunked_arrays, dtypes, FLOAT, COMPLEX, INTEGER, same_bytes, shapes

_names = itertools.count()


def host_device(memory=None):
    """A new host device (names are per process, so each is new)."""
    name = f"host-{next(_names)}"
    _tegula.add_host_device(name, memory)
    return name


DEVICE = host_device()

# Operations on one array, each NumPy's and tegula's alike.
STEPS = {
    "scale": lambda xp, x: x * 3 - 1,
    "square": lambda xp, x: x * x,
    "sum": lambda xp, x: xp.sum(x, axis=0),
    "cumsum": lambda xp, x: xp.cumsum(x, axis=-1),
    "reverse": lambda xp, x: x[::-1],
    "transpose": lambda xp, x: x.T,
    "sort": lambda xp, x: xp.sort(x, axis=-1),
    "where": lambda xp, x: xp.where(x > 0, x, 0),
}

NEED_AN_AXIS = {"sum", "cumsum", "reverse", "sort"}


@settings(max_examples=60)
@given(data=st.data(), steps=st.lists(st.sampled_from(sorted(STEPS)), min_size=1, max_size=3))
def test_a_plan_on_a_device_gives_numpy_and_the_cpu_results(data, steps):
    dtype = data.draw(dtypes(FLOAT[1:] + COMPLEX + INTEGER))
    shape = data.draw(shapes(min_dims=1, max_side=6))
    a, x = data.draw(chunked_arrays(dtype, shape, max_magnitude=100, allow_nan=False, allow_infinity=False))
    expected, on_cpu, on_device = a, x, x.to_device(DEVICE)
    for step in steps:
        if (step == "sort" and a.dtype.kind == "c") or (step in NEED_AN_AXIS and np.ndim(expected) == 0):
            continue
        expected, on_cpu, on_device = (STEPS[step](xp, v) for xp, v in ((np, expected), (tg, on_cpu), (tg, on_device)))
    assert on_device.device == DEVICE and on_cpu.device == "cpu"
    got = on_device.compute()
    assert same_bytes(got, on_cpu.compute())
    # Sums in another order than NumPy's: to rounding, relative to the largest magnitude.
    single = expected.dtype in (np.float32, np.complex64)
    scale = float(np.abs(expected).max(initial=1.0)) if expected.dtype.kind in "fc" else 0.0
    assert_same(got, expected, rtol=1e-4 if single else 1e-9, atol=(1e-4 if single else 1e-9) * scale)


def test_each_block_moved_is_counted():
    device = host_device()
    a = np.arange(120.0).reshape(12, 10)
    y = tg.asarray(a, chunks=(4, 5)).to_device(device)  # 3×2 blocks
    assert_same((y * 3).compute(), a * 3, exact=True)
    # Six blocks in, six results out: the array's bytes twice.
    assert _tegula.device_transfers(device) == (12, 2 * a.nbytes)
    assert_same(y.sum().compute(), a.sum(), exact=True)
    assert _tegula.device_transfers(device) == (12 + 6 + 1, 3 * a.nbytes + 8)


def test_a_device_keeps_to_its_own_budget():
    budget = 3 << 20
    device = host_device(budget)
    x = tg.random.default_rng(3).standard_normal((1024, 512), chunks=(64, 512))  # 16 blocks of 256 KB
    y = x.to_device(device)
    z = (y - y[::-1]) * y
    centred = z - z.sum()
    with tg.config.set(memory="1GB"):
        (got, total, got_centred), report = tg.compute(z, z.sum(), centred, scheduler="threads", report=True)
    index = _tegula.device_names().index(device)
    assert report["device_peak_bytes"][index] <= budget
    # 16 blocks (4 MB) are read again once their sum is known, so they wait on the device for
    # it: some had to leave
    assert report["spilled_bytes"] > 0
    np.testing.assert_array_equal(got_centred, got - total)
    expected = ((x - x[::-1]) * x).compute()
    assert same_bytes(got, expected)
    assert np.isclose(total, expected.sum(), rtol=1e-12)


def test_creation_places_arrays_and_like_functions_follow():
    assert tg.asarray([1.0, 2.0]).device == "cpu"
    assert tg.asarray([1.0, 2.0], device=DEVICE).device == DEVICE
    y = tg.ones((3, 4), device=DEVICE)
    assert y.device == DEVICE and (y + 1).device == DEVICE
    for made in (tg.zeros_like(y), tg.full_like(y, 2), tg.empty_like(y), tg.astype(y, "float32"),
                 tg.arange(5, device=DEVICE), tg.linspace(0, 1, 5, device=DEVICE), tg.eye(3, device=DEVICE)):
        assert made.device == DEVICE
    assert tg.zeros_like(y, device="cpu").device == "cpu"
    assert y.to_device(DEVICE) is y
    assert y.to_device("cpu").device == "cpu"
    np.testing.assert_array_equal(tg.full((2, 2), 5, device=DEVICE).to_device("cpu").compute(), np.full((2, 2), 5))
    assert DEVICE in tg.__array_namespace_info__().devices()


def test_arrays_on_different_devices_do_not_mix():
    x = tg.arange(6.0, chunks=2)
    with pytest.raises(ValueError, match="different devices"):
        x.to_device(DEVICE) + x
    with pytest.raises(ValueError, match="no device 'tpu'"):
        x.to_device("tpu")
    with pytest.raises(ValueError, match="no device"):
        tg.zeros(3, device="tpu")
    with pytest.raises(ValueError, match="exists already"):
        _tegula.add_host_device(DEVICE)
    # A Python scalar goes where the array is.
    assert (2 * x.to_device(DEVICE)).device == DEVICE


def test_the_process_pool_runs_device_work_in_the_driver():
    # Devices are per process: work placed on one stays in the process that has it.
    device = host_device()
    a = np.arange(64.0).reshape(8, 8)
    y = (tg.asarray(a, chunks=4).to_device(device) * 2).sum(axis=0)
    assert_same(y.compute(scheduler="processes", num_workers=2), (a * 2).sum(axis=0), exact=True)
    assert _tegula.device_transfers(device)[0] > 0
