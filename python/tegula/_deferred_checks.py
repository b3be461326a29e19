"""Errors NumPy raises from the data, kept lazy: ``checked(value, failed, error, message)`` is
``value``, and computing it raises ``error(message)`` where ``failed`` holds (as Dask's
``nanargmax`` raises when computed), since checking when the expression is built would compute
the data. The check is the Rust crate's ``Array::checked``: one task per block of ``value``."""

from . import _tegula
from ._array import Array
from ._creation import asarray


def checked(value, failed, error, message):
    """``value`` (a tegula array), raising ``error(message)`` (``ValueError`` or
    ``ZeroDivisionError``) when computed if any element of ``failed`` (broadcast to it) is
    true."""
    return Array(_tegula.checked(value._h, asarray(failed)._h, error.__name__, message))
