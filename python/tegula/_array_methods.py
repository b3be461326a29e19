"""The methods of ``Array`` that are functions of modules above ``_array.py``: indexing with
arrays and assignment, reshapes, sorting, NumPy's and Dask's other methods, I/O and pictures.
They are defined on ``_Methods`` and set on ``Array`` when this module is imported (the
package's ``__init__`` imports it), so ``_array.py`` imports none of the modules they call."""

from ._array import Array, refuse_out
from ._assign import assign
from ._blocks import BlockView, VectorIndex
from ._gather import getitem, is_advanced, nonzero, take
from ._html import repr_html
from ._indexing import normalize_key
from ._io import to_npy, to_zarr
from ._manipulation import clip, repeat, round, squeeze
from ._map_blocks import map_blocks
from ._matrices import dot
from ._ndarray_methods import (FlatView, argpartition, choose, compress, filled, partition, put, tobytes,
                               tofile, view)
from ._overlap import map_overlap
from ._planes import diagonal, trace
from ._reshape import reshape
from ._searching import argmax, argmin
from ._sorting import argsort, cumprod, cumsum, searchsorted, sort
from ._to_dask import to_dask_array
from ._visualize import visualize


class _Methods:
    """Array's methods of this module (their bodies call the module's functions of the same
    names, which a class body does not hide)."""

    def map_blocks(self, func, *args, **kwargs):
        """``tegula.map_blocks(func, self, *args, **kwargs)``: ``func`` applied to each block."""
        return map_blocks(func, self, *args, **kwargs)

    def map_overlap(self, func, depth, boundary=None, trim=True, **kwargs):
        """Dask's method: ``tegula.map_overlap(func, self, depth=depth, ...)``."""
        return map_overlap(func, self, depth=depth, boundary=boundary, trim=trim, **kwargs)

    def visualize(self, filename=None, color="order", level="auto", fuse=True, renderer="auto"):
        """Draws the chunk task graph (see ``tegula._visualize.visualize``): SVG text, or the
        picture written to ``filename``."""
        return visualize(self, filename, color=color, level=level, fuse=fuse, renderer=renderer)

    def _repr_html_(self):
        return repr_html(self)

    def to_zarr(self, path, chunks=None, compressor=None, overwrite=False, **kwargs):
        """Writes the array to a new Zarr array (see ``tegula.to_zarr``)."""
        return to_zarr(self, path, chunks=chunks, compressor=compressor, overwrite=overwrite, **kwargs)

    def to_dask_array(self):
        """A Dask array of the same chunks whose blocks tegula computes when Dask asks (see
        ``_to_dask.py``; tegula arrays are not Dask collections themselves)."""
        return to_dask_array(self)

    def to_npy(self, path, overwrite=False):
        """Writes the array to a ``.npy`` file (see ``tegula.to_npy``)."""
        return to_npy(self, path, overwrite=overwrite)

    def __getitem__(self, key):
        if is_advanced(key):
            return getitem(self, key)  # integer arrays and boolean masks
        return Array(self._h.getitem(normalize_key(key)))

    def __setitem__(self, key, value):
        """Assignment rebinds this array to a new lazy value (copy on write): arrays made from
        it earlier keep the old values."""
        self._h = assign(self, key, value)._h

    def reshape(self, *shape, order="C", copy=None):
        """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``, ``order="F"`` as NumPy's; see
        ``tegula.reshape``."""
        return reshape(self, shape[0] if len(shape) == 1 else shape, order=order, copy=copy)

    @property
    def blocks(self):
        """Dask's block indexer: ``x.blocks[i, j]`` is the array of those blocks (ints, slices
        and lists of block numbers), keeping their chunks."""
        return BlockView(self)

    @property
    def vindex(self):
        """Dask's point-wise indexer: ``x.vindex[[0, 2], [1, 3]]`` is ``[x[0, 1], x[2, 3]]``;
        index arrays broadcast together and their axes come first."""
        return VectorIndex(self)

    def argmax(self, axis=None, out=None, *, keepdims=False):
        """The position of the first largest element along ``axis`` (of the flattened array when
        None)."""
        refuse_out(out)
        return argmax(self, axis=axis, keepdims=keepdims)

    def argmin(self, axis=None, out=None, *, keepdims=False):
        """The position of the first smallest element along ``axis`` (of the flattened array when
        None)."""
        refuse_out(out)
        return argmin(self, axis=axis, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None):
        """Running sums along ``axis`` (of the flattened array when None)."""
        return cumsum(self, axis=axis, dtype=dtype)

    def cumprod(self, axis=None, dtype=None):
        """Running products along ``axis`` (of the flattened array when None)."""
        return cumprod(self, axis=axis, dtype=dtype)

    def clip(self, min=None, max=None):
        """The elements limited to ``[min, max]``."""
        return clip(self, min, max)

    def round(self, decimals=0):
        """The elements rounded to ``decimals`` (half to even, as NumPy's)."""
        return round(self, decimals=decimals)

    def squeeze(self, axis=None):
        """The array without its length-one axes (or only those of ``axis``)."""
        return squeeze(self, axis=axis)

    def repeat(self, repeats, axis=None):
        """Each element repeated ``repeats`` times along ``axis`` (of the flattened array when
        None)."""
        return repeat(self, repeats, axis=axis)

    def nonzero(self):
        """The indices of the non-zero elements, one array per axis (their number is computed now)."""
        return nonzero(self)

    def dot(self, b):
        """NumPy's ``dot`` of this array and ``b``."""
        return dot(self, b)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        """NumPy's method: the diagonal of the plane of ``axis1`` and ``axis2``, as a last axis."""
        return diagonal(self, offset, axis1, axis2)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None):
        """The sum of the ``offset``-th diagonal of the matrices of ``axis1`` and ``axis2``."""
        return trace(self, offset, axis1, axis2, dtype)

    def take(self, indices, axis=None):
        """NumPy's ``take``: the elements at ``indices`` along ``axis`` (of the flattened array when
        None)."""
        return take(self, indices, axis=axis)

    def searchsorted(self, v, side="left", sorter=None):
        """For each of ``v``, where inserting it keeps this sorted 1-d array sorted."""
        return searchsorted(self, v, side=side, sorter=sorter)

    def argsort(self, axis=-1, kind=None, order=None):
        """Stable whatever ``kind`` asks for (a stable order is a valid answer to every kind)."""
        if order is not None:
            raise ValueError("argsort's order names fields of structured arrays, which tegula does not have")
        return argsort(self, axis=axis)

    def sort(self, axis=-1, kind=None, order=None, *, stable=None):
        """NumPy's in-place sort: this array rebound to its values sorted along ``axis`` (stable
        whatever ``kind`` asks for); arrays made from it earlier keep the old values."""
        if order is not None:
            raise ValueError("sort's order names fields of structured arrays, which tegula does not have")
        self._h = sort(self, axis=axis)._h

    def partition(self, kth, axis=-1, kind="introselect", order=None):
        """NumPy's in-place partition, as a full sort (rebinding, as ``sort``)."""
        self._h = partition(self, kth, axis, order=order)._h

    def argpartition(self, kth, axis=-1, kind="introselect", order=None):
        """Positions that partition the array around ``kth`` along ``axis`` (NumPy's
        ``argpartition``)."""
        return argpartition(self, kth, axis, order=order)

    def fill(self, value):
        """NumPy's ``fill``: this array rebound to ``value`` everywhere, keeping its dtype and
        chunks."""
        self._h = filled(self, value)._h

    def put(self, indices, values, mode="raise"):
        """A new array with the flat positions ``ind`` set to ``v`` (tegula arrays are values:
        nothing is changed in place)."""
        put(self, indices, values, mode)

    def compress(self, condition, axis=None, out=None):
        """The slices along ``axis`` where ``condition`` is true."""
        refuse_out(out)
        return compress(condition, self, axis)

    def choose(self, choices, out=None, mode="raise"):
        """NumPy's ``choose``: each element picks from ``choices`` by this array's value."""
        return choose(self, choices, out, mode)

    def view(self, dtype=None, type=None):
        """NumPy's ``view(dtype)``: the elements' bytes read as ``dtype``."""
        if type is not None:
            raise TypeError("tegula arrays have no subclasses to view as")
        return view(self, dtype)

    @property
    def flat(self):
        """The elements as a 1-d array, in row-major order."""
        return FlatView(self)

    def tobytes(self, order="C"):
        """The computed elements as bytes, in row-major order."""
        return tobytes(self, order)

    def tofile(self, fid, sep="", format="%s"):
        """The computed elements written to ``fid`` (NumPy's ``tofile``)."""
        tofile(self, fid, sep, format)


def _install():
    """Sets every method of ``_Methods`` on ``Array``, named as ``Array``'s own."""
    plain = set(vars(type("Plain", (), {})))
    for name, value in vars(_Methods).items():
        if name not in plain:
            if callable(value):
                value.__qualname__ = f"Array.{name}"
            setattr(Array, name, value)


_install()
