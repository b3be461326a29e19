"""NumPy's dispatch protocols for tegula arrays: ``__array_ufunc__`` (NEP 13) and
``__array_function__`` (NEP 18). A NumPy function or ufunc given a tegula array builds the same
lazy tegula expression where tegula implements it (found by name in the ``tegula``,
``tegula.linalg``, ``tegula.fft`` and ``tegula.lib.stride_tricks`` namespaces), and is a ``TypeError`` otherwise, so that nothing
is computed behind the user's back: ``np.asarray(x)`` computes an array NumPy can take.

The package's ``__init__`` sets these methods on ``Array`` with ``install``, handing over the
namespace they look names up in (the package itself)."""

import functools
import inspect

import numpy as np

from ._array import Array
from ._creation import asarray
from ._dtypes import is_python_scalar

_SUBMODULES = {"numpy": "", "numpy.linalg": "linalg", "numpy.fft": "fft", "numpy.lib.stride_tricks": "lib.stride_tricks"}

# ufunc methods that are tegula reductions and scans
_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
           "logical_and": "all", "logical_or": "any"}
_ACCUMULATE = {"add": "cumulative_sum", "multiply": "cumulative_prod"}

# NumPy names whose tegula function has another name or argument names
_ALIASES = {"around": "round"}
_RENAMED_ARGUMENTS = {"clip": {"a_min": "min", "a_max": "max"}}


def _missing(name, detail=""):
    return TypeError(f"{name} is not implemented for tegula arrays{detail}; call np.asarray(x) "
                     f"first to compute the array and use NumPy on the result")


