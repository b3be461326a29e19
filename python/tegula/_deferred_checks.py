"""Errors NumPy raises from the data, kept lazy: ``checked(value, failed, error, message)`` is
``value``, and computing it raises ``error(message)`` where ``failed`` holds (as Dask's
``nanargmax`` raises when computed). Each block of ``value`` is checked by one Python call,
so ``value`` should be small (a reduction's result), never the data itself."""

import functools


def _raise_if(error, message, value, failed):
    if failed.any():
        raise error(message)
    return value


def checked(value, failed, error, message):
    """``value`` (a tegula array), raising ``error(message)`` when computed if any element of
    ``failed`` (broadcast to it) is true."""
    from ._map_blocks import map_blocks

    return map_blocks(functools.partial(_raise_if, error, message), value, failed, dtype=value.dtype,
                      name=f"check-{error.__name__}")
