"""Results larger than the memory budget are refused before anything runs, whichever way
they are asked for: compute, tg.compute, NumPy's conversions, xarray's values, and a
budget from TEGULA_MEMORY. The generated array would take 3.2 GB."""

import os
import subprocess
import sys

import numpy as np
import pytest

import tegula as tg

REFUSED = r"the result needs 3\.0 GiB but the memory budget is 190\.7 MiB"


def huge():
    """20000² float64 random numbers in 2000² blocks: 3.2 GB, of which nothing is made."""
    return tg.random.default_rng(0).random((20000, 20000), chunks=2000)


MATERIALISE = {
    "compute": lambda x: x.compute(),
    "tg.compute": lambda x: tg.compute(x),
    "np.asarray": np.asarray,
    "np.array": np.array,
    "tolist": lambda x: x.tolist(),
    "from_dlpack": np.from_dlpack,
}


@pytest.mark.parametrize("name", sorted(MATERIALISE))
def test_materialising_above_the_budget_is_refused(name):
    with tg.config.set(memory="200MB"):
        with pytest.raises(MemoryError, match=REFUSED):
            MATERIALISE[name](huge())


def test_xarray_values_above_the_budget_are_refused():
    xr = pytest.importorskip("xarray")
    with tg.config.set(memory="200MB"):
        values = xr.DataArray(huge(), dims=("y", "x"))
        with pytest.raises(MemoryError, match=REFUSED):
            values.values


def test_a_selection_of_it_within_the_budget_is_computed():
    with tg.config.set(memory="200MB"):
        corner = np.asarray(huge()[:3, :4])
    assert corner.shape == (3, 4) and ((0 <= corner) & (corner < 1)).all()


def test_budget_from_the_environment_refuses_without_allocating():
    code = ("import numpy as np, tegula as tg\n"
            "x = tg.random.default_rng(0).random((20000, 20000), chunks=2000)\n"
            "try:\n    np.asarray(x)\nexcept MemoryError as e:\n    print(e)\n"
            # VmHWM is this process's own peak: ru_maxrss would include the parent's RSS at fork.
            "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')))\n")
    env = dict(os.environ, TEGULA_MEMORY="200MB")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    message, peak_kib = done.stdout.strip().splitlines()
    assert "the result needs 3.0 GiB but the memory budget is 190.7 MiB" in message
    assert int(peak_kib) < 1 << 20  # under 1 GiB held at the most: nothing was made
