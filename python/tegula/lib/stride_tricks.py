"""NumPy's ``numpy.lib.stride_tricks``: ``sliding_window_view`` (lazy windows, no strides)."""

from .._sliding_window import sliding_window_view

__all__ = ["sliding_window_view"]
