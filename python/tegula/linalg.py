"""The array API's ``linalg`` extension (2025.12). Factorisations and solves run in the Rust
core, one task per block of the stack axes, each matrix whole in its block; the other functions
are compositions of element-wise operations, reductions and ``matmul``. Singular and
non-positive-definite matrices are found when the result is computed and raise
``numpy.linalg.LinAlgError`` (a ``ValueError``), as NumPy's functions do."""

import operator
from typing import NamedTuple

import numpy as np

from . import random
from ._array import Array, refuse_out
from ._creation import asarray
from ._functions import UFUNCS, matmul, stack, where
from ._manipulation import broadcast_shapes, broadcast_to
from ._matrices import dot, eye, matrix_transpose, outer, tensordot, vecdot
from ._reshape import reshape
from ._tiled_qr import tiled_qr

__all__ = ["cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "lstsq", "multi_dot", "norm", "eigvalsh", "inv", "matmul", "matrix_norm",
           "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve",
           "svd", "svd_compressed", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
           "EigResult", "EighResult", "QRResult", "SlogdetResult", "SVDResult"]

LinAlgError = np.linalg.LinAlgError


class EigResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


def _core(name, x, *others, **params):
    """The Rust core's ``name`` of each matrix of ``x`` (``others``: solve's right sides)."""
    return Array(asarray(x)._h.linalg(name, [asarray(o)._h for o in others], **params))


def _results(name, x, flag=False):
    """Every result of the Rust core's factorisation ``name`` of each matrix of ``x``: computed
    together, each matrix is factorised once."""
    return [Array(h) for h in asarray(x)._h.linalg_results(name, flag=flag)]


def cholesky(x, /, *, upper=False):
    """The lower Cholesky factor ``L`` of each Hermitian positive-definite matrix (``x = L L^H``;
    only the lower triangle is read), or ``U = L^H`` when ``upper``."""
    return _core("cholesky", x, flag=bool(upper))


def inv(x, /):
    return _core("inv", x)


def solve(x1, x2, /):
    """The solution ``X`` of ``x1 @ X == x2``. ``x2`` is a vector when it is 1-d, else a stack
    of matrices; the stack axes broadcast."""
    x1, x2 = asarray(x1), asarray(x2)
    if x1.ndim < 2:
        raise LinAlgError(f"{x1.ndim}-dimensional array given. Array must be at least two-dimensional")
    vector = x2.ndim == 1
    if vector:
        x2 = x2[:, None]
    stack_shape = broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    x1 = broadcast_to(x1, stack_shape + x1.shape[-2:])
    x2 = broadcast_to(x2, stack_shape + x2.shape[-2:])
    out = _core("solve", x1, x2)
    return out[..., 0] if vector else out


def det(x, /):
    return _core("det", x)


def slogdet(x, /):
    """The sign (a unit complex number for complex input; 0 for a singular matrix) and the
    natural log of the absolute value of each determinant."""
    return SlogdetResult(*_results("slogdet", x))


def qr(x, /, *, mode="reduced"):
    """``Q`` and ``R`` of each matrix. A tall matrix in several row blocks is factorised by
    TSQR (reduced mode): each row block's ``R``, stacked, is factorised again, and each block
    of ``Q`` is that block's own ``Q`` (recomputed) times its rows of the second ``Q``, so no
    task holds more than a row block. A matrix bigger than ``_WHOLE_MATRIX_BYTES`` in several
    column blocks (or, for the complete ``Q``, in several blocks) is factorised in square
    tiles of its smaller first block length (see ``_tiled_qr``); a smaller one, or a stack,
    one whole matrix per task."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr mode must be 'reduced' or 'complete', not {mode!r}")
    x = asarray(x)
    complete = mode == "complete"
    if _tiled(x, complete):
        return QRResult(*tiled_qr(x, complete, min(x.chunks[0][0], x.chunks[1][0])))
    if not complete and _tall_skinny(x):
        factor, r = _tsqr(x)
        return QRResult(_qr_apply(x, factor), r)
    return QRResult(*_results("qr", x, flag=complete))


def svd(x, /, *, full_matrices=True):
    """``U``, the singular values (descending) and ``Vh`` of each matrix. Without
    ``full_matrices``, a tall matrix in several row blocks goes through TSQR: the SVD of its
    small ``R`` gives ``S`` and ``Vh``, and ``U`` is ``Q`` times ``R``'s left vectors."""
    x = asarray(x)
    full = bool(full_matrices)
    if not full and _tall_skinny(x):
        factor, r = _tsqr(x)
        u, s, vh = svd(r, full_matrices=False)
        return SVDResult(_qr_apply(x, factor @ u), s, vh)
    return SVDResult(*_results("svd", x, flag=full))


