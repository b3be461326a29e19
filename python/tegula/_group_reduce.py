"""flox's ``groupby_reduce`` of a tegula array over its last axis, grouped by the factorized
codes xarray passes (``expected_groups`` a range): each group's elements selected (slices of
the array where they run in order, else a gather) and reduced by tegula's own reduction, the groups stacked
along a new last axis. No block holds the grouped axis whole, and a stored chunk that several
groups take parts of is read once (the read units of `lower/source.rs`)."""

import numpy as np

import tegula

# flox's function names, by the tegula reduction each is; "count" counts what is not NaN
_REDUCTIONS = {
    "sum": "sum", "nansum": "nansum", "prod": "prod", "nanprod": "nanprod",
    "mean": "mean", "nanmean": "nanmean", "max": "max", "nanmax": "nanmax",
    "min": "min", "nanmin": "nanmin", "var": "var", "nanvar": "nanvar", "std": "std", "nanstd": "nanstd",
}
_COUNTING = {"count"}


def group_reduce(array, codes, ngroups, func, probe, *, fill_value=None, min_count=None, dtype=None, ddof=0):
    """``func`` of ``array``'s last axis per group ``0 .. ngroups - 1`` of ``codes`` (negative
    codes belong to no group), as a lazy ``array.shape[:-1] + (ngroups,)`` array of the dtype
    of ``probe`` (flox's result for zeros of ``array``'s shape but one along the leading
    axes, which also gives an empty group's value)."""
    columns = []
    for g in range(ngroups):
        positions = np.flatnonzero(codes == g)
        if positions.size == 0:
            columns.append(tegula.full(array.shape[:-1], probe[(0,) * (probe.ndim - 1) + (g,)], dtype=probe.dtype))
            continue
        columns.append(_reduced(_selected(array, positions), func, fill_value, min_count, dtype, ddof))
    out = tegula.stack(columns, axis=-1)
    return out if out.dtype == probe.dtype else out.astype(probe.dtype)


def supported(func, finalize_kwargs):
    return (func in _REDUCTIONS or func in _COUNTING) and set(finalize_kwargs or {}) <= {"ddof"}


def _selected(array, positions):
    """The group's elements: ascending runs of positions are slices of ``array``, joined."""
    return tegula.take(array, positions, axis=-1)


def _reduced(values, func, fill_value, min_count, dtype, ddof):
    present = None
    if func in _COUNTING or min_count:
        present = tegula.sum(~tegula.isnan(values) if values.dtype.kind in "fc" else tegula.ones_like(values, dtype=bool),
                             axis=-1)
    if func in _COUNTING:
        out = present
    else:
        name = _REDUCTIONS[func]
        kwargs = {"ddof": ddof} if name.endswith(("var", "std")) else {}
        if dtype is not None and name.endswith(("sum", "prod", "mean")):
            kwargs["dtype"] = dtype
        out = getattr(tegula, name)(values, axis=-1, **kwargs)
    if min_count:
        out = tegula.where(present >= min_count, out, np.nan if fill_value is None else fill_value)
    return out
