"""Settings for every computation: ``memory``, the budget of bytes a computation may hold in
chunks (``"2GB"``, ``"512MiB"`` or a number of bytes), and ``spill_dir``, the directory under
which chunks that do not fit are written while it runs; and for building expressions:
``strict_promotion`` (default False), which makes operations between arrays of different kinds
(bool, integer, real and complex floating point, the array API's categories) a ``TypeError``
instead of NumPy's implicit promotion, and Python scalars only combine with arrays of kinds
the array API allows (``int`` with integer or floating arrays, ``float`` with floating ones);
``progress``: ``"auto"`` (the default: a progress bar for computations longer than half a
second where someone watches — a terminal or a notebook, not a script's redirected output),
``True`` (always) or ``False`` (never); and ``scheduler`` (``"threads"``, the default,
``"serial"`` or ``"processes"``; ``"ray"``; ``"dask"`` or a ``distributed.Client``) and
``num_workers`` (default: one per core), for computations that do not name their own, as
``dask.config.set(scheduler=...)``; ``placement``: on a Dask cluster, ``"tegula"`` (the
default: each fragment pinned to the worker tegula's placement chose) or ``"dask"`` (left to
Dask's scheduler); ``dashboard``: ``False`` (the default), or ``True``, a port or
``"address:port"`` to start the live view (``tg.dashboard``) at the next computation;
``device_memory``: the bytes of blocks the GPU may hold at once (as ``memory``; unset: each
computation's budget), blocks past it spilled to the host.

>>> import tegula as tg
>>> with tg.config.set(memory="1GB"):
...     tg.config.get("memory")
1000000000

``tg.config.set(...)`` alone changes the process-wide settings, seen by every thread, until
changed. ``with tg.config.set(...):`` changes them only inside the block and only for the code
it runs: the current thread (or asyncio task, as a ``contextvars`` context), never computations
that other threads run meanwhile; the previous settings are back at the end. Unset, they come
from the environment (``TEGULA_MEMORY``, ``TEGULA_SPILL_DIR``, ``TEGULA_SCHEDULER``,
``TEGULA_DASHBOARD``), else the machine (half its RAM, its temporary directory)."""

import contextvars
import dis
import math
import numbers
import os
import sys

import numpy as np

from . import _tegula

_KEYS = ("memory", "spill_dir", "strict_promotion", "progress", "scheduler", "num_workers", "placement", "dashboard",
         "device_memory")
_settings: dict[str, object] = {}  # process-wide, from ``set(...)`` outside a ``with`` statement
_scoped: contextvars.ContextVar[dict[str, object]] = contextvars.ContextVar("tegula_config", default={})  # from ``with set(...)`` blocks


class set:  # noqa: A001 - the name users call, as dask.config.set
    """Changes settings: process-wide when called alone, for the current context only (thread or
    asyncio task) when used as ``with tg.config.set(...):``."""

    def __init__(self, **settings):
        unknown = sorted(k for k in settings if k not in _KEYS)
        if unknown:
            raise TypeError(f"unknown tegula setting(s) {unknown}; known: {list(_KEYS)}")
        self._new = {k: _normalise(k, v) for k, v in settings.items()}
        self._token = None
        # A ``with`` statement calls __enter__ next: setting them process-wide first, even for
        # an instant, would reach computations other threads start meanwhile.
        self._global = None if _entered_next(sys._getframe(1)) else {k: _settings.get(k) for k in self._new}
        if self._global is not None:
            _settings.update(self._new)

    def __enter__(self):
        if self._global is not None:  # made earlier (``s = set(...)``, then ``with s:``)
            _restore(self._global)
            self._global = None
        self._token = _scoped.set({**_scoped.get(), **self._new})
        return self

    def __exit__(self, *exc):
        if self._token is not None:
            _scoped.reset(self._token)
            self._token = None
        return False


def _restore(previous):
    for k, v in previous.items():
        if v is None:
            _settings.pop(k, None)
        else:
            _settings[k] = v


def _entered_next(frame):
    """Whether the instruction after the call running in ``frame`` enters a ``with`` block."""
    following = _next_instruction(frame.f_code, frame.f_lasti)
    return following in ("BEFORE_WITH", "SETUP_WITH", "LOAD_SPECIAL") or following == ("COPY", "LOAD_SPECIAL")


_NEXT: dict[tuple[object, int], object] = {}


def _next_instruction(code, offset):
    """The name of the instruction after the one at ``offset`` (the pair of the next two when
    the next is a ``COPY``, as Python 3.14's ``with`` starts), cached per call site."""
    key = (code, offset)
    if key not in _NEXT:
        names = [(i.offset, i.opname) for i in dis.get_instructions(code)]
        after = [name for at, name in names if at > offset][:2]
        _NEXT[key] = tuple(after) if after[:1] == ["COPY"] else (after[0] if after else None)
    return _NEXT[key]


