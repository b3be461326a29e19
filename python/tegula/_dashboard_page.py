"""The live view's page: one self-contained HTML file (no network: its script and styles are
inline) that asks the server for ``api/state`` twice a second and draws the answer."""

PAGE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>tegula dashboard</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { font-family: system-ui, sans-serif; margin: 0; color: #222; background: #fafafa; }
header { background: #2b3a4a; color: #fff; padding: 8px 16px; display: flex; gap: 24px; align-items: baseline; flex-wrap: wrap; }
header h1 { font-size: 18px; margin: 0; }
header .figure { font-size: 14px; } header .figure b { font-size: 16px; }
main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 12px; padding: 12px 16px; }
section { background: #fff; border: 1px solid #ddd; border-radius: 4px; padding: 8px 12px; min-width: 0; }
section.wide { grid-column: 1 / -1; }
h2 { font-size: 14px; margin: 0 0 6px 0; color: #444; }
table { border-collapse: collapse; font-size: 12px; width: 100%; }
td, th { border-bottom: 1px solid #eee; padding: 2px 6px; text-align: right; white-space: nowrap; }
td:first-child, th:first-child { text-align: left; }
td.label { max-width: 320px; overflow: hidden; text-overflow: ellipsis; }
.bar { background: #eee; height: 10px; width: 140px; display: inline-block; vertical-align: middle; }
.bar > div { background: #4c78a8; height: 100%; }
.swatch { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 10px; vertical-align: middle; }
#legend { font-size: 12px; margin-top: 4px; }
#stream-box { display: flex; }
#stream-rows { font-size: 11px; padding-right: 6px; }
#stream-rows .row { height: 18px; line-height: 18px; white-space: nowrap; }
canvas { width: 100%; display: block; }
#computations tr { cursor: pointer; } #computations tr.chosen { background: #e8f0fa; }
.state-running { color: #1f77b4; } .state-finished { color: #2ca02c; } .state-failed { color: #d62728; }
.muted { color: #888; font-size: 12px; }
body.embed main { grid-template-columns: minmax(0, 1fr); } body.embed .full { display: none; }
</style></head><body>
<header><h1>tegula</h1>
<span class="figure">computation <b id="number">–</b> <span id="state" class="muted">waiting for a computation</span></span>
<span class="figure">tasks <b id="done">0</b> / <b id="total">0</b></span>
<span class="figure">elapsed <b id="elapsed">0 s</b></span>
<span class="figure">memory <b id="held">0 B</b> of <span id="budget">–</span></span>
<span class="figure">spilled <b id="spilled">0 B</b></span>
</header>
<main>
<section class="wide"><h2>Tasks over the last <span id="window">20</span> s, per <span id="row-label">thread</span></h2>
<div id="stream-box"><div id="stream-rows"></div><div style="flex: 1; min-width: 0"><canvas id="stream" height="60"></canvas></div></div>
<div id="legend"></div><div id="skipped" class="muted"></div></section>
<section><h2>Progress per operation</h2><table id="operations"></table></section>
<section><h2>Memory held and on disk</h2><canvas id="memory" height="160"></canvas>
<div class="muted"><span class="swatch" style="background:#4c78a8"></span>held <span class="swatch" style="background:#f58518"></span>on disk <span class="swatch" style="background:#d62728"></span>budget</div>
<div id="nodes"></div></section>
<section class="full"><h2>Plan, coloured by progress</h2><div id="plan" style="overflow:auto"></div></section>
<section class="full"><h2>Computations of this process</h2><table id="computations"></table></section>
</main>
<script>
"use strict";
const params = new URLSearchParams(location.search);
const token = params.get("token");
const embedded = params.has("embed");
if (embedded) document.body.classList.add("embed");
let chosen = params.has("c") ? Number(params.get("c")) : null;  // null: follow the latest
let shown = null, seq = 0, rects = [], lastAnswer = null;
let version = null, versionOf;  // the state last drawn, and the computation asked for then
const LONGEST = 20, ROW = 18;
let WINDOW = LONGEST;
const PALETTE = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#eeca3b", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac"];
const colour = i => PALETTE[i % PALETTE.length];

function bytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"]; let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i ? n.toFixed(1) : String(Math.round(n))) + " " + units[i];
}
function seconds(s) { return s < 60 ? s.toFixed(1) + " s" : Math.floor(s / 60) + "m" + String(Math.round(s % 60)).padStart(2, "0") + "s"; }
function text(id, value) { document.getElementById(id).textContent = value; }
function el(tag, attrs, children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children || []) e.append(c);
  return e;
}

async function poll() {
  const q = new URLSearchParams({ since: String(seq) });
  const want = chosen !== null ? chosen : shown;
  if (want !== null) q.set("c", String(want));
  if (version !== null && versionOf === want) q.set("v", String(version));
  if (token) q.set("token", token);
  try {
    const r = await fetch("api/state?" + q.toString(), { cache: "no-store" });
    if (r.ok) {
      const answer = await r.json();
      if (!answer.unchanged) draw(answer);
      version = answer.version; versionOf = want;
    }
  } catch (e) { text("state", "dashboard unreachable"); }
  setTimeout(poll, 500);
}

function draw(answer) {
  lastAnswer = answer;
  const list = answer.computations;
  // Following the latest: move on to a newer computation as soon as it is listed.
  if (chosen === null && list.length && shown !== null && list[list.length - 1].number !== shown) {
    shown = list[list.length - 1].number; seq = 0; rects = []; return;
  }
  const c = answer.current;
  drawComputations(list, c);
  if (!c) return;
  if (c.number !== shown) { shown = c.number; seq = 0; rects = []; }
  for (let i = 0; i < c.stream.end.length; i++)
    rects.push([c.stream.thread[i], c.stream.operation[i], c.stream.start[i], c.stream.end[i]]);
  const horizon = c.seconds - LONGEST;
  rects = rects.filter(r => r[3] >= horizon).slice(-20000);
  seq = c.seq;
  text("number", c.number);
  const st = document.getElementById("state");
  st.textContent = c.state + (c.error ? ": " + c.error : "") + " · " + c.scheduler;
  st.className = "state-" + c.state;
  text("done", c.done); text("total", c.tasks);
  text("elapsed", seconds(c.seconds));
  const last = c.memory.length ? c.memory[c.memory.length - 1] : [0, 0, 0];
  text("held", bytes(last[1])); text("budget", c.budget ? bytes(c.budget) : "–");
  text("spilled", bytes(c.spilled));
  text("row-label", c.row_label);
  text("skipped", c.skipped ? c.skipped.toLocaleString() + " tasks ended too fast to draw since the last update (counted above)" : "");
  drawStream(c); drawOperations(c); drawMemory(c); drawPlan(c); drawNodes(c);
}

function drawStream(c) {
  const rows = c.rows.length ? c.rows : [0];
  const names = document.getElementById("stream-rows");
  names.replaceChildren(...rows.map(r => el("div", { class: "row", "data-row": r }, [c.row_label + " " + r])));
  const canvas = document.getElementById("stream");
  const width = canvas.clientWidth || 800, height = rows.length * ROW;
  canvas.width = width; canvas.height = height; canvas.style.height = height + "px";
  const g = canvas.getContext("2d");
  g.clearRect(0, 0, width, height);
  // The window grows with the computation up to its longest, so a young one fills the width.
  WINDOW = Math.min(LONGEST, Math.max(2, c.seconds));
  text("window", WINDOW.toFixed(0));
  const t1 = Math.max(c.seconds, WINDOW), t0 = t1 - WINDOW, x = t => (t - t0) / WINDOW * width;
  const index = new Map(rows.map((r, i) => [r, i]));
  const kinds = c.operations.map(o => o.kind);
  for (const [row, op, s, e] of rects) {
    const y = (index.get(row) || 0) * ROW;
    g.fillStyle = colour(op);
    g.fillRect(x(s), y + 2, Math.max(1, x(e) - x(s)), ROW - 4);
    if (kinds[op] === "read" || kinds[op] === "write") {
      g.fillStyle = kinds[op] === "read" ? "#2ca02c" : "#9467bd";
      g.fillRect(x(s), y + 2, Math.max(1, x(e) - x(s)), 4);
    }
  }
  for (const [row, s, e] of c.spills) {
    const y = (index.get(row) || 0) * ROW;
    g.fillStyle = "#222"; g.fillRect(x(s), y + ROW - 7, Math.max(2, x(e) - x(s)), 5);
  }
  for (const [from, to, at] of c.transfers) {
    if (at < t0) continue;
    const y = (index.get(to) || 0) * ROW;
    g.fillStyle = "#17becf"; g.fillRect(x(at) - 1, y, 3, ROW);
  }
  const used = [...new Set(rects.map(r => r[1]))].sort((a, b) => a - b);
  const legend = document.getElementById("legend");
  const entry = (fill, label) => el("span", {}, [el("span", { class: "swatch", style: "background:" + fill }), label]);
  const extra = [];
  if (used.some(op => kinds[op] === "read")) extra.push(entry("#2ca02c", "read from storage (top band)"));
  if (used.some(op => kinds[op] === "write")) extra.push(entry("#9467bd", "write to storage (top band)"));
  if (c.spills.length) extra.push(entry("#222", "spill to disk (bottom band)"));
  if (c.transfers.length) extra.push(entry("#17becf", "blocks received from other nodes (tick)"));
  legend.replaceChildren(...used.map(op => entry(colour(op), c.operations[op].label)), ...extra);
}

function drawOperations(c) {
  const rows = [el("tr", {}, ["operation", "progress", "tasks", "bytes made"].map(h => el("th", {}, [h])))];
  c.operations.forEach((o, i) => {
    if (!o.tasks) return;
    const bar = el("div", { class: "bar" }, [el("div", { style: `width:${(100 * o.done / o.tasks).toFixed(1)}%;background:${colour(i)}` })]);
    rows.push(el("tr", { "data-operation": i }, [el("td", { class: "label", title: o.fused || o.label }, [o.label]), el("td", {}, [bar]),
      el("td", {}, [o.done + " / " + o.tasks]), el("td", {}, [bytes(o.bytes)])]));
  });
  document.getElementById("operations").replaceChildren(...rows);
}

function drawMemory(c) {
  const canvas = document.getElementById("memory");
  const width = canvas.clientWidth || 400, height = 160;
  canvas.width = width; canvas.height = height;
  const g = canvas.getContext("2d");
  g.clearRect(0, 0, width, height);
  const points = c.memory, t1 = Math.max(c.seconds, 1e-3);
  const top = Math.max(c.budget || 0, ...points.map(p => Math.max(p[1], p[2])), 1) * 1.05;
  const x = t => t / t1 * width, y = v => height - v / top * height;
  g.fillStyle = "rgba(76,120,168,0.5)"; g.beginPath(); g.moveTo(0, height);
  for (const p of points) g.lineTo(x(p[0]), y(p[1]));
  if (points.length) g.lineTo(x(points[points.length - 1][0]), height);
  g.closePath(); g.fill();
  g.strokeStyle = "#f58518"; g.lineWidth = 2; g.beginPath();
  points.forEach((p, i) => i ? g.lineTo(x(p[0]), y(p[2])) : g.moveTo(x(p[0]), y(p[2]))); g.stroke();
  if (c.budget) { g.strokeStyle = "#d62728"; g.setLineDash([6, 4]); g.beginPath(); g.moveTo(0, y(c.budget)); g.lineTo(width, y(c.budget)); g.stroke(); g.setLineDash([]); }
}

function drawPlan(c) {
  const ops = c.operations, layer = [];
  ops.forEach((o, i) => { layer[i] = o.inputs.length ? 1 + Math.max(...o.inputs.map(j => layer[j] || 0)) : 0; });
  const layers = [];
  ops.forEach((o, i) => { (layers[layer[i]] = layers[layer[i]] || []).push(i); });
  const W = 170, H = 34, GX = 16, GY = 22, place = [];
  layers.forEach((l, d) => l.forEach((i, k) => { place[i] = [k * (W + GX) + 4, d * (H + GY) + 4]; }));
  const width = Math.max(...layers.map(l => l.length), 1) * (W + GX), height = layers.length * (H + GY);
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-size="11">`;
  ops.forEach((o, i) => o.inputs.forEach(j => {
    const [x1, y1] = place[j], [x2, y2] = place[i];
    svg += `<line x1="${x1 + W / 2}" y1="${y1 + H}" x2="${x2 + W / 2}" y2="${y2}" stroke="#aaa"/>`;
  }));
  ops.forEach((o, i) => {
    const [x, y] = place[i], frac = o.tasks ? o.done / o.tasks : 0;
    const fill = !o.tasks ? "#fff" : frac >= 1 ? "#c7e9c0" : frac > 0 ? "#c6dbef" : "#eee";
    const label = o.label.length > 26 ? o.label.slice(0, 25) + "…" : o.label;
    const esc = s => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
    svg += `<g class="plan-op" data-state="${!o.tasks ? "fused" : frac >= 1 ? "done" : frac > 0 ? "running" : "waiting"}">`;
    svg += `<rect x="${x}" y="${y}" width="${W}" height="${H}" rx="4" fill="${fill}" stroke="${colour(i)}" stroke-width="2"${o.tasks ? "" : ' stroke-dasharray="4 3"'}/>`;
    if (o.tasks) svg += `<rect x="${x}" y="${y + H - 5}" width="${W * frac}" height="5" fill="${colour(i)}"/>`;
    svg += `<text x="${x + 6}" y="${y + 14}">${esc(label)}</text><text x="${x + 6}" y="${y + 27}" fill="#666">${o.tasks ? o.done + " / " + o.tasks + " tasks" : "fused into its reader"}</text></g>`;
  });
  document.getElementById("plan").innerHTML = svg + "</svg>";
}

function drawNodes(c) {
  const box = document.getElementById("nodes");
  const moved = Object.entries(c.node_bytes);
  if (!c.nodes && !moved.length) { box.replaceChildren(); return; }
  if (!c.nodes) {
    const rows = [el("tr", {}, ["node", "received", "sent"].map(h => el("th", {}, [h])))];
    moved.forEach(([n, b]) => rows.push(el("tr", { class: "node-bytes" }, [el("td", {}, [n]), el("td", {}, [bytes(b[0])]), el("td", {}, [bytes(b[1])])])));
    box.replaceChildren(el("h2", {}, ["Per node so far (as placed)"]), el("table", {}, rows));
    return;
  }
  const keys = ["fragments", "bytes_made", "bytes_in", "bytes_out", "peak_bytes"];
  const rows = [el("tr", {}, ["node", "fragments", "made", "received", "sent", "peak held"].map(h => el("th", {}, [h])))];
  c.nodes.nodes.forEach((n, i) => rows.push(el("tr", {}, [el("td", {}, [String(i)]), ...keys.map(k => el("td", {}, [k === "fragments" ? String(n[k]) : bytes(n[k])]))])));
  box.replaceChildren(el("h2", {}, [`Per node (${c.nodes.measured ? "measured" : "as placed"}): ${bytes(c.nodes.between)} moved between nodes`]), el("table", {}, rows));
}

function drawComputations(list, c) {
  const rows = [el("tr", {}, ["#", "operations", "state", "tasks", "time", ""].map(h => el("th", {}, [h])))];
  for (const item of list.slice().reverse()) {
    const links = el("td", {});
    if (item.report) {
      const suffix = token ? "?token=" + encodeURIComponent(token) : "";
      links.append(el("a", { href: "report/" + item.number + suffix, target: "_blank" }, ["report"]), " ",
        el("a", { href: "trace/" + item.number + ".json" + suffix, download: "tegula-trace-" + item.number + ".json" }, ["timeline"]));
    }
    const row = el("tr", { class: c && c.number === item.number ? "chosen" : "" }, [el("td", {}, [String(item.number)]),
      el("td", { class: "label" }, [item.label]), el("td", { class: "state-" + item.state }, [item.state]),
      el("td", {}, [item.done + " / " + item.tasks]), el("td", {}, [seconds(item.seconds)]), links]);
    row.addEventListener("click", e => { if (e.target.tagName !== "A") { chosen = item.number; shown = null; seq = 0; rects = []; } });
    rows.push(row);
  }
  document.getElementById("computations").replaceChildren(...rows);
}

window.addEventListener("resize", () => { if (lastAnswer && lastAnswer.current) { drawStream(lastAnswer.current); drawMemory(lastAnswer.current); } });
poll();
</script></body></html>
"""
