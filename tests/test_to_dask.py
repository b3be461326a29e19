"""``x.to_dask_array()``: a tegula array handed to Dask on purpose — the same chunks, blocks
that are NumPy arrays computed by tegula, Dask's results equal to NumPy's and Dask's
diagnostics seeing the work; and tegula arrays themselves staying out of Dask's collections."""

import dask
import numpy as np
from dask.diagnostics import ProgressBar
from hypothesis import given, settings, strategies as st

import tegula as tg
from strategies import assert_same, chunked_arrays


@settings(max_examples=30)
@given(chunked_arrays(), st.booleans())
def test_dask_computes_tegulas_blocks(case, reduce):
    a, x = case
    y = x * 2
    d = y.to_dask_array()
    assert d.chunks == y.chunks and d.dtype == y.dtype
    if reduce and a.dtype.kind in "fc" and a.ndim:
        assert_same(d.sum(axis=0).compute(), (a * 2).sum(axis=0))
    else:
        got = d.compute()
        assert type(got) is np.ndarray
        assert_same(got, a * 2)


def test_dask_diagnostics_see_the_work(capsys):
    d = tg.arange(1000.0, chunks=100).to_dask_array()
    with ProgressBar():
        total = d.sum().compute()
    assert total == np.arange(1000.0).sum()
    assert "100%" in capsys.readouterr().out


def test_tegula_arrays_are_not_dask_collections():
    x = tg.ones(3)
    assert not dask.is_dask_collection(x)
    assert dask.compute(x)[0] is x  # as any object that is not Dask's
