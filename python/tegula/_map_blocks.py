"""Python functions applied block by block: ``map_blocks`` (as Dask's), ``blockwise`` (Dask's,
with contracted indices concatenated; ``atop`` its old name) and ``apply_gufunc`` (a
generalised ufunc over the loop axes; ``gufunc`` and ``as_gufunc`` wrap a function in it). Each becomes one native ``map_blocks`` operation: one task per block, which calls the
function holding the GIL — the only operations in tegula that run Python per block.

The native operation wants every input, and the result, on one block grid with one number of
axes. So each function here lays its arrays out on shared *internal* axes: the arrays are
broadcast (lazily) to the internal shape and rechunked to one grid, axes a function does not
see are length one (or sliced off again before the call), and axes the function reduces away
or adds are single blocks. The wrapper handed to the core undoes that layout around each call.
"""

import functools
import inspect
import warnings

import numpy as np

from . import _tegula
from ._array import Array
from ._creation import asarray
from ._functions import expand_dims
from ._manipulation import broadcast_arrays, moveaxis, squeeze
from ._xarray_chunks import unify_chunks


def _apply(call, arrays, out_chunks, dtype, name):
    """The native operation: ``call(block_index, blocks)`` over arrays of one shape, put on
    one block grid; ``None`` in ``out_chunks`` keeps the grid's block lengths along that axis."""
    arrays = _one_grid(arrays)
    call = _with_time_blocks(call, [a.dtype for a in arrays])
    grid = arrays[0].chunks
    out_chunks = [tuple(g) if c is None else tuple(c) for c, g in zip(out_chunks, grid)]
    for axis, (c, g) in enumerate(zip(out_chunks, grid)):
        if len(c) != len(g):
            raise ValueError(f"chunks: axis {axis} of the result needs {len(g)} blocks (the inputs'), got {len(c)}")
    handle = _tegula.map_blocks(call, [a._h for a in arrays], [list(c) for c in out_chunks], np.dtype(dtype).name, name)
    return Array(handle)


def _with_time_blocks(call, dtypes):
    """``call`` given blocks of datetime64/timedelta64 arrays in their dtypes (the core hands
    them over as their int64 counts)."""
    if not any(d.kind in "mM" for d in dtypes):
        return call

    def viewed(index, blocks):
        return call(index, [b.view(d) if d.kind in "mM" else b for b, d in zip(blocks, dtypes)])

    return viewed


def _one_grid(arrays):
    """Arrays of one shape rechunked to one block grid: every array's boundaries together."""
    labels = tuple(range(arrays[0].ndim))
    return unify_chunks([x for a in arrays for x in (a, labels)], warn=False)[1]


def _name(func, name):
    return name or getattr(func, "__name__", type(func).__name__)


def _takes(func, name):
    """Whether ``func``'s signature names the parameter ``name`` (``block_id``, ``block_info``)."""
    try:
        return name in inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False


def _normalize_axes(axes, ndim, what):
    axes = () if axes is None else (axes,) if isinstance(axes, int) else tuple(axes)
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(a, ndim, what)
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{what}: repeated axis in {axes}")
    return tuple(sorted(out))


def _result(value, dtype):
    """The function's block as a NumPy array of ``dtype``: cast when it returned another (as
    Dask's result takes the dtype it was given)."""
    if value is None:
        raise TypeError("map_blocks: the function returned None, not a block (a missing return statement?)")
    out = np.asarray(value)
    return out if dtype is None or out.dtype == dtype else out.astype(dtype)


def _infer_dtype(func, blocks, name):
    """The dtype ``func`` returns for empty blocks of the inputs' dtypes (as Dask's meta)."""
    try:
        value = func(*blocks)
    except Exception as e:  # noqa: BLE001 - any failure means: say the dtype
        raise ValueError(f"could not infer the dtype {name} returns (calling it on empty blocks raised "
                         f"{type(e).__name__}: {e}); pass dtype=") from None
    return np.asarray(value).dtype


# --- map_blocks ---------------------------------------------------------------------------------


