"""A tegula array handed to Dask on purpose (``x.to_dask_array()``): a ``dask.array.Array``
whose every block is the NumPy array tegula computes for that block. tegula arrays are not
Dask collections themselves (xarray would send them down its Dask code paths), so this is how
a program mixing the two lets Dask schedule (and show in its diagnostics) work on tegula's
values."""

import numpy as np


class _Blocks:
    """What ``dask.array.from_array`` reads: NumPy arrays only (no ``__array_function__``, so
    Dask's ``like=`` dispatch cannot turn blocks back into tegula arrays)."""

    def __init__(self, x):
        self._x = x
        self.shape, self.dtype, self.ndim = x.shape, x.dtype, x.ndim

    def __getitem__(self, index):
        return np.asarray(self._x[index])


def to_dask_array(x):
    """``x`` as a Dask array of the same chunks, each block computed by tegula when Dask asks."""
    import dask.array as da

    return da.from_array(_Blocks(x), chunks=x.chunks, meta=np.empty((0,) * x.ndim, x.dtype), name=False)
