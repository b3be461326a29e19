"""The dtypes NumPy's ufuncs give, read from NumPy itself, for the ufuncs tegula composes from
others: the result dtypes and the errors are then NumPy's by construction."""

import numpy as np

from ._creation import asarray
from ._dtypes import is_python_scalar


def numpy_dtypes(ufunc, *operands):
    """The dtypes NumPy's ``ufunc`` gives its outputs for ``operands`` (arrays, or Python
    scalars, which stay "weak"), and NumPy's error where it has no loop for them: the ufunc
    itself called on 0-d stand-ins of the operands' dtypes."""
    stand_ins = [o if is_python_scalar(o) else np.zeros((), asarray(o).dtype) for o in operands]
    with np.errstate(all="ignore"):
        out = ufunc(*stand_ins)
    return tuple(np.asarray(o).dtype for o in (out if isinstance(out, tuple) else (out,)))
