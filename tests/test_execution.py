"""Computing: the serial and threaded executors give bit-identical results (and NumPy's) on
random expression graphs; tg.compute of several arrays; NumPy interop; repr and plans
without computing; errors inside kernels reach Python from either executor."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import assert_same, chunkings, quiet, shapes

# Each step takes (numpy array, tegula array) and returns both transformed the same way.
UNARY_STEPS = {
    "neg": lambda m: -m,
    "sin": lambda m: m.sin(),
    "square": lambda m: m * m,
    "add-scalar": lambda m: m + 2.5,
    "rscalar": lambda m: 10.0 - m,
    "divide": lambda m: m / 3,
    "abs-sqrt": lambda m: abs(m).sqrt(),
    "where": lambda m: m.where(m > 0, -m),
}


class Mirror:
    """The same expression applied to a NumPy array and a tegula array."""

    def __init__(self, a, x):
        self.a, self.x = a, x

    def __neg__(self):
        return Mirror(-self.a, -self.x)

    def __add__(self, o):
        return Mirror(self.a + _a(o), self.x + _x(o))

    def __rsub__(self, o):
        return Mirror(o - self.a, o - self.x)

    def __mul__(self, o):
        return Mirror(self.a * _a(o), self.x * _x(o))

    def __truediv__(self, o):
        return Mirror(self.a / _a(o), self.x / _x(o))

    def __gt__(self, o):
        return Mirror(self.a > _a(o), self.x > _x(o))

    def __abs__(self):
        return Mirror(np.abs(self.a), abs(self.x))

    def sin(self):
        return Mirror(np.sin(self.a), tg.sin(self.x))

    def sqrt(self):
        return Mirror(np.sqrt(self.a), tg.sqrt(self.x))

    def where(self, cond, other):
        return Mirror(np.where(cond.a, self.a, other.a), tg.where(cond.x, self.x, other.x))


def _a(o):
    return o.a if isinstance(o, Mirror) else o


def _x(o):
    return o.x if isinstance(o, Mirror) else o


@st.composite
def expressions(draw):
    """A random expression graph over two randomly chunked float64 arrays: element-wise steps,
    a binary combination (with rechunking where the chunkings differ), a transpose, an index,
    a reduction tree or a matmul, returning the final Mirror."""
    shape = draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32)))
    a, b = rng.standard_normal(shape), rng.standard_normal(shape)
    m1 = Mirror(a, tg.asarray(a, chunks=draw(chunkings(shape))[0]))
    m2 = Mirror(b, tg.asarray(b, chunks=draw(chunkings(shape))[0]))
    for _ in range(draw(st.integers(1, 4))):
        m1 = UNARY_STEPS[draw(st.sampled_from(sorted(UNARY_STEPS)))](m1)
    m = m1 + m2 if draw(st.booleans()) else m1 * m2
    finish = draw(st.sampled_from(["none", "T", "index", "sum", "mean", "std", "matmul", "max"]))
    if finish == "T":
        return Mirror(m.a.T, m.x.T)
    if finish == "index":
        key = tuple(slice(None, None, -2) for _ in shape)
        return Mirror(m.a[key], m.x[key])
    if finish in ("sum", "mean", "std", "max"):
        axis = draw(st.none() | st.integers(-len(shape), len(shape) - 1))
        split_every = draw(st.sampled_from([2, 3, 8]))
        return Mirror(getattr(np, finish)(m.a, axis=axis), getattr(m.x, finish)(axis=axis, split_every=split_every))
    if finish == "matmul" and len(shape) <= 2:
        return Mirror(m.a.T @ m.a, m.x.T @ m.x)
    return m


@given(expr=expressions(), workers=st.sampled_from([None, 1, 2, 3, 4]))
def test_serial_and_threaded_are_bit_identical(expr, workers):
    serial = expr.x.compute(scheduler="serial")
    threaded = expr.x.compute(scheduler="threads", num_workers=workers)
    default = expr.x.compute()
    for out in (threaded, default):
        assert out.dtype == serial.dtype and out.shape == serial.shape
        assert out.tobytes() == serial.tobytes()
    with quiet():
        expected = np.asarray(expr.a)
    assert_same(serial, expected, rtol=1e-9, atol=1e-9)


@given(seed=st.integers(0, 2**32), shape=shapes(min_dims=1, max_dims=2, min_side=1, max_side=40))
def test_random_values_do_not_depend_on_scheduler(seed, shape):
    x = tg.random.default_rng(seed).standard_normal(size=shape, chunks=7)
    serial = x.compute(scheduler="serial")
    for workers in (1, 2, 4):
        assert x.compute(num_workers=workers).tobytes() == serial.tobytes()


def test_compute_several_arrays_returns_a_tuple_of_numpy_arrays():
    a = np.arange(20.0).reshape(4, 5)
    x = tg.asarray(a, chunks=2)
    total, means = tg.compute(x.sum(), x.mean(axis=1))
    assert isinstance(total, np.ndarray) and isinstance(means, np.ndarray)
    assert_same(total, a.sum())
    assert_same(means, a.mean(axis=1))
    out = tg.compute(x.max(), 7, "text", x, scheduler="serial")
    assert isinstance(out, tuple) and out[1:3] == (7, "text")
    assert_same(out[0], a.max())
    assert_same(out[3], a, exact=True)
    assert tg.compute() == ()


def test_numpy_interop():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    x = tg.asarray(a, chunks=(2, 3))
    for out in (np.asarray(x), np.array(x), x.compute()):
        assert isinstance(out, np.ndarray)
        assert_same(out, a)
    assert_same(np.asarray(x, dtype=np.float32), a.astype(np.float32))
    assert float(x.sum()) == float(a.sum()) and int(x[1, 2]) == int(a[1, 2])
    assert complex(x[0, 1]) == complex(a[0, 1]) and bool(x[0, 0]) is bool(a[0, 0])
    assert [1, 2, 3][x[0, 1]] == 2  # __index__
    assert len(x) == 3
    with pytest.raises(TypeError):
        len(tg.asarray(1.0))
    with pytest.raises(ValueError):
        bool(x)
    with pytest.raises(TypeError):
        float(x)
    assert_same((a + x).compute(), a + a)  # NumPy defers to tegula's reflected operators
    assert isinstance(a + x, tg.Array)
    assert isinstance(np.float64(2.0) * x, tg.Array)


def test_repr_shows_the_plan_without_computing():
    # computing this would fail (an integer to a negative power): repr must not compute it
    x = tg.asarray(np.arange(10), chunks=3) ** tg.asarray(np.full(10, -1), chunks=5)
    text = repr(x)
    assert "shape=(10,)" in text and "dtype=int64" in text and f"tasks={x.task_count()}" in text
    assert x.task_count() > 0
    assert "power" in x.explain()
    with pytest.raises(ValueError):
        x.compute()
    big = tg.zeros((10**6, 10**6), chunks=10**5)  # 8 TB: planned, never computed
    assert "shape=(1000000, 1000000)" in repr(big) and "float64" in repr(big)
    assert big.sum().task_count() > 100


def test_unknown_scheduler():
    with pytest.raises(ValueError, match="unknown scheduler 'gpu'.*threads, serial, processes"):
        tg.zeros(3).compute(scheduler="gpu")


@pytest.mark.parametrize("scheduler", ["serial", "threads"])
def test_shared_subexpressions_and_outputs(scheduler):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((30, 20))
    x = tg.asarray(a, chunks=(7, 6))
    y = tg.sin(x) * 2
    outs = tg.compute(y, y.sum(axis=0), (y @ y.T)[::3], y.std(), scheduler=scheduler)
    expected = (np.sin(a) * 2, (np.sin(a) * 2).sum(axis=0), ((np.sin(a) * 2) @ (np.sin(a) * 2).T)[::3],
                (np.sin(a) * 2).std())
    for out, exp in zip(outs, expected):
        assert_same(out, exp, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape", [(3_000_000,), (1500, 1700), (3, 700, 900)])
def test_one_big_chunk_splits_across_threads_without_changing_results(shape):
    # One block, large enough that kernels split it into groups run by several threads;
    # the split depends on the size only, so every thread count gives the same bits.
    a = np.random.default_rng(sum(shape)).standard_normal(shape)
    x = tg.asarray(a, chunks=-1)
    exprs = [tg.sqrt(tg.abs(x)) * 2 - x, ((x + 1) * x).sum(), x.mean(axis=0), (x * 3).std(axis=-1), x.max()]
    for expr in exprs:
        serial = expr.compute(scheduler="serial")
        for workers in (2, 3):
            np.testing.assert_array_equal(expr.compute(scheduler="threads", num_workers=workers), serial)
    np.testing.assert_allclose(exprs[0].compute(), np.sqrt(np.abs(a)) * 2 - a, rtol=1e-15)
    np.testing.assert_allclose(exprs[1].compute(), ((a + 1) * a).sum(), rtol=1e-12)
    np.testing.assert_allclose(exprs[2].compute(), a.mean(axis=0), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(exprs[3].compute(), (a * 3).std(axis=-1), rtol=1e-12)
    assert exprs[4].compute() == a.max()
