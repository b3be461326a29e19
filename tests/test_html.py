"""The notebook display (``Array._repr_html_``): the table states the array's real shape, dtype,
bytes, chunk shape, block grid and task count; the picture draws one line per block boundary
of each axis (two edges and a shaded face past ``MAX_LINES``), scaled to ``SIDE`` pixels."""

import xml.etree.ElementTree as ET

import numpy as np
from hypothesis import given, strategies as st

import tegula as tg
from tegula._html import DENSE_FILL, FILL, MAX_LINES, SHORTEST, SIDE
from strategies import ALL_DTYPES, chunkings, dtypes, shapes

SVG = "{http://www.w3.org/2000/svg}"
UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50}


def parse(x):
    """The display as an XML tree (so it must be well-formed, every text escaped)."""
    return ET.fromstring(f"<div>{x._repr_html_()}</div>")


def table(root, name):
    """``{row header: [cell elements]}`` of the table of class ``name``."""
    rows = root.find(f".//table[@class='{name}']").find("tbody")
    return {row.find("th").text: row.findall("td") for row in rows}


def check_bytes(cell, expected):
    assert cell.get("title") == f"{expected} bytes"
    value, unit = cell.text.split()
    assert abs(float(value) * UNITS[unit] - expected) <= 0.005 * expected
    assert float(value) < 1024 or unit == "PiB"


def faces(root):
    """``{face: {axis: [line elements]}}`` of the picture."""
    out = {}
    for group in root.iter(f"{SVG}g"):
        lines = out.setdefault(group.get("data-face"), {})
        for line in group.findall(f"{SVG}line"):
            lines.setdefault(int(line.get("data-axis")), []).append(line)
    return out


def face_axes(ndim):
    """The axes each face cuts: a bar, a matrix, or a box of the last three axes."""
    if ndim == 1:
        return {"bar": [0]}
    if ndim == 2:
        return {"front": [0, 1]}
    first, rows, cols = range(ndim)[-3:]
    return {"top": [first, cols], "side": [first, rows], "front": [rows, cols]}


@st.composite
def displayed(draw, max_dims=5):
    dtype = draw(dtypes(ALL_DTYPES))
    shape = draw(shapes(max_dims=max_dims, max_side=6))
    spec, chunks = draw(chunkings(shape))
    x = tg.asarray(np.zeros(shape, dtype), chunks=spec)
    return (x + x if draw(st.booleans()) else x), chunks


@given(displayed())
def test_table_states_the_arrays_real_values(case):
    x, chunks = case
    root = parse(x)
    sizes = table(root, "tegula-sizes")
    chunk_shape = tuple(max(c) for c in chunks)
    for name, shape, size in [("Array", x.shape, x.nbytes),
                              ("Chunk", chunk_shape, int(np.prod(chunk_shape)) * x.dtype.itemsize)]:
        cells = sizes[name]
        check_bytes(cells[0], size)
        assert cells[1].text == str(shape)
        assert cells[2].text == str(x.dtype)
    counts = table(root, "tegula-counts")
    assert counts["Blocks"][0].text == str(int(np.prod([len(c) for c in chunks])))
    assert counts["Block grid"][0].text == str(tuple(len(c) for c in chunks))
    assert counts["Tasks"][0].text == str(x.task_count())


@given(displayed())
def test_one_line_per_block_boundary_at_its_place(case):
    x, chunks = case
    root = parse(x)
    if x.ndim == 0:
        assert root.find(f".//{SVG}svg") is None
        return
    drawn = faces(root)
    expected = face_axes(x.ndim)
    assert set(drawn) == set(expected)
    for face, axes in expected.items():
        assert sorted(drawn[face]) == sorted(axes)
        for axis in axes:
            lines = drawn[face][axis]
            assert len(lines) == len(chunks[axis]) + 1
            starts = np.array([[float(line.get("x1")), float(line.get("y1"))] for line in lines])
            distance = np.hypot(*(starts - starts[0]).T)
            if x.shape[axis]:
                fraction = np.cumsum((0,) + chunks[axis]) / x.shape[axis]
                np.testing.assert_allclose(distance / distance[-1], fraction, atol=0.01)
            else:
                np.testing.assert_array_equal(distance, 0)


def test_leading_axes_are_written():
    root = parse(tg.zeros((4, 5, 6, 7, 8), chunks=(3, 5, 2, 7, 8)))
    notes = [t.text for t in root.iter(f"{SVG}text")]
    assert "leading axes (4, 5), blocks (2, 1)" in notes


@given(st.integers(0, 2000), st.integers(0, 2000))
def test_sides_keep_the_aspect_ratio_within_limits(rows, cols):
    root = parse(tg.zeros((rows, cols), chunks=(max(rows, 1), max(cols, 1))))
    points = root.find(f".//{SVG}polygon").get("points").split()
    (x0, y0), (x2, y2) = [tuple(map(float, p.split(","))) for p in (points[0], points[2])]
    longest = max(rows, cols, 1)
    for drawn, n in [(y2 - y0, rows), (x2 - x0, cols)]:
        assert abs(drawn - max(SIDE * n / longest, SHORTEST)) <= 0.1
    assert max(y2 - y0, x2 - x0) <= SIDE + 0.1


def test_many_blocks_are_shaded_not_drawn():
    root = parse(tg.zeros((1000, 10), chunks=(3, 3)))
    lines = faces(root)["front"]
    assert (len(lines[0]), len(lines[1])) == (2, 5)
    assert root.find(f".//{SVG}polygon").get("fill") == DENSE_FILL
    root = parse(tg.zeros((MAX_LINES, 10), chunks=(1, 3)))
    assert len(faces(root)["front"][0]) == MAX_LINES + 1
    assert root.find(f".//{SVG}polygon").get("fill") == FILL


def test_a_three_dimensional_box_has_its_dense_faces_shaded():
    root = parse(tg.zeros((500, 4, 6), chunks=(2, 2, 3)))
    fills = {g.get("data-face"): g.find(f"{SVG}polygon").get("fill") for g in root.iter(f"{SVG}g")}
    assert fills == {"top": DENSE_FILL, "side": DENSE_FILL, "front": FILL}


def test_zero_dimensional_and_empty_arrays():
    root = parse(tg.asarray(np.float32(2.5)))
    sizes = table(root, "tegula-sizes")
    assert [c.text for c in sizes["Array"]] == ["4 B", "()", "float32"]
    assert table(root, "tegula-counts")["Blocks"][0].text == "1"
    root = parse(tg.zeros((0, 3), dtype=np.int16, chunks=2))
    assert [c.text for c in table(root, "tegula-sizes")["Array"]] == ["0 B", "(0, 3)", "int16"]
    assert table(root, "tegula-counts")["Block grid"][0].text == "(1, 2)"
