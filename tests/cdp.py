"""A headless Chromium driven over the DevTools protocol: open a page, evaluate JavaScript in
it, take screenshots. Used by the live view's tests, bench/dashboard.py and docs/make_screenshots.py;
Chromium comes from Debian's chromium-headless-shell (scripts/browser.sh installs it)."""

import base64
import contextlib
import json
import os
import re
import signal
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.request

import websocket

EXECUTABLES = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome")


def executable():
    """The Chromium found on PATH, or None."""
    return next((shutil.which(name) for name in EXECUTABLES if shutil.which(name)), None)


class Browser:
    """A headless Chromium of its own (a fresh profile), closed by ``close`` or ``with``."""

    def __init__(self, width=1280, height=900):
        exe = executable()
        if exe is None:
            raise RuntimeError("no Chromium found: run scripts/browser.sh (Debian's chromium-headless-shell)")
        self.profile = tempfile.mkdtemp(prefix="tegula-chromium-")
        self.size = (width, height)
        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", f"--user-data-dir={self.profile}",
                f"--window-size={width},{height}", "about:blank"]
        # A process group of its own: Debian's command is a shell script that starts the browser
        # as its child, which killing the script alone would leave running (and polling).
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.port = self._devtools_port()
        # Keep reading its stderr so a chatty Chromium never blocks on a full pipe.
        threading.Thread(target=self.process.stderr.read, daemon=True).start()

    def _devtools_port(self):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line and self.process.poll() is not None:
                break
            found = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if found:
                return int(found.group(1))
        self.close()
        raise RuntimeError("Chromium did not start its DevTools server")

    def open(self, url):
        """A new tab showing `url`, once loaded."""
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/json/new?about:blank", method="PUT")
        with urllib.request.urlopen(request, timeout=30) as r:
            target = json.load(r)
        page = Page(target["webSocketDebuggerUrl"])
        page.call("Emulation.setDeviceMetricsOverride", width=self.size[0], height=self.size[1], deviceScaleFactor=1, mobile=False)
        page.call("Page.navigate", url=url)
        page.wait_for("location.protocol !== 'about:' && document.readyState === 'complete'")
        return page

    def close(self):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Page:
    """One tab, over its DevTools websocket."""

    def __init__(self, ws_url):
        self.ws = websocket.create_connection(ws_url, timeout=60, suppress_origin=True)
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def evaluate(self, expression):
        """The value of a JavaScript expression in the page (JSON-serialisable)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, timeout=60):
        """Waits until `expression` is true in the page."""
        deadline = time.monotonic() + timeout
        while not self.evaluate(expression):
            if time.monotonic() > deadline:
                raise TimeoutError(f"the page never made {expression!r} true")
            time.sleep(0.1)

    def screenshot(self, path=None):
        """The page as PNG bytes (also written to `path` when given)."""
        png = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        if path is not None:
            with open(path, "wb") as f:
                f.write(png)
        return png
