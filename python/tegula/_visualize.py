"""Pictures of a plan: the chunk task graph (one node per task; a fused task, which computes a
whole chain of operations, is one node) or, for big graphs, one node per operation; nodes
coloured by static execution order (the order the executors prefer: dark first, light last)
or by operation. Drawn by Graphviz ``dot`` when it is installed and asked for, else by tegula
itself as a self-contained SVG (no system package, no network)."""

import os
import shutil
import subprocess

from ._svg import category_colour, escape, human_bytes, sequential_colour, text_colour

# "auto" draws tasks up to this many, operations beyond.
MAX_TASK_NODES = 300
_TASK_BOX = (96, 26, 40, 10)  # width, height, gap between layers, gap within a layer
_OPERATION_BOX = (210, 46, 60, 16)


def visualize(array, filename=None, color="order", level="auto", fuse=True, renderer="auto"):
    """Draws the plan computing ``array``.

    ``level``: "tasks" (one node per chunk task), "operations" (one node per operation, with
    its task count) or "auto" (tasks up to 300, operations beyond). ``color``: "order" or
    "operation". ``renderer``: "svg" (tegula's own drawing), "dot" (Graphviz, which must be
    installed) or "auto" (dot when installed and ``filename`` asks for a format only it writes,
    such as .png or .pdf; else svg). With ``filename``, writes the picture there (an ``.html``
    name wraps the SVG in a page) and returns the name; without, returns the SVG text."""
    if color not in ("order", "operation"):
        raise ValueError(f"color must be 'order' or 'operation', got {color!r}")
    if level not in ("auto", "tasks", "operations"):
        raise ValueError(f"level must be 'auto', 'tasks' or 'operations', got {level!r}")
    if renderer not in ("auto", "svg", "dot"):
        raise ValueError(f"renderer must be 'auto', 'svg' or 'dot', got {renderer!r}")
    plan = array._h.describe(fuse)
    if level == "auto":
        level = "tasks" if len(plan["task_label"]) <= MAX_TASK_NODES else "operations"
    nodes, edges = (_task_nodes if level == "tasks" else _operation_nodes)(plan, color)
    ext = os.path.splitext(filename)[1].lower().lstrip(".") if filename else "svg"
    if renderer == "dot" or (renderer == "auto" and ext not in ("svg", "html", "htm") and shutil.which("dot")):
        return _write_with_dot(nodes, edges, filename, ext)
    if ext not in ("svg", "html", "htm"):
        raise ValueError(f"tegula draws .svg and .html itself; {filename!r} needs Graphviz (renderer='dot')")
    svg = draw_svg(nodes, edges, level, color)
    if filename is None:
        return svg
    text = svg if ext == "svg" else f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>tegula plan</title></head><body>{svg}</body></html>\n'
    with open(filename, "w", encoding="utf-8") as f:
        f.write(text)
    return filename


def _task_nodes(plan, color):
    """Nodes (id, label, tooltip, fill, inputs) of the task graph."""
    ops, rank = plan["operations"], plan["rank"]
    last = max(len(rank) - 1, 1)
    nodes = []
    for t, label in enumerate(plan["task_label"]):
        op = int(plan["task_operation"][t])
        fill = sequential_colour(rank[t] / last) if color == "order" else category_colour(op)
        tip = f"task {t}: {label} ({ops[op]['label']}), order {rank[t]}, {human_bytes(plan['task_bytes'][t])}"
        nodes.append({"id": t, "label": label, "tip": tip, "fill": fill, "dashed": False})
    edges = sorted({(i, t) for t, inputs in enumerate(plan["task_inputs"]) for i in inputs})
    return nodes, edges


def _operation_nodes(plan, color):
    """Nodes of the operation graph: an operation's order is that of its first task; one with
    no tasks of its own (computed inside another's fused tasks, or a concatenation) is dashed."""
    ops, rank = plan["operations"], plan["rank"]
    first = {}
    for t, op in enumerate(plan["task_operation"]):
        first[int(op)] = min(first.get(int(op), rank[t]), rank[t])
    last = max(len(rank) - 1, 1)
    nodes = []
    for i, op in enumerate(ops):
        name = op["fused"] or op["label"]
        if color == "operation":
            fill = category_colour(i)
        else:
            fill = sequential_colour(first[i] / last) if i in first else "#eeeeee"
        tip = (f"{op['label']}: shape {tuple(op['shape'])}, {op['dtype']}, chunks {tuple(op['chunk_shape'])}, "
               f"{op['blocks']} blocks, {op['tasks']} tasks, writes {human_bytes(op['bytes_written'])}")
        nodes.append({
            "id": i, "label": name, "sub": f"{op['tasks']:,} tasks · {op['blocks']:,} blocks",
            "tip": tip, "fill": fill, "dashed": op["tasks"] == 0,
        })
    edges = sorted({(j, i) for i, op in enumerate(ops) for j in op["inputs"]})
    return nodes, edges


