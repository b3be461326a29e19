"""Where xarray (and flox) pick an implementation by the array's type and ask no chunk manager:
Dask arrays go to Dask's code, every other array to in-memory code (bottleneck, NumPy, flox's
NumPy engines), which computes a tegula array, fails on it or refuses it. Each route here wraps
the function xarray calls and sends tegula arrays to a lazy tegula version, everything else to
xarray's (flox's) own function:

- forward and backward fill (``ffill``/``bfill``): xarray's ``push`` (bottleneck or numbagg
  unless Dask) -> ``tegula.push``;
- ``polyfit``'s least squares (NumPy's, filling a NumPy array, unless Dask) -> NumPy's least
  squares per block of the other axes, the fitted axis whole;
- vectorized indexing (``isel``/``sel`` with DataArray indexers sharing a dimension): xarray's
  adapter for array API arrays refuses it -> ``Array.vindex`` (Dask's rules, as xarray's);
- flox's ``groupby_reduce`` (its NumPy engines on the whole array unless Dask or cubed) ->
  for xarray's factorized codes of one axis, each group selected and reduced by tegula
  (``_group_reduce.py``); otherwise flox's own NumPy code per block, the grouped axes whole
  (flox's "blockwise" method);
- ``chunk()`` without ``chunked_array_type`` (xarray's default manager, Dask, which wrapped a
  tegula array in a Dask array) -> tegula's chunk manager, for objects holding tegula arrays
  and no other chunked arrays, and for the NumPy operand that a groupby's arithmetic chunks to
  match a tegula-backed object (an anomaly against a loaded climatology).

``install()`` runs when xarray loads tegula's chunk manager (``tegula._xarray``), once; a name
xarray or flox no longer has is left alone."""

import contextvars
import functools
import importlib
import importlib.util
import inspect
import warnings

import numpy as np

import tegula

_MARK = "_tegula_route"

# set while a groupby's arithmetic on a tegula-backed object runs: its other operand is chunked
# with tegula's manager
_CHUNK_WITH_TEGULA = contextvars.ContextVar("chunk_with_tegula", default=False)


def install():
    """Wraps the functions below where the installed xarray (and flox) have them."""
    _wrap("xarray.core.duck_array_ops", "push", _push)
    _wrap("xarray.core.missing", "push", _push)
    _wrap("xarray.core.duck_array_ops", "least_squares", _least_squares)
    _wrap("xarray.computation.fit", "least_squares", _least_squares)
    adapter = getattr(importlib.import_module("xarray.core.indexing"), "ArrayApiIndexingAdapter", None)
    if adapter is not None:
        _wrap_attribute(adapter, "_vindex_get", _vindex_get)
    for owner in (_attribute("xarray.namedarray.core", "NamedArray"), _attribute("xarray.core.dataset", "Dataset")):
        if owner is not None:
            _wrap_attribute(owner, "chunk", _chunk)
    groupby = _attribute("xarray.core.groupby", "GroupBy")
    if groupby is not None:
        _wrap_attribute(groupby, "_binary_op", _groupby_binary_op)
    if importlib.util.find_spec("flox") is not None:
        _wrap("flox.xarray", "groupby_reduce", _groupby_reduce)


def _attribute(module_name, name):
    try:
        return getattr(importlib.import_module(module_name), name, None)
    except ImportError:
        return None


def _wrap(module_name, name, route):
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return
    _wrap_attribute(module, name, route)


def _wrap_attribute(owner, name, route):
    original = getattr(owner, name, None)
    if original is None or getattr(original, _MARK, False):
        return

    @functools.wraps(original)
    def routed(*args, **kwargs):
        return route(original, *args, **kwargs)

    setattr(routed, _MARK, True)
    setattr(owner, name, routed)


# --- the routes: tegula arrays to tegula, others to the original ------------------------------


