"""tegula arrays inside Dask: dask.compute and dask.persist run them through tegula (one Dask
task per array) and agree with NumPy; Dask's collections beside them and its progress bar
work; tegula imports without Dask."""

import subprocess
import sys

import numpy as np
import pytest

import tegula as tg

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")


def _pair():
    data = np.random.default_rng(1).random((30, 20))
    x = tg.asarray(data, chunks=(7, 6))
    return data, x * 2.0 + 1.0, (x ** 2).sum(axis=0)


def test_dask_compute_gives_numpy_arrays_equal_to_tg_compute():
    data, x, y = _pair()
    a, b = dask.compute(x, y)
    assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
    np.testing.assert_allclose(a, data * 2.0 + 1.0)
    np.testing.assert_allclose(b, (data ** 2).sum(axis=0))
    for got, want in zip((a, b), tg.compute(x, y)):
        np.testing.assert_array_equal(got, want)


def test_one_dask_task_per_array_whatever_its_chunks():
    _, x, _ = _pair()
    assert x.numblocks != (1, 1)
    assert dask.is_dask_collection(x)
    assert len(x.__dask_graph__()) == 1 and len(x.__dask_keys__()) == 1


def test_tokens_are_stable_for_an_array_and_differ_between_arrays():
    _, x, y = _pair()
    assert dask.base.tokenize(x) == dask.base.tokenize(x)
    assert dask.base.tokenize(x) != dask.base.tokenize(y)


def test_mixed_with_dask_arrays_and_nested_in_containers():
    data, x, _ = _pair()
    d = da.from_array(data, chunks=5)
    got_d, got = dask.compute(d.sum(axis=1), {"x": [x]})
    np.testing.assert_allclose(got_d, data.sum(axis=1))
    np.testing.assert_allclose(got["x"][0], data * 2.0 + 1.0)


def test_dask_persist_gives_persisted_tegula_arrays():
    data, x, y = _pair()
    px, py, other = dask.persist(x, y, 3)
    assert isinstance(px, tg.Array) and isinstance(py, tg.Array) and other == 3
    assert px.chunks == x.chunks and py.chunks == y.chunks
    np.testing.assert_allclose(np.asarray(px), data * 2.0 + 1.0)
    np.testing.assert_allclose(np.asarray(py), (data ** 2).sum(axis=0))


def test_dask_progress_bar_runs_over_tegula_arrays(capsys):
    from dask.diagnostics import ProgressBar

    data, x, _ = _pair()
    with ProgressBar(out=sys.stdout):
        (got,) = dask.compute(x)
    np.testing.assert_allclose(got, data * 2.0 + 1.0)
    assert "100% Completed" in capsys.readouterr().out


def test_tegula_works_where_dask_cannot_be_imported():
    code = ("import sys; sys.modules['dask'] = None; import tegula; "
            "print(tegula.ones(3, chunks=2).sum().compute())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "3.0"
