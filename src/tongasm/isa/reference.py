"""The byte-map reference, rendered from the declarations (``docs/formats.md``, ``tongasm formats``).

Nothing here knows an offset: every row comes from a :class:`~tongasm.isa.fields.Field` of a
:class:`~tongasm.isa.formats.FormatSet`, so the document cannot drift from the codec. A test
regenerates ``docs/formats.md`` and fails when the committed copy differs.
"""

from __future__ import annotations

from typing import Any

from .decisions import DECISIONS, DEFAULT_DECISIONS, DecisionSet
from .fields import Conf, Field, Format
from .formats import FormatSet, build_formats


def _values(f: Field) -> str:
    if f.const is not None:
        return f"= {f.const:#x}"
    if f.enum is not None:
        names = ", ".join(f"{v:#x} {n}" for v, n in sorted(f.enum.names.items()))
        return f"{f.enum.name}: {names}" if len(names) < 160 else f"{f.enum.name} ({len(f.enum.names)} values)"
    return f"{f.lo}..{f.hi}"


def _match(fmt: Format) -> str:
    parts = []
    for name, want in fmt.match.items():
        if isinstance(want, frozenset):
            parts.append(f"{name} in {{{', '.join(hex(v) for v in sorted(want))}}}")
        else:
            parts.append(f"{name} = {want if isinstance(want, int) and want < 10 else (hex(want) if isinstance(want, int) else want)}")
    return ", ".join(parts)


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def format_rows(fmt: Format) -> list[dict[str, Any]]:
    """One dict per field of a layout, in byte order (what the markdown and JSON forms print)."""
    return [{"offset": f.offset, "bits": f.bit_range, "width": f.width_text, "name": f.name, "kind": f.kind_text,
             "values": _values(f), "conf": f.conf.value, "decision": f.decision, "doc": f.doc, "slot": f.slot}
            for f in fmt.fields]


def formats_json(decisions: DecisionSet = DEFAULT_DECISIONS) -> list[dict[str, Any]]:
    """Every layout as data: name, opcodes, match rule, descriptor slots and field rows."""
    fs = build_formats(decisions)
    return [{"name": fmt.name, "opcodes": {f"{o:#04x}": m for o, m in fmt.opcodes.items()}, "doc": fmt.doc,
             "match": _match(fmt), "slots": [{"name": s.name, "offset": s.offset, "type": s.type_name,
                                              "ndims": s.ndims, "conf": s.conf.value, "decision": s.decision,
                                              "role_decision": s.role_decision}
                                             for s in fmt.slots.values()],
             "fields": [{**r, "bits": list(r["bits"])} for r in format_rows(fmt)]}
            for fmt in fs.by_name.values()]


def formats_markdown(decisions: DecisionSet = DEFAULT_DECISIONS) -> str:
    """The byte maps of every layout, the confidence legend and the decision readings, as markdown."""
    fs: FormatSet = build_formats(decisions)
    out = ["# tongasm bundle formats", "",
           "Generated from the layout records in `src/tongasm/isa/layouts/` by "
           "`tongasm formats --format markdown` ("
           + ("default decisions" if not decisions.overrides else
              "decisions " + ", ".join(f"{k}={v}" for k, v in decisions.overrides)) + "). Do not edit by hand; "
           "`tests/test_docs.py` fails when this file is stale. Offsets are bytes into the 64-byte bundle, "
           "little-endian.", "",
           "Confidence: " + "; ".join(f"**{c.value}** {c.meaning}" for c in Conf) + ".", "",
           "## Layouts", ""]
    out += [f"- [{fmt.name}](#{fmt.name.lower().replace('.', '')}) — "
            + ", ".join(f"`{o:#04x}` {m}" for o, m in fmt.opcodes.items()) for fmt in fs.by_name.values()]
    for fmt in fs.by_name.values():
        out += ["", f"### {fmt.name}", ""]
        out.append("Opcodes: " + ", ".join(f"`{o:#04x}` {m}" for o, m in fmt.opcodes.items()) + ".")
        if fmt.doc:
            out += ["", _cell(fmt.doc)]
        if fmt.match:
            out += ["", f"Told apart from its sibling layouts by: {_match(fmt)}."]
        if fmt.slots:
            out += ["", "| slot | offset | descriptor | conf | decision |", "|---|---|---|---|---|"]
            out += [f"| {s.name} | `+{s.offset:#04x}` | {s.type_name} ({s.size} bytes) | {s.conf.value} | "
                    f"{', '.join(d for d in (s.role_decision, s.decision) if d)} |" for s in fmt.slots.values()]
        out += ["", "| offset | width | field | kind | values | conf | decision | meaning |",
                "|---|---|---|---|---|---|---|---|"]
        for r in format_rows(fmt):
            out.append(f"| `+{r['offset']:#04x}` | {r['width']} | `{r['name']}` | {r['kind']} | {_cell(r['values'])} | "
                       f"{r['conf']} | {r['decision'] or ''} | {_cell(r['doc'])} |")
    out += ["", "## Decisions", "",
            "Where the public sources are silent or disagree the spec decides (SPEC §6); the first reading is "
            "the default and `--decision D-n=READING` selects another.", "",
            "| id | subject | readings (default first) |", "|---|---|---|"]
    for d in DECISIONS.values():
        if d.kind == "simulator":  # the S-n are semantics, not wire formats: `tongasm decisions` lists them
            continue
        readings = "<br>".join(f"`{c}`: {_cell(d.readings[c])}" for c in d.choices)
        out.append(f"| {d.id} | {_cell(d.subject)} | {readings} |")
    return "\n".join(out) + "\n"
