"""The live view: ``tg.dashboard()`` serves a page showing every computation of this process
while it runs — a task stream per thread, worker process or node, progress per operation and
the plan coloured by it, memory held against the budget and bytes spilled — and each one
afterwards (its report, as ``tg.report`` writes them, and its timeline for Perfetto). Dask's
dashboard is what it follows.

Safe by default: the server listens on 127.0.0.1 only and answers requests from the loopback
address whose ``Host`` names it (so a web page elsewhere cannot read it through DNS tricks);
bound to any other address, every request must carry a random token, which the printed link
holds. It only answers ``GET``: no endpoint runs code or changes anything."""

import hmac
import http.server
import ipaddress
import json
import secrets
import socket
import sys
import threading
import urllib.parse

from . import _chrome_trace, _dashboard_page, _live, _report, config

DEFAULT_PORT = 8788
_lock = threading.Lock()
_running: list["Dashboard"] = []
computations = _live.Computations()


def dashboard(port=None, address="127.0.0.1", show=True):
    """Starts the live view (once per process; later calls return the one running) and prints
    its link, as Dask prints its dashboard's. ``port``: ``None`` (8788, or any free port if
    taken), ``0`` (any free port) or a number; ``address``: where it listens, 127.0.0.1 unless
    said (any other address puts a random token in the link, which every request must carry).
    Returns the ``Dashboard``; ``tg.config.set(dashboard=True)`` (or a port, or
    ``"address:port"``; the environment variable ``TEGULA_DASHBOARD``) starts it at the next
    computation instead."""
    with _lock:
        if _running:
            return _running[0]
        board = Dashboard(address, port)
        _running.append(board)
    if show:
        print(f"tegula dashboard: {board.link}", file=sys.stderr)
    return board


def running():
    """The live view serving now, started by the settings if they ask for one; else None."""
    if _running:
        return _running[0]
    wanted = config.get("dashboard")
    if wanted is False:
        return None
    address, port = _address_and_port(wanted)
    return dashboard(port=port, address=address)


def _address_and_port(wanted):
    if wanted is True:
        return "127.0.0.1", None
    if isinstance(wanted, int):
        return "127.0.0.1", wanted
    host, _, port = str(wanted).rpartition(":")
    return host or "127.0.0.1", int(port)


class Dashboard:
    """A live view serving on ``address``:``port``; ``link`` is its page (with the token where
    one is needed). ``close()`` stops it."""

    def __init__(self, address="127.0.0.1", port=None):
        self.address = address
        self.loopback = _is_loopback(address)
        self.token = None if self.loopback else secrets.token_urlsafe(24)
        self.bytes_sent = 0  # answers' bodies, in all (what the page costs the network)
        self.server = _bind(address, port)
        self.server.board = self
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, name="tegula-dashboard", daemon=True)
        self.thread.start()

    @property
    def link(self):
        host = self.address if self.loopback else socket.gethostname()
        if ":" in host:
            host = f"[{host}]"
        query = f"?token={self.token}" if self.token else ""
        return f"http://{host}:{self.port}/{query}"

    def close(self):
        with _lock:
            if self in _running:
                _running.remove(self)
        self.server.shutdown()
        self.server.server_close()

    def __repr__(self):
        return f"<tegula dashboard at {self.link}>"

    def _repr_html_(self):
        return f'<a href="{self.link}" target="_blank">tegula dashboard: {self.link}</a>'


def _is_loopback(address):
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return address == "localhost"


def _bind(address, port):
    family = socket.AF_INET6 if ":" in address else socket.AF_INET

    class Server(http.server.ThreadingHTTPServer):
        address_family = family
        daemon_threads = True

    if port is not None:
        return Server((address, port), _Handler)
    try:
        return Server((address, DEFAULT_PORT), _Handler)
    except OSError:
        return Server((address, 0), _Handler)


class _Handler(http.server.BaseHTTPRequestHandler):
    server_version = "tegula-dashboard"

    def do_GET(self):  # noqa: N802 - the name http.server calls
        board = self.server.board
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        if not self._allowed(board, query):
            return self._send(403, "text/plain", b"refused: the tegula dashboard answers this machine, or the link's token\n")
        try:
            status, kind, body = _route(url.path, query)
        except (ValueError, KeyError) as e:
            status, kind, body = 400, "text/plain", f"bad request: {e}\n".encode()
        self._send(status, kind, body)

    def _refuse_writes(self):
        self._send(405, "text/plain", b"the tegula dashboard is read-only\n")

    do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _refuse_writes  # noqa: N815

    def _allowed(self, board, query):
        client = self.client_address[0]
        if board.token is not None:
            given = (query.get("token") or [""])[0]
            return hmac.compare_digest(given.encode(), board.token.encode())
        # Loopback only, and only pages that asked for this server by a loopback name.
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0].strip("[]")
        return _is_loopback(client) and (host == "localhost" or _is_loopback(host))

    def _send(self, status, kind, body):
        self.send_response(status)
        self.send_header("Content-Type", f"{kind}; charset=utf-8" if kind.startswith("text") or kind.endswith("json") else kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; img-src 'self' data:")
        self.end_headers()
        self.wfile.write(body)
        self.server.board.bytes_sent += len(body)

    def log_message(self, *args):  # no line on stderr per request
        pass


def _route(path, query):
    """(status, content type, body) for a GET of `path`."""
    if path in ("/", "/index.html"):
        return 200, "text/html", _dashboard_page.PAGE.encode()
    if path == "/api/state":
        number = _int(query, "c")
        since = _int(query, "since") or 0
        answer = computations.state(number, since, _int(query, "v"))
        return 200, "application/json", json.dumps(answer).encode()
    parts = path.strip("/").split("/")
    if len(parts) == 2 and parts[0] in ("report", "trace"):
        c, trace = computations.finished_trace(int(parts[1].removesuffix(".json")))
        if trace is None:
            return 404, "text/plain", b"no such finished computation (or its trace was dropped)\n"
        recorded = {"trace": trace, "info": c.info, "scheduler": c.scheduler, "workers": c.workers, "when": c.ended}
        if parts[0] == "report":
            return 200, "text/html", _report.render([recorded], f"tegula computation {c.number}").encode()
        return 200, "application/json", json.dumps(_chrome_trace.chrome_trace([recorded])).encode()
    return 404, "text/plain", b"not found\n"


def _int(query, key):
    values = query.get(key)
    return int(values[0]) if values and values[0] not in ("", "null") else None


class Feed:
    """Hands one computation's events to the live view: the native compute calls it every
    ``_live.INTERVAL`` seconds with the tasks that ended since; in a notebook it shows the
    view in the cell's output once the computation has run half a second."""

    def __init__(self, board, scheduler, workers, budget):
        self.board = board
        self.computation = computations.start(scheduler, workers, budget)
        self.shown = False

    def __call__(self, delta):
        computations.feed(self.computation, delta)
        if not self.shown and delta["seconds"] >= 0.5:
            self.shown = True
            _show_in_notebook(self.board, self.computation.number)

    def finish(self, info=None, error=None):
        computations.finish(self.computation, info, error)


def feed(scheduler, workers, budget):
    """A `Feed` for a computation starting now, when a live view is serving (or the settings
    start one); else None."""
    board = running()
    return None if board is None else Feed(board, scheduler, workers, budget)


def _show_in_notebook(board, number):
    from ._progress import _in_notebook

    if not _in_notebook():
        return
    from IPython.display import IFrame, display

    separator = "&" if "?" in board.link else "?"
    display(IFrame(f"{board.link}{separator}c={number}&embed=1", width="100%", height=460))
