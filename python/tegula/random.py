"""Random arrays from a counter-based generator: every value depends only on the seed, the
call, and the element's position — never on the chunking or the number of threads."""

import secrets
import warnings

import numpy as np

from . import _tegula
from ._array import Array
from ._creation import asarray as _asarray
from ._dtypes import dtype_name
from ._gather import take as _take


def _shape(size):
    if size is None:
        return ()
    return (size,) if isinstance(size, int) else tuple(size)


class Generator:
    """Like ``numpy.random.Generator``; each method call draws a new independent stream."""

    def __init__(self, seed=None):
        if seed is None:
            seed = secrets.randbits(64)
        seed = int(seed)
        if not 0 <= seed < 2**64:
            raise ValueError("seed must be an integer in [0, 2**64)")
        self._seed = seed
        self._g = _tegula._Generator(seed)

    def _draw(self, dist, a, b, size, dtype, chunks):
        return Array(self._g.draw(dist, a, b, _shape(size), dtype_name(dtype), chunks))

    def random(self, size=None, dtype="float64", chunks="auto"):
        """Uniform floats in [0, 1)."""
        return self._draw("uniform", 0.0, 1.0, size, dtype, chunks)

    def _compose(self, name, params, size, chunks, dtype=None):
        """The Rust generator's composed distribution ``name``: parameters as numbers (NumPy's
        Python floats) or arrays (tegula's, or NumPy's as tegula arrays)."""
        params = [p._h if isinstance(p, Array) else p for p in (_param(v) for v in params)]
        shape = None if size is None else list(_shape(size))
        return Array(self._g.compose(name, params, shape, chunks, None if dtype is None else dtype_name(dtype)))

    def uniform(self, low=0.0, high=1.0, size=None, chunks="auto"):
        """Uniform on ``[low, high)``: with array bounds, ``low + (high - low)·u`` (NumPy's)."""
        if _is_array(low) or _is_array(high):
            return self._compose("uniform", (low, high), size, chunks)
        return self._draw("uniform", float(low), float(high), size, "float64", chunks)

    def standard_normal(self, size=None, dtype="float64", chunks="auto"):
        """Standard normal values (mean 0, standard deviation 1) of ``size``, float64 or float32."""
        return self._draw("normal", 0.0, 1.0, size, dtype, chunks)

    def normal(self, loc=0.0, scale=1.0, size=None, chunks="auto"):
        """Normal of mean ``loc`` and standard deviation ``scale``: with array parameters,
        ``loc + scale·z`` of a standard normal ``z``."""
        if _is_array(loc) or _is_array(scale):
            _non_negative(scale=scale)
            return self._compose("normal", (loc, scale), size, chunks)
        return self._draw("normal", float(loc), float(scale), size, "float64", chunks)

    def integers(self, low, high=None, size=None, dtype="int64", endpoint=False, chunks="auto"):
        """Integers uniform in [low, high) (or [low, high] with ``endpoint=True``)."""
        if high is None:
            low, high = 0, low
        low, high = int(low), int(high) + (1 if endpoint else 0)
        return self._draw("integers", low, high, size, dtype, chunks)


    # --- distributions composed from uniform and normal draws (NumPy's transformations) -----

    def standard_exponential(self, size=None, dtype="float64", chunks="auto"):
        """Exponential with scale 1: ``-log1p(-u)`` of a uniform ``u`` (NumPy's inversion)."""
        return self._compose("standard_exponential", (), _shape(size), chunks, dtype)

    def exponential(self, scale=1.0, size=None, chunks="auto"):
        """Exponential values of mean ``scale`` (broadcast to ``size``)."""
        _non_negative(scale=scale)
        return self._compose("exponential", (scale,), size, chunks)

    def lognormal(self, mean=0.0, sigma=1.0, size=None, chunks="auto"):
        """``exp`` of a normal draw of ``mean`` and ``sigma``."""
        _non_negative(sigma=sigma)
        return self._compose("lognormal", (mean, sigma), size, chunks)

    def laplace(self, loc=0.0, scale=1.0, size=None, chunks="auto"):
        """NumPy's inversion: ``loc + scale*log(2u)`` below one half, ``loc - scale*log(2 - 2u)`` above."""
        _non_negative(scale=scale)
        return self._compose("laplace", (loc, scale), size, chunks)

    def logistic(self, loc=0.0, scale=1.0, size=None, chunks="auto"):
        """``loc + scale*log(u / (1 - u))``."""
        _non_negative(scale=scale)
        return self._compose("logistic", (loc, scale), size, chunks)

    def gumbel(self, loc=0.0, scale=1.0, size=None, chunks="auto"):
        """``loc - scale*log(-log1p(-u))``."""
        _non_negative(scale=scale)
        return self._compose("gumbel", (loc, scale), size, chunks)

    def weibull(self, a, size=None, chunks="auto"):
        """A standard exponential to the power ``1/a`` (0 where ``a`` is 0)."""
        _non_negative(a=a)
        return self._compose("weibull", (a,), size, chunks)

    def pareto(self, a, size=None, chunks="auto"):
        """``expm1`` of a standard exponential over ``a`` (Pareto II, NumPy's)."""
        _positive(a=a)
        return self._compose("pareto", (a,), size, chunks)

    def rayleigh(self, scale=1.0, size=None, chunks="auto"):
        """``scale * sqrt(2 * standard_exponential)``."""
        _non_negative(scale=scale)
        return self._compose("rayleigh", (scale,), size, chunks)

    def power(self, a, size=None, chunks="auto"):
        """``(-expm1(-standard_exponential)) ** (1/a)``."""
        _positive(a=a)
        return self._compose("power", (a,), size, chunks)

    def standard_cauchy(self, size=None, chunks="auto"):
        """The ratio of two standard normal draws of independent streams."""
        return self._compose("standard_cauchy", (), _shape(size), chunks)

    def triangular(self, left, mode, right, size=None, chunks="auto"):
        """NumPy's inversion of the triangular distribution's cdf (parameters known now:
        numbers or NumPy arrays)."""
        lo, md, hi = (np.asarray(v, dtype=np.float64) for v in (left, mode, right))
        shape = None if size is None else list(_shape(size))
        return Array(self._g.triangular(lo, md, hi, shape, chunks))

    # --- distributions drawn by rejection, in Rust (one stream per element) -----------------

    def _per_element(self, dist, a, b, size, chunks):
        """``dist`` with parameters ``a`` and ``b`` (arrays or numbers) broadcast to ``size``
        (their broadcast shape when None): each element drawn from its own stream with its own
        parameters, in Rust. NumPy's errors for parameters out of the domain come now for
        NumPy values, as each block is drawn for tegula arrays."""
        a, b = (_asarray(v if isinstance(v, Array) else np.asarray(v, dtype=np.float64)) for v in (a, b))
        shape = _shape(size) if size is not None else np.broadcast_shapes(a.shape, b.shape)
        return Array(self._g.draw_with(dist, a._h, b._h, shape, chunks))

    def standard_gamma(self, shape, size=None, dtype="float64", chunks="auto"):
        """Gamma of scale 1 (Marsaglia and Tsang's method; 0 where ``shape`` is 0)."""
        if _is_array(shape):
            if np.dtype(dtype) not in (np.float32, np.float64):
                raise TypeError(f"Unsupported dtype {np.dtype(dtype)} for standard_gamma")
            _non_negative(shape=shape)
            return self._per_element("gamma", shape, 1.0, size, chunks).astype(dtype)
        shape = float(shape)
        if shape < 0:
            raise ValueError("shape < 0")  # a NaN shape draws NaNs, as in NumPy
        return self._draw("gamma", shape, 1.0, size, dtype, chunks)

    def gamma(self, shape, scale=1.0, size=None, chunks="auto"):
        """Gamma values of ``shape`` and ``scale`` (broadcast to ``size``)."""
        _non_negative(scale=scale)
        draws = self.standard_gamma(shape, _size(size, shape, scale), chunks=chunks)
        return draws * _param(scale) if isinstance(scale, Array) or np.ndim(scale) else draws * float(scale)

    def beta(self, a, b, size=None, chunks="auto"):
        """``X / (X + Y)`` of gamma draws of shapes ``a`` and ``b`` (both > 0)."""
        if _is_array(a) or _is_array(b):
            _positive(a=a, b=b)
            return self._per_element("beta", a, b, size, chunks)
        a, b = float(a), float(b)
        if a <= 0:
            raise ValueError("a <= 0")
        if b <= 0:
            raise ValueError("b <= 0")
        return self._draw("beta", a, b, size, "float64", chunks)

    def chisquare(self, df, size=None, chunks="auto"):
        """Chi-square values of ``df`` degrees of freedom (broadcast to ``size``)."""
        if _is_array(df):
            _positive(df=df)
            return self._per_element("chisquare", df, 0.0, size, chunks)
        return self._draw("chisquare", _degrees(df), 0.0, size, "float64", chunks)

    def standard_t(self, df, size=None, chunks="auto"):
        """Student's t values of ``df`` degrees of freedom (broadcast to ``size``)."""
        if _is_array(df):
            _positive(df=df)
            return self._per_element("standard_t", df, 0.0, size, chunks)
        return self._draw("standard_t", _degrees(df), 0.0, size, "float64", chunks)

    def poisson(self, lam=1.0, size=None, chunks="auto"):
        """Counts of mean ``lam`` (int64): multiplication of uniforms below 10, Hörmann's
        transformed rejection (PTRS) above, as NumPy."""
        if _is_array(lam):
            if not isinstance(lam, Array):
                values = np.asarray(lam, dtype=np.float64)
                if (values < 0).any():
                    raise ValueError("lam < 0 or lam contains NaNs")
                if not (values <= _LAM_MAX).all():
                    raise ValueError("lam value too large")
            return self._per_element("poisson", lam, 0.0, size, chunks)
        lam = float(lam)
        if not lam >= 0:
            raise ValueError("lam < 0 or lam is NaN")
        if lam > _LAM_MAX:
            raise ValueError("lam value too large")
        return self._draw("poisson", lam, 0.0, size, "int64", chunks)

    def binomial(self, n, p, size=None, chunks="auto"):
        """Successes in ``n`` trials of probability ``p`` (int64): waiting times below
        ``n·min(p, 1-p)`` of 10, Hörmann's BTRS above."""
        if _is_array(n) or _is_array(p):
            return self._binomial_per_element(n, p, size, chunks)
        n, p = float(n), float(p)
        if n != int(n):
            raise TypeError(f"n must be an integer, got {n}")
        if n < 0:
            raise ValueError("n < 0")
        if not 0 <= p <= 1:
            raise ValueError("p < 0, p > 1 or p is NaN")
        return self._draw("binomial", int(n), p, size, "int64", chunks)

    def _binomial_per_element(self, n, p, size, chunks):
        """``binomial`` with ``n`` or ``p`` an array: ``n`` of a dtype NumPy casts safely to
        int64, as NumPy requires."""
        dtype = n.dtype if isinstance(n, Array) else np.asarray(n).dtype
        if not np.can_cast(dtype, np.int64):
            raise TypeError(f"Cannot cast array data from {np.dtype(dtype)!r} to dtype('int64') according to the rule 'safe'")
        if not isinstance(n, Array) and (np.asarray(n) < 0).any():
            raise ValueError("n < 0")
        if not isinstance(p, Array) and not ((np.asarray(p) >= 0) & (np.asarray(p) <= 1)).all():
            raise ValueError("p < 0, p > 1 or p contains NaNs")
        return self._per_element("binomial", n, p, size, chunks)

    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8, method="svd",
                            chunks="auto"):
        """``mean + z @ A.T`` of standard normal ``z``, ``A A.T = cov`` by NumPy's factorisation
        of ``cov`` (``method`` "svd", "eigh" or "cholesky"; the Rust crate's
        ``Generator::multivariate_normal``). A covariance that is not symmetric
        positive-semidefinite warns (``check_valid="warn"``) or raises (``"raise"``)."""
        if check_valid not in ("warn", "raise", "ignore"):
            raise ValueError("check_valid must equal 'warn', 'raise', or 'ignore'")
        mean, cov = (_asarray(np.asarray(v, dtype=np.float64)) for v in (mean, cov))
        samples, valid = self._g.multivariate_normal(mean._h, cov._h, list(_shape(size)), method, float(tol),
                                                     chunks)
        if not valid and check_valid == "raise":
            raise ValueError("covariance is not symmetric positive-semidefinite.")
        if not valid and check_valid == "warn":
            warnings.warn("covariance is not symmetric positive-semidefinite.", RuntimeWarning, stacklevel=2)
        return Array(samples)

    def shuffle(self, x, axis=0):
        """Shuffles tegula array ``x`` along ``axis`` in place (``x`` is rebound to a lazy
        permutation of itself, as in-place methods of tegula arrays are)."""
        if not isinstance(x, Array):
            raise TypeError("shuffle takes a tegula array; use numpy's for NumPy arrays")
        shuffled = self.permutation(x, axis=axis)
        x._h = shuffled._h

    # --- orderings and samples ------------------------------------------------------------

    def permutation(self, x, axis=0, chunks="auto"):
        """A random order of ``range(x)`` (an int) or of ``x``'s elements along ``axis``: the
        argsort of one uniform key per position."""
        if isinstance(x, (int, np.integer)):
            return self._compose("permutation", (), (int(x),), chunks)
        x = _asarray(x)
        if x.ndim == 0:
            raise np.exceptions.AxisError("x must be an integer or at least 1-dimensional")
        return _take(x, self._compose("permutation", (), (x.shape[axis],), chunks), axis=axis)

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True, chunks="auto"):
        """Samples of ``range(a)`` (an int) or of ``a``'s elements along ``axis``: with
        replacement by uniform integers (by ``searchsorted`` into ``p``'s cumulative sums when
        weighted), without by the first entries of a permutation (weighted: Efraimidis and
        Spirakis's largest ``log(u)/p`` keys), so the sample is in random order whatever
        ``shuffle`` says."""
        if not isinstance(a, (int, np.integer)) and np.ndim(a) == 0:
            if np.dtype(a.dtype if hasattr(a, "dtype") else type(a)).kind not in "iu":
                raise ValueError(f"a must be a sequence or an integer, not {type(a)}")
            a = int(a)  # a 0-d integer array counts as its integer, as in NumPy
        population = a if isinstance(a, (int, np.integer)) else None
        n = int(a) if population is not None else _asarray(a).shape[axis]
        shape = _shape(size)
        count = int(np.prod(shape))
        if population is not None and n <= 0 and count:
            raise ValueError("a must be a positive integer unless no samples are taken")
        if population is None and n == 0 and count:
            raise ValueError("a cannot be empty unless no samples are taken")
        weights = _probabilities(p, n)
        if not replace and count > n:
            raise ValueError("Cannot take a larger sample than population when replace is False")
        if not replace and weights is not None and count > np.count_nonzero(weights):
            raise ValueError("Fewer non-zero entries in p than size")
        index = Array(self._g.choice(max(n, 0), list(shape), bool(replace), None if weights is None else weights.tolist(),
                                     chunks))
        return index if population is not None else _take(_asarray(a), index, axis=axis)