def _push(original, array, n=None, axis=-1, *args, **kwargs):
    if isinstance(array, tegula.Array):
        from ._push import push

        return push(array, n, axis)
    return original(array, n, axis, *args, **kwargs)


def _least_squares(original, lhs, rhs, rcond=None, skipna=False):
    if not isinstance(rhs, tegula.Array):
        return original(lhs, rhs, rcond=rcond, skipna=skipna)
    return least_squares(lhs, rhs, rcond=rcond, skipna=skipna)


def _vindex_get(original, adapter, indexer):
    if isinstance(adapter.array, tegula.Array):
        return adapter.array.vindex[indexer.tuple]
    return original(adapter, indexer)


def _chunk(original, obj, *args, **kwargs):
    call = inspect.signature(original).bind_partial(obj, *args, **kwargs)
    if call.arguments.get("chunked_array_type") is None:
        tegula_data, other_chunks = _chunk_types(obj)
        if not other_chunks and (tegula_data or _CHUNK_WITH_TEGULA.get()):
            call.arguments["chunked_array_type"] = "tegula"
    return original(*call.args, **call.kwargs)


def _chunk_types(obj):
    """Whether some variable of ``obj`` (a Variable, a Dataset or a DataArray) holds a tegula
    array, and whether some variable holds another chunked array."""
    from xarray.namedarray.pycompat import is_chunked_array

    if hasattr(obj, "_to_temp_dataset"):
        obj = obj._to_temp_dataset()
    variables = obj._variables.values() if hasattr(obj, "_variables") else [obj]
    datas = [v._data for v in variables]
    return (any(isinstance(d, tegula.Array) for d in datas),
            any(is_chunked_array(d) and not isinstance(d, tegula.Array) for d in datas))


def _groupby_binary_op(original, groupby, *args, **kwargs):
    tegula_data, other_chunks = _chunk_types(groupby._obj)
    if not tegula_data or other_chunks:
        return original(groupby, *args, **kwargs)
    token = _CHUNK_WITH_TEGULA.set(True)
    try:
        return original(groupby, *args, **kwargs)
    finally:
        _CHUNK_WITH_TEGULA.reset(token)


def _groupby_reduce(original, array, *by, **kwargs):
    if not isinstance(array, tegula.Array) or any(isinstance(b, tegula.Array) for b in by):
        return original(array, *by, **kwargs)
    by_codes = _factorized_codes(array, by, kwargs)
    if by_codes is not None:
        return groupby_reduce_by_codes(original, array, *by_codes, **kwargs)
    return groupby_reduce_blockwise(original, array, *by, **kwargs)


def _factorized_codes(array, by, kwargs):
    """``(codes, ngroups)`` when flox is asked to reduce ``array``'s last axis by one 1-D
    integer ``by`` whose expected groups are ``0 .. ngroups - 1`` (xarray's factorized codes),
    with a reduction tegula has; else None."""
    from . import _group_reduce

    if len(by) != 1 or array.ndim == 0:
        return None
    codes = np.asarray(by[0])
    expected = kwargs.get("expected_groups")
    expected = expected[0] if isinstance(expected, tuple) and len(expected) == 1 else expected
    isbin = kwargs.get("isbin", False)
    if (codes.ndim != 1 or codes.dtype.kind not in "iu" or codes.shape[0] != array.shape[-1]
            or any(np.atleast_1d(isbin)) or expected is None
            or not np.array_equal(np.asarray(expected), np.arange(len(expected)))
            or kwargs.get("axis") not in (None, -1, array.ndim - 1, (array.ndim - 1,), (-1,))
            or not _group_reduce.supported(kwargs.get("func"), kwargs.get("finalize_kwargs"))):
        return None
    return codes, len(expected)


# --- tegula's versions -----------------------------------------------------------------------


