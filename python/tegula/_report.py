"""Execution reports: ``with tg.report("report.html"): ...`` traces every computation made in
the block (each task's thread, start and end, the memory held and spilled after it) and then
writes one self-contained HTML file: per computation, a task stream per thread over time,
memory in use and on disk over time against the budget, and a table of time and bytes per
operation. A file name ending in ``.json`` gets the computations' timeline instead, in Chrome's
trace-event format (one event per task), which Perfetto's UI and ``chrome://tracing`` open."""

import json
import time

import numpy as np

from ._chrome_trace import chrome_trace
from ._svg import category_colour, escape, human_bytes, human_seconds

_recording: list["report"] = []

# Above this many tasks the task stream draws, per thread and per pixel column, the operation
# that ran longest there instead of one rectangle per task.
MAX_RECTANGLES = 5000
STREAM_WIDTH = 960
ROW_HEIGHT = 22
MEMORY_HEIGHT = 180
MAX_MEMORY_POINTS = 2000


def active():
    """The report recording computations now, if any."""
    return _recording[-1] if _recording else None


class report:  # noqa: N801 - used as `with tg.report(...)`, like a function
    """Records every computation made inside the ``with`` block and writes an HTML report of
    them to ``filename`` when it ends (also when it ends with an exception). The file needs
    nothing but a browser: no network, no scripts.

    >>> with tg.report("report.html"):
    ...     (x + 1).sum().compute()
    """

    def __init__(self, filename="tegula-report.html", title="tegula execution report"):
        self.filename = filename
        self.title = title
        self.computations = []

    def __enter__(self):
        _recording.append(self)
        return self

    def __exit__(self, *exc):
        _recording.remove(self)
        if str(self.filename).lower().endswith(".json"):
            with open(self.filename, "w", encoding="utf-8") as f:
                json.dump(chrome_trace(self.computations), f)
        else:
            with open(self.filename, "w", encoding="utf-8") as f:
                f.write(self.html())
        return False

    def add(self, trace, info, scheduler, num_workers):
        """Called by the compute for each computation it ran while recording."""
        self.computations.append(
            {"trace": trace, "info": info, "scheduler": scheduler, "workers": num_workers, "when": time.time()}
        )

    def html(self):
        return render(self.computations, self.title)