# NumPy's largest Poisson mean: beyond it a count does not fit int64 with room for the tail.
_LAM_MAX = np.iinfo(np.int64).max - np.sqrt(np.iinfo(np.int64).max) * 10


def _is_array(value):
    """Whether a distribution's parameter is an array (a 0-d one counts as its number)."""
    return isinstance(value, Array) or np.ndim(value) > 0


def _degrees(df):
    df = float(df)
    if df <= 0:
        raise ValueError("df <= 0")
    return df


def _size(size, *params):
    """The result's shape: ``size``, else the parameters' broadcast shape."""
    return size if size is not None else np.broadcast_shapes(*(np.shape(p) for p in params)) or None


def _param(value):
    """A distribution's parameter: a Python float, or a float64 array (tegula's, or NumPy's
    as a tegula array)."""
    if isinstance(value, Array):
        return value
    value = np.asarray(value, dtype=np.float64)
    return float(value) if value.ndim == 0 else _asarray(value)


def _non_negative(**params):
    for name, value in params.items():
        if not isinstance(value, Array) and (np.asarray(value) < 0).any():
            raise ValueError(f"{name} < 0")


def _positive(**params):
    for name, value in params.items():
        if not isinstance(value, Array) and (np.asarray(value) <= 0).any():
            raise ValueError(f"{name} <= 0")


