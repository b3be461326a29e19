"""Small helpers shared by the pictures tegula draws itself (plan graphs, execution reports):
escaping, colours and units. Every picture is plain SVG text, so it needs no system package
and no network to view."""

from html import escape as _escape

# Distinct colours for categories (operations), chosen to stay apart on white.
CATEGORY_COLOURS = (
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#86bcb6", "#d37295", "#a0cbe8",
)

# Stops of a dark-to-light sequential scale (for order: first tasks dark, last ones light).
_SEQUENTIAL = ((0.0, (68, 1, 84)), (0.25, (59, 82, 139)), (0.5, (33, 145, 140)),
               (0.75, (94, 201, 98)), (1.0, (253, 231, 37)))


def escape(text):
    return _escape(str(text), quote=True)


def category_colour(i):
    return CATEGORY_COLOURS[i % len(CATEGORY_COLOURS)]


def sequential_colour(t):
    """The colour of ``t`` in [0, 1] on the sequential scale."""
    t = min(max(float(t), 0.0), 1.0)
    for (t0, c0), (t1, c1) in zip(_SEQUENTIAL, _SEQUENTIAL[1:]):
        if t <= t1:
            f = (t - t0) / (t1 - t0)
            r, g, b = (round(a + (b - a) * f) for a, b in zip(c0, c1))
            return f"#{r:02x}{g:02x}{b:02x}"
    return "#fde725"


def text_colour(fill):
    """Black or white, whichever reads better on ``fill`` (``#rrggbb``)."""
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return "#000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#fff"


def human_bytes(n):
    """Bytes in binary units to three significant digits: ``7.63 MiB``, ``120 KiB``."""
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            break
        n /= 1024
    if unit == "B":
        return f"{n:.0f} B"
    return f"{n:.0f} {unit}" if n >= 100 else f"{n:.3g} {unit}"


def human_seconds(s):
    if s == 0:
        return "0 s"
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"
