"""Random arrays from a counter-based generator: every value depends only on the seed, the
call, and the element's position — never on the chunking or the number of threads."""

import secrets

from . import _tegula
from ._array import Array
from ._dtypes import dtype_name


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
        self._g = _tegula._Generator(seed)

    def _draw(self, dist, a, b, size, dtype, chunks):
        return Array(self._g.draw(dist, a, b, _shape(size), dtype_name(dtype), chunks))

    def random(self, size=None, dtype="float64", chunks="auto"):
        """Uniform floats in [0, 1)."""
        return self._draw("uniform", 0.0, 1.0, size, dtype, chunks)

    def uniform(self, low=0.0, high=1.0, size=None, chunks="auto"):
        return self._draw("uniform", float(low), float(high), size, "float64", chunks)

    def standard_normal(self, size=None, dtype="float64", chunks="auto"):
        return self._draw("normal", 0.0, 1.0, size, dtype, chunks)

    def normal(self, loc=0.0, scale=1.0, size=None, chunks="auto"):
        return self._draw("normal", float(loc), float(scale), size, "float64", chunks)

    def integers(self, low, high=None, size=None, dtype="int64", endpoint=False, chunks="auto"):
        """Integers uniform in [low, high) (or [low, high] with ``endpoint=True``)."""
        if high is None:
            low, high = 0, low
        low, high = int(low), int(high) + (1 if endpoint else 0)
        return self._draw("integers", low, high, size, dtype, chunks)


def default_rng(seed=None):
    return Generator(seed)
