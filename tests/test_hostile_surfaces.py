"""A hostile user against the newer surfaces (object storage, persist, the executors, times,
the options): nothing reachable outside what was asked for, no credential shown, no silent
wrong answer, no hang (tested in child processes with a time limit), nothing left behind by a
killed process, and a clear error for every bad input."""

import contextlib
import gc
import http.server
import json
import os
import resource
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import tegula as tg
from children import interruptible
from object_servers import fresh
from strategies import same_bytes

RUN_LIMIT = 120  # seconds a child process may take before it counts as hung


def run_child(code, *args, timeout=RUN_LIMIT, env=None):
    """Runs ``code`` in a fresh Python process; its output (stdout and stderr together)."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})
    return done.stdout + done.stderr


# --- 1. components and URLs cannot leave the group, however they are encoded ---------------
ENCODED_DOTS = ["%2e%2e/{name}", "%2E%2E/{name}", ".%2e/{name}", "%2e./{name}", "inside.zarr/%2e%2e/%2e%2e/{name}",
                "..%2f{name}", "%2e%2e%2f{name}"]


@pytest.mark.parametrize("component", ENCODED_DOTS)
def test_encoded_dots_in_a_component_cannot_leave_the_group(s3, component):
    secret = fresh(s3)
    tg.to_zarr(tg.arange(6.0, chunks=3), secret, storage_options=s3.options)
    group = fresh(s3)
    name = secret.rsplit("/", 1)[1]
    component = component.format(name=name)
    with pytest.raises(ValueError, match="component"):
        tg.from_zarr(group, component=component, storage_options=s3.options)
    for overwrite in (False, True):
        with pytest.raises(ValueError, match="component"):
            tg.to_zarr(tg.zeros(6, dtype="int8", chunks=3), group, component=component, overwrite=overwrite,
                       storage_options=s3.options)
    assert same_bytes(tg.from_zarr(secret, storage_options=s3.options).compute(), np.arange(6.0))


@pytest.mark.parametrize("path", ["grp/%2e%2e/{name}", "grp/%2E%2e/{name}", "grp/sub/.%2E/%2e%2e/{name}"])
def test_encoded_dots_in_a_url_are_refused_as_the_store_would_see_them(s3, tmp_path, path):
    secret = fresh(s3)
    tg.to_zarr(tg.arange(4, chunks=2), secret, storage_options=s3.options)
    url = f"{s3.bucket('arrays')}/{path.format(name=secret.rsplit('/', 1)[1])}"
    with pytest.raises(ValueError, match="'\\.\\.'"):
        tg.from_zarr(url, storage_options=s3.options)
    with pytest.raises(ValueError, match="'\\.\\.'"):
        tg.to_zarr(tg.ones(4, chunks=2), url, overwrite=True, storage_options=s3.options)
    assert same_bytes(tg.from_zarr(secret, storage_options=s3.options).compute(), np.arange(4))


def test_encoded_dots_over_http_never_reach_the_servers_root(tmp_path):
    root = tmp_path / "served"
    tg.to_zarr(tg.arange(5, chunks=5), str(root / "private.zarr"))
    (root / "public").mkdir()
    with serving(root) as url:
        np.testing.assert_array_equal(tg.from_zarr(f"{url}/private.zarr").compute(), np.arange(5))
        for component in ("%2e%2e/private.zarr", "x/%2E%2E/%2e%2e/private.zarr"):
            with pytest.raises(ValueError, match="component"):
                tg.from_zarr(f"{url}/public", component=component)
        with pytest.raises(ValueError, match="'\\.\\.'"):
            tg.from_zarr(f"{url}/public/%2e%2e/private.zarr")


# --- 2. credentials are removed by value, whatever option carries them ------------------------
SERVICE_ACCOUNT = {
    "type": "service_account",
    "project_id": "tegula-test-project",
    "private_key_id": "tegula0123456789abcdef0123456789",
    "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCTEGULASECRETKEYMATERIAL\n"
                   "AnotherLineOfTegulaSecretKeyMaterial0123456789\n-----END PRIVATE KEY-----\n",
    "client_email": "tegula-secret-robot@tegula-test-project.iam.gserviceaccount.com",
    "client_id": "123456789012345678901",
    "token_uri": "http://127.0.0.1:9/token",
}
SECRETS = ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCTEGULASECRETKEYMATERIAL", "AnotherLineOfTegulaSecretKeyMaterial",
           "tegula-secret-robot", "tegula0123456789abcdef"]


@pytest.mark.parametrize("token", [SERVICE_ACCOUNT, json.dumps(SERVICE_ACCOUNT), json.dumps(SERVICE_ACCOUNT, indent=2)])
def test_a_google_token_given_as_a_dict_or_json_is_never_shown(token):
    options = {"token": token, "max_retries": 0, "retry_timeout": 5, "timeout": "2s"}
    for attempt in (lambda: tg.from_zarr("gs://tegula-bucket/a.zarr", storage_options=options),
                    lambda: tg.to_zarr(tg.ones(3), "gs://tegula-bucket/b.zarr", storage_options=options)):
        with pytest.raises(Exception) as error:
            attempt()
        shown = f"{error.value!s} {error.value!r} {error.value.__cause__!r} {error.value.__context__!r}"
        for secret in SECRETS:
            assert secret not in shown, shown


def test_any_option_value_is_redacted_from_errors(s3):
    """An option the client does not call secret by name is still never shown."""
    url = fresh(s3)
    options = dict(s3.options, key="tegula-probe-key-AAAA", secret="tegula-probe-secret-BBBB",
                   token="tegula-probe-session-CCCC")
    with pytest.raises(OSError) as error:
        tg.to_zarr(tg.ones(3), url, storage_options=options)
    for secret in ("tegula-probe-key-AAAA", "tegula-probe-secret-BBBB", "tegula-probe-session-CCCC"):
        assert secret not in str(error.value)


# --- 3. a persisted array whose files were removed is an error, never zeros -------------------
def persisted_on_disk(spill_dir, scheduler="threads"):
    """An array persisted (almost) all on disk, and its values."""
    a = np.arange(1, 1001 * 300 + 1, dtype="float64").reshape(1001, 300)
    with tg.config.set(memory="2MB", spill_dir=str(spill_dir)):
        kept = tg.asarray(a, chunks=(50, 300)).persist(scheduler=scheduler)
    [kept_dir] = [d for d in os.listdir(spill_dir) if d.startswith("tegula-kept-")]
    return kept, a, spill_dir / kept_dir


@pytest.mark.parametrize("scheduler", ["threads", "processes"])
def test_a_removed_chunk_file_of_a_persisted_array_is_an_error(tmp_path, scheduler):
    kept, a, directory = persisted_on_disk(tmp_path, scheduler)
    np.testing.assert_array_equal(kept.compute(scheduler=scheduler), a)
    chunks = sorted(os.path.join(d, f) for d, _, files in os.walk(directory) for f in files if "/c/" in os.path.join(d, f))
    assert chunks
    os.remove(chunks[len(chunks) // 2])
    with pytest.raises(FileNotFoundError, match="removed while the array was in use"):
        kept.compute(scheduler=scheduler)
    with pytest.raises(FileNotFoundError, match="removed"):
        kept.sum(axis=0).compute(scheduler=scheduler)
    # The last row of blocks (one row, uneven) reads from the kept chunk of its own.
    os.remove(max(chunks, key=lambda path: int(path.split("/c/")[1].split("/")[0])))
    with pytest.raises(FileNotFoundError, match="removed"):
        kept[-1:].compute(scheduler=scheduler)


def test_a_removed_directory_of_a_persisted_array_says_so(tmp_path):
    import shutil

    kept, a, directory = persisted_on_disk(tmp_path)
    shutil.rmtree(directory)
    with pytest.raises(FileNotFoundError, match="directory was removed while the array was in use"):
        kept.compute()


# --- 4. a lazy array opened before an overwrite on object storage is an error -----------------
@pytest.mark.parametrize("scheduler", ["threads", "processes"])
def test_an_array_overwritten_in_object_storage_is_not_read_with_old_metadata(s3, scheduler):
    url = fresh(s3)
    tg.to_zarr(tg.asarray(np.arange(8, dtype="float32"), chunks=4), url, storage_options=s3.options)
    old = tg.from_zarr(url, storage_options=s3.options)
    np.testing.assert_array_equal(old.compute(scheduler=scheduler), np.arange(8, dtype="float32"))
    tg.to_zarr(tg.asarray(np.arange(8, dtype="int32") + 5, chunks=4), url, overwrite=True, storage_options=s3.options)
    with pytest.raises(OSError, match="replaced"):
        old.compute(scheduler=scheduler)
    new = tg.from_zarr(url, storage_options=s3.options)
    np.testing.assert_array_equal(new.compute(scheduler=scheduler), np.arange(8, dtype="int32") + 5)


# --- 5. NaT in order statistics and unique ----------------------------------------------------
TIME_UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns"]


def with_nat(kind, unit, seed, n=23):
    rng = np.random.default_rng(seed)
    values = rng.integers(-50, 50, n).astype(f"{kind}8[{unit}]")
    values[rng.random(n) < 0.3] = np.array("NaT", f"{kind}8[{unit}]")
    values[0] = values[3] = np.array("NaT", f"{kind}8[{unit}]")
    return values


@pytest.mark.parametrize("unit", TIME_UNITS)
def test_median_and_quantile_of_durations_with_nat_are_nat_as_numpys(unit):
    a = with_nat("m", unit, 1).reshape(1, 23).repeat(3, axis=0)
    a[1] = np.arange(23).astype(f"m8[{unit}]")  # one lane without NaT
    x = tg.asarray(a, chunks=(2, 5))
    for axis in (None, 1):
        np.testing.assert_array_equal(tg.median(x, axis=axis).compute(), np.median(a, axis=axis))
        for method in ("linear", "lower", "nearest"):
            np.testing.assert_array_equal(tg.quantile(x, [0.25, 0.5], axis=axis, method=method).compute(),
                                          np.quantile(a, [0.25, 0.5], axis=axis, method=method))
    assert np.isnat(tg.median(x).compute())


@pytest.mark.parametrize("unit", TIME_UNITS)
def test_nanmedian_of_durations_skips_nat_as_numpys(unit):
    a = with_nat("m", unit, 2)
    np.testing.assert_array_equal(tg.nanmedian(tg.asarray(a, chunks=4)).compute(), np.nanmedian(a))
    all_nat = np.array(["NaT"] * 4, f"m8[{unit}]")
    assert np.isnat(tg.nanmedian(tg.asarray(all_nat, chunks=3)).compute())


@pytest.mark.parametrize("kind", ["M", "m"])
@pytest.mark.parametrize("unit", TIME_UNITS)
def test_unique_collapses_nat_as_numpys(kind, unit):
    a = with_nat(kind, unit, 3)
    x = tg.asarray(a, chunks=5)
    for equal_nan in (True, False):
        values, counts = tg.unique(x, return_counts=True, equal_nan=equal_nan)
        expected_values, expected_counts = np.unique(a, return_counts=True, equal_nan=equal_nan)
        np.testing.assert_array_equal(values.compute(), expected_values)
        np.testing.assert_array_equal(counts.compute(), expected_counts)
    # The array API's functions keep every NaT apart, as NumPy's unique_counts does.
    values, counts = tg.unique_counts(x)
    np.testing.assert_array_equal(values.compute(), np.unique_counts(a).values)
    np.testing.assert_array_equal(counts.compute(), np.unique_counts(a).counts)


# --- 6. processes give the threaded executor's bits on products of uneven blocks ---------------
@pytest.mark.parametrize("shape,chunks", [((9, 9, 9), (4, 4, 4)), ((40, 33, 21), (8, 16, 5)), ((30, 30, 30), (7, 7, 1)),
                                          ((120, 100, 3), (50, 50, 2)), ((17, 6, 1), (5, 4, 1))])
def test_matmul_of_uneven_blocks_is_the_same_on_processes_bit_for_bit(shape, chunks):
    m, k, n = shape
    rng = np.random.default_rng(m * k + n)
    a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    x, y = tg.asarray(a, chunks=chunks[:2]), tg.asarray(b, chunks=chunks[1:])
    for product in (x @ y, x @ (y * 1.0), (x.T @ x[:, :n]) if n <= k else x @ y):
        threads = np.asarray(product.compute(scheduler="threads"))
        assert threads.tobytes() == np.asarray(product.compute(scheduler="processes")).tobytes()
    np.testing.assert_allclose(np.asarray((x @ y).compute()), a @ b, rtol=1e-12, atol=1e-12)


# --- 7. malformed endpoints are clear errors, never a panic or a hang -------------------------
BAD_ENDPOINTS = ["127.0.0.1:9000", "localhost", "http://user:pw@127.0.0.1:9", "ftp://127.0.0.1:9", "http://", 123]

_ENDPOINT_CHILD = """
import sys, tegula as tg
endpoint = eval(sys.argv[1])
options = {"key": "k", "secret": "s", "endpoint_url": endpoint, "max_retries": 0}
for name, attempt in [("write", lambda: tg.to_zarr(tg.ones(4, chunks=2), "s3://arrays/a.zarr", storage_options=options)),
                      ("read", lambda: tg.from_zarr("s3://arrays/a.zarr", storage_options=options))]:
    try:
        attempt()
        print(name, "no error")
    except Exception as e:
        print(name, type(e).__name__, str(e).replace("\\n", " "))
