"""What the live view knows of this process's computations: for each, the events the native
compute hands over while it runs (every ``INTERVAL`` seconds, as columns of NumPy arrays: never
a Python call per task), folded into what the page shows — tasks done per operation, the latest
tasks per thread, worker or node, memory held and on disk over time, spills — and, once it has
ended, its whole trace for its report and its timeline (as ``tg.report`` records them)."""

import threading
import time

import numpy as np

# Seconds between two hand-overs of events from a running computation.
INTERVAL = 0.25
# Computations listed; the oldest are forgotten first.
MAX_COMPUTATIONS = 100
# Task events kept, over all computations, for their reports afterwards; the oldest
# computations' traces are dropped first (each event is about 64 bytes).
MAX_KEPT_EVENTS = 2_000_000
# The latest tasks kept per running computation for the task stream, and at most how many one
# answer sends (the page draws the latest seconds; the rest are counted, not drawn).
STREAM_KEPT = 20_000
STREAM_SENT = 2_000
# Points of memory over time one answer sends at most.
MEMORY_POINTS = 600
# Hand-overs a computation holds before folding them in: they are folded when the page asks,
# not on the computation's way back to its caller.
PENDING_MOST = 8

_SPILL_COLUMNS = ("spill_thread", "spill_start", "spill_end", "spill_bytes")
_TRANSFER_COLUMNS = ("transfer_from", "transfer_to", "transfer_at", "transfer_bytes")


def row_label(scheduler):
    """What one row of the task stream is for `scheduler`: a thread, a worker process or a node."""
    if scheduler in ("threads", "serial", "sync", "synchronous", "single-threaded"):
        return "thread"
    if scheduler == "processes":
        return "worker"
    return "node"


class Computation:
    """One computation as the live view sees it. ``feed`` is called by the native compute
    with each hand-over; ``finish`` once when it ends."""

    def __init__(self, number, scheduler, workers, budget):
        self.number = number
        self.scheduler = scheduler
        self.workers = workers
        self.budget = budget
        self.started = time.time()
        self.ended = None
        self.state = "planning"
        self.error = None
        self.operations = []
        self.tasks = 0
        self.done = 0
        self.seconds = 0.0
        self.op_done = np.zeros(0, np.int64)
        self.op_bytes = np.zeros(0, np.int64)
        self.rows = set()
        self.native_trace = None  # the extension's `_Trace`, kept for the report afterwards
        self.columns = None
        self.stream = {k: np.zeros(0, np.float64 if k in ("start", "end") else np.int64) for k in ("thread", "operation", "start", "end")}
        self.spills = []  # (thread, start, end, bytes)
        self.spilled = 0
        self.transfers = []  # (from node, to node, when, bytes)
        self.node_bytes = {}  # node: [bytes received, bytes sent], as the plan moves them
        self.memory = []  # (seconds, held, on disk): the most held in each hand-over
        self.info = None
        self.pending = []  # hand-overs not folded in yet

    def feed(self, delta):
        """Takes one hand-over (see ``LiveCursor`` in the extension), folded in later; its
        trace at once, so the kept events are counted (``MAX_KEPT_EVENTS``) whether or not a
        page asks."""
        if "trace" in delta:
            self.native_trace = delta["trace"]
        self.pending.append(delta)
        if len(self.pending) >= PENDING_MOST:
            self.settle()

    def settle(self):
        """Folds in the hand-overs taken since the last call."""
        pending, self.pending = self.pending, []
        for delta in pending:
            self._fold(delta)

    def _fold(self, delta):
        if "operations" in delta:
            # Described without the static order: no projected peaks (the report shows none).
            self.operations = [o if delta["ordered"] else {**o, "peak": None} for o in delta["operations"]]
            self.tasks = int(delta["tasks"])
            self.op_done = np.zeros(len(self.operations), np.int64)
            self.op_bytes = np.zeros(len(self.operations), np.int64)
        if self.state == "planning":  # a hand-over may be folded in after the end
            self.state = "running"
        self.seconds = float(delta["seconds"])
        self.done += int(delta["ended"])
        self.op_done += delta["operation_done"].astype(np.int64)
        self.op_bytes += delta["operation_bytes"].astype(np.int64)
        if len(delta["thread"]):
            self.rows.update(np.unique(delta["thread"]).tolist())
            for k in self.stream:
                self.stream[k] = np.concatenate([self.stream[k], delta[k]])[-STREAM_KEPT:]
        if "held" in delta:
            self.memory.append((delta["held_at"], delta["held"], delta["on_disk"]))
        for t, s, e, b in zip(*(delta[k] for k in _SPILL_COLUMNS)):
            self.spills.append((t, s, e, b))
            self.spilled += b
            self.rows.add(t)
        for source, target, at, b in zip(*(delta[k] for k in _TRANSFER_COLUMNS)):
            self.transfers.append((source, target, at, b))
            self.node_bytes.setdefault(target, [0, 0])[0] += b
            self.node_bytes.setdefault(source, [0, 0])[1] += b
        del self.transfers[:-STREAM_SENT]

    def finish(self, info=None, error=None):
        """The computation ended: with the executor's report `info`, or with `error`."""
        self.state = "failed" if error is not None else "finished"
        self.error = None if error is None else f"{type(error).__name__}: {error}"
        self.info = info
        self.ended = time.time()
        if info is None:
            self.settle()
            self.native_trace = None

    @property
    def trace(self):
        """The whole trace of a finished computation, as ``tg.report`` records it (made once,
        when first asked for); None while it runs, or when it failed or was dropped."""
        self.settle()
        if self.columns is None and self.native_trace is not None and self.ended is not None:
            columns = self.native_trace.columns()
            self.columns = {**columns, "operations": self.operations}
            self.native_trace = None
        return self.columns

    def events_kept(self):
        if self.columns is not None:
            return len(self.columns["task"])
        return 0 if self.native_trace is None else len(self.native_trace)

    def drop_trace(self):
        self.settle()  # a hand-over not folded in yet holds the trace too
        self.native_trace = None
        self.columns = None

    def summary(self):
        self.settle()
        return {
            "number": self.number,
            "state": self.state,
            "scheduler": self.scheduler,
            "started": self.started,
            "seconds": self.seconds,
            "done": self.done,
            "tasks": self.tasks,
            "report": self.ended is not None and (self.columns is not None or self.native_trace is not None),
            "label": self._label(),
        }

    def _label(self):
        """The computation's last operations, as people named them."""
        labels = [o["label"] for o in self.operations[-2:]]
        return ", ".join(labels) if labels else "planning"

    def answer(self, since):
        """What the page needs to draw this computation: every figure, and the task stream's
        rectangles after the first `since` events (at most ``STREAM_SENT``, the latest; the
        others are counted in ``skipped``)."""
        self.settle()
        new = max(0, self.done - since)
        sent = min(new, len(self.stream["end"]), STREAM_SENT)
        tail = slice(len(self.stream["end"]) - sent, None)
        operations = [
            {"label": o["label"], "kind": o["kind"], "inputs": o["inputs"], "tasks": o["tasks"],
             "done": int(d), "bytes": int(b), "fused": o["fused"]}
            for o, d, b in zip(self.operations, self.op_done.tolist(), self.op_bytes.tolist())
        ]
        return {
            **self.summary(),
            "error": self.error,
            "budget": self.budget,
            "row_label": row_label(self.scheduler),
            "rows": sorted(self.rows),
            "operations": operations,
            "seq": self.done,
            "skipped": new - sent,
            "stream": {
                "thread": self.stream["thread"][tail].tolist(),
                "operation": self.stream["operation"][tail].tolist(),
                "start": np.round(self.stream["start"][tail], 5).tolist(),
                "end": np.round(self.stream["end"][tail], 5).tolist(),
            },
            "spills": self.spills[-STREAM_SENT:],
            "spilled": self.spilled,
            "transfers": self.transfers,
            "node_bytes": {str(n): b for n, b in sorted(self.node_bytes.items())},
            "memory": _thinned(self.memory, MEMORY_POINTS),
            "nodes": _node_figures(self.info),
        }