def least_squares(lhs, rhs, rcond=None, skipna=False):
    """xarray's least squares (``nputils.least_squares``: ``lhs`` a NumPy matrix, ``rhs`` the
    data with the fitted axis first) per block of ``rhs``'s other axes, the fitted axis whole:
    the coefficients (the fitted axis replaced by ``lhs``'s columns) and the residuals (without
    it), lazily."""
    from xarray.core import nputils

    lhs = np.asarray(lhs)
    terms = lhs.shape[1]
    whole = rhs.rechunk({0: -1})
    dtype = np.result_type(lhs.dtype, rhs.dtype, np.float64)

    def fit(block):
        coeffs, residuals = nputils.least_squares(lhs, block, rcond=rcond, skipna=skipna)
        rest = block.shape[1:]
        return np.concatenate([np.reshape(coeffs, (terms,) + rest), np.reshape(residuals, (1,) + rest)])

    out = tegula.map_blocks(fit, whole, dtype=dtype, chunks=((terms + 1,),) + whole.chunks[1:], name="least_squares")
    return out[:terms], out[terms]


def groupby_reduce_by_codes(groupby_reduce, array, codes, ngroups, **kwargs):
    """flox's ``groupby_reduce`` of a tegula ``array`` by factorized ``codes`` of its last axis,
    lazily, group by group (``_group_reduce.py``); the groups and the result's dtype, and
    an empty group's value, are flox's own for zeros of the array's shape but one along the
    leading axes."""
    from ._group_reduce import group_reduce

    zeros = np.zeros((1,) * (array.ndim - 1) + array.shape[-1:], array.dtype)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        probe, *groups = groupby_reduce(zeros, codes, **kwargs)
    probe = np.asarray(probe)
    if probe.shape != (1,) * (array.ndim - 1) + (ngroups,):
        return groupby_reduce_blockwise(groupby_reduce, array, codes, **kwargs)
    ddof = (kwargs.get("finalize_kwargs") or {}).get("ddof", 0)
    out = group_reduce(array, codes, ngroups, kwargs["func"], probe, fill_value=kwargs.get("fill_value"),
                       min_count=kwargs.get("min_count"), dtype=kwargs.get("dtype"), ddof=ddof)
    return (out, *groups)


def groupby_reduce_blockwise(groupby_reduce, array, *by, **kwargs):
    """flox's ``groupby_reduce(array, *by, **kwargs)`` of a tegula ``array`` (``by``: NumPy
    labels of its last axes), lazily: ``groupby_reduce`` on each block holding those axes
    whole. What a block's result looks like (its axes, dtype, the groups) is read off
    ``groupby_reduce`` of small NumPy arrays of zeros."""
    by = [np.asarray(b) for b in by]
    grouped = max(b.ndim for b in by)
    lead = array.ndim - grouped
    whole = array.rechunk({axis: -1 for axis in range(lead, array.ndim)})

    def probe(length):
        zeros = np.zeros((length,) * lead + array.shape[lead:], array.dtype)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return groupby_reduce(zeros, *by, **kwargs)

    first, *groups = probe(1)
    first = np.asarray(first)
    second = np.asarray(probe(2)[0]) if lead else first
    kept = [i for i, (p, q) in enumerate(zip(first.shape, second.shape)) if p != q]
    if len(kept) != lead:  # not the leading axes as they are: leave it to flox
        return groupby_reduce(array, *by, **kwargs)
    added = [i for i in range(first.ndim) if i not in kept]
    order = kept + added  # the block function puts the leading axes first

    def reduce_block(block):
        return np.transpose(np.asarray(groupby_reduce(block, *by, **kwargs)[0]), order)

    out = tegula.map_blocks(reduce_block, whole, dtype=first.dtype, drop_axis=tuple(range(lead, array.ndim)),
                            new_axis=tuple(range(lead, lead + len(added))),
                            chunks=whole.chunks[:lead] + tuple((first.shape[i],) for i in added),
                            name="groupby_reduce")
    return (tegula.permute_dims(out, tuple(np.argsort(order))), *groups)