"""


@pytest.mark.parametrize("endpoint", BAD_ENDPOINTS)
def test_a_malformed_endpoint_is_a_clear_error_in_bounded_time(endpoint):
    out = run_child(_ENDPOINT_CHILD, repr(endpoint), timeout=60)
    expected = "TypeError" if not isinstance(endpoint, str) else "ValueError"
    assert f"write {expected}" in out and f"read {expected}" in out, out
    assert "panic" not in out.lower() and "pw@" not in out, out


# --- 8. Ctrl-C returns within a second whatever user code runs ---------------------------------
_STUCK_CHILD = """
import sys, time, numpy as np, tegula as tg
scheduler = sys.argv[1]
def stuck(block):
    time.sleep(3600)
    return block
def spinning(block):
    while True:
        pass
x = tg.ones((4, 4), chunks=2)
print("started", flush=True)
for f in (stuck, spinning):
    try:
        x.map_blocks(f, dtype=x.dtype).sum().compute(scheduler=scheduler, num_workers=2)
    except KeyboardInterrupt:
        print("interrupted at %.6f" % time.time(), flush=True)
    # The next computation runs, on threads of its own.
    print("next", x.sum().compute(scheduler=scheduler, num_workers=2), flush=True)
print("done", flush=True)
"""


def interrupt_twice(code, *args, settle=1.5):
    """Runs ``code`` in a child; sends SIGINT ``settle`` seconds after its line ``started``,
    and again after its first line ``next``; returns its output and the delays between each
    SIGINT and the interruption it reported. The child is killed after ``RUN_LIMIT`` seconds."""
    proc = interruptible(textwrap.dedent(code), *args)
    timer = threading.Timer(RUN_LIMIT, proc.kill)
    timer.start()
    lines, delays, sent = [], [], []
    try:
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("interrupted at") and len(sent) > len(delays):
                delays.append(float(line.split()[-1]) - sent[-1])
            if (line.startswith("started") and not sent) or (line.startswith("next") and len(sent) == 1):
                time.sleep(settle)
                sent.append(time.time())
                proc.send_signal(signal.SIGINT)
        proc.wait(10)
    finally:
        timer.cancel()
        proc.kill()
    return "".join(lines), delays


@pytest.mark.parametrize("scheduler", ["threads", "processes"])
def test_ctrl_c_returns_within_a_second_from_user_code_that_never_returns(scheduler):
    out, delays = interrupt_twice(_STUCK_CHILD, scheduler)
    assert "done" in out and out.count("next 16.0") == 2, out
    assert len(delays) == 2 and max(delays) < 1.0, (delays, out)


class _Dripping(http.server.BaseHTTPRequestHandler):
    """Sends a byte a second of a ``zarr.json`` of an hour's bytes."""

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "3600")
        self.end_headers()
        with contextlib.suppress(OSError):
            while True:
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(1)

    do_HEAD = do_GET

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def running(handler):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def serving(root):
    """A plain HTTP server of the files under ``root``."""

    class Files(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, *args):
            pass

    with running(Files) as url:
        yield url


