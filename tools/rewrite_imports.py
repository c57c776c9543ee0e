#!/usr/bin/env python3
"""Rewrite tongasm imports and module references in FILE... per ``tools/module_renames.tsv``.

The map has two columns, old and new, separated by a tab. A row is either a module move
(``tongasm.codegen.family_ops<TAB>tongasm.codegen.scalar``) or a symbol move
(``tongasm.isa.family_opcodes:ACTIVATE<TAB>tongasm.isa.opcodes:ACTIVATE``). Lines starting with ``#``
and blank lines are ignored.

What is rewritten, in a Python file:

* ``from tongasm.x import A, B as C`` and relative ``from ..x import A`` (resolved against the file's
  package; if the file itself was moved by the map, a relative import that no longer resolves from its
  new place is resolved from its old one), including ``from . import module [as m]``; a statement whose
  names move to different modules is split into one statement per module. Relative imports stay
  relative (re-expressed from the file's current package).
* ``import tongasm.x [as m]``.
* Any other dotted reference ``tongasm.x.y[.Name]`` (strings such as ``"tongasm.x"``, ``mock.patch``
  targets, ``:mod:`` roles in docstrings) and source paths such as ``codegen/family_ops.py``.

In other files (Markdown, TOML, ...) only the last step runs. The file is rewritten in place only if
something changed; each change is reported on stderr. Run it once per file after the merge; running
it again is harmless for absolute references.

Usage: tools/rewrite_imports.py [--map TSV] [--root SRC_DIR] FILE...
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# modules that became packages under the same dotted name (``x.py`` -> ``x/__init__.py``): their
# relative imports gain one level
PACKAGES_FROM_MODULES = ("tongasm.cli", "tongasm.sim.reference")


def load_map(path: Path) -> tuple[dict[str, str], dict[tuple[str, str], tuple[str, str]]]:
    """Module renames and symbol moves read from the TSV map."""
    modules: dict[str, str] = {}
    symbols: dict[tuple[str, str], tuple[str, str]] = {}
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 2:
            raise SystemExit(f"{path}:{n}: expected two tab-separated columns, got {line!r}")
        old, new = parts
        if ":" in old:
            om, on = old.split(":")
            nm, nn = new.split(":")
            symbols[(om, on)] = (nm, nn)
        else:
            modules[old] = new
    return modules, symbols


def map_module(name: str, modules: dict[str, str]) -> str:
    """``name`` with its longest renamed prefix (at a dot boundary) replaced."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        head = ".".join(parts[:i])
        if head in modules:
            return ".".join([modules[head], *parts[i:]])
    return name


def tree_modules(root: Path) -> set[str]:
    """Dotted names of every module and package under ``root`` (the directory holding ``tongasm``)."""
    out: set[str] = set()
    for p in root.rglob("*.py"):
        rel = p.relative_to(root).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.add(".".join(parts))
    return out


def file_module(path: Path, root: Path | None) -> tuple[str | None, bool]:
    """(dotted module of ``path``, is it a package ``__init__``), or (None, False) outside the tree."""
    if root is None:
        return None, False
    try:
        rel = path.resolve().relative_to(root.resolve()).with_suffix("")
    except ValueError:
        return None, False
    parts = list(rel.parts)
    is_pkg = parts[-1] == "__init__"
    if is_pkg:
        parts = parts[:-1]
    return ".".join(parts), is_pkg


def resolve(package: str, level: int, module: str | None) -> str:
    base = package.split(".")
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([module] if module else [])])


def relativize(package: str, target: str) -> tuple[int, str]:
    """(level, module) expressing absolute ``target`` relative to ``package``."""
    p, t = package.split("."), target.split(".")
    common = 0
    while common < len(p) and common < len(t) and p[common] == t[common]:
        common += 1
    level = len(p) - common + 1
    return level, ".".join(t[common:])


def fmt_from(indent: str, level: int, module: str, names: list[tuple[str, str | None]]) -> str:
    head = f"{indent}from {'.' * level}{module} import "
    items = [n if a is None else f"{n} as {a}" for n, a in names]
    one = head + ", ".join(items)
    if len(one) <= 120:
        return one
    return head + "(\n" + "".join(f"{indent}    {i},\n" for i in items) + f"{indent})"


