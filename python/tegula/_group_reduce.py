"""flox's ``groupby_reduce`` of a tegula array over its last axis, grouped by the factorized
codes xarray passes (``expected_groups`` a range): each group's elements selected (slices of
the array where they run in order, else a gather) and reduced by tegula's own reduction, the groups stacked
along a new last axis. No block holds the grouped axis whole, and a stored chunk that several
groups take parts of is read once (the read units of `lower/source.rs`)."""

import numpy as np

import tegula

# flox's functions that are tegula's of the same name; "count" counts what is not NaN
_REDUCTIONS = frozenset({"sum", "nansum", "prod", "nanprod", "mean", "nanmean", "max", "nanmax",
                         "min", "nanmin", "var", "nanvar", "std", "nanstd"})


def group_reduce(array, codes, ngroups, func, probe, *, fill_value=None, min_count=None, dtype=None, ddof=0):
    """``func`` of ``array``'s last axis per group ``0 .. ngroups - 1`` of ``codes`` (negative
    codes belong to no group), as a lazy ``array.shape[:-1] + (ngroups,)`` array of the dtype
    of ``probe`` (flox's result for zeros of ``array``'s shape but one along the leading
    axes, which also gives an empty group's value)."""
    # one stable sort, then each group's positions (in order) are a run of it
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(ngroups + 1))
    columns = []
    for g in range(ngroups):
        positions = order[bounds[g]:bounds[g + 1]]
        if positions.size == 0:
            columns.append(tegula.full(array.shape[:-1], probe[(0,) * (probe.ndim - 1) + (g,)], dtype=probe.dtype))
            continue
        # runs of positions are slices of the array, joined (Array.take_positions)
        values = tegula.take(array, positions, axis=-1)
        columns.append(_reduced(values, func, fill_value, min_count, dtype, ddof))
    out = tegula.stack(columns, axis=-1)
    return out if out.dtype == probe.dtype else out.astype(probe.dtype)


def supported(func, finalize_kwargs):
    return (func in _REDUCTIONS or func == "count") and set(finalize_kwargs or {}) <= {"ddof"}


def _reduced(values, func, fill_value, min_count, dtype, ddof):
    present = None
    if func == "count" or min_count:
        present = tegula.sum(~tegula.isnan(values) if values.dtype.kind in "fc" else tegula.ones_like(values, dtype=bool),
                             axis=-1)
    if func == "count":
        out = present
    else:
        kwargs = {"ddof": ddof} if func.endswith(("var", "std")) else {}
        if dtype is not None and func.endswith(("sum", "prod", "mean")):
            kwargs["dtype"] = dtype
        out = getattr(tegula, func)(values, axis=-1, **kwargs)
    if min_count:
        out = tegula.where(present >= min_count, out, np.nan if fill_value is None else fill_value)
    return out
