"""The check behind ``tg.config.set(strict_promotion=True)``: the array API's type promotion
only, no implicit promotion between kinds."""

import sys

import numpy as np

from . import config
from ._dtypes import is_python_scalar

_CATEGORY = {"b": "bool", "i": "integer", "u": "integer", "f": "real floating", "c": "complex floating",
             "m": "timedelta", "M": "datetime"}
# Real and complex floating point promote into each other in the array API.
_FLOATING = {"real floating", "complex floating"}
_SCALAR_CATEGORIES = {bool: {"bool"}, int: {"integer"} | _FLOATING, float: _FLOATING,
                      complex: {"complex floating"}}


def check_promotion(name, *operands):
    """Raises TypeError when strict promotion is on and ``operands`` (arrays, dtypes or Python
    scalars) mix kinds: arrays of two categories other than real and complex floating point,
    or a Python scalar with an array whose category it may not combine with."""
    if not config.get("strict_promotion") or _called_by_tegula():
        return
    scalars = [o for o in operands if is_python_scalar(o)]
    dtypes = [_dtype(o) for o in operands if not is_python_scalar(o)]
    categories = {_CATEGORY[d.kind] for d in dtypes}
    if len(categories) > 1 and not categories <= _FLOATING:
        names = " and ".join(sorted(str(d) for d in set(dtypes)))
        raise TypeError(f"{name}: strict promotion refuses mixing {names} (cast one explicitly)")
    for scalar in scalars:
        if not categories <= _SCALAR_CATEGORIES[type(scalar)]:
            raise TypeError(f"{name}: strict promotion refuses a Python {type(scalar).__name__} "
                            f"with {' and '.join(sorted(categories))} arrays")



def _dtype(operand):
    if isinstance(operand, (np.dtype, type, str)):
        return np.dtype(operand)
    return operand.dtype if hasattr(operand, "dtype") else np.asarray(operand).dtype


# The modules an operation passes through between the user's call and this check.
_PLUMBING = {"tegula._strict", "tegula._array", "tegula._functions"}


def _called_by_tegula():
    """Whether the operation was called by tegula's own code (median interpolating integers
    with float weights, say) rather than by the user: strictness is about the user's
    expressions, not about how tegula composes its functions."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") in _PLUMBING:
        frame = frame.f_back
    return frame is not None and frame.f_globals.get("__name__", "").startswith("tegula.")
