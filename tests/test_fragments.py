"""``run_fragment`` on NumPy arrays: inputs are read where they are, without a copy, whenever
Rust can read them in place (native byte order, aligned, strides whole elements apart, any
sign or zero); anything else is copied first. Results equal NumPy's either way, and outputs are
new arrays, never views of the inputs."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tegula as tg
from tegula import _tegula


def fragment(make, shape, dtype="float64"):
    """The bytes of the fragment computing ``make(y)`` from a block ``y`` of ``shape`` given as
    its one input (``y`` is read by two computations, so it is the end of a fragment of its
    own and the start of theirs)."""
    y = tg.zeros(shape, dtype=dtype, chunks=-1) + tg.zeros((), dtype=dtype)
    result = make(y)
    fragments, outputs = _tegula.plan_fragments([result._h, (y + y)._h])
    (found,) = [f for f, inputs, outs in fragments if outs == outputs[0]]
    return found


def run_one(frag, *inputs, **options):
    (out,) = _tegula.run_fragment(frag, list(inputs), **options)
    return out


ZERO_COPY = """
import json, resource, sys
import numpy as np
import tegula as tg
from tegula import _tegula

def fragment(make, shape):
    y = tg.zeros(shape, chunks=-1) + 0.0
    fragments, outputs = _tegula.plan_fragments([make(y)._h, y.max()._h])
    (found,) = [f for f, inputs, outs in fragments if outs == outputs[0]]
    return found

def peak_mb():
    # This process's own peak: Linux's ru_maxrss also counts the parent's resident memory
    # at the fork (it survives the exec), which a big pytest process would hide copies under.
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

rows, cols = 5000, 10000  # 400 MB of float64
twice_sum = lambda y: (y * 2).sum()
contiguous = fragment(twice_sum, (rows, cols))
transposed = fragment(twice_sum, (cols, rows))
a = np.arange(rows * cols, dtype=np.float64).reshape(rows, cols)  # every page touched
expected = 2 * float(rows * cols) * (rows * cols - 1) / 2  # exact in float64
report = {"input_mb": a.nbytes / 2**20}
# The peak only grows: cases that must not copy come first, the one that must copy last.
for name, frag, given in [("contiguous", contiguous, a), ("transposed", transposed, a.T)]:
    before = peak_mb()
    (out,) = _tegula.run_fragment(frag, [given])
    report[name] = {"added_mb": peak_mb() - before, "equal": float(out) == expected}
swapped = a.view(a.dtype.newbyteorder())
swapped.byteswap(inplace=True)  # the same values, stored big-endian: NumPy must copy them
before = peak_mb()
(out,) = _tegula.run_fragment(contiguous, [swapped])
report["swapped"] = {"added_mb": peak_mb() - before, "equal": float(out) == expected}
print(json.dumps(report))
"""


def test_inputs_are_not_copied_when_rust_can_read_them_in_place():
    """Peak memory in a fresh process: a 400 MB input, C-ordered or transposed, adds next to
    nothing to the peak (a copy would add 400 MB), while a byte-swapped one, which NumPy must
    convert, adds its copy, which shows the measure sees copies."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(ZERO_COPY)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    size = report["input_mb"]
    for case in ("contiguous", "transposed", "swapped"):
        assert report[case]["equal"], (case, report)
    assert report["contiguous"]["added_mb"] < size / 8, report
    assert report["transposed"]["added_mb"] < size / 8, report
    assert report["swapped"]["added_mb"] > size * 3 / 4, report


