"""The ``tegula`` command, run as ``python -m tegula`` in a child process: ``info`` on Zarr
(format 2 and 3, sharded, compressed, groups) and ``.npy`` files written by tegula and by
zarr-python states what was written; bad paths give a one-line error; ``demo`` estimates pi;
``bench`` runs the suite of this checkout."""

import math
import os
import re
import subprocess
import sys

import numcodecs
import numpy as np
import pytest
import zarr

import tegula as tg
from tegula import _cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tegula(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tegula", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


def info(path):
    """``info``'s ``key: value`` lines as a dict."""
    done = tegula("info", path)
    assert done.returncode == 0, done.stderr
    return dict(re.match(r"([^:]+):\s+(.*)", line).groups() for line in done.stdout.splitlines())


def stored_bytes(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(root, f)) for root, _, files in os.walk(path) for f in files)


def check_sizes(fields, path, data):
    assert fields["bytes"].split()[0] == str(data.nbytes)
    stored = stored_bytes(path)
    assert fields["stored"].split()[0] == str(stored)
    assert float(fields["ratio"]) == pytest.approx(data.nbytes / stored, abs=0.005)


def grid(shape, chunks):
    return tuple(math.ceil(n / c) for n, c in zip(shape, chunks))


@pytest.mark.parametrize("shape, chunks, dtype, codec", [
    ((10, 100), (5, 10), "float64", "zstd"),
    ((7, 3, 5), (2, 3, 4), "int16", "gzip"),
    ((1000,), (64,), "uint8", None),
])
def test_info_of_zarr_v2_written_by_tegula(tmp, shape, chunks, dtype, codec):
    data = (np.arange(np.prod(shape)) % 7).astype(dtype).reshape(shape)
    path = os.path.join(tmp, "a.zarr")
    tg.asarray(data).to_zarr(path, chunks=chunks, compressor=codec, zarr_format=2, compression_level=2)
    fields = info(path)
    assert fields["format"] == "Zarr v2"
    assert fields["shape"] == str(shape)
    assert fields["dtype"] == dtype
    assert fields["chunks"] == str(chunks)
    assert fields["chunk grid"].startswith(f"{grid(shape, chunks)}, {np.prod(grid(shape, chunks))} chunks")
    assert fields["codecs"] == (f"{codec}(level=2)" if codec else "none")
    assert fields["fill value"] == ("0.0" if dtype == "float64" else "0")
    check_sizes(fields, path, data)


def test_info_of_sharded_zstd_zarr_v3_written_by_tegula(tmp):
    data = np.linspace(0, 1, 24 * 30, dtype=np.float32).reshape(24, 30)
    path = os.path.join(tmp, "a.zarr")
    tg.asarray(data).to_zarr(path, chunks=(4, 10), shards=(8, 30), compressor="zstd", compression_level=5)
    fields = info(path)
    assert (fields["format"], fields["shape"], fields["dtype"]) == ("Zarr v3", "(24, 30)", "float32")
    assert (fields["chunks"], fields["shards"]) == ("(4, 10)", "(8, 30)")
    assert fields["chunk grid"] == "(6, 3), 18 chunks"
    assert fields["shard grid"] == "(3, 1), 3 shards"
    assert re.fullmatch(r"sharding_indexed\[bytes\(endian=little\) -> zstd\(level=5, checksum=false\); "
                        r"index end: .*crc32c\]", fields["codecs"])
    check_sizes(fields, path, data)