def map_blocks(func, *args, dtype=None, chunks=None, drop_axis=None, new_axis=None, name=None, **kwargs):
    """``func`` of the same block of every array argument (NumPy arrays count as arrays; other
    arguments and ``kwargs`` are passed as they are), lazily; the arrays are broadcast against
    each other first.

    ``dtype``: the result's (inferred from a call on empty blocks when omitted). ``chunks``:
    the result's block lengths (a tuple of tuples) or the shape of every block; by default the
    inputs'. ``drop_axis``: axes the function removes (each made one block first);
    ``new_axis``: result axes it adds (one block each, as long as ``chunks`` says, else 1). A
    ``func`` taking a ``block_id`` argument gets the block's number along each result axis; one
    taking ``block_info`` gets Dask's dict of where the block lies (per array argument's
    position, and ``None`` for the result). A block of another dtype is cast to ``dtype``."""
    positions = [i for i, a in enumerate(args) if isinstance(a, (Array, np.ndarray))]
    if not positions:
        raise ValueError("map_blocks needs at least one array argument")
    arrays = broadcast_arrays(*[asarray(args[i]) for i in positions])
    n = arrays[0].ndim
    drop = _normalize_axes(drop_axis, n, "drop_axis")
    m = n - len(drop) + (0 if new_axis is None else 1 if isinstance(new_axis, int) else len(tuple(new_axis)))
    new = _normalize_axes(new_axis, m, "new_axis")
    kept = [k for k in range(n) if k not in drop]
    # Internal axes: the inputs' n axes (dropped ones one block, length one in the result), then
    # the new axes (length one in the inputs).
    arrays = [a.rechunk(tuple(-1 if k in drop else c for k, c in enumerate(a.chunks))) for a in arrays]
    arrays = [expand_dims(a, axis=tuple(range(n, n + len(new)))) if new else a for a in arrays]
    arrays = _one_grid(arrays)
    out_axes = [o for o in range(m) if o not in new]  # result axes that are input axes, in order
    given = _chunks_per_result_axis(chunks, m)
    internal = [None] * (n + len(new))
    for k in drop:
        internal[k] = (1,)
    for o, k in zip(out_axes, kept):
        internal[k] = _block_lengths(given[o], arrays[0].chunks[k])
    for j, o in enumerate(new):
        internal[n + j] = _block_lengths(given[o], (1,)) if given[o] is not None else (1,)
    label = _name(func, name)
    if dtype is None:
        empties = list(args)
        for i, a in zip(positions, arrays):
            empties[i] = np.empty((0,) * n, a.dtype)
        dtype = _infer_dtype(lambda *b: func(*b, **kwargs), empties, label)
    block_id, block_info = _takes(func, "block_id"), _takes(func, "block_info")
    result_chunks = [None] * m
    for o, k in zip(out_axes, kept):
        result_chunks[o] = internal[k]
    for j, o in enumerate(new):
        result_chunks[o] = internal[n + j]
    inputs = {p: a.chunks[:n] for p, a in zip(positions, arrays)}
    # The arrays' places are filled with blocks; the call keeps no array (it is pickled to
    # reach worker processes).
    fixed = [None if i in positions else a for i, a in enumerate(args)]

    def call(index, blocks):
        call_args = list(fixed)
        for i, b in zip(positions, blocks):
            call_args[i] = b.reshape(b.shape[:n]) if new else b
        result_index = _result_block_id(index, n, drop, new, m)
        extra = {"block_id": result_index} if block_id else {}
        if block_info:
            extra["block_info"] = _block_info(inputs, index[:n], result_chunks, result_index, dtype)
        out = _result(func(*call_args, **kwargs, **extra), dtype)
        out = np.moveaxis(out, new, range(m - len(new), m)) if new else out
        return np.expand_dims(out, drop) if drop else out

    out = _apply(call, arrays, internal, dtype, label)
    if drop:
        out = squeeze(out, axis=drop)
    if new:
        out = moveaxis(out, tuple(range(m - len(new), m)), new)
    return out


def _location(chunks, index):
    """Dask's description of block ``index`` of an array of ``chunks``."""
    starts = [sum(c[:i]) for c, i in zip(chunks, index)]
    return {"shape": tuple(sum(c) for c in chunks), "num-chunks": tuple(len(c) for c in chunks),
            "chunk-location": tuple(index), "array-location": [(a, a + c[i]) for a, c, i in zip(starts, chunks, index)]}


