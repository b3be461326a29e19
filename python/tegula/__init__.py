"""tegula: chunked n-dimensional arrays with NumPy's API, planned as a graph of chunk tasks
and computed in parallel by a Rust core.

>>> import numpy as np, tegula as tg
>>> a = tg.asarray(np.arange(12.).reshape(3, 4), chunks=2)
>>> float(a.sum())
66.0
"""

from . import config, fft, glm, lib, linalg, random
from ._array import Array
from ._creation import (arange, array, asarray, empty, empty_like, from_array, from_dlpack, full,
                        full_like, linspace, ones, ones_like, zeros, zeros_like)
from ._dtypes import (bool, complex64, complex128, float16, float32, float64, int8, int16, int32,
                      int64, uint8, uint16, uint32, uint64)
from ._functions import (REDUCTIONS, UFUNCS, astype, can_cast, compute, concat, concatenate,
                         expand_dims, matmul, permute_dims, persist, rechunk, result_type, stack,
                         transpose, where)
from ._einsum import einsum, einsum_path
from ._gather import nonzero, take, take_along_axis
from ._info import __array_namespace_info__, finfo, iinfo, isdtype
from ._io import from_npy, from_zarr, to_npy, to_zarr
from ._manipulation import (broadcast_arrays, broadcast_shapes, broadcast_to, clip, diff, ediff1d, flip, fliplr,
                            flipud, moveaxis, ndim, ravel, repeat, roll, rollaxis, rot90, round, shape, squeeze,
                            swapaxes, tile, unstack)
from ._pad import pad
from ._planes import diag, diagonal, trace
from ._comparison import allclose, array_equal, isclose
from ._selection import nan_to_num, piecewise, select
from ._stacking import (append, array_split, atleast_1d, atleast_2d, atleast_3d, block, column_stack, dsplit,
                        dstack, hsplit, hstack, split, vsplit, vstack)
from ._map_blocks import apply_gufunc, as_gufunc, atop, blockwise, gufunc, map_blocks
from ._dashboard import dashboard
from ._report import report
from ._visualize import visualize
from ._nanfunctions import NANFUNCTIONS
from ._covariance import corrcoef, cov
from ._matrices import (dot, eye, indices, inner, kron, matrix_transpose, meshgrid, outer, tensordot, tri, tril,
                        triu, vdot, vecdot)
from ._reshape import reshape
from ._searching import argmax, argmin, count_nonzero, isin
from ._sets import unique, unique_all, unique_counts, unique_inverse, unique_values
from ._statistics import median, percentile, ptp, quantile
from ._statistics import nanmedian, nanpercentile, nanquantile
from ._ufunc_likes import UFUNC_LIKES, fix, isneginf, isposinf
from ._special_functions import i0, sinc
from ._complex import angle, iscomplex, isreal
from ._missing_values import isnull, notnull, push
from ._moment import moment
from ._coarsen import coarsen
from ._reduction import reduction
from ._fromfunction import fromfunction
from ._dask_api import PerformanceWarning, assert_eq, shuffle, unify_chunks
from ._insert_delete import delete, insert
from ._sets import intersect1d, setdiff1d, union1d
from ._index_arrays import (argwhere, extract, flatnonzero, ravel_multi_index, tril_indices, tril_indices_from,
                            triu_indices, triu_indices_from, unravel_index)
from ._average import average
from ._calculus import gradient, trapezoid
from ._convolution import convolve, correlate
from ._polynomial import polyfit, polyval
from ._apply_along_axis import apply_along_axis, apply_over_axes
from ._histograms import bincount, digitize, histogram, histogram2d, histogramdd
from ._sorting import argsort, cumprod, cumsum, cumulative_prod, cumulative_sum, searchsorted, sort
from ._overlap import map_overlap, overlap, trim_internal, trim_overlap
from ._topk import argtopk, topk
from ._store import store
from ._ndarray_methods import argpartition, choose, compress, partition, put
import sys as _sys

import numpy as _np

from . import _array_methods, _numpy_protocol, _ray, _tegula

