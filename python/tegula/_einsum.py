"""NumPy's ``einsum`` from tegula's contractions: each operand's repeated labels become
diagonals and its private labels sums; operands are then contracted two at a time as a
``matmul`` of (shared, left, contracted) by (shared, contracted, right), so a contraction
without shared labels is a blockwise product with a tree sum, never one task holding a whole
axis."""

import numpy as np

from ._creation import asarray
from ._functions import REDUCTIONS, matmul
from ._gather import getitem
from ._manipulation import broadcast_to
from ._reshape import reshape

_LETTERS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def einsum_path(subscripts, *operands, optimize="greedy", einsum_call=False):
    """NumPy's ``einsum_path``: the order of pairwise contractions NumPy's planner chooses,
    and its report. It reads only the operands' shapes, so NumPy plans on stand-ins of those
    shapes that hold no data."""
    stand_ins = [np.broadcast_to(np.zeros((), op.dtype), op.shape) for op in map(asarray, operands)]
    return np.einsum_path(subscripts, *stand_ins, optimize=optimize, einsum_call=einsum_call)


def einsum(subscripts, *operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """Einstein summation over ``operands`` as NumPy's ``einsum`` (explicit ``->`` output or
    the implicit one: labels seen once, in alphabetical order; ``...`` broadcasts; a label
    repeated in one operand takes its diagonal; length-one axes broadcast). The result has the
    operands' result type (``dtype=`` casts them first), summed in that type as NumPy's."""
    if out is not None:
        raise TypeError("tegula arrays are immutable values: out= is not supported")
    if not isinstance(subscripts, str):
        raise TypeError("einsum subscripts must be a string (the interleaved form is not supported)")
    arrays = [asarray(op) for op in operands]
    # Every sum is in the result type, as NumPy's: a bool operand's private axes summed alone
    # would be a logical or (ones((2, 3), bool) summed with floats counts its trues).
    common = np.dtype(dtype) if dtype is not None else np.result_type(*(a.dtype for a in arrays))
    arrays = [a if a.dtype == common else a.astype(common) for a in arrays]
    inputs, output = _parse(subscripts, [a.ndim for a in arrays])
    sizes = _label_sizes(inputs, arrays)
    terms = [_reduce_alone(a, labels, output, inputs, i, sizes) for i, (a, labels) in enumerate(zip(arrays, inputs))]
    result, labels = terms[0]
    for i, (other, other_labels) in enumerate(terms[1:], start=1):
        later = {c for _, ls in terms[i + 1:] for c in ls}
        result, labels = _contract(result, labels, other, other_labels, set(output) | later, sizes)
    result, labels = _sum_out(result, labels, set(output))
    return result.transpose([labels.index(c) for c in output]) if labels else result


def _parse(subscripts, ndims):
    """Each operand's labels and the output's, with ``...`` expanded into internal labels
    (right-aligned across operands, as broadcasting)."""
    text = subscripts.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    parts = lhs.split(",")
    if len(parts) != len(ndims):
        raise ValueError(f"einstein sum subscripts string contains {len(parts)} operands, but {len(ndims)} were given")
    ellipsis_dims = [_ellipsis_dims(p, n) for p, n in zip(parts, ndims)]
    width = max(ellipsis_dims, default=0)
    broadcast = [chr(0x100 + i) for i in range(width)]
    inputs = [_expand(p, broadcast[width - d:] if d else []) for p, d in zip(parts, ellipsis_dims)]
    if arrow:
        if width and "..." not in rhs:
            raise ValueError("output has more dimensions than subscripts given in einstein sum, but no '...' "
                             "ellipsis provided to broadcast the extra dimensions.")
        output = _expand(rhs, broadcast)
        if len(set(output)) != len(output):
            raise ValueError(f"einstein sum subscripts string includes output subscript '{_repeated(output)}' multiple times")
        seen = {c for labels in inputs for c in labels}
        for c in output:
            if c not in seen:
                raise ValueError(f"einstein sum subscripts string included output subscript '{c}' which never appeared in an input")
    else:
        counts = {}
        for labels in inputs:
            for c in labels:
                counts[c] = counts.get(c, 0) + 1
        output = broadcast + sorted(c for c, n in counts.items() if n == 1 and c in _LETTERS)
    return inputs, output


def _ellipsis_dims(part, ndim):
    letters = part.replace("...", "")
    bad = [c for c in letters if c not in _LETTERS]
    if bad or part.count("...") > 1 or "." in letters:
        raise ValueError(f"invalid subscript '{bad[0] if bad else '.'}' in einstein sum subscripts string, "
                         "subscripts must be letters")
    if "..." not in part:
        if len(letters) != ndim:
            raise ValueError(f"operand has more dimensions than subscripts given in einstein sum, but no "
                             f"'...' ellipsis provided to broadcast the extra dimensions." if ndim > len(letters)
                             else f"einstein sum subscripts string contains too many subscripts for operand")
        return 0
    if len(letters) > ndim:
        raise ValueError("einstein sum subscripts string contains too many subscripts for operand")
    return ndim - len(letters)


def _expand(part, broadcast):
    head, dots, tail = part.partition("...")
    return list(head) + (broadcast if dots else []) + list(tail)


def _repeated(labels):
    return next(c for c in labels if labels.count(c) > 1)


def _label_sizes(inputs, arrays):
    """Each label's length: equal in every operand, or one where it broadcasts."""
    sizes = {}
    for labels, a in zip(inputs, arrays):
        for c, n in zip(labels, a.shape):
            known = sizes.get(c, 1)
            if n != 1 and known not in (1, n):
                raise ValueError(f"operands could not be broadcast together with remapped shapes "
                                 f"(label {c!r} has lengths {known} and {n})")
            sizes[c] = known if n == 1 and c in sizes else n
    return sizes


def _reduce_alone(a, labels, output, inputs, index, sizes):
    """One operand with its repeated labels turned into diagonals, the labels no other operand
    or the output has summed out, and the rest broadcast to their common lengths."""
    labels = list(labels)
    while len(set(labels)) != len(labels):
        c = _repeated(labels)
        first, second = [i for i, d in enumerate(labels) if d == c][:2]
        rest = [i for i in range(a.ndim) if i not in (first, second)]
        a = _diagonal(a.transpose(rest + [first, second]), c)
        labels = [labels[i] for i in rest] + [c]
    elsewhere = set(output) | {c for j, ls in enumerate(inputs) if j != index for c in ls}
    a, labels = _sum_out(a, labels, elsewhere)
    return broadcast_to(a, tuple(sizes[c] for c in labels)), labels


def _diagonal(a, label):
    """The diagonal of the last two axes (of equal lengths), as a new last axis."""
    if a.shape[-2] != a.shape[-1]:
        raise ValueError(f"dimensions in operand for collapsing index '{label}' don't match "
                         f"({a.shape[-2]} != {a.shape[-1]})")
    index = np.arange(a.shape[-1])
    return getitem(a, (Ellipsis, index, index))


def _sum_out(a, labels, keep):
    """``a`` summed over its labels outside ``keep`` (in its own dtype, as NumPy's einsum; a
    logical or for bools)."""
    axes = tuple(i for i, c in enumerate(labels) if c not in keep)
    if not axes:
        return a, labels
    if a.dtype == np.bool_:
        summed = REDUCTIONS["any"](a, axis=axes)
    else:
        summed = REDUCTIONS["sum"](a, axis=axes, dtype=a.dtype)
    return summed, [c for i, c in enumerate(labels) if i not in axes]


def _contract(a, a_labels, b, b_labels, keep, sizes):
    """``a`` and ``b`` multiplied and summed over the labels they share that ``keep`` does
    not hold, as one (stacked) matmul."""
    shared = [c for c in a_labels if c in b_labels and c in keep]
    summed = [c for c in a_labels if c in b_labels and c not in keep]
    left = [c for c in a_labels if c not in b_labels]
    right = [c for c in b_labels if c not in a_labels]
    a = a.transpose([a_labels.index(c) for c in shared + left + summed])
    b = b.transpose([b_labels.index(c) for c in shared + summed + right])
    size = lambda ls: int(np.prod([sizes[c] for c in ls], dtype=np.int64))  # noqa: E731
    batch = tuple(sizes[c] for c in shared)
    a = reshape(a, batch + (size(left), size(summed)))
    b = reshape(b, batch + (size(summed), size(right)))
    product = matmul(a, b)
    return reshape(product, batch + tuple(sizes[c] for c in left + right)), shared + left + right
