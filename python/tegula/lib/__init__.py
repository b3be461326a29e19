"""NumPy's ``numpy.lib`` namespace, as far as tegula has it: ``stride_tricks``."""

from . import stride_tricks

__all__ = ["stride_tricks"]
