#!/usr/bin/env python3
"""Move top-level definitions of one module into another, and rewrite every import to match.

    tools/split_module.py SRC.py DEST.py NAME [NAME ...] [--doc "DEST's docstring"]

Each NAME is a top-level ``def``/``class``/assignment of SRC (with the comment lines right above it).
They are cut from SRC and appended to DEST (created with ``--doc`` and SRC's import block when it does
not exist; unused imports are then dropped by ``ruff --fix``). SRC imports back what it still uses of
them; DEST must not use what stays in SRC (that would be an import circle): the tool refuses and names
those definitions, so they can be moved first (to a lower module). Each move is appended to
``tools/module_renames.tsv`` as a symbol move and ``tools/rewrite_imports.py`` is run on every Python
file of the repository, so importers of a moved name import it from its new place.

A refactoring tool: deterministic for the same input, so it can be re-run on top of other work.
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC_ROOT = ROOT / "src"


def _module(path: Path) -> str:
    parts = list(path.resolve().relative_to(SRC_ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _defined(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, ast.Assign):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    return set()


def _used(nodes: list[ast.stmt]) -> set[str]:
    return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name)} | \
        {n.value.id for node in nodes for n in ast.walk(node)
         if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}


def split(src: Path, dest: Path, names: list[str], doc: str | None) -> None:
    text = src.read_text()
    lines = text.splitlines(keepends=True)
    tree = ast.parse(text)
    body = tree.body
    spans: list[tuple[int, int, ast.stmt]] = []
    for k, node in enumerate(body):
        start = node.lineno - 1
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.decorator_list:
            start = node.decorator_list[0].lineno - 1
        while start > 0 and lines[start - 1].lstrip().startswith("#") and \
                (k == 0 or start - 1 > (body[k - 1].end_lineno or 0) - 1):
            start -= 1
        spans.append((start, node.end_lineno or node.lineno, node))
    wanted = set(names)
    moved = [(a, b, n) for a, b, n in spans if _defined(n) & wanted]
    found = set().union(*(_defined(n) for _a, _b, n in moved)) if moved else set()
    if wanted - found:
        sys.exit(f"split_module: not top-level definitions of {src}: {sorted(wanted - found)}")
    moved_nodes = [n for _a, _b, n in moved]
    staying = [n for _a, _b, n in spans if not (_defined(n) & wanted)]
    staying_defs = set().union(*(_defined(n) for n in staying)) - found
    back = sorted(_used(moved_nodes) & staying_defs)
    if back:
        sys.exit(f"split_module: {dest} would use what stays in {src} (an import circle): {back}")
    imports = [n for n in staying if isinstance(n, (ast.Import, ast.ImportFrom))]
    cut = {i for a, b, _n in moved for i in range(a, b)}
    chunk = "\n\n".join("".join(lines[a:b]).rstrip() + "\n" for a, b, _n in moved)
    rest = [line for i, line in enumerate(lines) if i not in cut]
    src_mod, dest_mod = _module(src), _module(dest)
    used_back = sorted(found & _used(staying))
    rel = _relative(src_mod, dest_mod, src.name == "__init__.py")
    if used_back:
        last_import = max((n.end_lineno or 0) for n in imports) if imports else 0
        k = sum(1 for i in range(last_import) if i not in cut)
        rest.insert(k, f"from {rel} import {', '.join(used_back)}\n")
    src.write_text("".join(rest))
    if dest.exists():
        dest.write_text(dest.read_text().rstrip() + "\n\n\n" + chunk.rstrip() + "\n")
    else:
        head = [f'"""{doc or "Moved from " + src_mod + "."}"""\n\nfrom __future__ import annotations\n\n']
        head += [ast.get_source_segment(text, n) + "\n" for n in imports
                 if not (isinstance(n, ast.ImportFrom) and n.module == "__future__")]
        dest.write_text("".join(head) + "\n\n" + chunk.rstrip() + "\n")
        if src.parent != dest.parent:
            pass
    # relative imports copied from SRC stay valid: DEST is in the same package (asserted below)
    rows = "".join(f"tongasm.{src_mod}:{name}\ttongasm.{dest_mod}:{name}\n" if not src_mod.startswith("tongasm")
                   else f"{src_mod}:{name}\t{dest_mod}:{name}\n" for name in sorted(found))
    with (ROOT / "tools" / "module_renames.tsv").open("a") as fh:
        fh.write(rows)
    files = [str(p) for p in ROOT.rglob("*.py") if ".venv" not in p.parts and ".git" not in p.parts
             and "tools" not in p.relative_to(ROOT).parts[:1] and p.resolve() not in (src.resolve(), dest.resolve())]
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as tmp:
        tmp.write(rows)  # only this move: the map's earlier module moves must not be applied twice
    try:
        subprocess.run([sys.executable, str(ROOT / "tools" / "rewrite_imports.py"), "--in-place-only", "--map", tmp.name, *files],
                       check=True, stderr=subprocess.DEVNULL)
    finally:
        os.unlink(tmp.name)
    subprocess.run([sys.executable, "-m", "ruff", "check", "--select", "F401", "--fix", "-q", str(dest), str(src)], check=False)
    if src.name == "__init__.py":
        _drop_unused_imports(src)  # ruff keeps a package's unused imports (they may be re-exports)


def _drop_unused_imports(path: Path) -> None:
    """Remove the names a package ``__init__`` imports but neither uses nor lists in ``__all__``."""
    text = path.read_text()
    tree = ast.parse(text)
    used = _used([n for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom))])
    for n in tree.body:
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets):
            used |= {e.value for e in ast.walk(n.value) if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    lines = text.splitlines(keepends=True)
    for n in reversed(tree.body):
        if not isinstance(n, (ast.Import, ast.ImportFrom)) or (isinstance(n, ast.ImportFrom) and n.module == "__future__"):
            continue
        keep = [a for a in n.names if (a.asname or a.name).split(".")[0] in used]
        if len(keep) == len(n.names):
            continue
        new = ""
        if keep:
            n.names = keep
            new = ast.unparse(n) + "\n"
        lines[n.lineno - 1:n.end_lineno] = [new]
    path.write_text("".join(lines))


def _relative(src_mod: str, dest_mod: str, src_is_package: bool) -> str:
    src_pkg = src_mod if src_is_package else src_mod.rpartition(".")[0]
    dest_pkg, _, leaf = dest_mod.rpartition(".")
    if dest_pkg != src_pkg:
        sys.exit(f"split_module: {dest_mod} must be in the package of {src_mod} ({src_pkg})")
    return f".{leaf}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path)
    ap.add_argument("dest", type=Path)
    ap.add_argument("names", nargs="+")
    ap.add_argument("--doc")
    a = ap.parse_args()
    split(a.src, a.dest, a.names, a.doc)


if __name__ == "__main__":
    main()
