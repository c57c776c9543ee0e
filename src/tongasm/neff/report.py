"""The ``tongasm neff info`` report: what a NEFF holds, as JSON-ready data and as text.

Target and build, graphs with their engine streams (bundle counts and an opcode census that says
which opcodes tongasm has a layout for), the ``var`` tables, DMA queues and runtime reservations of
each ``def.json``, every header field (name, offset, value, tag, decision) and consistency notes
(header mirrors of ``info.json``, ``.dbg`` entries per bundle, the 0x228 = graphs reading).
"""

from __future__ import annotations

import datetime as _dt
from collections import Counter
from typing import Any

from ..errors import brief_int
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.fields import BUNDLE_SIZE
from ..isa.formats import build_formats
from ..isa.opcodes import opcode_name
from .errors import NeffError
from .header import HEADER_SIZE
from .neff import Neff


def opcode_census(data: bytes, decisions: DecisionSet = DEFAULT_DECISIONS) -> list[dict[str, Any]]:
    """Per opcode byte of a stream (ascending): count, ISA name and whether tongasm decodes it."""
    fs = build_formats(decisions)
    counts = Counter(data[i] for i in range(0, len(data) - len(data) % BUNDLE_SIZE, BUNDLE_SIZE))
    return [{"opcode": op, "name": opcode_name(op), "count": n, "layout": bool(fs.variants(op))}
            for op, n in sorted(counts.items())]


def neff_report(neff: Neff, decisions: DecisionSet = DEFAULT_DECISIONS, *, size: int | None = None) -> dict[str, Any]:
    """Everything ``neff info`` prints, as JSON-ready data."""
    notes: list[str] = []
    info = neff.info
    try:
        target: str | None = neff.target.name
    except NeffError as e:
        target = None
        notes.append(str(e))
    graphs = []
    for g in neff.graphs.values():
        streams = []
        for s in g.streams.values():
            data = neff.stream_data(s)
            names = neff.bir_names(s)
            if s.asm_dbg and names is None:
                notes.append(f"{s.member}: its asm .dbg does not have one entry per bundle; BIR names not shown")
            streams.append({"stream": s.stream, "name": s.name, "member": s.member, "engine_file": s.engine_file,
                            "bytes": len(data), "bundles": len(data) // BUNDLE_SIZE,
                            "bir_names": names is not None, "census": opcode_census(data, decisions)})
        d = g.definition
        graphs.append({
            "name": g.name, "definition": d.path, "version": d.version, "streams": streams,
            "variables": [{"name": v.name, "type": v.type, "var_id": v.var_id, "size": v.size,
                           "file_name": v.file_name} for v in sorted(d.variables.values(), key=lambda v: v.var_id)],
            "dma_queues": [{"name": q.name, "owner": q.owner, "type": q.type, "num_queues": q.num_queues,
                            "semaphore_set": list(q.semaphore_set)} for q in d.dma_queues.values()],
            "runtime_event_count": d.runtime_event_count, "runtime_semaphore_count": d.runtime_semaphore_count,
            "runtime_statebuffer_reservation": [dict(r) for r in d.runtime_statebuffer_reservation],
            "neff_features": list(d.neff_features),
        })
    h = neff.header
    if info is not None:
        for hname, value in (("name", info.name), ("num_tpb", info.num_tpb),
                             ("requested_tpb_count", info.num_tpb_requested)):
            got = h.text(hname) if hname == "name" else h.number(hname)
            if got != value:
                notes.append(f"header {hname} is {got!r} but info.json says {value!r}")
    if h.number("unknown_0x228") != len(neff.kelf.graphs):
        notes.append(f"header word 0x228 is {h.number('unknown_0x228')}, not the number of graphs "
                     f"({len(neff.kelf.graphs)}): R-3's alternative reading does not hold for this file")
    mtime = neff.gzip.mtime
    return {
        "file": neff.path, "size": size if size is not None else HEADER_SIZE + h.number("data_size"),
        "target": target, "kelf_target": neff.kelf.target_name, "kelf_version": neff.kelf.version,
        "tool_version": info.tool_version if info else None, "kelp_version": info.kelp_version if info else None,
        "name": h.text("name"), "graphs": graphs,
        "tensors": [{"name": e.name, "node": e.node, "shape": list(e.shape) if e.shape else None, "dtype": e.dtype}
                    for e in (neff.graph_json.entries if neff.graph_json else ())],
        "gzip": {"mtime": mtime, "mtime_utc": _dt.datetime.fromtimestamp(mtime, _dt.UTC).isoformat(),
                 "xfl": neff.gzip.xfl, "os": neff.gzip.os, "member_size": neff.gzip.member_size,
                 "padding": neff.gzip.padding},
        "members": [{"path": n, "size": neff.member_size(n)} for n in neff.members],
        "tar_style": neff.tar_style.name if neff.tar_style is not None else None,
        "tar_style_why": neff.tar_style_why,
        "header": h.rows(),
        "notes": notes,
    }