def svdvals(x, /):
    """The singular values of each matrix, in descending order (a tall matrix in several row
    blocks: those of its TSQR ``R``)."""
    x = asarray(x)
    if _tall_skinny(x):
        x = _tsqr(x)[1]
    return _core("svd", x, output=1)


def svd_compressed(a, k, *, n_power_iter=0, n_oversamples=10, iterator="power", seed=None, coerce_signs=True):
    """The ``k`` leading singular triplets ``(U, S, Vh)`` of a matrix by randomized SVD (Halko,
    Martinsson and Tropp), as Dask's ``svd_compressed``: ``a`` times a Gaussian matrix of
    ``k + n_oversamples`` columns (drawn from ``seed``), ``n_power_iter`` times multiplied by
    ``a a^H`` (``iterator="power"``, cheapest) or re-orthonormalised after every product
    (``"QR"``, stabler for many iterations), gives an orthonormal basis ``Q`` of ``a``'s leading
    range by TSQR; the SVD of the small ``Q^H a`` then gives the triplets. Exact when ``a``'s
    rank is at most ``k + n_oversamples``; power iterations sharpen a slowly decaying spectrum.
    With ``coerce_signs``, each row of ``Vh`` sums to a non-negative number (and ``U`` follows),
    so the result does not depend on the sign conventions of the factorisations inside."""
    a = asarray(a)
    if a.ndim != 2:
        raise ValueError(f"svd_compressed needs a matrix, got {a.ndim} dimensions")
    k, n_power_iter, n_oversamples = (operator.index(v) for v in (k, n_power_iter, n_oversamples))
    if not 1 <= k <= min(a.shape):
        raise ValueError(f"k must be between 1 and min(a.shape) = {min(a.shape)}, got {k}")
    if n_power_iter < 0 or n_oversamples < 0:
        raise ValueError("n_power_iter and n_oversamples must be non-negative")
    if iterator not in ("power", "QR"):
        raise ValueError(f"iterator must be 'power' or 'QR', not {iterator!r}")
    if a.dtype.kind not in "fc":
        a = a.astype("float64")
    q = _range_basis(a, min(k + n_oversamples, min(a.shape)), n_power_iter, iterator, seed)
    u, s, vh = _short_svd(_adjoint(q) @ a)
    u, s, vh = q @ u[:, :k], s[:k], vh[:k]
    if coerce_signs:
        signs = where(vh.sum(axis=1).real < 0, -1, 1).astype(s.dtype)
        u, vh = u * signs, vh * signs[:, None]
    return SVDResult(u, s, vh)


def _range_basis(a, width, n_power_iter, iterator, seed):
    """An orthonormal basis of ``a``'s range sampled by ``width`` Gaussian combinations of its
    columns."""
    real = np.finfo(a.dtype).dtype
    omega = random.default_rng(seed).standard_normal((a.shape[1], width), dtype=real, chunks=(a.chunks[1], -1))
    y = a @ omega
    if iterator == "power":
        for _ in range(n_power_iter):
            y = a @ (_adjoint(a) @ y)
        return qr(y).Q
    q = qr(y).Q
    for _ in range(n_power_iter):
        q = qr(a @ qr(_adjoint(a) @ q).Q).Q
    return q


def _short_svd(b):
    """The reduced SVD of a short matrix; a wide one in several column blocks through the TSQR
    of its adjoint (``b^H = U S Vh`` gives ``b = Vh^H S U^H``)."""
    if b.shape[1] > b.shape[0] and len(b.chunks[1]) > 1:
        u, s, vh = svd(_adjoint(b), full_matrices=False)
        return _adjoint(vh), s, _adjoint(u)
    return svd(b, full_matrices=False)


# The largest stack of row-block ``R``s factorised as one matrix; a taller one is cut into
# row blocks of about this size and factorised by TSQR again (the ``chunks="auto"`` target).
_TSQR_BLOCK_BYTES = 128 * 2**20


# The biggest matrix factorised whole in one task when it is in several blocks; a bigger one
# is factorised in tiles.
_WHOLE_MATRIX_BYTES = 256 * 2**20


def _tiled(x, complete):
    """Whether ``x`` is one matrix too big to factorise whole, in several column blocks (a
    tall-skinny one in row blocks only goes through TSQR, unless the complete ``Q`` is
    asked for)."""
    big = x.ndim == 2 and x.size * x.itemsize > _WHOLE_MATRIX_BYTES
    return big and (len(x.chunks[1]) > 1 or complete and len(x.chunks[0]) > 1)


