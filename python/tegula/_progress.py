"""The progress bar of long computations: tasks done of the total, bytes produced, elapsed time
and an estimate of the time left, drawn on the terminal (stderr) or, in Jupyter, in the cell's
output. The native compute calls the bar every ``INTERVAL`` seconds from the thread waiting for
the computation (never once per task)."""

import sys

from . import config
from ._svg import human_bytes

INTERVAL = 0.1
# With the automatic setting, computations shorter than this never show a bar.
AUTO_DELAY = 0.5
WIDTH = 30


def resolve(progress):
    """The bar a computation gets: ``progress`` as given to ``compute`` (``None``: the
    ``progress`` setting of ``tg.config``). ``True`` always shows one; ``False`` never; "auto"
    shows one, after ``AUTO_DELAY`` seconds, only where someone watches (a terminal or a
    notebook), never in scripts whose output goes to a file or a pipe."""
    if progress is None:
        progress = config.get("progress")
    if progress is False:
        return None
    if progress == "auto":
        if not _interactive():
            return None
        return Bar(delay=AUTO_DELAY)
    if progress is True:
        return Bar(delay=0.0)
    raise ValueError(f"progress must be True, False or 'auto', got {progress!r}")


def _in_notebook():
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    ip = shell.get_ipython()
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def _interactive():
    return _in_notebook() or (hasattr(sys.stderr, "isatty") and sys.stderr.isatty())


def seconds_text(s):
    """A duration for people: ``4.2 s`` under a minute, then ``3m07s``, then ``2h05m``."""
    if round(s, 1) < 60:
        return f"{s:.1f} s"
    m, s = divmod(int(round(s)), 60)
    return f"{m}m{s:02d}s" if m < 60 else f"{m // 60}h{m % 60:02d}m"


def line(done, total, nbytes, elapsed):
    """The bar as one line of text. The bytes are those the finished tasks produced, in all
    (labelled ``done``: they are not the memory held)."""
    fraction = done / total if total else 0.0
    filled = int(round(fraction * WIDTH))
    eta = elapsed * (total - done) / done if done else None
    eta_text = "?" if eta is None else seconds_text(eta)
    return (
        f"[{'#' * filled}{' ' * (WIDTH - filled)}] {fraction:4.0%}  {done:,}/{total:,} tasks  "
        f"done {human_bytes(nbytes)}  {seconds_text(elapsed)}  ETA {eta_text}"
    )


class Bar:
    """Called by the native compute with ``(done, total, bytes, seconds)``: while the work
    runs, and once more when it ends (possibly after a call that already saw every task done)."""

    def __init__(self, delay=0.0, stream=None):
        self.delay = delay
        self.stream = stream
        self.shown = False
        self.closed = False
        self.handle = None  # the notebook's display handle
        self.last = None
        self.width = 0  # the longest line written on the terminal, blanked when redrawn

    def __call__(self, done, total, nbytes, elapsed):
        if self.closed:
            return
        self.last = (done, total, nbytes, elapsed)
        if not self.shown and elapsed < self.delay:
            return
        self.shown = True
        text = line(done, total, nbytes, elapsed)
        finished = done >= total and total > 0
        if self.stream is None and _in_notebook():
            self._draw_in_notebook(text, finished)
        else:
            self._draw_on_terminal(text)
        if finished:
            self.close()

    def _draw_on_terminal(self, text):
        """Redraws the line in place, blanking what a longer earlier line left after it."""
        stream = self.stream or sys.stderr
        stream.write("\r" + text.ljust(self.width))
        stream.flush()
        self.width = max(self.width, len(text))

    def close(self):
        """Ends the bar: the terminal's line is finished with a newline, once; later calls
        draw nothing."""
        if self.closed:
            return
        self.closed = True
        if self.shown and (self.stream is not None or not _in_notebook()):
            stream = self.stream or sys.stderr
            stream.write("\n")
            stream.flush()

    def _draw_in_notebook(self, text, finished):
        from IPython.display import HTML, display

        fraction = self.last[0] / self.last[1] if self.last[1] else 0.0
        colour = "#3a7" if finished else "#48c"
        html = HTML(
            f'<div style="font-family:monospace"><div style="width:320px;border:1px solid #999;height:10px">'
            f'<div style="width:{fraction * 100:.1f}%;background:{colour};height:10px"></div></div>'
            f"{text[WIDTH + 3:]}</div>"
        )
        if self.handle is None:
            self.handle = display(html, display_id=True)
        else:
            self.handle.update(html)
