"""Settings for every computation: ``memory``, the budget of bytes a computation may hold in
chunks (``"2GB"``, ``"512MiB"`` or a number of bytes), and ``spill_dir``, the directory under
which chunks that do not fit are written while it runs; and for building expressions:
``strict_promotion`` (default False), which makes operations between arrays of different kinds
(bool, integer, real and complex floating point, the array API's categories) a ``TypeError``
instead of NumPy's implicit promotion, and Python scalars only combine with arrays of kinds
the array API allows (``int`` with integer or floating arrays, ``float`` with floating ones);
and ``progress``: ``"auto"`` (the default: a progress bar for computations longer than half a
second where someone watches — a terminal or a notebook, not a script's redirected output),
``True`` (always) or ``False`` (never).

>>> import tegula as tg
>>> with tg.config.set(memory="1GB"):
...     tg.config.get("memory")
1000000000

``tg.config.set(...)`` alone keeps the settings until changed; used in a ``with`` statement it
restores the previous ones at the end. Unset, they come from the environment
(``TEGULA_MEMORY``, ``TEGULA_SPILL_DIR``), else the machine (half its RAM, its temporary
directory)."""

import os

from . import _tegula

_KEYS = ("memory", "spill_dir", "strict_promotion", "progress")
_settings = {}


class set:  # noqa: A001 - the name users call, as dask.config.set
    """Changes settings now; as a context manager, restores the previous ones on exit."""

    def __init__(self, **settings):
        unknown = sorted(k for k in settings if k not in _KEYS)
        if unknown:
            raise TypeError(f"unknown tegula setting(s) {unknown}; known: {list(_KEYS)}")
        new = {k: _normalise(k, v) for k, v in settings.items()}
        self._previous = {k: _settings.get(k) for k in new}
        _settings.update(new)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for k, v in self._previous.items():
            if v is None:
                _settings.pop(k, None)
            else:
                _settings[k] = v
        return False


def get(key):
    """The value a computation started now would use."""
    if key not in _KEYS:
        raise KeyError(f"unknown tegula setting {key!r}; known: {list(_KEYS)}")
    if key in _settings:
        return _settings[key]
    if key == "strict_promotion":
        return False
    if key == "progress":
        return "auto"
    memory, spill_dir = _tegula.default_spec()
    return memory if key == "memory" else spill_dir


def explicit():
    """The settings made with ``set`` (the rest come from the environment or the machine)."""
    return dict(_settings)


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
    if key == "memory":
        if isinstance(value, str):
            return _tegula.memory_budget(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return int(value)
        raise ValueError(f"memory must be a positive number of bytes or a size like '2GB', got {value!r}")
    return os.fspath(value)
