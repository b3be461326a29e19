"""QR of a matrix too big for one task, by tiles (the tiled algorithm of PLASMA and of
communication-avoiding QR): the matrix is cut into square tiles; for each diagonal tile, in
order, an orthogonal transform of two row tiles at a time (a Householder QR of the two tiles
of the current column, stacked) zeroes one tile below the diagonal and is applied to the rest
of both row tiles by ``matmul``. Every transform is an explicit ``Q`` of at most two tiles'
height, so no task holds more than a few tiles, and the plan stays lazy: one graph, built
from whole-matrix QRs of tile pairs, slices, ``matmul`` and ``concatenate``."""

from ._array import Array
from ._creation import zeros
from ._functions import concatenate
from ._matrices import eye


def tiled_qr(x, complete, tile):
    """``(Q, R)`` of the matrix ``x`` (reduced, or ``complete``) in ``tile``×``tile`` tiles."""
    m, n = x.shape
    rows, cols = _bounds(m, tile), _bounds(n, tile)
    a = [[x[r0:r1, c0:c1] for c0, c1 in cols] for r0, r1 in rows]
    transforms = [t for k in range(min(len(rows), len(cols))) for t in _eliminate_column(a, k)]
    depth = m if complete else min(m, n)
    r = _assemble(a, rows, cols, x.dtype)[:depth]  # the tiles below the diagonal are zeros now
    return _form_q(transforms, rows, _bounds(depth, tile), x.dtype), r


def _bounds(length, tile):
    return [(start, min(start + tile, length)) for start in range(0, length, tile)] or [(0, 0)]


def _eliminate_column(a, k):
    """Zero the tiles of column ``k`` below the diagonal, one at a time, updating ``a`` in place;
    the transforms as ``(k, i, Q)``: ``Q`` of row tile ``k`` over row tile ``i`` (``i`` is
    ``None`` for the first, of row tile ``k`` alone)."""
    transforms = []
    for i in [None] + list(range(k + 1, len(a))):
        q, r = _complete_qr(_stacked(a[k][k], None if i is None else a[i][k]))
        a[k][k] = r[:a[k][k].shape[0]]
        if i is not None:
            a[i][k] = None  # zero
        q_adjoint = q.conj().mT
        for j in range(k + 1, len(a[k])):
            a[k][j], below = _apply(q_adjoint, a[k][j], None if i is None else a[i][j])
            if i is not None:
                a[i][j] = below
        transforms.append((k, i, q))
    return transforms


def _complete_qr(x):
    return tuple(Array(h) for h in x._h.linalg_results("qr", flag=True))


def _stacked(top, bottom):
    """The tile ``top`` over ``bottom`` (``None``: no tile below)."""
    return top if bottom is None else concatenate([top, bottom])


def _apply(q, top, bottom):
    """``q`` times ``top`` over ``bottom``, split back into those two tiles' rows."""
    mixed = q @ _stacked(top, bottom)
    height = top.shape[0]
    return mixed[:height], (None if bottom is None else mixed[height:])


def _form_q(transforms, rows, cols, dtype):
    """The transforms applied in reverse order to the first columns of the identity (tiles
    known to be zero stay ``None`` and cost nothing until a transform mixes them in)."""
    e = [[_identity_tile(r, c, dtype) for c in cols] for r in rows]
    for k, i, q in reversed(transforms):
        for j, col in enumerate(cols):
            top, bottom = e[k][j], None if i is None else e[i][j]
            if top is None and bottom is None:
                continue
            bottom = None if i is None else _filled(bottom, rows[i], col, dtype)
            e[k][j], below = _apply(q, _filled(top, rows[k], col, dtype), bottom)
            if i is not None:
                e[i][j] = below
    return _assemble(e, rows, cols, dtype)


def _identity_tile(rows, cols, dtype):
    """The tile of the identity at ``rows``×``cols``, or ``None`` when it holds only zeros."""
    (r0, r1), (c0, c1) = rows, cols
    if r1 <= c0 or c1 <= r0:
        return None
    return eye(r1 - r0, c1 - c0, k=r0 - c0, dtype=dtype)


def _filled(tile, rows, cols, dtype):
    """``tile``, or zeros of its extent ``rows``×``cols`` where it is ``None``."""
    (r0, r1), (c0, c1) = rows, cols
    return tile if tile is not None else zeros((r1 - r0, c1 - c0), dtype=dtype)


def _assemble(tiles, rows, cols, dtype):
    """One matrix from rows of tiles, ``None`` standing for zeros."""
    lines = [concatenate([_filled(t, r, c, dtype) for t, c in zip(line, cols)], axis=1) for line, r in zip(tiles, rows)]
    return concatenate(lines, axis=0)
