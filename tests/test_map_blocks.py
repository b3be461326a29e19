"""Python functions per block (map_blocks, blockwise, apply_gufunc) against the same functions
applied by NumPy to the whole array, on random shapes and chunkings."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from strategies import chunkings, shapes


def blocks_of(chunks):
    """Per axis, the block number of every position."""
    return [np.repeat(np.arange(len(c)), c) for c in chunks]


@settings(max_examples=40)
@given(shape=shapes(1, 3, 1, 9), data=st.data())
def test_map_blocks_elementwise_with_block_id(shape, data):
    a = np.random.default_rng(0).random(shape)
    spec, chunks = data.draw(chunkings(shape))
    x = tg.asarray(a, chunks=spec)

    def f(block, scale, block_id=None):
        return block * scale + block_id[0]

    y = tg.map_blocks(f, x, 2.0, dtype=np.float64)
    assert isinstance(y, tg.Array) and y.chunks == x.chunks
    expected = a * 2.0 + blocks_of(x.chunks)[0].reshape((-1,) + (1,) * (a.ndim - 1))
    np.testing.assert_array_equal(y.compute(), expected)
    assert x.map_blocks(np.sqrt).dtype == np.float64  # inferred from empty blocks
    np.testing.assert_array_equal(x.map_blocks(np.sqrt).compute(), np.sqrt(a))


@settings(max_examples=30)
@given(rows=st.integers(1, 12), cols=st.integers(1, 12), r=st.integers(1, 6), c=st.integers(1, 6))
def test_map_blocks_broadcasts_and_aligns(rows, cols, r, c):
    rng = np.random.default_rng(1)
    a, b = rng.random((rows, cols)), rng.random(cols)
    x, y = tg.asarray(a, chunks=(r, c)), tg.asarray(b, chunks=max(1, c - 1))
    out = tg.map_blocks(np.add, x, y, dtype=np.float64)
    np.testing.assert_array_equal(out.compute(), a + b)
    out = tg.map_blocks(np.subtract, x, b, dtype=np.float64)  # a NumPy argument is an array too
    np.testing.assert_array_equal(out.compute(), a - b)


@settings(max_examples=30)
@given(rows=st.integers(1, 10), cols=st.integers(1, 10), r=st.integers(1, 5), c=st.integers(1, 5))
def test_map_blocks_drop_and_new_axes(rows, cols, r, c):
    a = np.random.default_rng(2).random((rows, cols))
    x = tg.asarray(a, chunks=(r, c))
    summed = x.map_blocks(lambda b: b.sum(axis=1), drop_axis=1, dtype=np.float64)
    np.testing.assert_allclose(summed.compute(), a.sum(axis=1))
    assert summed.chunks == (x.chunks[0],)
    tripled = x.map_blocks(lambda b: np.stack([b, 2 * b, 3 * b], axis=1), new_axis=1,
                           chunks=(x.chunks[0], 3, x.chunks[1]), dtype=np.float64)
    np.testing.assert_array_equal(tripled.compute(), np.stack([a, 2 * a, 3 * a], axis=1))


def test_map_blocks_changes_block_lengths():
    a = np.arange(24.0).reshape(6, 4)
    x = tg.asarray(a, chunks=(3, 2))
    halves = x.map_blocks(lambda b: b[::2], chunks=((2, 2), (2, 2)), dtype=np.float64)
    np.testing.assert_array_equal(halves.compute(), np.concatenate([a[0:3:2], a[3:6:2]]))
    same = x.map_blocks(lambda b: b[:1], chunks=(1, 2), dtype=np.float64)  # every block 1 x 2
    np.testing.assert_array_equal(same.compute(), a[[0, 3]])


def test_map_blocks_errors():
    x = tg.asarray(np.arange(10.0), chunks=5)
    with pytest.raises(ValueError, match="shape"):
        x.map_blocks(lambda b: b[:2], dtype=np.float64).compute()

    def broken(b):
        raise KeyError("inside the function")

    with pytest.raises(KeyError, match="inside the function"):
        x.map_blocks(broken, dtype=np.float64).compute()
    with pytest.raises(ValueError, match="infer the dtype"):
        x.map_blocks(lambda b: b[0])
    with pytest.raises(ValueError, match="at least one array"):
        tg.map_blocks(np.sin, 1.0)
    with pytest.raises(ValueError, match="blocks"):
        x.map_blocks(lambda b: b, chunks=((10,),), dtype=np.float64)
    with pytest.raises(np.exceptions.AxisError):
        x.map_blocks(lambda b: b, drop_axis=3, dtype=np.float64)
    # A failed computation leaves no error behind for the next one.
    np.testing.assert_array_equal(x.map_blocks(np.negative).compute(), -np.arange(10.0))


@settings(max_examples=30)
@given(i=st.integers(1, 8), j=st.integers(1, 8), k=st.integers(1, 8), bi=st.integers(1, 4), bj=st.integers(1, 4))
def test_blockwise_outer_and_contraction(i, j, k, bi, bj):
    rng = np.random.default_rng(3)
    a, b, m = rng.random(i), rng.random(j), rng.random((i, k))
    x, y = tg.asarray(a, chunks=bi), tg.asarray(b, chunks=bj)
    outer = tg.blockwise(np.multiply.outer, "ij", x, "i", y, "j", dtype=np.float64)
    np.testing.assert_allclose(outer.compute(), np.multiply.outer(a, b))
    mt = tg.asarray(m, chunks=(bi, bj))
    row_sums = tg.blockwise(lambda block: block.sum(axis=1), "i", mt, "ik", dtype=np.float64)
    np.testing.assert_allclose(row_sums.compute(), m.sum(axis=1))
    transposed = tg.blockwise(lambda block: block.T * 1.0, "ki", mt, "ik", dtype=np.float64)
    np.testing.assert_array_equal(transposed.compute(), m.T)


@settings(max_examples=30)
@given(loop=shapes(0, 2, 1, 6), n=st.integers(1, 7), data=st.data())
def test_apply_gufunc_over_loop_axes(loop, n, data):
    rng = np.random.default_rng(4)
    a, b = rng.random(loop + (n,)), rng.random((n,))
    spec = tuple(data.draw(st.integers(1, max(s, 1))) for s in loop) + (-1,)
    x = tg.asarray(a, chunks=spec)
    inner = tg.apply_gufunc(lambda u, v: (u * v).sum(axis=-1), "(i),(i)->()", x, b, output_dtypes=float)
    np.testing.assert_allclose(inner.compute(), (a * b).sum(axis=-1))
    lo, hi = tg.apply_gufunc(lambda u: (u.min(axis=-1), u.max(axis=-1)), "(i)->(),()", x,
                             output_dtypes=[float, float])
    np.testing.assert_array_equal(lo.compute(), a.min(axis=-1))
    np.testing.assert_array_equal(hi.compute(), a.max(axis=-1))
    doubled = tg.apply_gufunc(lambda u: np.concatenate([u, u], axis=-1), "(i)->(j)", x,
                              output_sizes={"j": 2 * n}, output_dtypes=float)
    np.testing.assert_array_equal(doubled.compute(), np.concatenate([a, a], axis=-1))
    first = tg.apply_gufunc(lambda v: v[0], "(i)->()", x, vectorize=True, output_dtypes=float)
    np.testing.assert_array_equal(first.compute(), a[..., 0])


@settings(max_examples=20)
@given(loop=shapes(1, 2, 1, 6), n=st.integers(2, 7), m=st.integers(1, 5), data=st.data())
def test_apply_gufunc_core_axes_of_their_own(loop, n, m, data):
    """Core axes of different names may differ in length (xarray's interp passes the old and
    the new coordinates of one dimension); a NumPy argument with only core axes reaches the
    function as it is, whatever its dtype (datetime64 coordinates)."""
    rng = np.random.default_rng(5)
    a = rng.random(loop + (n,))
    old = np.sort(rng.random(n)) * 10
    new = np.linspace(old[0], old[-1], m)
    spec = tuple(data.draw(st.integers(1, max(s, 1))) for s in loop) + (data.draw(st.integers(1, n)),)
    x = tg.asarray(a, chunks=spec)

    def interp(values, xp, xq):
        return np.apply_along_axis(lambda v: np.interp(xq, xp, v), -1, values)

    got = tg.apply_gufunc(interp, "(i),(i),(j)->(j)", x, old, new, output_dtypes=float, allow_rechunk=True)
    assert got.shape == loop + (m,) and got.chunks[:-1] == x.chunks[:-1]
    np.testing.assert_allclose(got.compute(), interp(a, old, new))
    # the new coordinates lazily, in blocks of their own: a core axis is one block, whatever its length
    got = tg.apply_gufunc(interp, "(i),(i),(j)->(j)", x, old, tg.asarray(new, chunks=2), output_dtypes=float,
                          allow_rechunk=True)
    np.testing.assert_allclose(got.compute(), interp(a, old, new))
    times = np.datetime64("2000-01-01") + np.arange(n).astype("timedelta64[D]")
    days = tg.apply_gufunc(lambda v, t: v + (t - t[0]).astype("timedelta64[D]").astype(float), "(i),(i)->(i)",
                           x, times, output_dtypes=float, allow_rechunk=True)
    np.testing.assert_allclose(days.compute(), a + np.arange(n))


def test_apply_gufunc_errors():
    x = tg.asarray(np.ones((4, 6)), chunks=(2, 3))
    with pytest.raises(ValueError, match="allow_rechunk"):
        tg.apply_gufunc(np.sum, "(i)->()", x, output_dtypes=float, axis=None)
    np.testing.assert_array_equal(
        tg.apply_gufunc(lambda u: u.sum(axis=-1), "(i)->()", x, output_dtypes=float, allow_rechunk=True).compute(),
        np.full(4, 6.0))
    with pytest.raises(ValueError, match="signature"):
        tg.apply_gufunc(np.sum, "(i)", x)
    with pytest.raises(ValueError, match="output_sizes"):
        tg.apply_gufunc(lambda u: u, "(i)->(j)", x, output_dtypes=float, allow_rechunk=True)


def test_exceptions_reach_the_thread_whose_function_raised_them():
    """Each computation gets the exception its own function raised, whatever other threads
    compute at the same time (they were once kept in one process-wide slot)."""
    import threading

    class Failure(Exception):
        pass

    x = tg.asarray(np.arange(64.0), chunks=4)
    wrong = []

    def worker(k):
        def fail(block):
            raise Failure(k)
        for _ in range(25):
            try:
                x.map_blocks(fail, dtype=x.dtype).compute()
                wrong.append((k, "no error"))
            except Failure as e:
                if e.args != (k,):
                    wrong.append((k, e.args))
            except Exception as e:  # noqa: BLE001 - any other exception is the defect
                wrong.append((k, repr(e)))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
