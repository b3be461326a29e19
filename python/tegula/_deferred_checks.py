"""Errors NumPy raises from the data, kept lazy: ``checked(value, failed, error, message)`` is
``value``, and computing it raises ``error(message)`` where ``failed`` holds (as Dask's
``nanargmax`` raises when computed), since checking when the expression is built would compute
the data. Each block of ``value`` is checked by one Python call (``map_blocks``, which also
keeps the exception's type): a vectorised test of the block, one call per task, never one per
element."""

import functools


def _raise_if(error, message, value, failed):
    if failed.any():
        raise error(message)
    return value


def checked(value, failed, error, message):
    """``value`` (a tegula array), raising ``error(message)`` when computed if any element of
    ``failed`` (broadcast to it) is true."""
    from ._creation import asarray
    from ._manipulation import broadcast_to
    from ._map_blocks import map_blocks

    # On value's own blocks: map_blocks needs one block grid, and two chunkings of the same
    # length can differ (even an empty axis can be cut into several empty blocks).
    failed = broadcast_to(asarray(failed), value.shape).rechunk(value.chunks)
    return map_blocks(functools.partial(_raise_if, error, message), value, failed, dtype=value.dtype,
                      name=f"check-{error.__name__}")