# NumPy's OpenBLAS runs the float products where it beats faer on this machine.
_tegula.use_loaded_blas()
# Executors hosted by a distributed engine's Python API, one row each, beside the native ones.
_tegula.register_hosted_executor("ray", _ray.Runner())
# NumPy's protocols and the array API's __array_namespace__ answer with this package's functions.
_numpy_protocol.install(_sys.modules[__name__])

globals().update(UFUNCS)
globals().update(UFUNC_LIKES)
globals().update(REDUCTIONS)
globals().update(NANFUNCTIONS)

newaxis = None
pi, e, inf, nan, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, _np.euler_gamma
around = round  # NumPy's (and Dask's) other name
asanyarray = asarray  # tegula has no array subclasses

__version__ = "0.1.0"
__array_api_version__ = "2025.12"
__all__ = sorted(
    ["Array", "config", "fft", "glm", "linalg", "random", "arange", "array", "asarray", "empty", "empty_like", "from_array",
     "full", "full_like", "from_npy", "from_zarr", "to_npy", "to_zarr", "linspace", "ones", "ones_like",
     "zeros", "zeros_like", "astype", "can_cast", "compute", "concat", "concatenate", "expand_dims",
     "matmul", "permute_dims", "persist", "rechunk", "result_type", "stack", "transpose", "where",
     "__array_namespace_info__", "finfo", "iinfo", "isdtype",
     "broadcast_arrays", "broadcast_shapes", "broadcast_to", "clip", "diff", "flip", "moveaxis", "roll",
     "round", "squeeze", "unstack", "dot", "eye", "matrix_transpose", "meshgrid", "outer", "tensordot", "tril",
     "triu", "vecdot", "argmax", "argmin", "count_nonzero", "from_dlpack", "isin", "repeat", "reshape", "tile",
     "nonzero", "take", "take_along_axis", "unique_all", "unique_counts", "unique_inverse", "unique_values",
     "einsum", "median", "pad", "ptp", "diagonal", "trace", "allclose", "array_equal", "isclose",
     "array_split", "atleast_1d", "atleast_2d", "atleast_3d", "column_stack", "dsplit", "dstack", "hsplit",
     "hstack", "split", "vsplit", "vstack", "fliplr", "flipud", "rot90", "diag", "inner", "kron", "cov", "corrcoef",
     "append", "indices", "nan_to_num", "select", "report", "dashboard", "visualize", "map_blocks", "blockwise", "apply_gufunc", "percentile", "quantile", "argsort", "cumprod", "cumsum", "cumulative_prod", "cumulative_sum", "searchsorted", "sort",
     "isneginf", "isposinf", "nanmedian", "nanpercentile", "nanquantile",
     "average", "gradient", "trapezoid",
     "argwhere", "ravel_multi_index", "tril_indices", "tril_indices_from", "triu_indices", "triu_indices_from", "unravel_index",
     "intersect1d", "setdiff1d", "union1d",
     "delete", "insert", "block", "einsum_path",
     "convolve", "correlate", "polyfit", "polyval", "apply_along_axis",
     "bincount", "digitize", "histogram", "histogram2d", "histogramdd",
     "lib", "map_overlap", "overlap", "trim_internal", "trim_overlap", "argtopk", "topk", "store",
     "argpartition", "choose", "compress", "partition", "put",
     "ediff1d", "ndim", "ravel", "rollaxis", "shape", "swapaxes", "piecewise", "as_gufunc", "atop", "gufunc",
     "tri", "vdot", "unique", "fix", "i0", "sinc", "angle", "iscomplex", "isreal", "isnull", "notnull", "push",
     "moment", "coarsen", "reduction", "fromfunction", "PerformanceWarning", "assert_eq", "shuffle",
     "unify_chunks", "extract", "flatnonzero", "apply_over_axes", "around", "asanyarray", "euler_gamma",
     "newaxis", "pi", "e", "inf", "nan", "bool", "int8", "int16", "int32", "int64", "uint8",
     "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128"]
    + list(UFUNCS) + list(UFUNC_LIKES) + list(REDUCTIONS) + list(NANFUNCTIONS)
)