def render(computations, title):
    """The report's page of `computations` (as ``report.add`` records them)."""
    sections = "\n".join(_section(i, c) for i, c in enumerate(computations))
    if not sections:
        sections = "<p>No computation ran while the report was recording.</p>"
    return _PAGE.format(title=escape(title), sections=sections)


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 24px; color: #222; }}
h1 {{ font-size: 22px; }} h2 {{ font-size: 18px; margin-top: 32px; }} h3 {{ font-size: 15px; }}
table {{ border-collapse: collapse; font-size: 13px; }}
td, th {{ border-bottom: 1px solid #ddd; padding: 3px 10px; text-align: right; }}
td:first-child, th:first-child {{ text-align: left; }}
.summary td {{ border: none; padding: 1px 12px 1px 0; }}
.swatch {{ display: inline-block; width: 10px; height: 10px; margin-right: 5px; }}
svg text {{ font-family: system-ui, sans-serif; }}
</style></head><body>
<h1>{title}</h1>
{sections}
</body></html>
"""


def _section(index, computation):
    trace, info = computation["trace"], computation["info"]
    ops = trace["operations"]
    start, end = trace["start"], trace["end"]
    wall = float(end.max()) if len(end) else 0.0
    threads = int(trace["thread"].max()) + 1 if len(end) else 0
    parts = [
        f'<section class="computation" data-tasks="{info["tasks"]}">',
        f"<h2>Computation {index + 1}: {info['tasks']:,} tasks in {human_seconds(wall)}</h2>",
        _summary(info, wall, threads),
        "<h3>Tasks over time, per thread</h3>",
        _legend(trace, ops),
        _task_stream(trace, ops, wall, threads),
        "<h3>Memory over time</h3>",
        _memory_plot(trace, info, wall),
        "<h3>Time and bytes per operation</h3>",
        _operation_table(trace, ops, end - start),
        _node_table(info),
        "</section>",
    ]
    return "\n".join(parts)


def _node_table(info):
    """On a cluster, each node's fragments and bytes made, received, sent and held at peak:
    measured (where the runner measures) and as the placement was simulated."""
    if "simulated" not in info:
        return ""
    measured, simulated = info.get("measured") or {"nodes": []}, info["simulated"]
    keys = ("fragments", "bytes_made", "bytes_in", "bytes_out", "peak_bytes")
    head = "".join(f"<th>{k.replace('_', ' ')}</th>" for k in keys)
    rows = []
    for name, figures in (("measured", measured), ("simulated", simulated)):
        for n, node in enumerate(figures["nodes"]):
            cells = [str(node["fragments"])] + [human_bytes(node[k]) for k in keys[1:]]
            rows.append(f"<tr><td>{n}</td><td>{name}</td>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    moved = human_bytes(measured["bytes_between_nodes"]) + " measured" if info.get("measured") else "not measured"
    return (
        f"<h3>Per node: {moved}, {human_bytes(simulated['bytes_between_nodes'])} simulated, "
        f"moved between nodes</h3>"
        f'<table class="nodes"><tr><th>node</th><th></th>{head}</tr>{"".join(rows)}</table>'
    )


def _summary(info, wall, threads):
    rows = [
        ("tasks", f"{info['tasks']:,}"),
        ("time", human_seconds(wall)),
        ("threads that ran tasks", str(threads)),
        ("peak memory held (measured)", human_bytes(info["peak_bytes"])),
        ("memory budget", human_bytes(info["memory"])),
        ("spilled to disk", human_bytes(info["spilled_bytes"])),
    ]
    cells = "".join(f"<tr><td>{escape(k)}</td><td>{escape(v)}</td></tr>" for k, v in rows)
    return f'<table class="summary">{cells}</table>'


def _operation_name(op):
    return op["fused"] or op["label"]


def _used_operations(trace):
    return sorted(set(int(i) for i in trace["operation"]))


def _legend(trace, ops):
    items = [
        f'<span><span class="swatch" style="background:{category_colour(i)}"></span>'
        f"{escape(_operation_name(ops[i]))}</span>"
        for i in _used_operations(trace)
    ]
    return '<p class="legend">' + " &nbsp; ".join(items) + "</p>"


def _task_stream(trace, ops, wall, threads):
    width, height = STREAM_WIDTH, threads * ROW_HEIGHT + 24
    scale = width / wall if wall > 0 else 0.0
    out = [f'<svg class="task-stream" xmlns="http://www.w3.org/2000/svg" width="{width + 140}" height="{height}">']
    for t in range(threads):
        out.append(f'<text x="0" y="{t * ROW_HEIGHT + 15}" font-size="12">thread {t}</text>')
    if len(trace["start"]) <= MAX_RECTANGLES:
        out.extend(_task_rectangles(trace, ops, scale))
    else:
        out.extend(_task_columns(trace, scale, threads))
    out.append(_time_axis(wall, threads * ROW_HEIGHT + 4, width))
    out.append("</svg>")
    return "\n".join(out)


def _task_rectangles(trace, ops, scale):
    for task, thread, s, e, op in zip(trace["task"], trace["thread"], trace["start"], trace["end"], trace["operation"]):
        x, w = 70 + s * scale, max((e - s) * scale, 0.5)
        title = f"task {task}: {_operation_name(ops[op])}, {human_seconds(e - s)}"
        yield (
            f'<rect class="task" x="{x:.2f}" y="{thread * ROW_HEIGHT + 2}" width="{w:.2f}" height="{ROW_HEIGHT - 4}" '
            f'fill="{category_colour(int(op))}"><title>{escape(title)}</title></rect>'
        )


def _task_columns(trace, scale, threads):
    """Per thread and pixel column, the operation that ran longest in it."""
    busy = {}
    for thread, s, e, op in zip(trace["thread"], trace["start"], trace["end"], trace["operation"]):
        first, last = int(s * scale), int(e * scale)
        for col in range(first, min(last, STREAM_WIDTH - 1) + 1):
            share = min(e * scale, col + 1) - max(s * scale, col)
            key = (int(thread), col)
            per_op = busy.setdefault(key, {})
            per_op[int(op)] = per_op.get(int(op), 0.0) + max(share, 1e-9)
    for (thread, col), per_op in sorted(busy.items()):
        op = max(per_op, key=per_op.get)
        yield (
            f'<rect class="task-column" x="{70 + col}" y="{thread * ROW_HEIGHT + 2}" width="1" '
            f'height="{ROW_HEIGHT - 4}" fill="{category_colour(op)}"/>'
        )


def _time_axis(wall, y, width):
    ticks = []
    for k in range(6):
        t = wall * k / 5
        x = 70 + width * k / 5
        ticks.append(f'<line x1="{x:.1f}" y1="{y}" x2="{x:.1f}" y2="{y + 4}" stroke="#666"/>')
        ticks.append(f'<text x="{x:.1f}" y="{y + 16}" font-size="11" text-anchor="middle">{human_seconds(t)}</text>')
    return f'<line x1="70" y1="{y}" x2="{70 + width}" y2="{y}" stroke="#666"/>' + "".join(ticks)


def _steps(times, values):
    """Points of a step line (value after each time), thinned to MAX_MEMORY_POINTS by keeping
    the largest value per interval so peaks survive."""
    if len(times) > MAX_MEMORY_POINTS:
        edges = np.linspace(0, len(times), MAX_MEMORY_POINTS + 1).astype(int)
        keep = [a + int(np.argmax(values[a:b])) for a, b in zip(edges, edges[1:]) if b > a]
        times, values = times[keep], values[keep]
    return [(0.0, 0)] + list(zip(times.tolist(), values.tolist()))


def _memory_plot(trace, info, wall):
    order = np.argsort(trace["end"], kind="stable")
    times = trace["end"][order]
    held, on_disk = trace["held"][order].astype(float), trace["on_disk"][order].astype(float)
    budget = float(info["memory"])
    top = max(float(held.max(initial=0)), float(on_disk.max(initial=0)), 1.0)
    # The budget is drawn when it is within the plot's range; a far larger one is only named.
    budget_shown = budget <= 4 * top
    if budget_shown:
        top = max(top, budget)
    top *= 1.1
    width, height = STREAM_WIDTH, MEMORY_HEIGHT
    xs = (lambda t: 70 + (t / wall * width if wall > 0 else 0.0))
    ys = (lambda v: 10 + height - v / top * height)

    def path(series, colour, name):
        pts = _steps(times, series)
        d = "M" + " L".join(f"{xs(t):.1f},{ys(v):.1f}" for t, v in pts)
        return f'<path class="{name}" d="{d}" fill="none" stroke="{colour}" stroke-width="1.5"/>'

    out = [f'<svg class="memory" xmlns="http://www.w3.org/2000/svg" width="{width + 140}" height="{height + 40}">']
    out.append(path(held, "#4e79a7", "held"))
    out.append(path(on_disk, "#e15759", "on-disk"))
    if budget_shown:
        y = ys(budget)
        out.append(f'<line class="budget" x1="70" y1="{y:.1f}" x2="{70 + width}" y2="{y:.1f}" stroke="#333" stroke-dasharray="6,4"/>')
        out.append(f'<text x="{72 + width}" y="{y + 4:.1f}" font-size="11">budget</text>')
    for k in range(5):
        v = top * k / 4
        out.append(f'<text x="64" y="{ys(v) + 4:.1f}" font-size="11" text-anchor="end">{human_bytes(v)}</text>')
    out.append(f'<line x1="70" y1="10" x2="70" y2="{10 + height}" stroke="#666"/>')
    out.append(_time_axis(wall, 10 + height, width))
    out.append("</svg>")
    note = "" if budget_shown else f" (the budget, {human_bytes(budget)}, is far above this scale)"
    legend = (
        '<p><span class="swatch" style="background:#4e79a7"></span>held in memory &nbsp; '
        '<span class="swatch" style="background:#e15759"></span>spilled to disk'
        + (" &nbsp; dashed: the memory budget" if budget_shown else "") + escape(note) + "</p>"
    )
    return legend + "\n".join(out)


def _operation_table(trace, ops, durations):
    total_time = float(durations.sum()) or 1.0
    head = "<tr><th>operation</th><th>tasks</th><th>task time</th><th>share</th><th>mean per task</th>" \
           "<th>bytes read</th><th>bytes written</th><th>projected peak (one task at a time)</th></tr>"
    rows = []
    per_op = trace["operation"]
    for i in _used_operations(trace):
        mine = durations[per_op == i]
        op = ops[i]
        rows.append(
            f'<tr class="operation"><td><span class="swatch" style="background:{category_colour(i)}"></span>'
            f"{escape(_operation_name(op))}</td><td>{len(mine):,}</td><td>{human_seconds(float(mine.sum()))}</td>"
            f"<td>{float(mine.sum()) / total_time:.1%}</td><td>{human_seconds(float(mine.mean()))}</td>"
            f"<td>{human_bytes(op['bytes_read'])}</td><td>{human_bytes(op['bytes_written'])}</td>"
            f"<td>{'–' if op['peak'] is None else human_bytes(op['peak'])}</td></tr>"
        )
    return f'<table class="operations">{head}{"".join(rows)}</table>'