def _probabilities(p, n):
    """``p`` checked as NumPy checks it (1-D, ``n`` long, non-negative, summing to 1)."""
    if p is None:
        return None
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError("p must be 1-dimensional")
    if p.size != n:
        raise ValueError("a and p must have same size")
    if (p < 0).any() or not np.isfinite(p).all():
        raise ValueError("probabilities are not non-negative")
    if abs(p.sum() - 1.0) > np.sqrt(np.finfo(np.float64).eps):
        raise ValueError("probabilities do not sum to 1")
    return p


def default_rng(seed=None):
    """A new ``Generator`` from ``seed`` (fresh entropy when None), as NumPy's ``default_rng``."""
    return Generator(seed)


# --- NumPy's legacy module-level functions (as Dask's ``da.random.*``), on a default generator ---

_default = Generator()


def seed(seed=None):
    """A new default generator for the module-level functions (from ``seed``, else fresh
    entropy): the same seed gives the same arrays, whatever their chunks."""
    global _default
    _default = Generator(seed)


def random(size=None, chunks="auto"):
    """Uniform floats in [0, 1) from the default generator (NumPy's ``random.random``)."""
    return _default.random(size, chunks=chunks)


random_sample = random


def rand(*shape, chunks="auto"):
    """Uniform floats in [0, 1) of shape ``shape`` from the default generator (NumPy's
    ``random.rand``)."""
    return _default.random(shape, chunks=chunks)


