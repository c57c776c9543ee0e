"""Build docs/research/real-opcodes.md from real-opcodes.template.md and the layouts of layouts.py.

Each `{{table:0xNN}}` placeholder in the template becomes the field table of that opcode's layout, with a
"values seen" column computed here from every bundle of that opcode in both real NEFFs (so the V tags and
populations in the tables are recomputed, never typed by hand). `{{pop:0xNN}}` becomes the population.
What it checks: that the template references only declared layouts.
"""
from __future__ import annotations

import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from layouts import LAYOUTS
from neffload import bundles

HERE = Path(__file__).parent
OUT = HERE.parent / "real-opcodes.md"

BY_OP = defaultdict(list)
for n, g, e, i, b in bundles():
    BY_OP[b[0]].append((n, e, b))


def fmt(v: int, f) -> str:
    if f.kind.startswith("addr") or f.width in ("u32",) and v > 9:
        return f"{v:#x}"
    if f.width.startswith("i"):
        return str(v)
    return f"{v:#x}" if v > 9 else str(v)


def seen(op: int, f) -> str:
    c = Counter(f.value(b) for _, _, b in BY_OP[op])
    items = sorted(c.items())
    if len(items) <= 6:
        return ", ".join(f"{fmt(v, f)} ×{k}" for v, k in items)
    return f"{len(items)} values, {fmt(items[0][0], f)}..{fmt(items[-1][0], f)}"


def table(op: int) -> str:
    name, fields = LAYOUTS[op]
    n = len(BY_OP[op])
    rows = [f"Layout `{name}`, population {n} bundles (small {sum(1 for x in BY_OP[op] if 'small' in x[0])}, "
            f"large {sum(1 for x in BY_OP[op] if 'large' in x[0])}).", "",
            "| off | width | field | kind | conf | decision | values seen (count) | meaning |",
            "|---|---|---|---|---|---|---|---|"]
    for f in fields:
        cells = [f"+0x{f.off:02X}", f.width, f"`{f.name}`", f.kind, f.conf, f.decision, seen(op, f), f.meaning]
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows)


def main() -> None:
    src = (HERE / "real-opcodes.template.md").read_text()

    def sub(m):
        kind, op = m.group(1), int(m.group(2), 16)
        if op not in LAYOUTS:
            raise KeyError(hex(op))
        if kind == "table":
            return table(op)
        return str(len(BY_OP[op]))

    OUT.write_text(re.sub(r"\{\{(table|pop):(0x[0-9A-Fa-f]{2})\}\}", sub, src))
    print("wrote", OUT)


if __name__ == "__main__":
    main()
