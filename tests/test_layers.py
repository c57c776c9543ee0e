"""Layers without back-edges: every import of the package (module-level or inside a function) goes
downward, and no two modules import each other, directly or through others.

The layers, bottom to top (a module may import its own package and anything below it)::

    errors < isa < numeric, io, progress < decode, ir < passes < check < codegen < text < sim < neff < oracle < cli

``isa`` is the ISA as data; ``decode`` turns bytes into fields and ``ir`` is the BIR model, both on
``isa`` alone; ``check`` holds the rules (on decoded bundles and IR instructions); ``codegen``
encodes and runs the rules in RUN_ISA_CHECKS; ``text``, ``sim`` and ``neff`` work on bytes and IR;
``oracle`` runs NEFFs against independent references; ``cli`` is on top. Imports under ``if TYPE_CHECKING:`` are for annotations only and not counted.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "tongasm"

LAYERS: list[set[str]] = [
    {"errors", "_meta", "lazy"},
    {"isa"},
    {"numeric", "io", "progress"},
    {"decode", "ir"},
    {"passes"},
    {"check"},
    {"codegen"},
    {"text"},
    {"sim"},
    {"neff"},
    {"oracle"},
    {"cli", "__main__", "tongasm"},  # the package root re-exports lazily (importlib), it imports nothing
]
RANK = {pkg: i for i, layer in enumerate(LAYERS) for pkg in layer}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """The tongasm modules a file imports, at module level or in functions (not TYPE_CHECKING)."""
    tree = ast.parse(path.read_text())
    mod = _module_name(path)
    package = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip |= {id(n) for n in ast.walk(node)}
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            if not target.startswith("tongasm"):
                continue
            if node.module:
                out.add(target)
            else:  # from . import a, b: each a module of the package (or a name its __init__ defines)
                out.update(f"{target}.{a.name}" if _is_module(f"{target}.{a.name}") else target for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("tongasm"))
    return out


def _is_module(name: str) -> bool:
    rel = Path(*name.split(".")[1:])
    return (SRC / rel).with_suffix(".py").is_file() or (SRC / rel / "__init__.py").is_file()


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "tongasm"


def _graph() -> dict[str, set[str]]:
    return {_module_name(p): _imports(p) for p in SRC.rglob("*.py")}


def test_every_package_has_a_layer() -> None:
    pkgs = {_package(m) for m in _graph()}
    assert pkgs <= set(RANK), f"packages without a layer: {sorted(pkgs - set(RANK))}"


def test_imports_only_go_downward() -> None:
    bad = []
    for mod, targets in sorted(_graph().items()):
        for t in sorted(targets):
            a, b = _package(mod), _package(t)
            if a != b and RANK[b] > RANK[a]:
                bad.append(f"{mod} imports {t} ({a} is below {b})")
    assert not bad, "\n".join(bad)


def test_no_import_cycles() -> None:
    graph = _graph()
    modules = set(graph)

    def resolve(t: str) -> str | None:  # "tongasm.isa.fields.Field" → the module
        while t and t not in modules:
            t = t.rpartition(".")[0]
        return t or None

    edges = {m: {r for t in ts if (r := resolve(t)) is not None and r != m} for m, ts in graph.items()}
    # a package imports its submodules (its __init__ re-exports them); a submodule importing its own
    # package's __init__ is then a cycle only when it pulls names the __init__ defines itself
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 and not _only_package_init(comp, edges):
                cycles.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def _only_package_init(comp: list[str], edges: dict[str, set[str]]) -> bool:
    """A component held together only by a package's ``__init__`` re-exporting a submodule that
    imports a sibling through the package (``from . import x``) is not a real cycle."""
    inits = [m for m in comp if any(o.startswith(m + ".") for o in comp)]
    if not inits:
        return False
    rest = [m for m in comp if m not in inits]
    sub = {m: edges[m] & set(rest) for m in rest}
    # no cycle among the modules themselves once the __init__ is taken out
    seen: set[str] = set()

    def reach(a: str, b: str) -> bool:
        todo, seen_ = [a], set()
        while todo:
            x = todo.pop()
            for y in sub.get(x, ()):
                if y == b:
                    return True
                if y not in seen_:
                    seen_.add(y)
                    todo.append(y)
        return False

    del seen
    return not any(reach(a, a) for a in rest)
