"""NumPy's ``einsum`` (the Rust crate's ``Array::einsum``: repeated labels become diagonals,
private labels sums, and operands are contracted two at a time as stacked ``matmul``s) and
``einsum_path`` (NumPy's planner on stand-ins of the operands' shapes)."""

import numpy as np

from . import _tegula
from ._array import Array
from ._creation import asarray
from ._dtypes import dtype_name


def einsum_path(subscripts, *operands, optimize="greedy", einsum_call=False):
    """NumPy's ``einsum_path``: the order of pairwise contractions NumPy's planner chooses,
    and its report. It reads only the operands' shapes, so NumPy plans on stand-ins of those
    shapes that hold no data."""
    stand_ins = [np.broadcast_to(np.zeros((), op.dtype), op.shape) for op in map(asarray, operands)]
    return np.einsum_path(subscripts, *stand_ins, optimize=optimize, einsum_call=einsum_call)


def einsum(subscripts, *operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """Einstein summation over ``operands`` as NumPy's ``einsum`` (explicit ``->`` output or
    the implicit one: labels seen once, in alphabetical order; ``...`` broadcasts; a label
    repeated in one operand takes its diagonal; length-one axes broadcast). The result has the
    operands' result type (``dtype=`` casts them first), summed in that type as NumPy's. (The
    Rust crate's ``Array::einsum``.)"""
    if out is not None:
        raise TypeError("tegula arrays are immutable values: out= is not supported")
    if not isinstance(subscripts, str):
        raise TypeError("einsum subscripts must be a string (the interleaved form is not supported)")
    return Array(_tegula.einsum(subscripts, [asarray(op)._h for op in operands], dtype_name(dtype)))
