"""NumPy's finite differences and sums of samples: ``gradient`` (central differences inside,
one-sided ones at the ends, each a combination of shifted slices, joined along the axis) and
``trapezoid`` (the trapezoidal rule: a sum of widths times mean heights)."""

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from ._creation import asarray
from ._dtypes import is_python_scalar
from ._functions import concatenate
from ._manipulation import _normalize, diff
from ._reshape import reshape


def _along(ndim, axis, part):
    """A key taking ``part`` (a slice) along ``axis`` of an array of ``ndim`` axes."""
    key = [slice(None)] * ndim
    key[axis] = part
    return tuple(key)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """NumPy's ``trapezoid``: the integral of ``y`` along ``axis`` by the trapezoidal rule, the
    samples at ``x`` (1-d, or of ``y``'s shape) or ``dx`` apart."""
    y = asarray(y)
    axis = _normalize(axis, y.ndim)
    if x is None:
        d = dx if is_python_scalar(dx) else asarray(dx)
    else:
        x = asarray(x)
        if x.ndim == 1:
            d = diff(x)
            d = reshape(d, tuple(d.shape[0] if i == axis else 1 for i in range(y.ndim)))
        else:
            d = diff(x, axis=axis)
    heights = y[_along(y.ndim, axis, slice(1, None))] + y[_along(y.ndim, axis, slice(None, -1))]
    return (d * heights / 2.0).sum(axis=axis)


def _spacings(varargs, f, axes):
    """Per axis, the sample spacing: a number, or NumPy's float64 differences of 1-d
    coordinates (one number again when they are evenly spaced), as NumPy's ``gradient``."""
    if not varargs:
        return [1.0] * len(axes)
    if len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        return list(varargs) * len(axes)
    if len(varargs) != len(axes):
        raise TypeError("invalid number of arguments")
    spacings = []
    for distances, axis in zip(varargs, axes):
        distances = np.asanyarray(distances)
        if distances.ndim == 0:
            spacings.append(varargs[len(spacings)])
            continue
        if distances.ndim != 1:
            raise ValueError("distances must be either scalars or 1d")
        if len(distances) != f.shape[axis]:
            raise ValueError("when 1d, distances must match the length of the corresponding dimension")
        if distances.dtype.kind in "iu":
            distances = distances.astype(np.float64)
        steps = np.diff(distances)
        spacings.append(steps[0] if (steps == steps[0]).all() else steps)
    return spacings


def gradient(f, *varargs, axis=None, edge_order=1):
    """NumPy's ``gradient``: second-order central differences inside, first- or second-order
    (``edge_order``) one-sided differences at the ends, along each of ``axis`` (all by
    default); one array for one axis, else a tuple. Spacings: one number for every axis, or
    one number or 1-d coordinates per axis."""
    f = asarray(f)
    axes = tuple(range(f.ndim)) if axis is None else normalize_axis_tuple(axis, f.ndim)
    spacings = _spacings(varargs, f, axes)
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    dtype = f.dtype if f.dtype.kind in "fc" else np.dtype(np.float64)
    if f.dtype.kind in "iu":
        f = f.astype(np.float64)
    out = [_gradient_along(f, a, h, edge_order, dtype) for a, h in zip(axes, spacings)]
    return out[0] if len(out) == 1 else tuple(out)


def _gradient_along(f, axis, h, edge_order, dtype):
    if f.shape[axis] < edge_order + 1:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least (edge_order + 1) "
                         "elements are required.")

    def at(start, stop):
        return f[_along(f.ndim, axis, slice(start, stop))]

    def combine(coefficients, parts):
        a, b, c = coefficients
        return (a * parts[0] + b * parts[1] + c * parts[2]).astype(dtype)

    uniform = np.ndim(h) == 0
    if uniform:
        inside = ((at(2, None) - at(None, -2)) / (2.0 * h)).astype(dtype)
    else:
        shape = [1] * f.ndim
        shape[axis] = -1
        h1, h2 = h[:-1], h[1:]
        coefficients = [(-h2 / (h1 * (h1 + h2))).reshape(shape), ((h2 - h1) / (h1 * h2)).reshape(shape),
                        (h1 / (h2 * (h1 + h2))).reshape(shape)]
        inside = combine(coefficients, [at(None, -2), at(1, -1), at(2, None)])
    if edge_order == 1:
        first = ((at(1, 2) - at(0, 1)) / (h if uniform else h[0])).astype(dtype)
        last = ((at(-1, None) - at(-2, -1)) / (h if uniform else h[-1])).astype(dtype)
    else:
        first = combine(_first_edge(h, uniform), [at(0, 1), at(1, 2), at(2, 3)])
        last = combine(_last_edge(h, uniform), [at(-3, -2), at(-2, -1), at(-1, None)])
    return concatenate([first, inside, last], axis=axis)


def _first_edge(h, uniform):
    """NumPy's second-order coefficients of the first three samples at the first end."""
    if uniform:
        return -1.5 / h, 2.0 / h, -0.5 / h
    h1, h2 = h[0], h[1]
    return -(2.0 * h1 + h2) / (h1 * (h1 + h2)), (h1 + h2) / (h1 * h2), -h1 / (h2 * (h1 + h2))


def _last_edge(h, uniform):
    """NumPy's second-order coefficients of the last three samples at the last end."""
    if uniform:
        return 0.5 / h, -2.0 / h, 1.5 / h
    h1, h2 = h[-2], h[-1]
    return h2 / (h1 * (h1 + h2)), -(h2 + h1) / (h1 * h2), (2.0 * h2 + h1) / (h2 * (h1 + h2))