def test_info_of_zarr_written_by_zarr_python(tmp):
    data = np.arange(10 * 100, dtype=np.int32).reshape(10, 100)
    path3 = os.path.join(tmp, "v3.zarr")
    z = zarr.create_array(path3, shape=data.shape, chunks=(5, 10), shards=(5, 50), dtype=data.dtype,
                          compressors=zarr.codecs.ZstdCodec(level=3), fill_value=7)
    z[:] = data
    fields = info(path3)
    assert (fields["shape"], fields["dtype"], fields["chunks"], fields["shards"]) == ("(10, 100)", "int32", "(5, 10)",
                                                                                      "(5, 50)")
    assert "zstd(level=3" in fields["codecs"] and fields["codecs"].startswith("sharding_indexed[")
    assert fields["fill value"] == "7"
    assert fields["tegula blocks"].endswith("grid (1, 1)")
    check_sizes(fields, path3, data)

    path2 = os.path.join(tmp, "v2.zarr")
    z = zarr.create_array(path2, shape=(6, 9), chunks=(4, 4), dtype="f4", zarr_format=2,
                          compressors=numcodecs.Blosc(cname="lz4", clevel=4), fill_value=np.nan)
    z[:] = np.ones((6, 9), np.float32)
    fields = info(path2)
    assert (fields["format"], fields["shape"], fields["dtype"], fields["chunks"]) == ("Zarr v2", "(6, 9)", "float32",
                                                                                      "(4, 4)")
    assert fields["chunk grid"] == "(2, 3), 6 chunks"
    assert fields["codecs"].startswith("blosc(cname=lz4, clevel=4,")
    assert fields["fill value"] == '"NaN"'


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_info_of_a_group_lists_its_arrays(tmp, zarr_format):
    path = os.path.join(tmp, "g.zarr")
    group = zarr.open_group(path, mode="w", zarr_format=zarr_format)
    group.create_array("a", shape=(3,), dtype="i2")
    group.create_group("sub").create_array("b", shape=(4, 6), chunks=(2, 3), dtype="f8")
    done = tegula("info", path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert f"format: Zarr v{zarr_format} group" in [" ".join(line.split()) for line in lines]
    assert lines[-3:] == ["arrays:", "  a  shape (3,)  dtype int16  chunks (3,)",
                          "  sub/b  shape (4, 6)  dtype float64  chunks (2, 3)"]


@pytest.mark.parametrize("data", [np.arange(12.0).reshape(3, 4), np.zeros((2, 0, 3), np.int8),
                                  np.asfortranarray(np.ones((5, 2), np.uint16)), np.array(3.5, np.float32)])
def test_info_of_npy(tmp, data):
    path = os.path.join(tmp, "a.npy")
    np.save(path, data)
    fields = info(path)
    assert (fields["format"], fields["shape"], fields["dtype"]) == ("npy 1.0", str(data.shape), str(data.dtype))
    assert fields["order"] == ("F" if data.ndim > 1 and not data.flags.c_contiguous else "C")
    assert int(fields["header"].split()[0]) == os.path.getsize(path) - data.nbytes
    assert fields["bytes"].split()[0] == str(data.nbytes)
    assert fields["stored"].split()[0] == str(os.path.getsize(path))


def test_info_of_npy_written_by_tegula(tmp):
    path = os.path.join(tmp, "a.npy")
    tg.to_npy(tg.arange(60, dtype=np.int64).reshape(6, 10), path)
    fields = info(path)
    assert (fields["shape"], fields["dtype"], fields["order"]) == ("(6, 10)", "int64", "C")
    check_sizes(fields, path, np.zeros((6, 10), np.int64))


@pytest.mark.parametrize("name, content", [("missing", None), ("notes.txt", "hello"), ("empty_dir", ""),
                                           ("bad.npy", "not a npy")])
def test_info_of_a_bad_path_is_a_one_line_error(tmp, name, content):
    path = os.path.join(tmp, name)
    if name == "empty_dir":
        os.mkdir(path)
    elif content is not None:
        with open(path, "w") as f:
            f.write(content)
    done = tegula("info", path)
    assert done.returncode != 0
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith("tegula info: ") and path in done.stderr


def test_no_command_or_unknown_arguments_are_usage_errors():
    assert tegula().returncode == 2
    assert tegula("info", "a", "b").returncode == 2


def read_estimate(output):
    return float(re.search(r"pi ~= ([0-9.]+)", output).group(1))


def test_demo_estimates_pi():
    done = tegula("demo", "--points", "1e6", "--chunk", "1e5")
    assert done.returncode == 0, done.stderr
    assert "points: 1,000,000 in chunks of 100,000" in done.stdout
    assert abs(read_estimate(done.stdout) - math.pi) < 0.01


def test_showcase_script_calls_the_demo():
    done = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "showcase.py"), "--points", "2e5",
                           "--chunk", "5e4"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "in chunks of 50,000" in done.stdout and abs(read_estimate(done.stdout) - math.pi) < 0.02


def test_bench_passes_its_arguments_to_the_suite():
    # Run from the checkout: an installed package (pip install .) finds the suite there.
    done = tegula("bench", "--help", cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: run.py") and "--quick" in done.stdout


def test_bench_without_a_checkout_says_how_to_get_it(monkeypatch, capsys):
    monkeypatch.setattr(_cli, "_bench_script", lambda: None)
    assert _cli.main(["bench", "--quick"]) != 0
    assert "bench/run.py not found" in capsys.readouterr().err


def test_bench_of_a_package_installed_outside_a_checkout_says_where_the_suite_lives(tmp_path):
    # The package as a wheel installs it: a directory of its own, far from bench/.
    site = tmp_path / "lib" / "site-packages"
    site.mkdir(parents=True)
    (site / "tegula").symlink_to(os.path.dirname(os.path.abspath(tg.__file__)))
    env = dict(os.environ, PYTHONPATH=str(site))
    done = subprocess.run([sys.executable, "-m", "tegula", "bench", "--quick"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and done.stdout == ""
    assert "bench/ of tegula's source repository" in done.stderr
    assert "python bench/run.py --quick" in done.stderr
