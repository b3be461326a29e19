"""The import graph of a Python package, for scripts/import_cycles.py: module name -> {module
name: line of the first import}. Every `import` and `from ... import` counts, at module level and
inside functions and methods alike, except those under `if TYPE_CHECKING:` (never executed).
An import names the module it loads and, for `from P import x` where P.x is a submodule, that
submodule too. A relative import names its target only (the importer's own package is already
running); an absolute one (`import tegula.linalg`) also names each package above its target,
since Python runs their `__init__` first. Standard library only."""

import ast
import os


def modules(root):
    """Dotted name -> path of every .py file under the package directory ``root``."""
    base = os.path.dirname(os.path.abspath(root))
    found = {}
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                parts = os.path.relpath(path, base)[:-3].split(os.sep)
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                found[".".join(parts)] = path
    return found


def package_of(module, path):
    """The package a module's relative imports start from."""
    return module if path.endswith("__init__.py") else module.rpartition(".")[0]


def with_parents(name):
    """``a.b.c`` -> ``a``, ``a.b``, ``a.b.c``: what Python runs to import it."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def is_type_checking(test):
    return isinstance(test, (ast.Name, ast.Attribute)) and \
        getattr(test, "id", getattr(test, "attr", None)) == "TYPE_CHECKING"


def imports(tree):
    """Every Import/ImportFrom node of a module, skipping `if TYPE_CHECKING:` bodies."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and is_type_checking(node.test):
            stack.extend(node.orelse)
        else:
            stack.extend(ast.iter_child_nodes(node))


def targets(node, package, found):
    """Dotted names of ``found`` that one import statement, in ``package``, loads."""
    if isinstance(node, ast.Import):
        return [n for alias in node.names for n in with_parents(alias.name)]
    if node.level:
        parts = package.split(".")
        start = ".".join(parts[:len(parts) - node.level + 1])
        module = f"{start}.{node.module}" if node.module else start
        loaded = [f"{start}.{p}" for p in with_parents(node.module)] if node.module else []
    else:
        module = node.module
        loaded = with_parents(module)
    named = [f"{module}.{alias.name}" for alias in node.names]
    return loaded + [name if name in found else module for name in named]


def edges(root, native=()):
    """Module -> {imported module of the same package: line}, for the package at ``root``;
    ``native`` names its compiled extension modules, which import nothing of it."""
    found = modules(root)
    graph = {m: {} for m in list(found) + list(native)}
    for module, path in found.items():
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        package = package_of(module, path)
        for node in imports(tree):
            for target in targets(node, package, graph):
                if target in graph and target != module:
                    graph[module].setdefault(target, node.lineno)
    return graph
