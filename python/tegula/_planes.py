"""NumPy's ``diagonal`` and ``trace`` of the plane of two axes (``axis1``, ``axis2``): the axes
are moved last and the array API's matrix forms in ``linalg`` do the work."""

from . import linalg
from ._manipulation import moveaxis


def _planes(a, axis1, axis2):
    return moveaxis(a, (axis1, axis2), (-2, -1))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The ``offset``-th diagonal of the plane of ``axis1`` and ``axis2``, as a last axis."""
    return linalg.diagonal(_planes(a, axis1, axis2), offset=offset)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum along the ``offset``-th diagonal of the plane of ``axis1`` and ``axis2``."""
    return linalg.trace(_planes(a, axis1, axis2), offset=offset, dtype=dtype)