def install(package):
    """Sets ``Array``'s ``__array_namespace__``, ``__array_ufunc__`` and ``__array_function__``,
    which answer with the functions of ``package`` (the module ``tegula``)."""

    def __array_namespace__(self, /, *, api_version=None):
        if api_version not in (None, "2021.12", "2022.12", "2023.12", "2024.12", "2025.12"):
            raise ValueError(f"tegula does not implement array API version {api_version!r}")
        return package

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return array_ufunc(package, ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return array_function(package, func, types, args, kwargs)

    for method in (__array_namespace__, __array_ufunc__, __array_function__):
        method.__qualname__ = f"Array.{method.__name__}"
        setattr(Array, method.__name__, method)


def _is_operand(x):
    return type(x) in (Array, np.ndarray, list, tuple) or isinstance(x, np.generic) or is_python_scalar(x)


def _check_out(name, kwargs):
    out = kwargs.pop("out", None)
    if out is not None and any(o is not None for o in (out if isinstance(out, tuple) else (out,))):
        raise TypeError(f"{name}: tegula arrays are immutable lazy values and cannot be written "
                        f"through out=; use the returned array")


# --- __array_ufunc__ -------------------------------------------------------------------------

def array_ufunc(package, ufunc, method, inputs, kwargs):
    if not all(_is_operand(x) for x in inputs):
        return NotImplemented  # another library's array: let it (or NumPy's error) answer
    name = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    _check_out(name, kwargs)
    method_impl = _UFUNC_METHODS.get(method)
    if method_impl is None:
        raise _missing(name)
    return method_impl(package, ufunc, name, inputs, kwargs)


def _call(package, ufunc, name, inputs, kwargs):
    if kwargs:
        raise _missing(name, f" with the argument(s) {sorted(kwargs)}")
    impl = (package.UFUNCS.get(ufunc.__name__) or package.UFUNC_LIKES.get(ufunc.__name__)
            or {"matmul": package.matmul, "vecdot": package.vecdot}.get(ufunc.__name__))
    if impl is None:
        raise _missing(name)
    return impl(*inputs)


def _reduce(package, ufunc, name, inputs, kwargs):
    reduction = _REDUCE.get(ufunc.__name__)
    kwargs.setdefault("axis", 0)  # a ufunc reduces axis 0 unless told otherwise
    if kwargs.get("where", True) is not True or "initial" in kwargs:
        raise _missing(name, " with where= or initial=")
    kwargs.pop("where", None)
    if reduction in ("max", "min", "all", "any") and kwargs.pop("dtype", None) is not None:
        raise _missing(name, " with dtype=")
    if reduction is None:
        raise _missing(name)
    return getattr(package, reduction)(asarray(inputs[0]), **kwargs)


def _accumulate(package, ufunc, name, inputs, kwargs):
    scan = _ACCUMULATE.get(ufunc.__name__)
    if scan is None or set(kwargs) - {"axis", "dtype"}:
        raise _missing(name, "" if scan is None else f" with the argument(s) {sorted(kwargs)}")
    return getattr(package, scan)(asarray(inputs[0]), axis=kwargs.get("axis", 0), dtype=kwargs.get("dtype"))


def _outer(package, ufunc, name, inputs, kwargs):
    """``ufunc.outer(a, b)``: ``a`` with ``b.ndim`` new trailing axes, broadcast against ``b``."""
    a, b = (asarray(x) for x in inputs)
    return _call(package, ufunc, name, (a[(...,) + (None,) * b.ndim], b), kwargs)


_UFUNC_METHODS = {"__call__": _call, "reduce": _reduce, "accumulate": _accumulate, "outer": _outer}


# --- __array_function__ ----------------------------------------------------------------------

def array_function(package, func, types, args, kwargs):
    if not all(issubclass(t, (Array, np.ndarray)) for t in types):
        return NotImplemented
    name = f"{func.__module__}.{func.__name__}"
    kwargs = dict(kwargs)
    _check_out(name, kwargs)
    impl, numpy_params, numpy_defaults, signature = _resolve(package, func)
    if impl is None:
        raise _missing(name)
    args, kwargs = _adapt(name, func.__name__, args, kwargs, numpy_params, numpy_defaults, signature)
    return impl(*args, **kwargs)


@functools.lru_cache(maxsize=None)
def _resolve(package, func):
    """``package``'s function for a NumPy function (None if none), NumPy's parameter names and
    defaults, and that function's signature."""
    impl = _METADATA.get(func.__name__) if func.__module__ == "numpy" else None
    namespace = _SUBMODULES.get(func.__module__)
    if impl is None and namespace is not None:
        module = functools.reduce(getattr, namespace.split("."), package) if namespace else package
        impl = getattr(module, _ALIASES.get(func.__name__, func.__name__), None)
        impl = impl if inspect.isfunction(impl) else None
    if impl is None:
        return None, (), {}, None
    try:
        params = inspect.signature(func).parameters.values()
    except ValueError:
        params = ()
    names = tuple(p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    defaults = {p.name: p.default for p in params if p.default is not p.empty}
    return impl, names, defaults, inspect.signature(impl)


def _adapt(name, short, args, kwargs, numpy_params, numpy_defaults, signature):
    """The call's arguments as tegula's function takes them: positional ones past those it takes
    by position become keywords (by NumPy's names), keywords it lacks are dropped where they
    hold NumPy's default, and anything else it cannot take is a ``TypeError``."""
    params = signature.parameters.values()
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        takes = len(args)
    else:
        takes = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    if len(args) > takes:
        if len(args) > len(numpy_params):
            raise _missing(name, f" with {len(args)} positional arguments")
        kwargs.update(zip(numpy_params[takes:len(args)], args[takes:]))
        args = args[:takes]
    # Keywords NumPy names that tegula takes by position only (``moveaxis(x, source=0, ...)``).
    positional_only = sum(p.kind == p.POSITIONAL_ONLY for p in params)
    while len(args) < min(positional_only, len(numpy_params)) and numpy_params[len(args)] in kwargs:
        args = (*args, kwargs.pop(numpy_params[len(args)]))
    renames = _RENAMED_ARGUMENTS.get(short, {})
    kwargs = {renames.get(k, k): v for k, v in kwargs.items()}
    accepted = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    takes_any = any(p.kind == p.VAR_KEYWORD for p in params)
    for key in [k for k in kwargs if k not in accepted and not takes_any]:
        if not _is_default(kwargs[key], numpy_defaults.get(key, inspect.Parameter.empty)):
            raise _missing(name, f" with the argument {key}={_short(kwargs[key])}")
        del kwargs[key]
    try:
        signature.bind(*args, **kwargs)
    except TypeError as e:
        raise _missing(name, f" with these arguments ({e})") from None
    return args, kwargs


def _short(value):
    shape = getattr(value, "shape", None)
    return f"<{type(value).__name__} of shape {shape}>" if shape is not None else repr(value)[:40]


def _is_default(value, default):
    """Whether ``value`` is NumPy's default ``default`` (compared only as a plain scalar)."""
    if value is default or value is np._NoValue:
        return True
    return isinstance(default, (bool, int, float, str)) and type(value) is type(default) and value == default


def _copy(a):
    return asarray(a, copy=True)


def _size(a, axis=None):
    return a.size if axis is None else a.shape[axis]


# NumPy functions answered from metadata, or a lazy view, without a tegula function of that name
# (arguments they lack are accepted only with NumPy's defaults)
_METADATA = {
    "size": _size,
    "iscomplexobj": lambda x: x.dtype.kind == "c",
    "isrealobj": lambda x: x.dtype.kind != "c",
    "copy": _copy,
}