def _block_info(inputs, index, result_chunks, result_index, dtype):
    """Dask's ``block_info``: each array argument's location (by position) and the result's
    (``None``), with its block's shape and dtype."""
    info = {p: _location(chunks, index) for p, chunks in inputs.items()}
    result = _location(result_chunks, result_index)
    result["chunk-shape"] = tuple(c[i] for c, i in zip(result_chunks, result_index))
    result["dtype"] = np.dtype(dtype)
    info[None] = result
    return info


def _chunks_per_result_axis(chunks, m):
    if chunks is None:
        return [None] * m
    chunks = tuple(chunks)
    if len(chunks) != m:
        raise ValueError(f"chunks must name {m} axes (the result's), got {len(chunks)}")
    return list(chunks)


def _block_lengths(given, grid):
    """Block lengths along one axis: as given (a tuple), every block ``given`` long (an int), or
    the grid's (None)."""
    if given is None:
        return tuple(grid)
    if isinstance(given, (int, np.integer)):
        lengths = (given,) * len(grid)
    else:
        try:
            lengths = tuple(given)
        except TypeError:
            raise TypeError(f"chunks: block lengths must be ints or tuples of ints, got {given!r}") from None
    for c in lengths:
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)):
            raise TypeError(f"chunks: block lengths must be ints, got {c!r}")
        if c < 0:
            raise ValueError(f"chunks: block lengths must not be negative, got {int(c)}")
    return tuple(int(c) for c in lengths)


def _result_block_id(index, n, drop, new, m):
    inputs = iter(index[k] for k in range(n) if k not in drop)
    return tuple(0 if o in new else next(inputs) for o in range(m))


# --- blockwise ----------------------------------------------------------------------------------


def blockwise(func, out_ind, *args, dtype=None, new_axes=None, name=None, concatenate=True, align_arrays=True,
              adjust_chunks=None, **kwargs):
    """Dask's ``blockwise``: ``args`` alternate arrays and their index strings (``x, "ij"``;
    ``None`` for a non-array argument). ``func`` gets, per output block, each array's block in
    its own index order; an index absent from ``out_ind`` is contracted: its axis is given
    whole (as Dask's ``concatenate=True``) and the function must remove it. ``new_axes``:
    ``{index: length}`` for result indices no input has. The layout is the Rust crate's
    (``BlockwiseLayout``)."""
    if concatenate is False:
        raise ValueError("tegula's blockwise always concatenates contracted axes (concatenate=True)")
    if adjust_chunks:
        raise ValueError("tegula's blockwise does not take adjust_chunks; use map_blocks with chunks=")
    pairs = [(a if ind is None else asarray(a), ind) for a, ind in zip(args[::2], args[1::2])]
    new_axes = dict(new_axes or {})
    for a, ind in pairs:
        if ind is not None and len(ind) != a.ndim:
            raise ValueError(f"index {ind!r} does not match an array of {a.ndim} axes")
    seen = {i for a, ind in pairs if ind is not None for i in ind} | set(new_axes)
    missing = [i for i in out_ind if i not in seen]
    if missing:
        raise ValueError(f"output indices {missing} appear in no input; give their lengths in new_axes")
    letter = _letters([out_ind] + [ind for _, ind in pairs if ind is not None])
    arrays = [a for a, ind in pairs if ind is not None]
    words = ["".join(letter[i] for i in ind) for a, ind in pairs if ind is not None]
    layout = _tegula.BlockwiseLayout("".join(letter[i] for i in out_ind), [a._h for a in arrays], words,
                                     [(letter[i], int(n)) for i, n in new_axes.items()])
    contracted = len({c for w in words for c in w} - {letter[i] for i in out_ind})
    label = _name(func, name)
    if dtype is None:
        empties = [np.empty((0,) * len(ind), a.dtype) if ind is not None else a for a, ind in pairs]
        dtype = _infer_dtype(lambda *b: func(*b, **kwargs), empties, label)
    fixed = [a if ind is None else None for a, ind in pairs]
    positions = [k for k, (a, ind) in enumerate(pairs) if ind is not None]
    call = functools.partial(_laid_out_call, func, kwargs, fixed, positions, layout.axes, contracted, dtype, None)
    return Array(layout.apply(_with_time_blocks(call, [a.dtype for a in arrays]), np.dtype(dtype).name, label))