def _val(v: Any) -> str:
    if isinstance(v, int):
        return f"{v} ({v:#x})" if v > 9 else str(v)
    if isinstance(v, list):
        nz = [x for x in v if x]
        return f"[{len(v)} entries: " + (" ".join(map(str, v[:8])) + (" ..." if len(v) > 8 else "")) + "]" \
            if nz else f"[{len(v)} zeros]"
    if isinstance(v, str) and len(v) > 32 and not v.strip("0"):
        return f"{len(v) // 2} zero bytes"
    return str(v)


def render_report(r: dict[str, Any]) -> str:
    """The text form of :func:`neff_report`."""
    head = (f"{r['file']}: {r['size']} bytes, NEFF target {r['kelf_target']!r} = "
            f"{r['target'] or 'not supported'}, tool {r['tool_version']}, {len(r['graphs'])} graphs, "
            f"{len(r['members'])} members")
    out = [head]
    for g in r["graphs"]:
        out.append(f"\ngraph {g['name']} ({g['definition']}, version {g['version']})")
        for s in g["streams"]:
            census = ", ".join(f"{c['opcode']:#04x} {c['name']}{'' if c['layout'] else '*'} x{c['count']}"
                               for c in s["census"])
            out.append(f"  {s['name']:<10} {s['member']:<22} {s['bundles']:>7} bundles  {census}")
        if any(not c["layout"] for s in g["streams"] for c in s["census"]):
            out.append("  (* = no tongasm layout yet: listed as .bytes, not checked)")
        out.append("  variables:")
        for v in g["variables"]:
            extra = f" size {brief_int(v['size'])}" if v["size"] is not None else ""
            extra += f" file {v['file_name']}" if v["file_name"] else ""
            out.append(f"    var {v['var_id']:>3}  {v['name']:<34} {v['type']:<13}{extra}")
        out.append("  DMA queues:")
        for q in g["dma_queues"]:
            sems = q["semaphore_set"]
            contiguous = bool(sems) and all(b == a + 1 for a, b in zip(sems, sems[1:]))
            rng = f"{sems[0]}..{sems[-1]}" if contiguous else str(sems)
            out.append(f"    {q['name']:<16} owner {q['owner']:<5} {q['type']:<8} {_num(q['num_queues'])} queues, "
                       f"semaphores {rng}")
        out.append(f"  runtime: {_num(g['runtime_event_count'])} events, {_num(g['runtime_semaphore_count'])} semaphores; "
                   f"SBUF reservations {g['runtime_statebuffer_reservation']}; features {g['neff_features']}")
    if r["tensors"]:  # an entry that several graphs' nodes repeat (output0 of each core) is listed once
        shown = dict.fromkeys(f"{t['name']} {t['dtype']} {t['shape']}" for t in r["tensors"])
        out.append("\ntensors (neff.json): " + ", ".join(shown))
    gz = r["gzip"]
    out.append(f"\npayload: gzip member {gz['member_size']} bytes + {gz['padding']} zero bytes; "
               f"MTIME {gz['mtime']:#x} ({gz['mtime_utc']}), XFL {gz['xfl']}, OS {gz['os']}")
    style = r["tar_style"]
    out.append(f"tar style (R-40): {style}" if style else f"tar style (R-40): none tongasm reproduces ({r['tar_style_why']})")
    out.append("\nheader:")
    for row in r["header"]:
        dec = f" [{row['decision']}]" if row["decision"] else ""
        out.append(f"  +{row['offset']:#05x} {row['width']:>4}  {row['name']:<20} {_val(row['value']):<36} "
                   f"{row['tag']:<4}{dec}")
    for n in r["notes"]:
        out.append(f"note: {n}")
    return "\n".join(out)


def _num(v: Any) -> str:
    """A figure of a member for the text report: an integer as :func:`~tongasm.errors.brief_int` gives it."""
    return brief_int(v) if isinstance(v, int) and not isinstance(v, bool) else str(v)