def _layers(nodes, edges):
    """Each node's layer (longest path from a node without inputs) and its place in it:
    nodes are placed by the mean place of their inputs (one sweep), ties by id."""
    inputs = {n["id"]: [] for n in nodes}
    for a, b in edges:
        inputs[b].append(a)
    layer = {}
    for n in nodes:  # ids are in dependency order: tasks and operations are listed inputs first
        layer[n["id"]] = 1 + max((layer[i] for i in inputs[n["id"]]), default=-1)
    by_layer = {}
    for n in nodes:
        by_layer.setdefault(layer[n["id"]], []).append(n["id"])
    place = {}
    for k in sorted(by_layer):
        def key(v):
            ins = [place[i] for i in inputs[v] if i in place]
            return (sum(ins) / len(ins) if ins else -1.0, v)

        for p, v in enumerate(sorted(by_layer[k], key=key)):
            place[v] = p
    return layer, place


def draw_svg(nodes, edges, level, color):
    """tegula's own drawing: layers from left to right, inputs before their consumers."""
    width, height, layer_gap, gap = _TASK_BOX if level == "tasks" else _OPERATION_BOX
    layer, place = _layers(nodes, edges)
    n_layers = max(layer.values(), default=0) + 1
    tallest = max(place.values(), default=0) + 1
    total_w = n_layers * (width + layer_gap) + 20
    total_h = tallest * (height + gap) + 60
    xy = {v: (10 + layer[v] * (width + layer_gap), 40 + place[v] * (height + gap)) for v in layer}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="tegula-plan" data-level="{level}" '
        f'width="{total_w}" height="{total_h}" viewBox="0 0 {total_w} {total_h}">',
        f'<text x="10" y="20" font-family="sans-serif" font-size="13">{len(nodes):,} {level} · '
        f"coloured by {escape(color)}{' (dark: first, light: last)' if color == 'order' else ''}</text>",
    ]
    for a, b in edges:
        (x0, y0), (x1, y1) = xy[a], xy[b]
        out.append(
            f'<line class="edge" x1="{x0 + width}" y1="{y0 + height / 2}" x2="{x1}" y2="{y1 + height / 2}" '
            f'stroke="#999" stroke-width="1"/>'
        )
    for n in nodes:
        x, y = xy[n["id"]]
        dash = ' stroke-dasharray="4,3"' if n["dashed"] else ""
        label = n["label"] if len(n["label"]) <= width // 7 else n["label"][: width // 7 - 1] + "…"
        ink = text_colour(n["fill"])
        sub = ""
        if "sub" in n:
            sub = f'<text x="{x + 6}" y="{y + 36}" font-family="sans-serif" font-size="11" fill="{ink}">{escape(n["sub"])}</text>'
        out.append(
            f'<g class="node" data-id="{n["id"]}"><title>{escape(n["tip"])}</title>'
            f'<rect x="{x}" y="{y}" width="{width}" height="{height}" rx="4" fill="{n["fill"]}" stroke="#444"{dash}/>'
            f'<text x="{x + 6}" y="{y + 17}" font-family="sans-serif" font-size="12" fill="{ink}">{escape(label)}</text>'
            f"{sub}</g>"
        )
    out.append("</svg>")
    return "\n".join(out)


def to_dot(nodes, edges):
    """The graph in Graphviz's language."""
    lines = ["digraph tegula {", "  rankdir=LR;", '  node [shape=box, style="rounded,filled", fontname="sans-serif"];']
    for n in nodes:
        # Graphviz's \n starts a new line of the label; the parts themselves are escaped.
        label = _dot_text(n["label"]) + (f"\\n{_dot_text(n['sub'])}" if "sub" in n else "")
        style = ', style="rounded,filled,dashed"' if n["dashed"] else ""
        lines.append(
            f'  n{n["id"]} [label="{label}", tooltip="{_dot_text(n["tip"])}", '
            f'fillcolor="{n["fill"]}", fontcolor="{text_colour(n["fill"])}"{style}];'
        )
    lines.extend(f"  n{a} -> n{b};" for a, b in edges)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_text(text):
    return str(text).replace("\\", "\\\\").replace('"', '\\"')


def _write_with_dot(nodes, edges, filename, ext):
    dot = shutil.which("dot")
    if dot is None:
        raise RuntimeError("renderer='dot' needs Graphviz's `dot` program, which is not installed; "
                           "use renderer='svg' (tegula's own drawing)")
    fmt = ext if filename else "svg"
    done = subprocess.run([dot, f"-T{fmt}"], input=to_dot(nodes, edges).encode(), capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"dot failed: {done.stderr.decode(errors='replace').strip()}")
    if filename is None:
        return done.stdout.decode()
    with open(filename, "wb") as f:
        f.write(done.stdout)
    return filename
