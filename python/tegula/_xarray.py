"""xarray's chunk manager for tegula: ``xr.open_zarr(path, chunked_array_type="tegula")`` and
``ds.chunk(..., chunked_array_type="tegula")`` hold tegula arrays in xarray objects; xarray's
operations then build lazy tegula expressions (through the array API namespace and NumPy's
dispatch protocols) and ``ds.compute()`` runs them in one tegula computation.

Registered under the ``xarray.chunkmanagers`` entry point; only this module imports xarray."""

from xarray.namedarray.parallelcompat import ChunkManagerEntrypoint

import tegula

from . import _xarray_chunks, _xarray_routes
from ._from_object import from_object, is_sliceable
from ._xarray_store import store_regions
from ._xarray_zarr import native_zarr

# xarray's (and flox's) type-dispatched functions send tegula arrays to tegula (see the module)
_xarray_routes.install()

# what xarray passes to the block functions for dask only: an example block and a graph token
_DASK_BLOCK_OPTIONS = {"meta", "token"}


def _without_dask_options(kwargs):
    return {k: v for k, v in kwargs.items() if k not in _DASK_BLOCK_OPTIONS}

# what xarray passes to every chunk manager's from_array for dask: a graph key, a read lock
# (tegula reads a block at a time, holding the GIL) and a graph layout option
_DASK_FROM_ARRAY_ARGUMENTS = {"name", "lock", "inline_array"}


class TegulaChunkManager(ChunkManagerEntrypoint):
    """Interface between xarray and tegula's lazy chunked arrays."""

    def __init__(self):
        self.array_cls = tegula.Array

    def chunks(self, data):
        return data.chunks

    def normalize_chunks(self, chunks, shape=None, limit=None, dtype=None, previous_chunks=None):
        """Block lengths per axis, as tegula chunks an array of ``shape``: ``None`` or -1 is a
        whole axis; ``"auto"`` axes are sized by tegula (or to ``limit`` bytes per block), then
        rounded down to whole multiples of ``previous_chunks`` (the stored chunks) where given."""
        return _xarray_chunks.normalize_chunks(chunks, shape, limit, dtype, previous_chunks)

    def from_array(self, data, chunks, **kwargs):
        """A lazy tegula array over ``data``: a selection of a local Zarr array is read by tegula's
        Zarr reader; other lazily indexed backend arrays one block at a time (``data[slices]``)
        when a computation needs the block."""
        unknown = sorted(set(kwargs) - _DASK_FROM_ARRAY_ARGUMENTS)
        if unknown:
            raise TypeError(f"tegula's from_array takes no arguments {unknown}")
        if isinstance(data, tegula.Array):
            return data.rechunk(chunks)
        chunks = self.normalize_chunks(chunks, data.shape, dtype=data.dtype)
        native = native_zarr(data, chunks)
        if native is not None:
            return native
        if is_sliceable(data):
            # xarray cuts a stored array in whole stored chunks: a block is what one read
            # decodes, so the parts of it that several selections take are read once.
            return from_object(data, chunks=chunks, read_unit=_regular_block(chunks))
        return tegula.from_array(data, chunks=chunks)

    def rechunk(self, data, chunks, **kwargs):
        if kwargs:
            raise TypeError(f"tegula's rechunk takes no arguments {sorted(kwargs)}")
        if isinstance(chunks, dict):  # xarray passes the axes to change, by number
            chunks = tuple(chunks.get(i, c) for i, c in enumerate(data.chunks))
        return data.rechunk(self.normalize_chunks(chunks, data.shape, dtype=data.dtype))

    def compute(self, *data, **kwargs):
        return tegula.compute(*data, **kwargs)

    def persist(self, *data, **kwargs):
        """Computes the arrays once and keeps their blocks (``tegula.persist``)."""
        return tegula.persist(*data, **kwargs)

    @property
    def array_api(self):
        return tegula

    def get_auto_chunk_size(self):
        return _xarray_chunks.auto_block_bytes()

    def reduction(self, arr, func, combine_func=None, aggregate_func=None, axis=None, dtype=None,
                  keepdims=False):
        """A reduction by block functions, as the tree reduction of a single block: ``func`` then
        ``aggregate_func`` on the whole array. It stays lazy where the functions are made of
        NumPy calls tegula implements (NumPy dispatches them to tegula)."""
        axis = tuple(range(arr.ndim)) if axis is None else axis
        partial = func(arr, axis=axis, keepdims=True)
        return tegula.asarray(aggregate_func(partial, axis=axis, keepdims=keepdims), dtype=dtype)

    def scan(self, func, binop, ident, arr, axis=None, dtype=None, **kwargs):
        """A cumulative reduction, as the scan of a single block: ``func`` on the whole array
        (``np.cumsum`` and ``np.cumprod`` dispatch to tegula's own chunked scans)."""
        kwargs.pop("method", None)
        kwargs.pop("preop", None)  # combines the results of blocks: a single block has none
        return tegula.asarray(func(arr, axis=axis, dtype=dtype, **kwargs))

    def unify_chunks(self, *args, **kwargs):
        """Arrays and their index strings (``x, "ij", y, "jk"``) rechunked so that every index
        has one chunking: the boundaries of all arrays along it together."""
        return _xarray_chunks.unify_chunks(args, **kwargs)

    def store(self, sources, targets, lock=None, compute=True, flush=True, regions=None, **kwargs):
        """Computes ``sources`` into ``targets`` (zarr-python arrays, or anything taking
        ``target[slices] = values``), in groups of the targets' chunk-aligned regions: each group
        is one tegula computation within the memory budget, so no array is ever whole in memory."""
        if not compute:
            raise ValueError("tegula writes at once: store(compute=False) is not supported")
        if isinstance(sources, tegula.Array):
            sources, targets, regions = [sources], [targets], [regions]
        regions = [None] * len(sources) if regions is None else regions
        store_regions(list(zip(sources, targets, regions)), lock=lock, **kwargs)

    def apply_gufunc(self, func, signature, *args, **kwargs):
        """``tegula.apply_gufunc``: ``func`` per block of the loop axes, core axes whole."""
        return tegula.apply_gufunc(func, signature, *args, **_without_dask_options(kwargs))

    def map_blocks(self, func, *args, **kwargs):
        """``tegula.map_blocks``: ``func`` of the same block of every array."""
        return tegula.map_blocks(func, *args, **_without_dask_options(kwargs))

    def blockwise(self, func, out_ind, *args, **kwargs):
        """``tegula.blockwise``: Dask's index notation, contracted axes given whole."""
        return tegula.blockwise(func, out_ind, *args, **_without_dask_options(kwargs))


def _regular_block(chunks):
    """The block shape of a regular chunking (every block along an axis one length but a shorter
    last one), else None."""
    block = []
    for sizes in chunks:
        sizes = tuple(sizes)
        if not sizes or any(s != sizes[0] for s in sizes[:-1]) or sizes[-1] > sizes[0] or sizes[0] == 0:
            return None
        block.append(sizes[0])
    return tuple(block)