def _letters(indices):
    """One letter per index label, in order of appearance: a one-letter string stands for
    itself, any other label gets a private-use character."""
    labels = list(dict.fromkeys(i for ind in indices for i in ind))
    own = {i for i in labels if isinstance(i, str) and len(i) == 1}
    spare = (chr(c) for c in range(0xE000, 0xF900) if chr(c) not in own)
    return {i: i if i in own else next(spare) for i in labels}


def _own_block(block, axes):
    """A laid-out block as its array sees it: the internal ``axes`` it has, in its own order."""
    taken = block[tuple(slice(None) if j in axes else 0 for j in range(block.ndim))]
    kept = sorted(axes)
    return np.transpose(taken, [kept.index(a) for a in axes])


def _laid_out_call(func, kwargs, fixed, positions, axes, contracted, dtype, output, index, blocks):
    """``func`` of one block of every array (at ``positions`` among the arguments), each in
    its own index order, and the non-array arguments ``fixed``; its result (its ``output``-th
    when not None) on the internal axes (a length-one axis per contracted index)."""
    values = list(fixed)
    for k, block, own in zip(positions, blocks, axes):
        values[k] = _own_block(block, own)
    value = func(*values, **kwargs)
    out = _result(value if output is None else value[output], dtype)
    return out.reshape(out.shape + (1,) * contracted)


def atop(*args, **kwargs):
    """Dask's deprecated name of ``blockwise`` (warns, as Dask's, then calls it)."""
    warnings.warn("The da.atop function has moved to da.blockwise", stacklevel=2)
    return blockwise(*args, **kwargs)


# --- apply_gufunc -------------------------------------------------------------------------------


def parse_signature(signature):
    """``"(i,j),(j)->(i)"`` as ([("i", "j"), ("j",)], [("i",)])."""
    text = signature.replace(" ", "")
    if "->" not in text:
        raise ValueError(f"not a generalised ufunc signature: {signature!r}")
    ins, outs = text.split("->")

    def groups(part):
        if not part.startswith("(") or not part.endswith(")"):
            raise ValueError(f"not a generalised ufunc signature: {signature!r}")
        return [tuple(d for d in g.split(",") if d) for g in part[1:-1].split("),(")]

    return groups(ins), groups(outs)