def get(key):
    """The value a computation started now, here, would use."""
    if key not in _KEYS:
        raise KeyError(f"unknown tegula setting {key!r}; known: {list(_KEYS)}")
    scoped = _scoped.get()
    if key in scoped:
        return scoped[key]
    if key in _settings:
        return _settings[key]
    if key == "strict_promotion":
        return False
    if key == "progress":
        return "auto"
    if key == "scheduler":
        return os.environ.get("TEGULA_SCHEDULER") or "threads"
    if key == "num_workers":
        return None
    if key == "placement":
        return "tegula"
    if key == "dashboard":
        return _dashboard_from_env()
    if key == "device_memory":
        return None
    memory, spill_dir = _tegula.default_spec()
    return memory if key == "memory" else spill_dir


def gemm():
    """Which GEMM runs tegula's float32/float64 matrix products: ``None`` when NumPy links no
    usable OpenBLAS (faer, built in, runs them), else a dict: ``uses_blas`` (NumPy's OpenBLAS
    runs them, else faer), ``library``, ``core`` (OpenBLAS's kernels for this CPU),
    ``blas_gflops`` and ``faer_gflops`` (each on one thread) and ``decided_by``: ``"measured"``
    (at import, the first time on this machine), ``"cached"`` (measured before, kept in
    ``~/.cache/tegula`` or ``$TEGULA_CACHE_DIR``, so every process of a machine chooses alike)
    or ``"TEGULA_GEMM"`` (the environment variable, ``faer``, ``blas`` or ``auto``)."""
    return _tegula.use_loaded_blas()


def explicit():
    """The settings made with ``set`` that apply here (the rest come from the environment or
    the machine)."""
    return {**_settings, **_scoped.get()}


def _normalise(key, value):
    if value is None:
        raise TypeError(f"{key} must not be None")
    if key == "strict_promotion":
        if not isinstance(value, bool):
            raise TypeError(f"strict_promotion must be True or False, got {value!r}")
        return value
    if key == "progress":
        if not (value is True or value is False or value == "auto"):
            raise ValueError(f"progress must be True, False or 'auto', got {value!r}")
        return value
    if key == "scheduler":
        from ._dask import is_client

        if not isinstance(value, str) and not is_client(value):
            raise TypeError(f"scheduler must be a name such as 'threads' or 'processes', or a distributed.Client, got {value!r}")
        return value
    if key == "placement":
        from ._dask import PLACEMENTS

        if value not in PLACEMENTS:
            raise ValueError(f"placement must be one of {PLACEMENTS}, got {value!r}")
        return value
    if key == "num_workers":
        return checked_num_workers(value)
    if key == "dashboard":
        return _checked_dashboard(value)
    if key in ("memory", "device_memory"):
        if isinstance(value, str):
            return _tegula.memory_budget(value)
        if not isinstance(value, numbers.Real):
            raise TypeError(f"{key} must be a number of bytes or a size like '2GB', got {value!r}")
        if isinstance(value, (bool, np.bool_)) or not math.isfinite(value) or value < 1:
            raise ValueError(f"{key} must be at least one byte (a number of bytes or a size like '2GB'), got {value!r}")
        return int(value)
    path = os.fspath(value)
    if not path:
        raise ValueError("spill_dir must name a directory, got ''")
    _tegula.remove_dead_owners(path)  # what killed processes left there
    return path


def _dashboard_from_env():
    value = os.environ.get("TEGULA_DASHBOARD", "").strip()
    if value.lower() in ("", "0", "false", "no", "off"):
        return False
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    return _checked_dashboard(int(value) if value.isdigit() else value)


def _checked_dashboard(value):
    """``dashboard`` as given: a bool, a port (an int from 0 to 65535) or ``"address:port"``."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        if not 0 <= value <= 65535:
            raise ValueError(f"dashboard port must be from 0 to 65535, got {value}")
        return int(value)
    if isinstance(value, str):
        address, colon, port = value.rpartition(":")
        if not colon or not port.isdigit() or not 0 <= int(port) <= 65535:
            raise ValueError(f"dashboard must be True, False, a port or 'address:port', got {value!r}")
        return value
    raise TypeError(f"dashboard must be True, False, a port or 'address:port', got {value!r}")


def checked_num_workers(value):
    """``num_workers`` as given, if it is a positive int (a ``TypeError`` or ``ValueError`` if
    not)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"num_workers must be an int, got {value!r}")
    if value < 1:
        raise ValueError(f"num_workers must be at least 1, got {value!r}")
    return int(value)