def _thinned(points, most):
    """`points` cut to at most `most`, keeping the most held of each run of neighbours."""
    if len(points) <= most:
        return points
    step = -(-len(points) // most)
    return [max(points[i : i + step], key=lambda p: p[1] + p[2]) for i in range(0, len(points), step)]


def _node_figures(info):
    """On a cluster, after the run: each node's fragments and bytes made, received, sent and
    held at peak (measured where the engine measures, else as the placement simulated them)."""
    if not info or "simulated" not in info:
        return None
    figures = info.get("measured") or info["simulated"]
    keys = ("fragments", "bytes_made", "bytes_in", "bytes_out", "peak_bytes")
    return {
        "measured": bool(info.get("measured")),
        "between": figures["bytes_between_nodes"],
        "nodes": [{k: node[k] for k in keys} for node in figures["nodes"]],
    }


class Computations:
    """This process's computations, as the live view lists them; safe to use from any thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.items = []
        self.count = 0
        self.version = 0  # changes whenever anything the page shows may have

    def start(self, scheduler, workers, budget):
        with self.lock:
            self.count += 1
            self.version += 1
            c = Computation(self.count, scheduler, workers, budget)
            self.items.append(c)
            del self.items[:-MAX_COMPUTATIONS]
            return c

    def feed(self, computation, delta):
        with self.lock:
            self.version += 1
            computation.feed(delta)

    def finish(self, computation, info=None, error=None):
        with self.lock:
            self.version += 1
            computation.finish(info, error)
            self._within_kept_events()

    def finished_trace(self, number):
        """The computation numbered `number` and its whole trace (None if it has none)."""
        with self.lock:
            c = next((c for c in self.items if c.number == number), None)
            return c, (None if c is None else c.trace)

    def _within_kept_events(self):
        """Drops the oldest traces beyond ``MAX_KEPT_EVENTS`` (once a computation ends: a
        running one's trace is needed whole for its report)."""
        kept = [c for c in self.items if c.events_kept()]
        total = sum(c.events_kept() for c in kept)
        for c in kept:
            if total <= MAX_KEPT_EVENTS:
                break
            total -= c.events_kept()
            c.drop_trace()

    def state(self, number, since, version=None):
        """The page's answer: every computation listed, and the one numbered `number` (the
        latest when None or unknown) drawn; only ``{"unchanged": True}`` when nothing changed
        since the answer of `version` (a page left open between computations costs nothing)."""
        with self.lock:
            if version == self.version:
                return {"unchanged": True, "version": version}
            chosen = next((c for c in self.items if c.number == number), None) or (self.items[-1] if self.items else None)
            return {
                "now": time.time(),
                "version": self.version,
                "computations": [c.summary() for c in self.items],
                "current": None if chosen is None else chosen.answer(since if chosen.number == number else 0),
            }
