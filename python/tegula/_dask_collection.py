"""tegula arrays as Dask collections (Dask's collection protocol), so ``dask.compute``,
``dask.persist`` and Dask's diagnostics accept them beside Dask's own collections. Each array
is one Dask task that runs the whole array through tegula's executor, never one task per
chunk; tegula computations run one at a time, so two never hold the memory budget at once.
Dask is imported only when Dask calls these functions."""

import threading

# One tegula computation at a time under Dask's threads: each plans against the whole budget.
_COMPUTING = threading.Lock()


def graph(x):
    """The array's graph: one task computing it with tegula."""
    return {key(x): (_compute, x._h)}


def key(x):
    """The array's one key, named by its token."""
    return f"tegula-{token(x)}"


def token(x):
    """Names this expression: its node handle (alive as long as the array) with its shape,
    dtype and chunks. Arrays built apart with equal values get different tokens, which only
    costs Dask the chance to share them."""
    from dask.tokenize import tokenize

    return tokenize("tegula.Array", id(x._h), x.shape, str(x.dtype), x.chunks)


def _compute(handle):
    """The task: the array's values as a NumPy array, computed by tegula."""
    from ._functions import run_compute

    with _COMPUTING:
        return run_compute([handle], None, None, True, None, None)[0][0]


def finalize(results):
    """``__dask_postcompute__``'s function: the value of the array's one key."""
    return results[0]


def rebuild(dsk, chunks, attrs, rename=None):
    """``__dask_postpersist__``'s function: a persisted tegula array (``tg.persist``) of the
    computed values, in the array's chunks."""
    from ._array import Array
    from ._creation import asarray
    from ._functions import persist

    (values,) = dsk.values()
    kept = persist(asarray(values, chunks=chunks))[0]
    return Array(kept._h, attrs)


def scheduler():
    """Dask's threaded scheduler: the default of Dask's arrays too, so Dask computes them
    beside tegula arrays without being told a scheduler."""
    from dask.threaded import get

    return get
