"""The GPU device (``crates/tegula-gpu``) against NumPy and the CPU: element-wise expressions
of every dtype it computes in, over random shapes and chunkings, within 4 ulp of NumPy for
floats and exact for integers and booleans; random numbers equal to the CPU's bit for bit;
kernels it has no shader for run on the CPU; a computation bigger than its budget spills.
Without a GPU (a build without the ``gpu`` feature, or no adapter) every test but the first
skips, saying why; CI builds the feature and installs Mesa's software Vulkan driver, so there
they all run."""

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from tegula import _tegula
from strategies import assert_same, chunked_arrays, chunkings, float_to_int_defined, quiet, same_bytes, shapes


def _missing():
    """Why there is no GPU, or None."""
    try:
        _tegula.find_device("gpu")
    except ValueError as e:
        return str(e)
    return None


MISSING = _missing()
needs_gpu = pytest.mark.skipif(MISSING is not None, reason=f"no GPU: {MISSING}")

GPU_DTYPES = ["bool", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float32", "float64"]


def test_asking_for_the_gpu_works_or_says_what_is_missing():
    x = tg.arange(6.0, chunks=4)
    if MISSING is not None:
        assert "no device 'gpu'" in MISSING and len(MISSING) > len("no device 'gpu': ")
        with pytest.raises(ValueError, match="no device 'gpu'"):
            x.to_device("gpu")
        with pytest.raises(ValueError, match="no device 'gpu'"):
            tg.asarray([1.0, 2.0], device="gpu")
        with pytest.raises(ValueError, match="no device 'gpu'"):
            _tegula.gpu_info()
        return
    assert "gpu" in tg.__array_namespace_info__().devices()
    on = x.to_device("gpu")
    assert on.device == "gpu" and (on * 2).device == "gpu"
    np.testing.assert_array_equal((on * 2).compute(), np.arange(6.0) * 2)
    info = _tegula.gpu_info()
    assert info["adapter"] and isinstance(info["float64"], bool)


def ulps_apart(a, b):
    """How many float steps of ``b``'s dtype lie between ``a`` and ``b`` (0 where both are NaN
    or equal; infinite where only one is NaN)."""
    a, b = np.asarray(a), np.asarray(b)
    with quiet():
        both_nan = np.isnan(a) & np.isnan(b)
        one_nan = np.isnan(a) ^ np.isnan(b)
        same = (a == b) | both_nan
        gap = np.abs(a.astype(np.float64) - b.astype(np.float64)) / np.spacing(np.abs(b)).astype(np.float64)
    return np.where(same, 0.0, np.where(one_nan, np.inf, gap))


def assert_gpu_matches(got, expected):
    """Equal dtype and shape; integers and booleans exact, floats within 4 ulp (NaN for NaN)."""
    got, expected = np.asarray(got), np.asarray(expected)
    if expected.dtype.kind in "fc":
        assert got.dtype == expected.dtype and got.shape == expected.shape
        worst = ulps_apart(got, expected).max(initial=0.0)
        assert worst <= 4, f"{worst} ulp from NumPy's result"
    else:
        assert_same(got, expected, exact=True)


# Element-wise steps: (name, applies to a dtype, function of (xp, x, y)); `y` is a second array
# of the same dtype broadcast against `x`.
NUMERIC = lambda d: d.kind != "b"  # noqa: E731
FLOATS = lambda d: d.kind == "f"  # noqa: E731
INTS = lambda d: d.kind in "iu"  # noqa: E731
INTS_BOOL = lambda d: d.kind in "iub"  # noqa: E731
ANY = lambda d: True  # noqa: E731
STEPS = [
    ("add", ANY, lambda xp, x, y: x + y),
    ("subtract", NUMERIC, lambda xp, x, y: x - y),
    ("multiply", ANY, lambda xp, x, y: x * y),
    ("scale", NUMERIC, lambda xp, x, y: x * 3 - 1),
    ("divide", FLOATS, lambda xp, x, y: x / y),
    ("floor_divide", INTS, lambda xp, x, y: x // y),
    ("remainder", INTS, lambda xp, x, y: x % y),
    ("maximum", ANY, lambda xp, x, y: xp.maximum(x, y)),
    ("minimum", ANY, lambda xp, x, y: xp.minimum(y, x)),
    ("negative", NUMERIC, lambda xp, x, y: -x),
    ("abs", ANY, lambda xp, x, y: xp.abs(x)),
    ("square", NUMERIC, lambda xp, x, y: xp.square(x)),
    ("sqrt", FLOATS, lambda xp, x, y: xp.sqrt(xp.abs(x))),
    ("floor", FLOATS, lambda xp, x, y: xp.floor(x)),
    ("rint", FLOATS, lambda xp, x, y: xp.rint(x)),
    ("sign", NUMERIC, lambda xp, x, y: xp.sign(x)),
    ("where", ANY, lambda xp, x, y: xp.where(x > y, x, y)),
    ("isnan", FLOATS, lambda xp, x, y: xp.where(xp.isnan(x), y, x)),
    ("and", INTS_BOOL, lambda xp, x, y: x & y),
    ("xor", INTS_BOOL, lambda xp, x, y: x ^ y),
    ("invert", INTS_BOOL, lambda xp, x, y: ~x),
    ("compare", ANY, lambda xp, x, y: (x != y) | (x < y)),
]


@settings(max_examples=80, deadline=None)
@given(data=st.data())
@needs_gpu
def test_element_wise_expressions_on_the_gpu_equal_numpy(data):
    dtype = np.dtype(data.draw(st.sampled_from(GPU_DTYPES)))
    shape = data.draw(shapes(min_dims=1, max_dims=3, max_side=9))
    a, x = data.draw(chunked_arrays(dtype, shape, max_magnitude=1e4))
    row_shape = shape[-1:]
    b, y = data.draw(chunked_arrays(dtype, row_shape, max_magnitude=1e4))
    usable = [s for s in STEPS if s[1](dtype)]
    chosen = data.draw(st.lists(st.sampled_from(usable), min_size=1, max_size=4))
    expected, on_gpu, on_cpu = a, x.to_device("gpu"), x
    other = y.to_device("gpu")
    for _, _, step in chosen:
        with quiet():
            expected = np.asarray(step(np, expected, b))
        on_gpu, on_cpu = step(tg, on_gpu, other), step(tg, on_cpu, y)
        if expected.dtype != dtype:  # a comparison or division: back to the drawn dtype
            if not float_to_int_defined(expected, dtype):
                break
            with quiet():
                expected = expected.astype(dtype)
            on_gpu, on_cpu = on_gpu.astype(dtype), on_cpu.astype(dtype)
    assert on_gpu.device == "gpu"
    got = on_gpu.compute()
    assert_gpu_matches(got, expected)
    assert_gpu_matches(got, on_cpu.compute())


@st.composite
def basic_indices(draw, shape):
    """A basic index of an array of ``shape``: per axis a slice (any step, negative too) or
    an integer, and sometimes a new axis."""
    index = []
    for n in shape:
        if n and draw(st.booleans()) and len(index) < len(shape) - 1:
            index.append(draw(st.integers(-n, n - 1)))
        else:
            bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
            index.append(slice(draw(bound), draw(bound), draw(st.sampled_from([None, 1, 2, 3, -1, -2]))))
        if draw(st.integers(0, 5)) == 0:
            index.append(None)
    return tuple(index)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
@needs_gpu
def test_transposes_slices_and_rechunks_on_the_gpu_equal_numpy(data):
    dtype = np.dtype(data.draw(st.sampled_from(GPU_DTYPES + ["int64", "complex128"])))
    shape = data.draw(shapes(min_dims=1, max_dims=3, max_side=9))
    a, x = data.draw(chunked_arrays(dtype, shape))
    index = data.draw(basic_indices(shape))
    perm = data.draw(st.permutations(range(np.empty(shape)[index].ndim)))
    expected = np.transpose(a[index], perm)
    new_chunks, _ = data.draw(chunkings(expected.shape))
    before = _tegula.gpu_info()["on_cpu"]
    got = x.to_device("gpu")[index].transpose(perm).rechunk(new_chunks).compute()
    assert _tegula.gpu_info()["on_cpu"] == before
    assert same_bytes(got, expected)


@needs_gpu
def test_the_work_runs_on_the_gpu_and_comes_back_once():
    a = np.linspace(-3, 3, 40 * 30, dtype=np.float32).reshape(40, 30)
    x = tg.asarray(a, chunks=(10, 15)).to_device("gpu")  # 4 x 2 blocks
    before = _tegula.gpu_info()
    got = (tg.maximum(x * 2 - 1, 0) + x).compute()
    after = _tegula.gpu_info()
    assert_gpu_matches(got, np.maximum(a * 2 - 1, 0) + a)
    assert after["kernels"] - before["kernels"] >= 8  # one fused kernel per block at least
    assert after["on_cpu"] == before["on_cpu"]
    assert after["uploads"] - before["uploads"] == 8 and after["downloads"] - before["downloads"] == 8
    assert after["downloaded_bytes"] - before["downloaded_bytes"] == a.nbytes


@needs_gpu
def test_random_numbers_on_the_gpu_are_the_cpus_bit_for_bit():
    rng = lambda: tg.random.default_rng(11)  # noqa: E731
    for draw in (lambda g: g.random((300, 70), chunks=(128, 32)),
                 lambda g: g.standard_normal((90, 90), dtype="float32", chunks=40),
                 lambda g: g.integers(-50, 50, size=(77,), dtype="int32", chunks=20)):
        on_cpu = draw(rng())
        on_gpu = draw(rng()).to_device("gpu")
        assert same_bytes((on_gpu * 3).compute(), (on_cpu * 3).compute())


@needs_gpu
def test_kernels_without_a_shader_run_on_the_cpu_with_numpys_results():
    a = np.linspace(-2, 2, 64, dtype=np.float32).reshape(8, 8)
    x = tg.asarray(a, chunks=4).to_device("gpu")
    before = _tegula.gpu_info()["on_cpu"]
    for got, expected in ((tg.sin(x).compute(), np.sin(a)),
                          (tg.sort(x, axis=0).compute(), np.sort(a, axis=0)),
                          (x.T.compute(), a.T),
                          (tg.exp(x).sum(axis=1).compute(), np.exp(a).sum(axis=1))):
        assert_same(got, expected)
    assert _tegula.gpu_info()["on_cpu"] > before


@needs_gpu
def test_persisted_blocks_stay_on_the_gpu(tmp_path):
    a = np.random.default_rng(5).standard_normal((400, 300)).astype(np.float32)
    x = tg.asarray(a, chunks=(100, 150)).to_device("gpu")
    # The threaded executor keeps device blocks where they are (the process pool returns
    # blocks to the host, as before).
    kept = (x * 2).persist(scheduler="threads")
    assert kept.device == "gpu"
    before = _tegula.gpu_info()
    got = (kept + 1).compute(scheduler="threads")
    after = _tegula.gpu_info()
    assert after["uploads"] == before["uploads"] and after["on_cpu"] == before["on_cpu"]
    assert after["downloaded_bytes"] - before["downloaded_bytes"] == a.nbytes
    assert_gpu_matches(got, a * 2 + 1)
    assert_gpu_matches(kept[50:250:3, 140:160].compute(), (a * 2)[50:250:3, 140:160])
    assert_gpu_matches(kept.to_device("cpu").compute(), a * 2)
    del kept
    # Beyond half the budget, rows of blocks are kept on disk: read back to the GPU.
    b = np.random.default_rng(6).standard_normal((2000, 300)).astype(np.float32)
    with tg.config.set(memory=3_000_000 + _tegula.kept_bytes(), spill_dir=str(tmp_path)):
        partly = tg.persist(tg.asarray(b, chunks=(100, 150)).to_device("gpu") - 1, scheduler="threads")[0]
        assert partly.device == "gpu" and any(tmp_path.iterdir())
        assert_gpu_matches((partly * 3)[::5].compute(), ((b - 1) * 3)[::5])


def copied_tasks(plan):
    """The tasks ``explain`` shows run on the host, their blocks copied there and back."""
    return sum(int(m) for m in re.findall(r"on the host, copied there and back: (\d+) of", plan))


@needs_gpu
def test_explain_shows_the_kernels_the_gpu_runs_on_the_cpu():
    a = np.linspace(-2, 2, 96, dtype=np.float32).reshape(8, 12)
    x = tg.asarray(a, chunks=(4, 5)).to_device("gpu")
    for expression, runs_on_cpu in ((lambda: (x * 2 + 1).sum(axis=0), False),
                                    (lambda: x @ x.T, False),
                                    (lambda: x[::-3, 1:9:2].rechunk((3, 2)).T, False),
                                    (lambda: tg.sin(x), True),
                                    (lambda: tg.sort(x, axis=1), True),
                                    (lambda: tg.exp(x).sum(axis=1), True),
                                    (lambda: x.astype("int64").sum(), True),
                                    (lambda: x.std(axis=0), not _tegula.gpu_info()["float64"]),
                                    (lambda: tg.nanvar(x, axis=0), True)):
        y = expression()
        shown = copied_tasks(y.explain())
        before = _tegula.gpu_info()["on_cpu"]
        y.compute()
        assert _tegula.gpu_info()["on_cpu"] - before == shown, y.explain()
        assert (shown > 0) == runs_on_cpu, y.explain()


@needs_gpu
def test_a_computation_bigger_than_the_gpus_budget_spills_to_the_host():
    budget = 2 << 20
    x = tg.random.default_rng(5).standard_normal((1024, 512), dtype="float32", chunks=(64, 512))  # 16 blocks of 128 KiB
    y = x.to_device("gpu")
    z = (y - y[::-1]) * y
    centred = z - z.sum()
    with tg.config.set(memory="1GB", device_memory=budget):
        (got, total, got_centred), report = tg.compute(z, z.sum(), centred, scheduler="threads", report=True)
    index = _tegula.device_names().index("gpu")
    assert 0 < report["device_peak_bytes"][index] <= budget
    assert report["spilled_bytes"] > 0
    expected = ((x - x[::-1]) * x).compute()
    assert_gpu_matches(got, expected)
    assert_gpu_matches(got_centred, got - total)


REDUCTIONS = {
    "sum": (lambda d: d.kind == "f", lambda xp, x, axis: xp.sum(x, axis=axis)),
    "mean": (lambda d: d.kind == "f", lambda xp, x, axis: xp.mean(x, axis=axis)),
    "prod": (lambda d: d == np.float64, lambda xp, x, axis: xp.prod(x / 64 + 1, axis=axis)),
    "min": (lambda d: True, lambda xp, x, axis: xp.min(x, axis=axis)),
    "max": (lambda d: True, lambda xp, x, axis: xp.max(x, axis=axis)),
    "any": (lambda d: True, lambda xp, x, axis: xp.any(x, axis=axis)),
    "all": (lambda d: True, lambda xp, x, axis: xp.all(x, axis=axis)),
    "var": (lambda d: d.kind == "f", lambda xp, x, axis: xp.var(x, axis=axis)),
    "std": (lambda d: d.kind == "f", lambda xp, x, axis: xp.std(x, axis=axis, ddof=1)),
}
# The magnitude a reduction's rounding is relative to: its terms'.
SCALES = {"sum": np.abs, "mean": np.abs, "var": np.square, "std": np.abs}


@settings(max_examples=60, deadline=None)
@given(data=st.data(), name=st.sampled_from(sorted(REDUCTIONS)))
@needs_gpu
def test_reductions_on_the_gpu_equal_numpy(data, name):
    applies, reduce = REDUCTIONS[name]
    dtype = np.dtype(data.draw(st.sampled_from([d for d in GPU_DTYPES if applies(np.dtype(d))])))
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=12))
    a, x = data.draw(chunked_arrays(dtype, shape, max_magnitude=1e3, allow_infinity=False))
    axes = data.draw(st.lists(st.integers(0, len(shape) - 1), unique=True, max_size=len(shape)))
    axis = None if not axes else tuple(sorted(axes))
    with quiet():
        expected = np.asarray(reduce(np, a, axis))
    before = _tegula.gpu_info()["on_cpu"]
    got = reduce(tg, x.to_device("gpu"), axis).compute()
    if expected.dtype.kind == "f":
        # Sums in another order than NumPy's: to rounding, relative to the largest magnitude.
        single = expected.dtype == np.float32
        terms = SCALES.get(name)
        scale = float(np.abs(reduce(np, terms(a), axis)).max(initial=1.0)) if name in ("sum", "mean") else 0.0
        if name in ("var", "std"):
            scale = float(terms(a).max(initial=1.0))
        assert_same(got, expected, rtol=1e-5 if single else 1e-12, atol=(1e-5 if single else 1e-12) * scale)
    else:
        assert_same(got, expected, exact=True)
    # Integer sums accumulate in int64, which shaders lack; the mean divides in float64.
    in_lanes = _tegula.gpu_info()["float64"] or (dtype != np.float64 and name not in ("mean", "var", "std"))
    if in_lanes and (dtype.kind == "f" or name not in ("sum", "mean", "prod")):
        assert _tegula.gpu_info()["on_cpu"] == before, "the reduction ran on the GPU"


@settings(max_examples=30, deadline=None)
@given(data=st.data())
@needs_gpu
def test_matrix_products_on_the_gpu_equal_numpy(data):
    dtype = np.dtype(data.draw(st.sampled_from(["float32", "float64"])))
    m, k, n = (data.draw(st.integers(1, 40)) for _ in range(3))
    a, x = data.draw(chunked_arrays(dtype, (m, k), max_magnitude=10, allow_nan=False, allow_infinity=False))
    b, y = data.draw(chunked_arrays(dtype, (k, n), max_magnitude=10, allow_nan=False, allow_infinity=False))
    before = _tegula.gpu_info()
    got = (x.to_device("gpu") @ y.to_device("gpu")).compute()
    single = dtype == np.float32
    scale = float((np.abs(a) @ np.abs(b)).max(initial=1.0))
    assert_same(got, a @ b, rtol=1e-5 if single else 1e-12, atol=(1e-5 if single else 1e-12) * scale)
    after = _tegula.gpu_info()
    # Where the contracted axis is cut differently, one operand is rechunked: on the CPU.
    if (after["float64"] or single) and x.chunks[1] == y.chunks[0]:
        assert after["on_cpu"] == before["on_cpu"], "the product ran on the GPU"
