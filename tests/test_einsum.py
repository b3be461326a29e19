"""``einsum`` against NumPy's: random expressions of one to three operands over a few labels
(repeated labels for diagonals, labels of length one that broadcast, ellipses, implicit and
explicit outputs), random dtypes and chunkings; and NumPy's errors."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import COMPLEX, FLOAT, INTEGER, assert_same, chunkings, dtypes, np_arrays, oracle, quiet

LABELS = "abcd"


@st.composite
def expressions(draw):
    sizes = {c: draw(st.integers(1, 4)) for c in LABELS}
    count = draw(st.integers(1, 3))
    parts, shapes = [], []
    ellipsis = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2)) if draw(st.booleans()) else None
    for _ in range(count):
        labels = draw(st.lists(st.sampled_from(LABELS), min_size=0, max_size=3))
        shape = [1 if draw(st.integers(0, 5)) == 0 else sizes[c] for c in labels]
        # A repeated label must have one length within its operand.
        for i, c in enumerate(labels):
            first = labels.index(c)
            shape[i] = shape[first]
        part = "".join(labels)
        if ellipsis is not None and draw(st.booleans()):
            cut = draw(st.integers(0, len(labels)))
            dims = ellipsis[draw(st.integers(0, len(ellipsis))):]
            dims = [1 if draw(st.integers(0, 4)) == 0 else d for d in dims]
            part = part[:cut] + "..." + part[cut:]
            shape = shape[:cut] + dims + shape[cut:]
        parts.append(part)
        shapes.append(tuple(shape))
    used = sorted({c for p in parts for c in p if c in LABELS})
    if draw(st.booleans()):
        out = draw(st.permutations(used).flatmap(lambda p: st.integers(0, len(p)).map(lambda n: p[:n])))
        dots = "..." if any("..." in p for p in parts) and draw(st.booleans()) else ""
        subscripts = ",".join(parts) + "->" + dots + "".join(out)
    else:
        subscripts = ",".join(parts)
    return subscripts, shapes


def assert_einsum_as_numpys(subscripts, arrays, data):
    """tegula's einsum of ``arrays`` (in random chunks) against NumPy's: its error, or its
    values and dtype."""
    want, error = oracle(np.einsum, subscripts, *arrays)
    operands = [tg.asarray(a, chunks=data.draw(chunkings(a.shape))[0]) for a in arrays]
    if error is not None:
        with pytest.raises(type(error)):
            tg.einsum(subscripts, *operands).compute()
        return
    with quiet():
        got = tg.einsum(subscripts, *operands).compute()
    assert got.dtype == want.dtype
    assert_same(got, want, exact=want.dtype.kind in "biu")


@given(expressions(), dtypes([np.dtype(bool)] + INTEGER + FLOAT + COMPLEX), st.data())
def test_einsum_matches_numpy(expression, dtype, data):
    subscripts, shapes = expression
    assert_einsum_as_numpys(subscripts, [data.draw(np_arrays(dtype, s, integral=True, small=True)) for s in shapes], data)


@given(expressions(), st.data())
def test_einsum_of_mixed_dtypes_sums_in_the_result_type(expression, data):
    """Operands of different dtypes (bools among them) are summed in their result type, as
    NumPy's: a bool operand's own axes count its trues, they are not a logical or."""
    subscripts, shapes = expression
    kinds = [np.dtype(bool), np.dtype(np.int8), np.dtype(np.int64), np.dtype(np.float32), np.dtype(np.float64)]
    arrays = [data.draw(np_arrays(data.draw(st.sampled_from(kinds)), s, integral=True, small=True)) for s in shapes]
    assert_einsum_as_numpys(subscripts, arrays, data)


def test_a_bool_operand_summed_alone_counts_its_trues():
    mask, w = np.ones((2, 3, 4), bool), np.arange(1.0, 4.0)
    got = tg.einsum("abc,b->a", tg.asarray(mask), tg.asarray(w)).compute()
    np.testing.assert_array_equal(got, np.einsum("abc,b->a", mask, w))  # [24, 24]


@given(st.data())
def test_contractions_of_big_operands_stay_chunked(data):
    a = np.random.default_rng(0).standard_normal((40, 30))
    b = np.random.default_rng(1).standard_normal((30, 20))
    x, y = tg.asarray(a, chunks=(10, 10)), tg.asarray(b, chunks=(10, 10))
    out = tg.einsum("ij,jk->ik", x, y)
    assert out.numblocks == (4, 2)
    assert_same(out.compute(), np.einsum("ij,jk->ik", a, b), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("subscripts, shapes", [
    ("ij,jk", [(2, 3), (4, 5)]), ("ij", [(2, 3, 4)]), ("ij->k", [(2, 3)]), ("ij->ii", [(2, 2)]),
    ("i,i", [(3,)]), ("i#", [(3, 3)]), ("ii", [(2, 3)]),
])
def test_errors_as_numpy(subscripts, shapes):
    arrays = [np.ones(s) for s in shapes]
    _, error = oracle(np.einsum, subscripts, *arrays)
    assert error is not None
    with pytest.raises(type(error)):
        tg.einsum(subscripts, *[tg.asarray(a) for a in arrays])
