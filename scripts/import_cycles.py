"""Fails when a crate's files import each other in a cycle (a.rs uses b.rs, which uses a.rs,
directly or through others): each crate's modules should form layers. Reads `crate::` and
`super::` paths, outside `#[cfg(test)]` modules; a module's own `mod` declarations are not
edges. The same holds for the modules of the Python package python/tegula, imports inside
functions included (scripts/python_imports.py reads them). Each cycle is reported with its
modules and one path around it. Usage: python3 scripts/import_cycles.py (from the repository
root)."""

import os
import re
import sys
from collections import deque

import python_imports


def modules(src):
    """Module path (a tuple) of every .rs file under ``src``."""
    found = {}
    for folder, _, files in os.walk(src):
        for name in files:
            if name.endswith(".rs"):
                path = os.path.join(folder, name)
                parts = os.path.relpath(path, src)[:-3].split(os.sep)
                if parts[-1] in ("mod", "lib", "main"):
                    parts = parts[:-1]
                found[tuple(parts)] = path
    return found


def edges(found):
    graph = {m: set() for m in found}
    for module, path in found.items():
        with open(path) as f:
            text = f.read()
        text = re.sub(r"#\[cfg\(test\)\][\s\S]*", "", text)
        for match in re.finditer(r"\b(crate|super)((?:::\w+)+)", text):
            parts = match.group(2).split("::")[1:]
            target = list(module[:-1] if match.group(1) == "super" else ()) + parts
            while target and tuple(target) not in found:
                target.pop()
            if target and tuple(target) != module:
                graph[module].add(tuple(target))
    return graph


def cycles(graph):
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(component)

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def cycle_path(graph, component):
    """A shortest path from the component's first module back to it (breadth first)."""
    start = min(component)
    inside, before, queue = set(component), {}, deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(graph[v]):
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(before[path[-1]])
                return path[::-1] + [start]
            if w in inside and w not in before:
                before[w] = v
                queue.append(w)
    return [start]


def report(label, graph, name):
    """Prints each cycle of ``graph``; True when there is one. ``name`` spells a module."""
    found = cycles(graph)
    for component in sorted(found, key=len, reverse=True):
        print(f"{label}: import cycle of {len(component)} modules: " + ", ".join(sorted(map(name, component))))
        print("  for example: " + " -> ".join(map(name, cycle_path(graph, component))))
    return bool(found)


def rust_name(module):
    return "::".join(module) or "lib"


def python_name(module):
    return module


def main():
    found_any = False
    for crate in sorted(os.listdir("crates")):
        src = os.path.join("crates", crate, "src")
        found_any |= report(crate, edges(modules(src)), rust_name)
    python = python_imports.edges("python/tegula", native=["tegula._tegula"])  # pyproject's module-name
    found_any |= report("python/tegula", python, python_name)
    return 1 if found_any else 0


if __name__ == "__main__":
    sys.exit(main())