_DRIP_CHILD = """
import sys, time, tegula as tg
print("started", flush=True)
try:
    tg.from_zarr(sys.argv[1] + "/a.zarr")
    print("opened")
except KeyboardInterrupt:
    print("interrupted at %.6f" % time.time(), flush=True)
print("done", flush=True)
"""


def test_ctrl_c_stops_waiting_for_a_server_that_drips():
    with running(_Dripping) as url:
        proc = interruptible(_DRIP_CHILD, url)
        try:
            assert proc.stdout.readline().strip() == "started"
            time.sleep(2)
            sent = time.time()
            proc.send_signal(signal.SIGINT)
            out = proc.communicate(timeout=30)[0]
        finally:
            proc.kill()
    stops = [float(line.split()[-1]) for line in out.splitlines() if line.startswith("interrupted at")]
    assert stops and stops[0] - sent < 1.0 and "done" in out, out


# --- 10. a server's answer larger than the object can be is refused as it arrives -------------
class _Huge(http.server.BaseHTTPRequestHandler):
    """A small array's metadata, but 200 MB for its chunk; or a 150 MB metadata document."""

    HUGE = 200 << 20

    def _metadata(self):
        return json.dumps({"zarr_format": 3, "node_type": "array", "shape": [50, 50], "data_type": "float64",
                           "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [50, 50]}},
                           "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                           "fill_value": 0.0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                           "attributes": {}}).encode()

    def do_GET(self, body=True):
        huge = self.path.startswith("/huge-metadata.zarr/") or self.path.endswith("/c/0/0")
        data = None if huge else self._metadata() if self.path.endswith("zarr.json") else None
        if not huge and data is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", str(self.HUGE if huge else len(data)))
        self.send_header("Last-Modified", "Tue, 01 Dec 2026 00:00:00 GMT")
        self.end_headers()
        if not body:
            return
        with contextlib.suppress(OSError):
            if not huge:
                self.wfile.write(data)
                return
            piece = b"{" + b" " * ((1 << 20) - 1)
            for _ in range(self.HUGE >> 20):
                self.wfile.write(piece)

    def do_HEAD(self):
        self.do_GET(body=False)

    def log_message(self, *args):
        pass


_HUGE_CHILD = """
import resource, sys, tegula as tg
def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
before = peak()
for name in ("a.zarr", "huge-metadata.zarr"):
    try:
        print(name, tg.from_zarr(sys.argv[1] + "/" + name).compute().sum())
    except Exception as e:
        print(name, type(e).__name__, str(e)[:300])
print("grew MB", peak() - before)
"""


def test_a_body_larger_than_its_object_can_be_is_refused_without_reading_it():
    with running(_Huge) as url:
        out = run_child(_HUGE_CHILD, url, timeout=60)
    assert "a.zarr OSError" in out and "huge-metadata.zarr" in out and "huge-metadata.zarr OSError" in out, out
    assert "refused" in out, out
    grew = int(out.rsplit("grew MB", 1)[1].split()[0])
    assert grew < 64, out


# --- 11. budgets with persisted arrays ------------------------------------------------------
def test_threads_persisting_at_once_keep_at_most_half_the_budget(tmp_path):
    gc.collect()
    before = tg._tegula.kept_bytes()
    budget = 64 << 20
    kept, errors = [], []

    def persist(seed):
        try:
            with tg.config.set(memory=budget, spill_dir=str(tmp_path)):
                kept.append(tg.random.default_rng(seed).random((2048, 1024), chunks=(256, 1024)).persist())
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=persist, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert tg._tegula.kept_bytes() - before <= budget // 2
    with tg.config.set(memory=budget):
        assert all(k.sum().compute() > 0 for k in kept)
        total = tg.stack(kept).sum(axis=0).mean().compute()
    expected = sum(np.asarray(k.compute()) for k in kept).mean()
    np.testing.assert_allclose(total, expected)
    del kept
    gc.collect()
    assert tg._tegula.kept_bytes() == before


@pytest.mark.parametrize("scheduler", ["threads", "processes"])
def test_a_persisted_block_is_not_counted_twice(tmp_path, scheduler):
    gc.collect()
    a = np.random.default_rng(5).standard_normal((1024, 1024))  # one 8 MiB block
    with tg.config.set(memory="16MiB", spill_dir=str(tmp_path)):
        x = tg.asarray(a, chunks=(1024, 1024))
        np.testing.assert_allclose(x.T.sum(axis=0).compute(scheduler=scheduler), a.sum(axis=1))
        kept = x.persist(scheduler=scheduler)
        assert tg._tegula.kept_bytes() >= a.nbytes, "the block was not kept in memory"
        # Read in place, or transposed (a view): nothing new to hold but the sums.
        np.testing.assert_allclose(kept.sum(axis=0).compute(scheduler=scheduler), a.sum(axis=0))
        np.testing.assert_allclose(kept.T.sum(axis=0).compute(scheduler=scheduler), a.sum(axis=1))
        np.testing.assert_allclose((kept * 2).max().compute(scheduler=scheduler), 2 * a.max())
    del kept


# --- 12. nothing of a killed process stays; thread pools do not pile up -------------------------
_KILLED_CHILD = """
import os, sys, time, numpy as np, tegula as tg
spill = sys.argv[1]
with tg.config.set(memory="4MB", spill_dir=spill):
    kept = tg.random.default_rng(0).random((2000, 500), chunks=(100, 500)).persist()
x = tg.random.default_rng(1).random((4000, 4000), chunks=(250, 250))
with tg.config.set(memory="40MB", spill_dir=spill):
    tg.compute(x.sum(), scheduler="processes", num_workers=2)
    print("ready", flush=True)
    def slow(block):
        time.sleep(0.05)
        return block
    tg.compute((x.map_blocks(slow, dtype=x.dtype) @ x.T).sum(axis=0), num_workers=2)
"""


def owned(directory, prefixes=("tegula-spill-", "tegula-kept-", "tegula-pool-")):
    return sorted(d for d in os.listdir(directory) if d.startswith(prefixes))


def test_what_a_killed_process_left_is_removed_by_the_next_one(tmp_path):
    spill = tmp_path / "spill"
    spill.mkdir()
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    before_shm = set(owned(shm, ("tegula-pool-",))) if shm else set()
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(_KILLED_CHILD), str(spill)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 60
        while not any(d.startswith("tegula-spill-") for d in os.listdir(spill)):
            assert time.monotonic() < deadline and proc.poll() is None, "the child never spilled"
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait()
    left = owned(spill)
    assert any(d.startswith("tegula-kept-") for d in left) and any(d.startswith("tegula-spill-") for d in left), left
    pools = set(owned(shm, ("tegula-pool-",))) - before_shm if shm else set()
    # The next tegula process using the same spill directory removes them.
    out = run_child("import sys, tegula as tg\nwith tg.config.set(spill_dir=sys.argv[1]):\n    print(tg.ones(3).sum().compute())",
                    spill)
    assert "3.0" in out, out
    assert owned(spill) == [], owned(spill)
    if shm:
        assert not (set(owned(shm, ("tegula-pool-",))) & pools)


def test_another_live_processs_directories_are_kept(tmp_path):
    mine = tmp_path / f"tegula-spill-{os.getpid()}-999"
    mine.mkdir()
    run_child("import sys, tegula as tg\ntg.config.set(spill_dir=sys.argv[1])", tmp_path)
    assert mine.is_dir()


def threads_now():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("Threads:"))


def test_many_distinct_num_workers_do_not_pile_up_threads():
    x = tg.ones((64, 64), chunks=16)
    x.sum().compute(scheduler="threads", num_workers=1)
    before = threads_now()
    for n in range(1, 41):
        assert x.sum().compute(scheduler="threads", num_workers=n) == 64 * 64
    time.sleep(0.5)  # threads of pools let go of end as they finish
    assert threads_now() - before < 2 * 40 + 8


# --- 13. clear errors for bad options --------------------------------------------------------
@pytest.mark.parametrize("value,error", [(0.5, ValueError), (0, ValueError), (-3, ValueError), (float("nan"), ValueError),
                                         (True, ValueError), ([1], TypeError)])
def test_bad_memory_budgets_are_refused_when_set(value, error):
    with pytest.raises(error, match="memory"):
        tg.config.set(memory=value)


@pytest.mark.parametrize("value,error", [(-1, ValueError), (0, ValueError), (True, TypeError), (2.0, TypeError),
                                         ("2", TypeError)])
def test_bad_num_workers_are_refused_everywhere(value, error):
    with pytest.raises(error, match="num_workers"):
        tg.config.set(num_workers=value)
    with pytest.raises(error, match="num_workers"):
        tg.ones(4).sum().compute(num_workers=value)
    with pytest.raises(error, match="num_workers"):
        tg.compute(tg.ones(4), num_workers=value)


def test_an_empty_spill_dir_is_refused():
    with pytest.raises(ValueError, match="spill_dir"):
        tg.config.set(spill_dir="")


def test_an_unknown_scheduler_names_no_internal_executor():
    try:
        import distributed  # noqa: F401
        from tegula._dask import executor_name

        executor_name("dask")  # registers the default client's runner
    except ImportError:
        pass
    with pytest.raises(ValueError) as error:
        tg.ones(3).sum().compute(scheduler="no-such-scheduler")
    assert "threads" in str(error.value) and "_dask" not in str(error.value) and "dask-0" not in str(error.value)


def test_map_blocks_errors_say_what_is_wrong():
    x = tg.ones((4, 4), chunks=2)
    with pytest.raises(ValueError, match="negative"):
        x.map_blocks(lambda b: b, chunks=(-1, 2), dtype=x.dtype)
    with pytest.raises(TypeError, match="ints"):
        x.map_blocks(lambda b: b, chunks=(2.5, 2), dtype=x.dtype)
    with pytest.raises(TypeError, match="returned None"):
        x.map_blocks(lambda b: None, dtype=x.dtype).compute()


def test_nat_fill_values():
    nat = np.datetime64("NaT", "s")
    np.testing.assert_array_equal(tg.full(3, nat).compute(), np.full(3, nat))
    np.testing.assert_array_equal(tg.full((2, 2), np.timedelta64("NaT"), dtype="m8[ms]").compute(),
                                  np.full((2, 2), np.timedelta64("NaT"), dtype="m8[ms]"))


def test_nat_fill_value_in_zarr(tmp_path):
    import zarr

    x = tg.asarray(np.array(["2020-01-01", "NaT"], "M8[s]"), chunks=1)
    tg.to_zarr(x, str(tmp_path / "t.zarr"), fill_value=np.datetime64("NaT"))
    np.testing.assert_array_equal(tg.from_zarr(str(tmp_path / "t.zarr")).compute(), np.asarray(x.compute()))
    assert np.isnat(zarr.open_array(str(tmp_path / "t.zarr"), mode="r").fill_value)


def test_what_a_killed_s3_writer_left_does_not_block_the_next_write(s3):
    url = fresh(s3)
    s3.put(f"{url}/c/0", b"partial chunk of a killed writer")
    s3.put(f"{url}/c/1", b"another")
    with pytest.raises(FileNotFoundError, match="no Zarr array"):
        tg.from_zarr(url, storage_options=s3.options)
    tg.to_zarr(tg.arange(6, chunks=3), url, storage_options=s3.options)
    np.testing.assert_array_equal(tg.from_zarr(url, storage_options=s3.options).compute(), np.arange(6))
    with pytest.raises(FileExistsError, match="overwrite=True"):
        tg.to_zarr(tg.arange(6, chunks=3), url, storage_options=s3.options)
