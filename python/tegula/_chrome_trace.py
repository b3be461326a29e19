"""Computations' timelines in Chrome's trace-event format (the JSON object form), which
Perfetto's UI (ui.perfetto.dev) and ``chrome://tracing`` open: one complete event (``"ph":
"X"``) per task, named by its operation, on the track of the thread, worker process or node
that ran it (``tid``), each computation a process of its own (``pid``, counted from 1); times
in microseconds from the start of the first computation."""

import numpy as np

from ._live import row_label


def chrome_trace(computations):
    """The trace of `computations`, each as ``tg.report`` records them (``trace``, ``info``,
    ``scheduler``, ``when``: the wall time it ended), as a dict ready for ``json.dump``."""
    starts = [c["when"] - _wall(c["trace"]) for c in computations]
    origin = min(starts, default=0.0)
    events = []
    for pid, (c, start) in enumerate(zip(computations, starts), 1):
        events.extend(_task_events(c, pid, (start - origin) * 1e6))
    return {
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "otherData": {
            "producer": "tegula",
            "computations": [
                {"pid": pid, "scheduler": str(c["scheduler"]), "tid_is": row_label(c["scheduler"]), "tasks": len(c["trace"]["task"])}
                for pid, c in enumerate(computations, 1)
            ],
        },
    }


def _wall(trace):
    return float(trace["end"].max()) if len(trace["end"]) else 0.0


def _task_events(computation, pid, offset):
    trace = computation["trace"]
    operations = trace["operations"]
    names = [o["label"] for o in operations]
    kinds = [o.get("kind", "compute") for o in operations]
    start = np.round(np.asarray(trace["start"], np.float64) * 1e6 + offset, 3).tolist()
    duration = np.round((np.asarray(trace["end"], np.float64) - np.asarray(trace["start"], np.float64)) * 1e6, 3).tolist()
    columns = zip(trace["task"].tolist(), trace["thread"].tolist(), trace["operation"].tolist(), trace["bytes"].tolist(), start, duration)
    return [
        {"name": names[op], "cat": kinds[op], "ph": "X", "ts": ts, "dur": dur, "pid": pid, "tid": thread, "args": {"task": task, "bytes": nbytes}}
        for task, thread, op, nbytes, ts, dur in columns
    ]
