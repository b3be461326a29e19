"""The notebook display of an array (``Array._repr_html_``): a table of its sizes and an inline
SVG picture of its block grid. Lines at block boundaries are tagged with the axis they cut
(``data-axis``) and grouped by face (``data-face``), so the picture can be checked."""

import numpy as np

from ._svg import escape, human_bytes

SIDE = 120  # px: the longest drawn side
SHORTEST = 12  # px: no drawn side is shorter, so ratios beyond 10:1 are compressed
BAR = 20  # px: the thickness of a 1-d array's bar
MAX_LINES = 100  # an axis with more blocks shows its two edges and a shaded face instead
PAD = 14  # px around the drawing, room for the axis labels
FILL, DENSE_FILL = "#cfe2f3", "#6fa8dc"


def repr_html(x):
    """The table beside the picture (a 0-d array has no picture)."""
    picture = f"<td>{_picture(x)}</td>" if x.ndim else ""
    return f'<table class="tegula-array"><tr><td>{_tables(x)}</td>{picture}</tr></table>'


# --- the table --------------------------------------------------------------------------------
def _tables(x):
    chunk_bytes = int(np.prod(x.chunksize, dtype=np.int64)) * x.itemsize
    rows = [("Array", x.nbytes, x.shape), ("Chunk", chunk_bytes, x.chunksize)]
    body = "".join(
        f'<tr><th>{name}</th><td title="{size} bytes">{human_bytes(size)}</td>'
        f"<td>{_text(shape)}</td><td>{_text(x.dtype)}</td></tr>"
        for name, size, shape in rows)
    sizes = (f'<table class="tegula-sizes"><thead><tr><th></th><th>Bytes</th><th>Shape</th>'
             f"<th>Dtype</th></tr></thead><tbody>{body}</tbody></table>")
    counts = (f'<table class="tegula-counts"><tbody>'
              f"<tr><th>Blocks</th><td>{x.npartitions}</td></tr>"
              f"<tr><th>Block grid</th><td>{_text(x.numblocks)}</td></tr>"
              f"<tr><th>Tasks</th><td>{x.task_count()}</td></tr></tbody></table>")
    return sizes + counts


def _text(value):
    return escape(value)


# --- the picture ------------------------------------------------------------------------------
def _picture(x):
    """The last three axes at most; leading axes are written below."""
    axes = range(x.ndim)[-3:]
    chunks = [(axis, x.chunks[axis]) for axis in axes]  # each axis with its block lengths
    draw = {1: _bar, 2: _grid, 3: _box}[len(axes)]
    shapes, width, height = draw(chunks, _lengths(x.shape[-3:]), [str(x.shape[a]) for a in axes])
    if x.ndim > 3:
        note = f"leading axes {x.shape[:-3]}, blocks {x.numblocks[:-3]}"
        shapes += f'<text x="{PAD}" y="{height + 4:.1f}" font-size="10">{_text(note)}</text>'
        height += 12
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.1f} {height:.1f}">{shapes}</svg>')


def _lengths(shape):
    """Drawn lengths proportional to the axis lengths, the longest ``SIDE``, none below ``SHORTEST``."""
    longest = max(max(shape), 1)
    return [max(SIDE * n / longest, SHORTEST) for n in shape]


def _bar(chunks, lengths, labels):
    (length,) = lengths
    face = _face("bar", (PAD, PAD), ((length, 0), chunks[0]), ((0, BAR), None))
    label = _label(PAD + length / 2, PAD + BAR + 12, labels[0])
    return face + label, length + 2 * PAD, BAR + 2 * PAD + 4


def _grid(chunks, lengths, labels):
    """The first axis down, the second across, as a matrix is written."""
    rows, cols = lengths
    face = _face("front", (PAD, PAD), ((0, rows), chunks[0]), ((cols, 0), chunks[1]))
    labels = (_label(PAD + cols / 2, PAD + rows + 12, labels[1])
              + _label(PAD + cols + 6, PAD + rows / 2, labels[0], rotate=True))
    return face + labels, cols + 2 * PAD + 6, rows + 2 * PAD + 4


def _box(chunks, lengths, labels):
    """The last two axes as the front face (a matrix), the first receding up and to the right."""
    rows, cols = lengths[1:]
    depth = (lengths[0] * 0.5, -lengths[0] * 0.5)
    front = (PAD, PAD - depth[1])
    side = (front[0] + cols, front[1])
    faces = (_face("top", front, (depth, chunks[0]), ((cols, 0), chunks[2]))
             + _face("side", side, (depth, chunks[0]), ((0, rows), chunks[1]))
             + _face("front", front, ((0, rows), chunks[1]), ((cols, 0), chunks[2])))
    labels = (_label(front[0] + cols / 2, front[1] + rows + 12, labels[2])
              + _label(side[0] + depth[0] + 6, side[1] + depth[1] + rows / 2, labels[1], rotate=True)
              + _label(front[0] + depth[0] / 2 - 10, front[1] + depth[1] / 2 - 2, labels[0]))
    return faces + labels, cols + depth[0] + 2 * PAD + 6, rows - depth[1] + 2 * PAD + 4


def _face(name, origin, first, second):
    """A parallelogram at ``origin`` spanned by two sides ``(vector, (axis, blocks))``, with a
    line across it at every block boundary of each side's axis (``None``: no lines)."""
    (u, chunks_u), (v, chunks_v) = first, second
    corners = [origin, _add(origin, u), _add(origin, u, v), _add(origin, v)]
    dense = any(c is not None and len(c[1]) > MAX_LINES for c in (chunks_u, chunks_v))
    points = " ".join(f"{px:.1f},{py:.1f}" for px, py in corners)
    shape = (f'<polygon points="{points}" fill="{DENSE_FILL if dense else FILL}" '
             f'stroke="#1c4587" stroke-width="1"/>')
    return f'<g data-face="{name}">{shape}{_lines(origin, first, v)}{_lines(origin, second, u)}</g>'


def _lines(origin, side, across):
    """Lines parallel to ``across`` at the block boundaries along ``side``."""
    vector, chunks = side
    if chunks is None:
        return ""
    axis, blocks = chunks
    lines = []
    for fraction in _boundaries(blocks):
        x1, y1 = _add(origin, _scale(vector, fraction))
        x2, y2 = _add((x1, y1), across)
        lines.append(f'<line data-axis="{axis}" x1="{x1:.2f}" y1="{y1:.2f}" x2="{x2:.2f}" y2="{y2:.2f}" '
                     f'stroke="#1c4587" stroke-width="0.6"/>')
    return "".join(lines)


def _boundaries(blocks):
    """Where the blocks of an axis start and end, as fractions of its length; only the two
    ends when there are more than ``MAX_LINES`` blocks."""
    total = max(sum(blocks), 1)
    if len(blocks) > MAX_LINES:
        return [0.0, 1.0]
    return list(np.cumsum((0,) + tuple(blocks)) / total)


def _label(x, y, text, rotate=False):
    turn = f' transform="rotate(-90 {x:.1f} {y:.1f})"' if rotate else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="10" text-anchor="middle"{turn}>'
            f"{_text(text)}</text>")


def _add(*points):
    return tuple(sum(p[i] for p in points) for i in range(2))


def _scale(vector, factor):
    return (vector[0] * factor, vector[1] * factor)