class Rewriter:
    def __init__(self, modules: dict[str, str], symbols: dict[tuple[str, str], tuple[str, str]],
                 root: Path | None) -> None:
        self.source = ""
        self.local_renames: dict[str, str] = {}
        self.was_module = set(PACKAGES_FROM_MODULES)
        self.modules = modules
        self.symbols = symbols
        self.root = root
        self.known = tree_modules(root) if root else set()
        self.reverse = {v: k for k, v in modules.items()}
        self.paths = self._path_pairs()
        dotted = sorted(set(modules) | {f"{m}.{n}" for m, n in symbols}, key=len, reverse=True)
        self.dotted_re = re.compile(r"\btongasm(?:\.\w+)+")
        self.dotted_keys = dotted

    def _path_pairs(self) -> list[tuple[re.Pattern[str], str]]:
        pairs = []
        for old, new in self.modules.items():
            o = old.split(".")[1:]
            n = new.split(".")[1:]
            if not o:
                continue
            old_path = "/".join(o) + ".py"
            new_path = "/".join(n) + ".py"
            pairs.append((re.compile(r"(?<![\w.])" + re.escape(old_path) + r"\b"), new_path))
        pairs.sort(key=lambda p: len(p[0].pattern), reverse=True)
        return pairs

    def map_dotted(self, name: str) -> str:
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            head = ".".join(parts[:i])
            if i >= 2 and (".".join(parts[: i - 1]), parts[i - 1]) in self.symbols:
                m, n = self.symbols[(".".join(parts[: i - 1]), parts[i - 1])]
                return ".".join([m, n, *parts[i:]])
            if head in self.modules:
                return ".".join([self.modules[head], *parts[i:]])
        return name

    def _abs(self, package: str | None, old_package: str | None, level: int, module: str | None,
             first_name: str | None) -> tuple[str, str | None]:
        """Absolute module of a relative import and the package it was resolved against."""
        # a moved file's relative imports were written from its old place: resolve from there first
        cands = [p for p in (old_package, package) if p]
        for pkg in cands:
            m = resolve(pkg, level, module)
            if not self.known:
                return m, pkg
            if module is None:  # from . import name: name is a module (or a name of the package)
                if first_name and (map_module(f"{m}.{first_name}", self.modules) in self.known
                                   or f"{m}.{first_name}" in self.modules):
                    return m, pkg
                continue
            if map_module(m, self.modules) in self.known or m in self.modules:
                return m, pkg
        return resolve(cands[0], level, module), cands[0]

    def python(self, path: Path, text: str, log: list[str]) -> str:
        try:
            tree = ast.parse(text)
        except SyntaxError as e:
            log.append(f"{path}: not parsed ({e}); only dotted names rewritten")
            return text
        mod, is_pkg = file_module(path, self.root)
        package = (mod if is_pkg else mod.rpartition(".")[0]) if mod else None
        old_mod = self.reverse.get(mod or "")
        old_package = None
        if old_mod:
            old_package = old_mod.rpartition(".")[0]
        elif mod and is_pkg and mod in self.was_module:
            old_package = mod.rpartition(".")[0]  # a module turned into a package (x.py -> x/__init__.py)
        self.source = text
        self.local_renames = {}
        lines = text.splitlines(keepends=True)
        edits: list[tuple[int, int, int, str]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                new = self._from(node, package, old_package, lines)
            elif isinstance(node, ast.Import):
                new = self._import(node, lines)
            else:
                continue
            if new is not None:
                edits.append((node.lineno, node.end_lineno or node.lineno, node.col_offset, new))
        for start, end, col, new in sorted(edits, reverse=True):
            first = lines[start - 1]
            last = lines[end - 1]
            end_col = self._end_col(tree, start, last)
            tail = last[end_col:] if end_col is not None else "\n"
            old_text = "".join(lines[start - 1:end])
            repl = first[:col] + new.lstrip() + tail
            if repl != old_text:
                log.append(f"{path}:{start}: {old_text.strip()} -> {new.strip()}")
                lines[start - 1:end] = [repl]
        out = "".join(lines)
        for old_name, new_name in self.local_renames.items():
            out, k = re.subn(rf"(?<![\w.]){re.escape(old_name)}(?=\.\w)", new_name, out)
            log.append(f"{path}: {old_name}.x -> {new_name}.x ({k}x)")
        return out

    @staticmethod
    def _stmt_len(src: str) -> int:
        """Length of the import statement at the start of ``src`` (up to its closing paren or line end)."""
        head = src.split("import", 1)
        rest = head[1].lstrip() if len(head) == 2 else ""
        if rest.startswith("("):
            return src.index(")") + 1
        nl = src.find("\n")
        stmt = src if nl < 0 else src[:nl]
        hash_ = stmt.find("#")
        return len(stmt.rstrip() if hash_ < 0 else stmt[:hash_].rstrip())

    @staticmethod
    def _end_col(tree: ast.AST, start: int, last: str) -> int | None:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and node.lineno == start:
                return node.end_col_offset
        return None

    def _from(self, node: ast.ImportFrom, package: str | None, old_package: str | None,
              lines: list[str]) -> str | None:
        indent = lines[node.lineno - 1][: node.col_offset]
        if node.level == 0:
            if not node.module or not (node.module == "tongasm" or node.module.startswith("tongasm.")):
                return None
            absmod, rel_pkg = node.module, None
        else:
            if package is None:
                return None
            first = node.names[0].name if node.names else None
            absmod, rel_pkg = self._abs(package, old_package, node.level, node.module, first)
        groups: dict[str, list[tuple[str, str | None]]] = {}
        for a in node.names:
            sub = f"{absmod}.{a.name}"
            if (absmod, a.name) in self.symbols:
                m, n = self.symbols[(absmod, a.name)]
                groups.setdefault(m, []).append((n, a.asname if a.asname else (a.name if n != a.name else None)))
            elif sub in self.modules:  # from pkg import module
                m, _, n = self.modules[sub].rpartition(".")
                alias = a.asname
                if alias is None and n != a.name:
                    if re.search(rf"\b{re.escape(n)}\b", self.source):
                        alias = a.name  # the new name is taken in this file: keep the old one as an alias
                    else:
                        self.local_renames[a.name] = n  # module.attr uses are renamed below
                groups.setdefault(m, []).append((n, alias))
            else:
                groups.setdefault(map_module(absmod, self.modules), []).append((a.name, a.asname))
        unchanged = (list(groups) == [absmod] and rel_pkg in (None, package)
                     and groups[absmod] == [(a.name, a.asname) for a in node.names])
        if unchanged:
            return None
        if len(groups) == 1:  # only the module changes: keep the statement's own layout, swap its head
            (m, names), = groups.items()
            if names == [(a.name, a.asname) for a in node.names]:
                head = "" if node.level == 0 or package is None else ""
                if node.level == 0 or package is None:
                    head = m
                else:
                    level, rel = relativize(package, m)
                    head = "." * level + rel
                src = "".join(lines[node.lineno - 1:node.end_lineno or node.lineno])[node.col_offset:]
                src = src[: self._stmt_len(src)]
                new_src = re.sub(r"^from\s+[.\w]+\s+import", f"from {head} import", src, count=1)
                return indent + new_src
        out = []
        for m, names in groups.items():
            if node.level == 0 or package is None:
                out.append(fmt_from(indent, 0, m, names))
            else:
                level, rel = relativize(package, m)
                if level == 1 and rel == "" and package == m:
                    pass
                out.append(fmt_from(indent, level, rel, names))
        return "\n".join(out)

    def _import(self, node: ast.Import, lines: list[str]) -> str | None:
        changed = False
        items = []
        for a in node.names:
            n = map_module(a.name, self.modules) if a.name.startswith("tongasm.") else a.name
            changed |= n != a.name
            items.append(n if a.asname is None else f"{n} as {a.asname}")
        if not changed:
            return None
        return lines[node.lineno - 1][: node.col_offset] + "import " + ", ".join(items)

    def text(self, path: Path, text: str, log: list[str]) -> str:
        def sub(m: re.Match[str]) -> str:
            new = self.map_dotted(m.group(0))
            if new != m.group(0):
                log.append(f"{path}: {m.group(0)} -> {new}")
            return new

        text = self.dotted_re.sub(sub, text)
        for pat, new in self.paths:
            text, k = pat.subn(new, text)
            if k:
                log.append(f"{path}: {pat.pattern} -> {new} ({k}x)")
        return text


def find_root(path: Path) -> Path | None:
    for parent in path.resolve().parents:
        if (parent / "tongasm" / "__init__.py").is_file():
            return parent
        if (parent / "src" / "tongasm" / "__init__.py").is_file():
            return parent / "src"
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--map", type=Path, default=HERE / "module_renames.tsv")
    ap.add_argument("--root", type=Path, default=None, help="directory holding the tongasm package (default: found)")
    ap.add_argument("--in-place-only", action="store_true",
                    help="no file of the tree was moved: resolve relative imports from where each file is now "
                         "(for symbol moves made after the module renames, e.g. by tools/split_module.py)")
    ap.add_argument("files", nargs="+", type=Path)
    args = ap.parse_args(argv)
    modules, symbols = load_map(args.map)
    rewriters: dict[Path | None, Rewriter] = {}
    for f in args.files:
        root = args.root or find_root(f)
        rw = rewriters.get(root) or rewriters.setdefault(root, Rewriter(modules, symbols, root))
        if args.in_place_only:
            rw.was_module = set()
        src = f.read_text()
        log: list[str] = []
        out = rw.python(f, src, log) if f.suffix == ".py" else src
        out = rw.text(f, out, log)
        if out != src:
            f.write_text(out)
            for line in log:
                print(line, file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
