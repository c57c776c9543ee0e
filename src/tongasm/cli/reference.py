"""formats, bir-reference and decisions: what tongasm knows, rendered."""

from __future__ import annotations

import argparse
import json
import sys
from ..errors import UsageError
from ..isa.decisions import DECISIONS
from .common import _decisions, _print_json


def cmd_formats(args: argparse.Namespace) -> int:
    from ..isa.formats import build_formats
    from ..isa.reference import format_rows, formats_json, formats_markdown

    ds = _decisions(args)
    known = build_formats(ds).by_name
    unknown = [n for n in args.layouts if n not in known]
    if unknown:
        raise UsageError(f"unknown layout(s) {', '.join(unknown)}; known: {', '.join(known)}")
    if args.format == "markdown":
        if args.layouts:
            raise UsageError("--format markdown renders the whole reference; drop the layout names")
        sys.stdout.write(formats_markdown(ds))
        return 0
    if args.format == "json":
        _print_json([f for f in formats_json(ds) if not args.layouts or f["name"] in args.layouts])
        return 0
    for name, fmt in known.items():
        if args.layouts and name not in args.layouts:
            continue
        print(f"{name}: " + ", ".join(f"{o:#04x} {m}" for o, m in fmt.opcodes.items()) + (f"  ({fmt.doc})" if fmt.doc else ""))
        for r in format_rows(fmt):
            dec = r["decision"] or ""
            print(f"  +{r['offset']:#04x}  {r['width']:<10} {r['name']:<18} {r['kind']:<14} {r['conf']}  {dec:<6} "
                  f"{r['doc']}")
        print()
    return 0


def cmd_bir_reference(args: argparse.Namespace) -> int:
    from ..text.bir_reference import bir_opcodes, bir_reference_markdown, opcode_reference

    ds = _decisions(args)
    known = bir_opcodes()
    unknown = [n for n in args.opcodes if n not in known]
    if unknown:
        raise UsageError(f"unknown BIR opcode(s) {', '.join(unknown)}; tongasm encodes: {', '.join(known)}")
    if args.format == "markdown":
        if args.opcodes:
            raise UsageError("--format markdown renders the whole reference; drop the opcode names")
        sys.stdout.write(bir_reference_markdown(ds))
        return 0
    entries = [opcode_reference(n, ds) for n in (args.opcodes or known)]
    if args.format == "json":
        _print_json(entries)
        return 0
    for e in entries:
        print(f"{e['opcode']}: " + ", ".join(f"{b['opcode']} {b['mnemonic']}" for b in e["bundles"]))
        for k in e["keys"]:
            vals = f" [{', '.join(k['values'])}]" if k["values"] else ""
            how = ("required" if k["required"] else f"one of {', '.join(k['one_of'])}" if k.get("one_of")
                   else f"default {json.dumps(k['default'])}")
            print(f"  key  {k['key']:<24} {k['type']}{vals}, {how}")
        for r in e["operands"]:
            opt = " (optional)" if r["optional"] else ""
            print(f"  {r['list']}[{r['index']}] {r['role']}{opt}" + (f"  slots {', '.join(r['slots'])}" if r["slots"] else ""))
        unassigned = e["unassigned_stream"] or "refused"
        print(f"  engines {', '.join(e['engines'])}; Unassigned: {unassigned}")
        print(f"  example: {e['example']['source']}")
        print()
    return 0


def cmd_decisions(args: argparse.Namespace) -> int:
    if args.evidence:
        from pathlib import Path as _Path

        from ..neff import read_neff
        from ..neff.evidence import corpus_evidence, evidence_markdown, render_evidence
        from ..neff.survey import neff_paths

        sets = [(path, neff_paths([path])) for path in args.evidence]  # a missing one before any work
        reports = []
        for path, files in sets:
            neffs = [(str(f.relative_to(path)) if _Path(path).is_dir() else str(f), read_neff(f)) for f in files]
            reports.append((path, corpus_evidence(neffs)))
        if args.format == "json":
            _print_json([{"neff": path, "decisions": [e.to_json() for e in evs]} for path, evs in reports]
                        if len(reports) > 1 else {"neff": reports[0][0], "decisions": [e.to_json() for e in reports[0][1]]})
        elif args.format == "markdown":
            print(evidence_markdown([(_Path(path).name, evs) for path, evs in reports]), end="")
        else:
            for path, evs in reports:
                for line in render_evidence(evs, path):
                    print(line)
        return 1 if any(e.status == "contradicted" for _p, evs in reports for e in evs) else 0
    if args.format == "markdown":
        raise UsageError("--format markdown needs --evidence")
    if args.format == "json":
        _print_json([{"id": d.id, "kind": d.kind, "subject": d.subject, "default": d.default,
                      "readings": dict(d.readings), **({"reason": d.reason} if d.reason else {})}
                     for d in DECISIONS.values()])
        return 0
    for d in DECISIONS.values():
        print(f"{d.id:<5} {d.subject}")
        if d.reason:
            print(f"        why: {d.reason}")
        for c in d.choices:
            mark = "*" if c == d.default else " "
            print(f"   {mark} {c:<24} {d.readings[c]}")
    return 0
