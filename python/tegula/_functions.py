"""Element-wise functions, reductions and the other array functions of the namespace. The
ufuncs are rows of two tables; each becomes a function here."""

import operator

from . import _compute, _tegula
from ._array import Array, binary
from ._creation import asarray, full
from ._dtypes import dtype_name, in_unit_of, is_python_scalar
from ._info import _check_device, _on
from ._strict import check_promotion

# name in tegula's namespace -> ufunc name in the Rust core
UNARY = {
    "negative": "negative", "positive": "positive", "abs": "abs", "absolute": "abs",
    "sqrt": "sqrt", "exp": "exp", "expm1": "expm1", "log": "log", "log1p": "log1p",
    "log2": "log2", "log10": "log10", "sin": "sin", "cos": "cos", "tan": "tan",
    "arcsin": "arcsin", "arccos": "arccos", "arctan": "arctan", "sinh": "sinh",
    "cosh": "cosh", "tanh": "tanh", "arcsinh": "arcsinh", "arccosh": "arccosh",
    "arctanh": "arctanh", "asin": "arcsin", "acos": "arccos", "atan": "arctan",
    "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh", "floor": "floor",
    "ceil": "ceil", "trunc": "trunc", "rint": "rint", "sign": "sign", "square": "square",
    "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite", "conj": "conj",
    "conjugate": "conj", "real": "real", "imag": "imag", "logical_not": "logical_not",
    "invert": "invert", "bitwise_not": "invert", "bitwise_invert": "invert",
    "signbit": "signbit", "reciprocal": "reciprocal",
}

BINARY = {
    "add": "add", "subtract": "subtract", "multiply": "multiply", "divide": "divide",
    "true_divide": "divide", "floor_divide": "floor_divide", "remainder": "remainder",
    "mod": "remainder", "power": "power", "pow": "power", "equal": "equal",
    "not_equal": "not_equal", "less": "less", "less_equal": "less_equal",
    "greater": "greater", "greater_equal": "greater_equal", "bitwise_and": "bitwise_and",
    "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor", "logical_and": "logical_and",
    "logical_or": "logical_or", "logical_xor": "logical_xor", "maximum": "maximum",
    "minimum": "minimum", "arctan2": "arctan2", "atan2": "arctan2", "copysign": "copysign",
    "hypot": "hypot", "logaddexp": "logaddexp", "nextafter": "nextafter",
    "left_shift": "left_shift", "bitwise_left_shift": "left_shift", "right_shift": "right_shift",
    "bitwise_right_shift": "right_shift",
}


def _make_unary(name, op):
    def f(x):
        return Array(asarray(x)._h.unary(op))
    f.__name__ = name
    f.__doc__ = f"Element-wise ``{op}`` (NumPy semantics and result dtype)."
    return f


def _make_binary(name, op):
    def f(x1, x2):
        return binary(op, x1, x2)
    f.__name__ = name
    f.__doc__ = f"Element-wise ``{op}`` with broadcasting (NumPy semantics and result dtype)."
    return f


UFUNCS = {name: _make_unary(name, op) for name, op in UNARY.items()}
UFUNCS.update({name: _make_binary(name, op) for name, op in BINARY.items()})


def where(condition, x, y, /):
    """``x`` where ``condition`` is true, else ``y``, broadcast together."""
    x, y = _with_weak_scalars([x, y], "where")
    return Array(asarray(condition)._h.where_(x._h, y._h))


def _with_weak_scalars(items, name):
    """``items`` as tegula arrays; Python scalars among arrays take the dtype NumPy 2 gives a
    weak scalar next to the arrays' result type (alone, they are ordinary arrays)."""
    items = in_unit_of(items)
    converted = [None if is_python_scalar(a) else asarray(a) for a in items]
    check_promotion(name, *(a if c is None else c for a, c in zip(items, converted)))
    arrays = [a for a in converted if a is not None]
    if not arrays:
        return [asarray(a) for a in items]
    dtype = result_type(*arrays).name
    # Constants (`full`), so they go to whatever device the arrays are on.
    return [full((), a, _tegula.weak_scalar_dtype(a, dtype)) if c is None else c for a, c in zip(items, converted)]