def apply_gufunc(func, signature, *args, axes=None, axis=None, keepdims=False, output_dtypes=None,
                 output_sizes=None, vectorize=None, allow_rechunk=False, meta=None, name=None, **kwargs):
    """A generalised ufunc over tegula arrays, lazily: ``signature`` names the core axes (the
    last axes of each argument, ``"(i),(i)->()"``), every other (loop) axis is broadcast and
    kept in blocks, and ``func`` gets whole core axes (one block each; with
    ``allow_rechunk=False`` a core axis in several blocks is an error, as in Dask). Returns one
    array, or a tuple for several outputs. ``vectorize=True`` wraps ``func`` in
    ``np.vectorize``.

    Core axes of different names are separate, so arguments may differ in their lengths
    (xarray's ``interp`` passes the old and the new coordinates along one dimension). A NumPy
    argument that has only core axes (a coordinate, a table) reaches ``func`` as it is, in
    every call, as Dask passes a one-block array: it may have a dtype tegula has no arrays of
    (datetime64 coordinates)."""
    if axes is not None or axis is not None or keepdims:
        raise ValueError("tegula's apply_gufunc takes core axes last; move them with moveaxis instead of axes=/axis=")
    core_in, core_out = parse_signature(signature)
    if len(core_in) != len(args):
        raise ValueError(f"signature {signature!r} takes {len(core_in)} arguments, got {len(args)}")
    if vectorize:
        otypes = None if output_dtypes is None else [np.dtype(d).char for d in np.atleast_1d(output_dtypes)]
        func = np.vectorize(func, signature=signature, otypes=otypes)
    constant = [not isinstance(a, Array) and np.ndim(a) == len(d) for a, d in zip(args, core_in)]
    if all(constant):  # nothing to put in blocks: the first argument becomes the array
        constant[0] = False
    xs = [np.asarray(a) if c else asarray(a) for a, c in zip(args, constant)]
    sizes = dict(output_sizes or {})
    for x, dims in zip(xs, core_in):
        if x.ndim < len(dims):
            raise ValueError(f"an argument of {x.ndim} axes cannot have the core axes {dims}")
        for d, n in zip(dims, x.shape[x.ndim - len(dims):]):
            if sizes.setdefault(d, n) != n:
                raise ValueError(f"core dimension {d!r} has lengths {sizes[d]} and {n}")
    for x, dims, c in zip(xs, core_in, constant):
        for d, ch in zip(dims, () if c else x.chunks[x.ndim - len(dims):]):
            if len(ch) > 1 and not allow_rechunk:
                raise ValueError(f"core dimension {d!r} is in {len(ch)} blocks; rechunk it to one block or pass "
                                 f"allow_rechunk=True")
    np.broadcast_shapes(*[x.shape[: x.ndim - len(d)] for x, d in zip(xs, core_in)])  # NumPy's error if not
    n_loop = max(x.ndim - len(d) for x, d in zip(xs, core_in))
    dtypes = _output_dtypes(output_dtypes, core_out, func, xs, core_in, kwargs, name)
    loops = [("loop", j) for j in range(n_loop)]  # labels no core dimension has
    letter = _letters([loops] + [list(d) for d in core_in] + [list(d) for d in core_out])
    positions = [k for k, c in enumerate(constant) if not c]
    words = ["".join(letter[i] for i in loops[n_loop - (xs[k].ndim - len(core_in[k])):] + list(core_in[k]))
             for k in positions]
    cores = "".join(letter[d] for d in sizes)
    fixed = [x if c else None for x, c in zip(xs, constant)]
    outputs = []
    for k, dims in enumerate(core_out):
        missing = [d for d in dims if d not in sizes]
        if missing:
            raise ValueError(f"output core dimensions {missing} have no length; give output_sizes")
        out_word = "".join(letter[i] for i in loops + list(dims))
        new = [(letter[d], sizes[d]) for d in dict.fromkeys(dims) if not any(letter[d] in w for w in words)]
        layout = _tegula.BlockwiseLayout(out_word, [xs[p]._h for p in positions], words, new, cores)
        contracted = len({c for w in words for c in w} - set(out_word))
        call = functools.partial(_laid_out_call, func, kwargs, fixed, positions, layout.axes, contracted, dtypes[k],
                                 k if len(core_out) > 1 else None)
        call = _with_time_blocks(call, [xs[p].dtype for p in positions])
        outputs.append(Array(layout.apply(call, np.dtype(dtypes[k]).name, _name(func, name))))
    return tuple(outputs) if len(core_out) > 1 else outputs[0]


def _output_dtypes(output_dtypes, core_out, func, xs, core_in, kwargs, name):
    if output_dtypes is not None:
        dtypes = [np.dtype(d) for d in (output_dtypes if isinstance(output_dtypes, (list, tuple)) else [output_dtypes])]
        if len(dtypes) != len(core_out):
            raise ValueError(f"{len(core_out)} outputs need {len(core_out)} output_dtypes, got {len(dtypes)}")
        return dtypes
    empties = [np.empty((0,) * len(d) if d else (), x.dtype) for x, d in zip(xs, core_in)]
    if len(core_out) == 1:
        return [_infer_dtype(lambda *b: func(*b, **kwargs), empties, _name(func, name))]
    raise ValueError("apply_gufunc with several outputs needs output_dtypes")


class gufunc:
    """Dask's ``gufunc``: ``pyfunc`` as a generalised ufunc of ``signature``; calling it on
    arrays is ``apply_gufunc(pyfunc, signature, *args, **options)``, with the options given
    here (``vectorize``, ``output_dtypes``, ``output_sizes``, ``allow_rechunk``, ...) and
    those of the call, which take precedence."""

    def __init__(self, pyfunc, *, signature=None, **options):
        if signature is None:
            raise ValueError("gufunc needs a signature, such as signature=\"(i)->()\"")
        self.pyfunc, self.signature, self.options = pyfunc, signature, options
        functools.update_wrapper(self, pyfunc, updated=())

    def __call__(self, *args, **kwargs):
        return apply_gufunc(self.pyfunc, self.signature, *args, **{**self.options, **kwargs})


def as_gufunc(signature=None, **kwargs):
    """Dask's decorator: ``@as_gufunc("(i)->()", output_dtypes=float)`` makes the decorated
    function a ``gufunc`` of that signature and options."""
    if signature is None:
        raise ValueError("as_gufunc needs a signature, such as as_gufunc(\"(i)->()\")")
    return lambda pyfunc: gufunc(pyfunc, signature=signature, **kwargs)