def layouts(a):
    """Arrays equal to ``a`` laid out every way NumPy allows."""
    yield "contiguous", a
    yield "fortran", np.asfortranarray(a)
    yield "reversed", np.ascontiguousarray(a[::-1, ::-1])[::-1, ::-1]
    wide = np.zeros((a.shape[0], 3 * a.shape[1]), a.dtype)
    wide[:, ::3] = a
    yield "strided", wide[:, ::3]
    if a.dtype.itemsize > 1:
        yield "swapped", a.astype(a.dtype.newbyteorder())
        raw = np.zeros(a.nbytes + 1, np.uint8)
        misaligned = raw[1:].view(a.dtype).reshape(a.shape)
        misaligned[...] = a
        assert not misaligned.flags.aligned
        yield "misaligned", misaligned
        record = np.zeros(a.shape, dtype=[("pad", "u1"), ("x", a.dtype)])
        record["x"] = a
        yield "field", record["x"]  # strides of itemsize + 1 bytes
    readonly = a.copy()
    readonly.flags.writeable = False
    yield "read-only", readonly


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64", "int8", "uint16", "complex128"])
def test_results_equal_numpy_whatever_the_inputs_layout(dtype):
    shape = (6, 5)
    a = (np.arange(30).reshape(shape) % 7 - 3).astype(dtype)
    total = fragment(lambda y: (y * 2).sum(), shape, dtype)
    largest = fragment(lambda y: (y + 1).max(axis=0), shape, dtype) if dtype != "complex128" else None
    for name, given in layouts(a):
        assert np.array_equal(given, a), name
        np.testing.assert_array_equal(run_one(total, given), (a * 2).sum(), err_msg=name)
        if largest is not None:
            np.testing.assert_array_equal(run_one(largest, given), (a + 1).max(axis=0), err_msg=name)
        assert np.array_equal(given, a), f"{name} changed"


def test_broadcast_inputs_with_zero_strides_are_read_in_place():
    total = fragment(lambda y: (y * 2).sum(axis=1), (4, 1000))
    row = np.arange(1000.0)
    given = np.broadcast_to(row, (4, 1000))
    assert given.strides[0] == 0
    np.testing.assert_array_equal(run_one(total, given), (2 * given).sum(axis=1))


def test_bool_inputs_are_read_as_numpy_reads_them():
    """A NumPy bool array may hold bytes other than 0 and 1, which NumPy reads as True: they
    are copied as such, never taken for Rust bools."""
    count = fragment(lambda y: y.sum(), (2, 3), "bool")
    bytes_ = np.array([[0, 1, 2], [255, 0, 7]], np.uint8)
    given = bytes_.view(np.bool_)
    assert run_one(count, given) == np.count_nonzero(bytes_) == given.sum()
    assert run_one(count, np.asfortranarray(given)) == 4


def test_the_same_array_twice_and_views_of_one_another():
    shape = (5, 5)
    p = tg.zeros(shape, chunks=-1) + 0.0
    q = tg.zeros(shape, chunks=-1) + 1.0
    fragments, outputs = _tegula.plan_fragments([(p * q - p)._h, p.sum()._h, q.sum()._h])
    (frag,) = [f for f, inputs, outs in fragments if outs == outputs[0]]
    a = np.arange(25.0).reshape(shape)
    for first, second in [(a, a), (a, a.T), (a, a[::-1]), (a[:, ::-1], a[::-1, :])]:
        expected = first * second - first
        np.testing.assert_array_equal(run_one(frag, first, second), expected)
        np.testing.assert_array_equal(run_one(frag, first, second, num_workers=2), expected)
    np.testing.assert_array_equal(a, np.arange(25.0).reshape(shape))


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_an_output_that_is_a_view_of_an_input_is_a_new_array(layout):
    a = np.arange(12.0).reshape(3, 4)
    given = a if layout == "contiguous" else a.T.copy().T
    original = given.copy()
    out = run_one(fragment(lambda y: y.T, (3, 4)), given)
    np.testing.assert_array_equal(out, given.T)
    assert not np.shares_memory(out, given)
    assert out.flags.writeable
    out[...] = -1
    np.testing.assert_array_equal(given, original)


def test_no_reference_to_an_input_is_kept():
    frag = fragment(lambda y: (y * 2).sum(), (300, 200))
    a = np.ones((300, 200))
    before = sys.getrefcount(a)
    for workers in (1, 2):
        for _ in range(3):
            assert run_one(frag, a, num_workers=workers) == 2 * a.size
            assert run_one(frag, a.T.T, num_workers=workers) == 2 * a.size
    assert sys.getrefcount(a) == before


def test_from_numpy_still_copies():
    a = np.arange(6.0)
    x = tg.asarray(a, chunks=3)
    a[:] = -1
    np.testing.assert_array_equal(x.compute(), np.arange(6.0))


def test_inputs_without_elements():
    total = fragment(lambda y: (y * 2).sum(axis=0), (0, 3))
    for given in (np.empty((0, 3)), np.empty((3, 0)).T, np.empty((0, 3))[::-1, ::-1]):
        np.testing.assert_array_equal(run_one(total, given), np.zeros(3))