def randn(*shape, chunks="auto"):
    """Standard normal floats of shape ``shape`` from the default generator (NumPy's
    ``random.randn``)."""
    return _default.standard_normal(shape, chunks=chunks)


def randint(low, high=None, size=None, dtype="int64", chunks="auto"):
    """Integers in [low, high) (or [0, low) with one bound), NumPy's ``random.randint``."""
    if high is None:
        low, high = 0, low
    if int(high) <= int(low):
        raise ValueError("low >= high")
    return _default.integers(low, high, size, dtype=dtype, chunks=chunks)


def _forwarded(name):
    def function(*args, **kwargs):
        return getattr(_default, name)(*args, **kwargs)

    function.__name__ = name
    function.__doc__ = f"``Generator.{name}`` of the module's default generator (NumPy's ``random.{name}``)."
    return function


_FORWARDED = ["uniform", "normal", "standard_normal", "standard_exponential", "exponential", "lognormal",
              "laplace", "logistic", "gumbel", "weibull", "pareto", "rayleigh", "power", "standard_cauchy",
              "triangular", "permutation", "choice", "standard_gamma", "gamma", "beta", "chisquare",
              "standard_t", "poisson", "binomial", "multivariate_normal", "shuffle"]
globals().update({name: _forwarded(name) for name in _FORWARDED})
