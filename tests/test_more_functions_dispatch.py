"""NumPy's functions added for dask.array users, called through NumPy on a tegula array:
NumPy's dispatch finds tegula's, which stays lazy and equals NumPy's own result."""

import numpy as np
import pytest

import tegula as tg

A = np.arange(12.0).reshape(3, 4) - 4.5

CALLS = {
    "average": lambda m, x: m.average(x, axis=0, weights=np.arange(1.0, 4.0)),
    "nanmedian": lambda m, x: m.nanmedian(x, axis=1),
    "nanpercentile": lambda m, x: m.nanpercentile(x, [10, 90]),
    "nanargmin": lambda m, x: m.nanargmin(x, axis=0),
    "histogram": lambda m, x: m.histogram(x, bins=3)[0],
    "cond": lambda m, x: m.linalg.cond(x[:, :3] + 10 * np.eye(3)),
    "multi_dot": lambda m, x: m.linalg.multi_dot([x, x.T, x]),
    "gradient": lambda m, x: m.gradient(x, axis=1),
    "trapezoid": lambda m, x: m.trapezoid(x),
    "argwhere": lambda m, x: m.argwhere(x > 3),
    "insert": lambda m, x: m.insert(x, 1, 0, axis=1),
    "delete": lambda m, x: m.delete(x, [0, 2], axis=1),
    "block": lambda m, x: m.block([[x, x]]),
    "cbrt": lambda m, x: m.cbrt(x),
    "fmod": lambda m, x: m.fmod(x, 2.5),
    "isposinf": lambda m, x: m.isposinf(x),
    "polyval": lambda m, x: m.polyval([1.0, 2.0], x),
    "digitize": lambda m, x: m.digitize(x, [1, 5]),
    "apply_along_axis": lambda m, x: m.apply_along_axis(np.sum, 0, x),
    "union1d": lambda m, x: m.union1d(x, x[0]),
    "convolve": lambda m, x: m.convolve(x[0], x[1]),
    "unravel_index": lambda m, x: m.unravel_index(m.argwhere(x > 3)[:, 1], (3, 4))[0],
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_numpy_calls_build_tegula_expressions(name):
    out = CALLS[name](np, tg.asarray(A, chunks=2))
    assert isinstance(out, tg.Array)
    expected = CALLS[name](np, A)
    np.testing.assert_allclose(out.compute(), expected, rtol=1e-12)
    assert out.dtype == np.asarray(expected).dtype