def _tall_skinny(x):
    """Whether ``x`` is one matrix taller than wide in several row blocks."""
    return x.ndim == 2 and x.shape[0] > x.shape[1] > 0 and len(x.chunks[0]) > 1


def _tsqr(x):
    """``(factor, R)`` of a tall matrix in row blocks, its ``Q`` being ``_qr_apply(x, factor)``:
    the row blocks' ``R``s, stacked, factorised as one matrix when small enough, else by TSQR
    again in row blocks of at least twice ``R``'s height (each level halves the height at
    least)."""
    n = x.shape[1]
    stacked = Array(x._h.linalg("qr", [], output=1, row_blocks=True))
    rows = max(2 * n, _TSQR_BLOCK_BYTES // (n * stacked.itemsize))
    if stacked.shape[0] <= rows:
        return tuple(qr(stacked.rechunk(-1)))
    stacked = stacked.rechunk((rows, -1))
    factor, r = _tsqr(stacked)
    return _qr_apply(stacked, factor), r


def _qr_apply(x, factor):
    """Each row block's reduced ``Q`` times its rows of ``factor``."""
    return Array(x._h.linalg("qr-apply", [asarray(factor)._h], row_blocks=True))


def eigh(x, /):
    """Eigenvalues (ascending) and eigenvectors (columns) of each Hermitian matrix; only the
    lower triangle is read."""
    return EighResult(*_results("eigh", x))


def eigvalsh(x, /):
    return _core("eigh", x, output=0)


def eig(x, /):
    """Eigenvalues and eigenvectors (unit columns) of each general square matrix, always
    complex (the array API's rule; NumPy returns real ones when all are real)."""
    return EigResult(*_results("eig", x))


def eigvals(x, /):
    """The eigenvalues of each general square matrix, complex, in no specified order."""
    return _core("eig", x, output=2)


def _default_rtol(x):
    """``max(M, N) * eps`` of the dtype the factorisation runs in."""
    real = np.finfo(np.result_type(x.dtype, np.float32) if x.dtype.kind in "fc" else np.float64).eps
    return max(x.shape[-2:]) * real


def pinv(x, /, *, rtol=None):
    """The Moore-Penrose pseudo-inverse, from the singular values above ``rtol`` times the
    largest (default ``max(M, N) * eps``); ``rtol`` may be an array broadcast over the stack."""
    x = asarray(x)
    if rtol is None or np.ndim(rtol) == 0 and not isinstance(rtol, Array):
        return _core("pinv", x, rtol=None if rtol is None else float(rtol))
    u, s, vh = svd(x, full_matrices=False)
    cutoff = asarray(rtol)[..., None] * s.max(axis=-1, keepdims=True)
    inverse = where(s > cutoff, 1 / where(s > cutoff, s, 1), 0).astype(s.dtype)
    return (_adjoint(vh) * inverse[..., None, :]) @ _adjoint(u)


def matrix_rank(x, /, *, rtol=None):
    """How many singular values of each matrix exceed ``rtol`` times the largest (default
    ``max(M, N) * eps``)."""
    x = asarray(x)
    s = svdvals(x)
    rtol = _default_rtol(x) if rtol is None else rtol
    tol = asarray(rtol)[..., None] * s.max(axis=-1, keepdims=True) if s.shape[-1] else 0
    return (s > tol).sum(axis=-1, dtype="int64")


def _adjoint(x):
    return x.conj().mT


def _square(x):
    if x.ndim < 2:
        raise LinAlgError(f"{x.ndim}-dimensional array given. Array must be at least two-dimensional")
    if x.shape[-1] != x.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")


def matrix_power(x, n, /):
    """``x`` multiplied by itself ``n`` times (by repeated squaring); ``n == 0`` gives identities
    and a negative ``n`` powers of the inverse."""
    x = asarray(x)
    n = operator.index(n)
    _square(x)
    if n == 0:
        return broadcast_to(eye(x.shape[-1], dtype=x.dtype), x.shape)
    if n < 0:
        x, n = inv(x), -n
    result = None
    while n:
        if n & 1:
            result = x if result is None else result @ x
        n >>= 1
        if n:
            x = x @ x
    return result


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-element vectors along ``axis`` (other axes broadcast)."""
    x1, x2 = asarray(x1), asarray(x2)
    axis = operator.index(axis)
    if not -min(x1.ndim, x2.ndim) <= axis < 0:
        raise np.exceptions.AxisError(axis, min(x1.ndim, x2.ndim))
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError("cross takes vectors of 3 elements along axis "
                         f"{axis} (got {x1.shape[axis]} and {x2.shape[axis]})")
    rest = (slice(None),) * (-axis - 1)
    a, b = ([x[(..., i) + rest] for i in range(3)] for x in (x1, x2))
    parts = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    return stack(parts, axis=axis)


def diagonal(x, /, *, offset=0):
    """The ``offset``-th diagonal of each matrix: every ``N + 1``-th element of the matrix's
    row-major elements (a reshape and a strided slice, so values are copied exactly)."""
    x = asarray(x)
    if x.ndim < 2:
        raise ValueError("diagonal needs an array of at least two dimensions")
    offset = operator.index(offset)
    m, n = x.shape[-2:]
    k = max(0, min(m, n - offset) - max(0, -offset))
    start = offset if offset >= 0 else -offset * n
    flat = reshape(x, x.shape[:-2] + (m * n,))
    return flat[..., start:start + k * (n + 1):n + 1] if k else flat[..., :0]


def trace(x, /, *, offset=0, dtype=None):
    """The sum of the ``offset``-th diagonal of each matrix (``sum``'s dtype rules)."""
    return diagonal(x, offset=offset).sum(axis=-1, dtype=dtype)


def _real_float(x):
    """``|x|`` in the real floating dtype a norm returns (float64 for integers and bools)."""
    x = asarray(x)
    if x.dtype.kind not in "fc":
        x = x.astype("float64")
    return abs(x)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The ``ord``-norm of the vectors along ``axis`` (an int, a tuple, or every axis)."""
    a = _real_float(x)
    axes = tuple(range(a.ndim)) if axis is None else axis
    if ord == np.inf:
        return a.max(axis=axes, keepdims=keepdims)
    if ord == -np.inf:
        return a.min(axis=axes, keepdims=keepdims)
    if ord == 0:
        return (a != 0).sum(axis=axes, keepdims=keepdims, dtype=a.dtype)
    if ord == 1:
        return a.sum(axis=axes, keepdims=keepdims)
    if ord == 2:
        return UFUNCS["sqrt"]((a * a).sum(axis=axes, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order {ord!r} for vectors")
    p = float(ord)
    return ((a ** p).sum(axis=axes, keepdims=keepdims)) ** (1 / p)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The ``ord``-norm of each matrix: ``'fro'``, ``'nuc'``, 1/-1 (column sums), 2/-2 (singular
    values), inf/-inf (row sums)."""
    x = asarray(x)
    if x.ndim < 2:
        raise ValueError("matrix_norm needs an array of at least two dimensions")
    if ord in ("fro", "nuc", 2, -2):
        if ord == "fro":
            a = _real_float(x)
            out = UFUNCS["sqrt"]((a * a).sum(axis=(-2, -1)))
        else:
            s = svdvals(x)
            out = s.sum(axis=-1) if ord == "nuc" else s.max(axis=-1) if ord == 2 else s.min(axis=-1)
        return out[..., None, None] if keepdims else out
    if ord in (1, -1, np.inf, -np.inf):
        sums = _real_float(x).sum(axis=-2 if ord in (1, -1) else -1, keepdims=True)
        axis = -1 if ord in (1, -1) else -2
        out = sums.max(axis=axis, keepdims=True) if ord > 0 else sums.min(axis=axis, keepdims=True)
        return out if keepdims else out[..., 0, 0]
    raise ValueError(f"Invalid norm order {ord!r} for matrices")


# --- NumPy's extras ----------------------------------------------------------------------------

def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's ``linalg.norm``: a vector norm along one axis, a matrix norm over two, and with
    neither ``ord`` nor ``axis`` the 2-norm of all elements."""
    x = asarray(x)
    if axis is None:
        if ord is None:
            out = vector_norm(x, axis=None, keepdims=keepdims)
            return out
        if x.ndim not in (1, 2):
            raise ValueError("Improper number of dimensions to norm.")
        axis = tuple(range(x.ndim))
    axes = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    axes = tuple(operator.index(a) % x.ndim if -x.ndim <= operator.index(a) < x.ndim
                 else _axis_error(a, x.ndim) for a in axes)
    if len(axes) == 1:
        if isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        return vector_norm(x, axis=axes, keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    if axes[0] == axes[1]:
        raise ValueError("Duplicate axes given.")
    rest = [a for a in range(x.ndim) if a not in axes]
    out = matrix_norm(x.transpose(rest + list(axes)), ord="fro" if ord is None else ord)
    if keepdims:
        out = reshape(out, tuple(1 if a in axes else n for a, n in enumerate(x.shape)))
    return out


def _axis_error(axis, ndim):
    raise np.exceptions.AxisError(axis, ndim)


def lstsq(a, b, rcond=None):
    """NumPy's ``linalg.lstsq``: ``(x, residuals, rank, s)`` with ``x`` minimising
    ``|b - a x|`` (the minimum-norm one when ``a`` is rank deficient), from the singular values
    above ``rcond`` times the largest (default ``max(M, N) * eps``). ``rank`` is computed now
    (the residuals' shape depends on it): squared residuals per column when the rank is ``N``
    and ``M > N``, else empty."""
    a, b = asarray(a), asarray(b)
    if a.ndim != 2:
        raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if b.ndim not in (1, 2):
        raise LinAlgError(f"{b.ndim}-dimensional array given. Array must be one or two-dimensional")
    m, n = a.shape
    if b.shape[0] != m:
        raise LinAlgError("Incompatible dimensions")
    rtol = _default_rtol(a) if rcond is None else float(rcond)
    x = matmul(pinv(a, rtol=rtol), b)
    s = svdvals(a)
    rank = int(matrix_rank(a, rtol=rtol).compute())
    if rank == n and m > n:
        residual = b - matmul(a, x)
        squares = UFUNCS["abs"](residual) ** 2 if residual.dtype.kind == "c" else residual * residual
        residuals = squares.sum(axis=0)
        residuals = residuals[None] if b.ndim == 1 else residuals
    else:
        residuals = asarray(np.empty((0,), dtype=np.result_type(s.dtype)))
    return x, residuals, rank, s


def multi_dot(arrays, *, out=None):
    """NumPy's ``linalg.multi_dot``: the product of two or more matrices (the first may be a
    row vector, the last a column vector), multiplied in the order that needs the fewest
    scalar multiplications, as NumPy chooses it."""
    refuse_out(out)
    arrays = [asarray(a) for a in arrays]
    if len(arrays) < 2:
        raise ValueError("Expecting at least two arrays.")
    if len(arrays) == 2:
        return dot(arrays[0], arrays[1])
    first, last = arrays[0].ndim, arrays[-1].ndim
    if first == 1:
        arrays[0] = reshape(arrays[0], (1, -1))
    if last == 1:
        arrays[-1] = reshape(arrays[-1], (-1, 1))
    for a in arrays:
        if a.ndim != 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    result = _chain(arrays, _chain_order([a.shape for a in arrays]), 0, len(arrays) - 1)
    if first == 1 and last == 1:
        return result[0, 0]
    return reshape(result, (-1,)) if first == 1 or last == 1 else result


def _chain_order(shapes):
    """The matrix-chain dynamic programme (NumPy's ``_multi_dot_matrix_chain_order``): for
    each run ``i..j`` of matrices, the split ``k`` after which the product is cheapest."""
    dims = [shapes[0][0]] + [s[1] for s in shapes]
    n = len(shapes)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain(arrays, split, i, j):
    if i == j:
        return arrays[i]
    k = split[i][j]
    return matmul(_chain(arrays, split, i, k), _chain(arrays, split, k + 1, j))


def cond(x, p=None):
    """NumPy's ``linalg.cond``: the condition number of each matrix in the ``p``-norm, from
    the singular values for ``p`` of None, 2 or -2 (any shape), else the norms of the matrix
    and its inverse (square matrices); ``inf`` where NumPy's is (a NaN from a matrix without
    NaN, an exactly singular matrix: its determinant is 0, and the identity is inverted in its
    place so that the inverse does not fail)."""
    x = asarray(x)
    if x.ndim < 2:
        raise LinAlgError(f"{x.ndim}-dimensional array given. Array must be at least two-dimensional")
    if x.size == 0:
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or p == 2 or p == -2:
        s = svdvals(x)
        r = s[..., -1] / s[..., 0] if p == -2 else s[..., 0] / s[..., -1]
    else:
        _square(x)
        singular = (det(x) == 0)[..., None, None]
        invertible = where(singular, eye(x.shape[-1], dtype=x.dtype), x)
        r = norm(x, p, axis=(-2, -1)) * norm(inv(invertible), p, axis=(-2, -1))
        r = where(singular[..., 0, 0], np.inf, r)
        r = r.astype(_real_float(x[..., :0, :0]).dtype)  # NumPy's: the matrix's real float type
    isnan = UFUNCS["isnan"]
    return where(isnan(r) & ~isnan(x).any(axis=(-2, -1)), np.inf, r)
