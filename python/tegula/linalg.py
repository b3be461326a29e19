"""The array API's ``linalg`` extension (2025.12). Factorisations and solves run in the Rust
core, one task per block of the stack axes, each matrix whole in its block; the choice of
algorithm by size and chunking (TSQR, tiled QR) and the functions composed of others are the
Rust crate's ``tegula::linalg::Linalg``, called once per function. Singular and
non-positive-definite matrices are found when the result is computed and raise
``numpy.linalg.LinAlgError`` (a ``ValueError``), as NumPy's functions do."""

import operator
from typing import NamedTuple

import numpy as np

from . import _tegula, random
from ._array import Array, _axes, refuse_out
from ._creation import asarray
from ._dtypes import dtype_name
from ._functions import matmul
from ._manipulation import broadcast_shapes, broadcast_to
from ._matrices import matrix_transpose, outer, tensordot, vecdot

__all__ = ["cho_solve", "cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "lstsq", "multi_dot", "norm", "eigvalsh", "inv", "matmul", "matrix_norm",
           "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve",
           "solve_triangular", "svd", "svd_compressed", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
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
    only the lower triangle is read), or ``U = L^H`` when ``upper``. A matrix bigger than
    ``_WHOLE_MATRIX_BYTES`` in several blocks is factorised by panels of columns as wide as its
    smaller first block length (at least ``_MIN_TILE``): each panel's rows from the diagonal down
    factorised in one task, each column block right of it less the panel's product in one; a
    smaller one, or a stack, one whole matrix per task. (The Rust crate's ``Linalg::cholesky``.)"""
    return Array(_tegula.cholesky(asarray(x)._h, bool(upper), _limits()))


def cho_solve(c_and_lower, b, /):
    """The solution ``x`` of ``a @ x == b`` given ``(c, lower)``, the Cholesky factor ``c`` of
    the Hermitian positive-definite ``a`` and whether it is the lower one (``a = c c^H``) or
    the upper one (``a = c^H c``), as SciPy's ``cho_solve`` takes them (``cholesky``'s factor
    with ``upper=not lower``): two triangular solves (``solve_triangular``), by tiles where ``c``
    is big and in several blocks. ``b`` is a vector when it is 1-d, else a stack of matrices;
    the stack axes broadcast. (The Rust crate's ``Linalg::cho_solve``.)"""
    if not isinstance(c_and_lower, (tuple, list)) or len(c_and_lower) != 2:
        raise ValueError("cho_solve takes (c, lower): the Cholesky factor and whether it is the lower one")
    c, lower = c_and_lower
    c, b, vector = _system(c, b)
    out = Array(_tegula.cho_solve(c._h, bool(lower), b._h, _limits()))
    return out[..., 0] if vector else out


def inv(x, /):
    """The inverse of each square matrix; a singular one raises ``LinAlgError`` when computed.
    A matrix bigger than ``_WHOLE_MATRIX_BYTES`` in several blocks is inverted by tiles, as
    ``solve`` solves, with the identity as the right-hand sides. (The Rust crate's
    ``Linalg::inv``.)"""
    return Array(_tegula.inv(asarray(x)._h, _limits()))


def _system(a, b):
    """``a`` (at least 2-d, else ``LinAlgError``) and ``b`` with their stack axes broadcast,
    ``b`` a stack of matrices (a vector as one column), and whether ``b`` was a vector."""
    a, b = asarray(a), asarray(b)
    if a.ndim < 2:
        raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")
    vector = b.ndim == 1
    if vector:
        b = b[:, None]
    stack_shape = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return broadcast_to(a, stack_shape + a.shape[-2:]), broadcast_to(b, stack_shape + b.shape[-2:]), vector


def solve(x1, x2, /):
    """The solution ``X`` of ``x1 @ X == x2``. ``x2`` is a vector when it is 1-d, else a stack
    of matrices; the stack axes broadcast. A singular ``x1`` raises ``LinAlgError`` when
    computed. A matrix bigger than ``_WHOLE_MATRIX_BYTES`` in several blocks is solved by an
    LU factorisation with partial pivoting by tiles of its smaller first block length (at least
    ``_MIN_TILE``): each column of tiles factorised from the diagonal down as one panel, so
    every pivot is chosen down the whole column as LAPACK chooses it, the blocks right of it and
    of ``x2`` updated by it; then ``U``'s tiles substituted backwards. (The Rust crate's
    ``Linalg::solve``.)"""
    x1, x2, vector = _system(x1, x2)
    out = Array(_tegula.solve(x1._h, x2._h, _limits()))
    return out[..., 0] if vector else out


def solve_triangular(a, b, /, trans=0, lower=False, unit_diagonal=False):
    """The solution ``x`` of ``a @ x == b`` for a triangular ``a`` (SciPy's and Dask's
    ``solve_triangular``): only the lower triangle of ``a`` is read when ``lower``, else the
    upper one, and its diagonal is taken as ones when ``unit_diagonal``. ``trans`` solves
    ``a.T @ x == b`` (1 or ``"T"``) or ``a.conj().T @ x == b`` (2 or ``"C"``) instead. ``b``
    is a vector when it is 1-d, else a stack of matrices; the stack axes broadcast. A zero on
    the diagonal raises ``LinAlgError`` when computed; NaNs and infinities are not checked
    for (SciPy's ``check_finite``). A matrix bigger than ``_WHOLE_MATRIX_BYTES`` in several
    blocks is solved by tiles (blocked substitution) of its smaller first block length, at
    least ``_MIN_TILE``; else one whole matrix per task. (The Rust crate's
    ``Linalg::solve_triangular``.)"""
    transposes = {0: 0, "N": 0, 1: 1, "T": 1, 2: 2, "C": 2}
    if isinstance(trans, bool) or trans not in transposes:
        raise ValueError(f"Incorrect value for trans: {trans!r}; expected one of 0, 1, 2, 'N', 'T', 'C'")
    a, b, vector = _system(a, b)
    if transposes[trans]:
        a = matrix_transpose(a.conj() if transposes[trans] == 2 else a)
        lower = not lower
    out = Array(_tegula.solve_triangular(a._h, b._h, bool(lower), bool(unit_diagonal), _limits()))
    return out[..., 0] if vector else out


def det(x, /):
    """The determinant of each matrix (one task per block of the stack axes); a matrix bigger
    than ``_WHOLE_MATRIX_BYTES`` in several blocks through ``solve``'s LU by tiles. (The Rust
    crate's ``Linalg::det``.)"""
    return Array(_tegula.det(asarray(x)._h, _limits()))


def slogdet(x, /):
    """The sign (a unit complex number for complex input; 0 for a singular matrix) and the
    natural log of the absolute value of each determinant, by tiles as ``det``. (The Rust
    crate's ``Linalg::slogdet``.)"""
    return SlogdetResult(*(Array(h) for h in _tegula.slogdet(asarray(x)._h, _limits())))


def _limits():
    """The size limits at which ``qr``, ``svd``, ``cholesky`` and the LU change algorithm (module
    attributes, so a test can lower them)."""
    return (_TSQR_BLOCK_BYTES, _WHOLE_MATRIX_BYTES, _MIN_TILE)


def qr(x, /, *, mode="reduced"):
    """``Q`` and ``R`` of each matrix. A tall matrix in several row blocks is factorised by
    TSQR (reduced mode): each row block's ``R``, stacked, is factorised again, and each block
    of ``Q`` is that block's own ``Q`` (recomputed) times its rows of the second ``Q``, so no
    task holds more than a row block. A matrix bigger than ``_WHOLE_MATRIX_BYTES`` in several
    column blocks (or, for the complete ``Q``, in several blocks) is factorised in square
    tiles of its smaller first block length; a smaller one, or a stack, one whole matrix per
    task. (The Rust crate's ``Linalg::qr``.)"""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr mode must be 'reduced' or 'complete', not {mode!r}")
    return QRResult(*(Array(h) for h in _tegula.qr(asarray(x)._h, mode == "complete", _limits())))


def svd(x, /, *, full_matrices=True):
    """``U``, the singular values (descending) and ``Vh`` of each matrix. Without
    ``full_matrices``, a tall matrix in several row blocks goes through TSQR: the SVD of its
    small ``R`` gives ``S`` and ``Vh``, and ``U`` is ``Q`` times ``R``'s left vectors."""
    return SVDResult(*(Array(h) for h in _tegula.svd(asarray(x)._h, bool(full_matrices), _limits())))


def svdvals(x, /):
    """The singular values of each matrix, in descending order (a tall matrix in several row
    blocks: those of its TSQR ``R``)."""
    return Array(_tegula.svdvals(asarray(x)._h, _limits()))


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
    k, n_power_iter, n_oversamples = (operator.index(v) for v in (k, n_power_iter, n_oversamples))
    if n_power_iter < 0 or n_oversamples < 0:
        raise ValueError("n_power_iter and n_oversamples must be non-negative")
    if a.ndim == 2 and not 1 <= k <= min(a.shape):
        raise ValueError(f"k must be between 1 and min(a.shape) = {min(a.shape)}, got {k}")
    if iterator not in ("power", "QR"):
        raise ValueError(f"iterator must be 'power' or 'QR', not {iterator!r}")
    seed = random.Generator(seed)._seed
    found = _tegula.svd_compressed(a._h, max(k, 0), n_power_iter, n_oversamples, iterator == "QR", seed,
                                   bool(coerce_signs), _limits())
    return SVDResult(*(Array(h) for h in found))


# The largest stack of row-block ``R``s factorised as one matrix; a taller one is cut into
# row blocks of about this size and factorised by TSQR again (the ``chunks="auto"`` target).
_TSQR_BLOCK_BYTES = 128 * 2**20


# The biggest matrix factorised whole in one task when it is in several blocks; a bigger one
# is factorised in tiles.
_WHOLE_MATRIX_BYTES = 256 * 2**20

# The smallest tile of a Cholesky by tiles, whatever the blocks.
_MIN_TILE = 512


def eigh(x, /):
    """Eigenvalues (ascending) and eigenvectors (columns) of each Hermitian matrix; only the
    lower triangle is read."""
    return EighResult(*_results("eigh", x))


def eigvalsh(x, /):
    """The eigenvalues (ascending) of each Hermitian matrix, without eigenvectors; only the lower
    triangle is read."""
    return _core("eigh", x, output=0)


def eig(x, /):
    """Eigenvalues and eigenvectors (unit columns) of each general square matrix, always
    complex (the array API's rule; NumPy returns real ones when all are real)."""
    return EigResult(*_results("eig", x))


def eigvals(x, /):
    """The eigenvalues of each general square matrix, complex, in no specified order."""
    return _core("eig", x, output=2)


def pinv(x, /, *, rtol=None):
    """The Moore-Penrose pseudo-inverse, from the singular values above ``rtol`` times the
    largest (default ``max(M, N) * eps``); ``rtol`` may be an array broadcast over the stack."""
    x = asarray(x)
    if rtol is None or np.ndim(rtol) == 0 and not isinstance(rtol, Array):
        return Array(_tegula.pinv(x._h, None if rtol is None else float(rtol), None, _limits()))
    return Array(_tegula.pinv(x._h, None, asarray(rtol)._h, _limits()))


def matrix_rank(x, /, *, rtol=None):
    """How many singular values of each matrix exceed ``rtol`` times the largest (default
    ``max(M, N) * eps``)."""
    return Array(_tegula.matrix_rank(asarray(x)._h, None if rtol is None else asarray(rtol)._h, _limits()))


def matrix_power(x, n, /):
    """``x`` multiplied by itself ``n`` times (by repeated squaring); ``n == 0`` gives identities
    and a negative ``n`` powers of the inverse."""
    return Array(_tegula.matrix_power(asarray(x)._h, operator.index(n)))


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-element vectors along ``axis`` (other axes broadcast)."""
    return Array(_tegula.cross(asarray(x1)._h, asarray(x2)._h, operator.index(axis)))


def diagonal(x, /, *, offset=0):
    """The ``offset``-th diagonal of each matrix: every ``N + 1``-th element of the matrix's
    row-major elements (a reshape and a strided slice, so values are copied exactly)."""
    return Array(_tegula.diagonal(asarray(x)._h, operator.index(offset)))


def trace(x, /, *, offset=0, dtype=None):
    """The sum of the ``offset``-th diagonal of each matrix (``sum``'s dtype rules)."""
    return Array(_tegula.trace(asarray(x)._h, operator.index(offset), dtype_name(dtype)))


def _order(ord, kind):
    """``ord`` for the Rust norms: a string must be ``'fro'`` or ``'nuc'``."""
    if isinstance(ord, str) and ord not in ("fro", "nuc"):
        raise ValueError(f"Invalid norm order {ord!r} for {kind}")
    return ord


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The ``ord``-norm of the vectors along ``axis`` (an int, a tuple, or every axis)."""
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order {ord!r} for vectors")
    return Array(_tegula.vector_norm(asarray(x)._h, _axes(axis), bool(keepdims), ord))


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The ``ord``-norm of each matrix: ``'fro'``, ``'nuc'``, 1/-1 (column sums), 2/-2 (singular
    values), inf/-inf (row sums)."""
    return Array(_tegula.matrix_norm(asarray(x)._h, bool(keepdims), _order(ord, "matrices"), _limits()))


# --- NumPy's extras ----------------------------------------------------------------------------

def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's ``linalg.norm``: a vector norm along one axis, a matrix norm over two, and with
    neither ``ord`` nor ``axis`` the 2-norm of all elements."""
    axes = _axes(axis)
    kind = "vectors" if axes is not None and len(axes) == 1 else "matrices"
    return Array(_tegula.norm(asarray(x)._h, _order(ord, kind), axes, bool(keepdims), _limits()))


def lstsq(a, b, rcond=None):
    """NumPy's ``linalg.lstsq``: ``(x, residuals, rank, s)`` with ``x`` minimising
    ``|b - a x|`` (the minimum-norm one when ``a`` is rank deficient), from the singular values
    above ``rcond`` times the largest (default ``max(M, N) * eps``). ``rank`` is computed now
    (the residuals' shape depends on it): squared residuals per column when the rank is ``N``
    and ``M > N``, else empty."""
    x, residuals, rank, s = _tegula.lstsq(asarray(a)._h, asarray(b)._h, None if rcond is None else float(rcond),
                                          _limits())
    return Array(x), Array(residuals), rank, Array(s)


def multi_dot(arrays, *, out=None):
    """NumPy's ``linalg.multi_dot``: the product of two or more matrices (the first may be a
    row vector, the last a column vector), multiplied in the order that needs the fewest
    scalar multiplications, as NumPy chooses it."""
    refuse_out(out)
    return Array(_tegula.multi_dot([asarray(a)._h for a in arrays]))


def cond(x, p=None):
    """NumPy's ``linalg.cond``: the condition number of each matrix in the ``p``-norm, from
    the singular values for ``p`` of None, 2 or -2 (any shape), else the norms of the matrix
    and its inverse (square matrices); ``inf`` where NumPy's is (a NaN from a matrix without
    NaN, an exactly singular matrix)."""
    return Array(_tegula.cond(asarray(x)._h, _order(p, "matrices"), _limits()))