def concatenate(arrays, /, axis=0):
    """``arrays`` promoted to their result type and joined along ``axis`` (NumPy's rules and
    errors); ``axis=None`` joins them flattened. Every block of the result is a block of an
    input, so no data is copied."""
    handles = [a._h for a in _with_weak_scalars(list(arrays), "concatenate")]
    return Array(_tegula.concatenate(handles, None if axis is None else operator.index(axis)))


concat = concatenate


def stack(arrays, /, axis=0):
    """Arrays of one shape joined along a new axis ``axis`` of the result (``expand_dims`` of
    each, then ``concatenate``)."""
    arrays = [asarray(a) for a in arrays]
    check_promotion("stack", *arrays)
    return Array(_tegula.stack([a._h for a in arrays], operator.index(axis)))


def expand_dims(x, /, axis=0):
    """``x`` with a length-one axis at ``axis`` (an int or a tuple of positions in the result,
    negative ones counted from its end); a view of every block."""
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return Array(asarray(x)._h.expand_dims([operator.index(a) for a in axes]))


def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` converted to ``dtype`` (NumPy's casting), on ``device`` if given."""
    _check_device(device)
    return _on(device, asarray(x).astype(dtype))


def matmul(x1, x2, /):
    """NumPy's ``matmul``: stacks of matrix products (the stack axes broadcast), blockwise products
    with a tree sum over the contracted axis."""
    return asarray(x1) @ asarray(x2)


def transpose(x, axes=None):
    """``x`` with its axes reversed, or permuted as ``axes`` says (a view of every block)."""
    return asarray(x).transpose(axes)


def permute_dims(x, /, axes):
    """The array API's ``permute_dims``: ``x`` with its axes permuted as ``axes`` says."""
    return asarray(x).transpose(axes)


def rechunk(x, chunks="auto"):
    """``x`` in blocks of ``chunks`` (Dask's forms), in stages that stay within the memory budget."""
    return asarray(x).rechunk(chunks)


# NumPy's positional parameters in NumPy's order (``out`` included, refused); ``split_every``
# and the array API's ``correction`` by keyword.
def sum(x, /, axis=None, dtype=None, out=None, keepdims=False, *, split_every=None):
    """Sum over ``axis`` (int, tuple or None) as a tree reduction; see ``Array.sum``."""
    return asarray(x).sum(axis, dtype, out, keepdims, split_every=split_every)


def prod(x, /, axis=None, dtype=None, out=None, keepdims=False, *, split_every=None):
    """Product over ``axis`` (int, tuple or None) as a tree reduction; see ``Array.prod``."""
    return asarray(x).prod(axis, dtype, out, keepdims, split_every=split_every)


def mean(x, /, axis=None, dtype=None, out=None, keepdims=False, *, split_every=None):
    """Mean over ``axis`` (int, tuple or None) as a tree reduction; see ``Array.mean``."""
    return asarray(x).mean(axis, dtype, out, keepdims, split_every=split_every)


def var(x, /, axis=None, dtype=None, out=None, ddof=None, keepdims=False, *, correction=0.0, split_every=None):
    """Variance, in one pass; ``correction`` is the standard's name for NumPy's ``ddof``."""
    ddof = correction if ddof is None else ddof
    return asarray(x).var(axis, dtype, out, ddof, keepdims, split_every=split_every)


def std(x, /, axis=None, dtype=None, out=None, ddof=None, keepdims=False, *, correction=0.0, split_every=None):
    """Standard deviation, in one pass; ``correction`` is the standard's name for NumPy's ``ddof``."""
    ddof = correction if ddof is None else ddof
    return asarray(x).std(axis, dtype, out, ddof, keepdims, split_every=split_every)


def min(x, /, axis=None, out=None, keepdims=False, *, split_every=None):
    """Smallest element over ``axis`` (NaN propagates, as NumPy's); see ``Array.min``."""
    return asarray(x).min(axis, out, keepdims, split_every=split_every)


def max(x, /, axis=None, out=None, keepdims=False, *, split_every=None):
    """Largest element over ``axis`` (NaN propagates, as NumPy's); see ``Array.max``."""
    return asarray(x).max(axis, out, keepdims, split_every=split_every)


def any(x, /, axis=None, out=None, keepdims=False, *, split_every=None):
    """Whether any element over ``axis`` is true; see ``Array.any``."""
    return asarray(x).any(axis, out, keepdims, split_every=split_every)


def all(x, /, axis=None, out=None, keepdims=False, *, split_every=None):
    """Whether every element over ``axis`` is true; see ``Array.all``."""
    return asarray(x).all(axis, out, keepdims, split_every=split_every)


REDUCTIONS = {f.__name__: f for f in (sum, prod, mean, var, std, min, max, any, all)}
REDUCTIONS.update(amin=min, amax=max)


def compute(*arrays, scheduler=None, num_workers=None, fuse=True, report=False, progress=None, placement=None):
    """Computes several arrays in one pass (shared work is done once); returns a tuple of
    NumPy arrays. Arguments that are not tegula arrays are returned unchanged. ``scheduler``:
    ``"threads"`` (one process, all cores), ``"serial"`` (one thread: the reference),
    ``"processes"`` (a pool of ``num_workers`` worker processes, each running whole fragments
    of the plan, blocks passing through shared memory), ``"ray"`` (the Ray cluster), a
    ``distributed.Client`` or ``"dask"`` (its default client: the Dask cluster, fragments
    pinned to the workers tegula places them on, or with ``placement="dask"`` where Dask's
    scheduler puts them); unset, ``tg.config``'s. The memory
    budget and spill directory come from ``tg.config``. With ``report=True``, returns
    ``(results, report)``: a dict with the task count, the measured peak bytes of chunks held
    (``peak_bytes``), the projected peak (``projected_peak_bytes``), the bytes spilled to
    disk and the budget (``memory``). ``progress``: True shows a progress bar, False none;
    unset, the ``progress`` setting of ``tg.config`` decides (by default a bar where someone
    watches, for computations longer than half a second)."""
    lazy = [a for a in arrays if isinstance(a, Array)]
    computed, info = _compute.run_compute([a._h for a in lazy], scheduler, num_workers, fuse, progress, placement)
    results = iter(computed)
    out = tuple(next(results) if isinstance(a, Array) else a for a in arrays)
    return (out, info) if report else out


def persist(*arrays, scheduler=None, num_workers=None, fuse=True, report=False, progress=None, placement=None):
    """Computes several arrays in one pass and keeps their blocks; returns a tuple of tegula
    arrays with the same values, shapes and chunks, whose later computations read the kept
    blocks instead of computing them again (Dask's ``persist``). Blocks are kept in memory
    while everything persisted stays within half of the memory budget left (``tg.config``'s
    ``memory``), and beyond that on disk, in the spill directory; the bytes kept in memory
    count against the budget of every later computation. Both are freed when the last array
    reading them is dropped. Arguments that are not tegula arrays are returned unchanged;
    the other arguments are ``compute``'s (``report=True`` returns ``(arrays, report)``)."""
    lazy = [a for a in arrays if isinstance(a, Array)]
    kept, info = _compute.run_compute([a._h for a in lazy], scheduler, num_workers, fuse, progress, placement, persist=True)
    kept = iter(kept)
    out = tuple(Array(next(kept), a._attrs) if isinstance(a, Array) else a for a in arrays)
    return (out, info) if report else out


def result_type(*arrays_and_dtypes):
    """NumPy's ``result_type`` of arrays (by their dtypes) and dtypes."""
    import numpy as np

    check_promotion("result_type", *arrays_and_dtypes)
    return np.result_type(*(a.dtype if isinstance(a, Array) else a for a in arrays_and_dtypes))


def can_cast(from_, to, casting="safe"):
    """NumPy's ``can_cast`` of an array's dtype (or a dtype) to ``to`` under ``casting``."""
    import numpy as np

    return np.can_cast(from_.dtype if isinstance(from_, Array) else from_, dtype_name(to), casting=casting)
