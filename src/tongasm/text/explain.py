"""``explain``: every field of one bundle — offset, width, name, raw value, meaning, the confidence
tag (V/C/H/I/D) and the decision id behind it — plus every non-zero byte that no field explains, and
the findings of the ISA checks.

Everything comes from the format tables (the same declarations the encoder and decoder use); the
meanings come from the enum tables, the ADDR4 decoder and the text templates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..check.registry import CheckSet, Finding
from ..check.runner import check_bundle
from ..decode.bundle import why_undecodable
from ..isa.decisions import DECISIONS, DEFAULT_DECISIONS, DecisionSet
from ..isa.decisions.spec import FreeDimOrder, UpdateModeWire
from ..isa.descriptors import decode_addr4
from ..isa.enums import VALUELESS_UPDATES, WAIT_WIRE, WaitMode
from ..isa.fields import BUNDLE_SIZE, Conf, Field, Format, Kind
from ..isa.formats import build_formats
from ..isa.opcodes import ISA_OPCODE_NAMES, opcode_name
from ..isa.targets import DEFAULT_TARGET, Target, get_target
from .listing import mnemonic_of
from .syntax import ImmOp, template_for, value_text


@dataclass
class Row:
    """One line of the explanation: a field, or a run of unexplained bytes."""

    offset: int
    width: str
    name: str
    raw: int | str
    meaning: str
    conf: str
    decision: str
    kind: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"offset": self.offset, "width": self.width, "field": self.name, "raw": self.raw,
                "meaning": self.meaning, "confidence": self.conf, "decision": self.decision, "kind": self.kind}


@dataclass
class Explanation:
    raw: bytes
    opcode: int
    mnemonic: str
    layout: str | None
    rows: list[Row] = field(default_factory=list)
    unexplained: list[Row] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    target: str = "gen2"
    decisions: list[str] = field(default_factory=list)
    #: the memory the bundle reads and writes (the race check's footprint, :mod:`tongasm.check.races`)
    footprint: dict[str, Any] | None = None
    #: what the DMA the bundle issues moves (a 0xD4's two sides; a NEFF's 0xC1 block), when known
    dma: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"bytes": self.raw.hex(), "opcode": self.opcode, "mnemonic": self.mnemonic, "layout": self.layout,
                "target": self.target, "decisions": self.decisions, "error": self.error,
                "fields": [r.to_json() for r in self.rows], "unexplained": [r.to_json() for r in self.unexplained],
                "findings": [f.to_json() for f in self.findings], "footprint": self.footprint, "dma": self.dma}


def _decision_text(did: str | None, ds: DecisionSet) -> str:
    if not did:
        return ""
    dec = DECISIONS[did]
    if not dec.selectable:
        return did
    return f"{did}={ds[did]}"


def _width(f: Field) -> str:
    if f.is_bitfield:
        return "lo4" if f.bits == 4 and f.shift == 0 else ("hi4" if f.bits == 4 else f"b{f.shift}+{f.bits}")
    return f"{'i' if f.signed else 'u'}{f.size * 8}"


def _meaning(fmt: Format, f: Field, v: int, fields: dict[str, int], ds: DecisionSet, target: Target,
             imm_dtypes: dict[str, str | int]) -> str:
    if f.name == "opcode":
        op = build_formats(ds).ops.get(v)
        text = f"{fmt.opcodes.get(v, opcode_name(v))}: {op.doc}" if op else opcode_name(v)
        isa = ISA_OPCODE_NAMES.get(v)
        if op and isa and isa.split(" ")[0] != op.mnemonic:
            text += f" (the ISA opcode enum names {v:#04x} {isa}: contradiction C-16)"
        elif op and not isa:
            text += f" ({v:#04x} is reserved in the ISA opcode enum: contradiction C-16)"
        return text
    if f.const is not None:
        ok = v == f.const
        base = f"{f.doc}; " if f.doc else ""
        named = f" ({f.enum.names.get(v)})" if f.enum is not None and v in f.enum.names else ""
        return f"{base}{'= ' + hex(v) + named + ' as required' if ok else f'!! expected {f.const:#x}'}"
    if f.kind is Kind.ADDR4:
        s = fmt.slots[f.slot] if f.slot else None
        a = decode_addr4(v)
        role = " (written)" if s and s.write else ""
        which = f"; this slot holds {s.name} by {s.role_decision}={ds[s.role_decision]}" if s and s.role_decision else ""
        return f"{s.type_name if s else ''} {a.describe()}{role}{which}".strip()
    if f.kind is Kind.REGISTER:
        extra = f" !! beyond the usable 0..{target.registers - 1}" if v >= target.registers else ""
        return f"r{v}: {f.doc}{extra}"
    if f.name in imm_dtypes:
        w = imm_dtypes[f.name]
        wv = fields.get(w, 0) if isinstance(w, str) else w
        return f"{f.doc}: {value_text(v, wv, f.nbits)}"
    if f.enum is not None:
        name = f.enum.name_of(v)
        return f"{name if name else '!! unknown ' + f.enum.name} — {f.doc}"
    if f.slot and (".step" in f.name or ".num" in f.name):
        s = fmt.slots[f.slot]
        i = int(f.name[-1])
        which = ds.get(FreeDimOrder).slot_meaning(i)
        if i >= 1 and all((fields[f"{s.name}.step{j}"], fields[f"{s.name}.num{j}"]) == s.fill for j in range(i, s.ndims)):
            which = f"unused slot ({{{s.fill[0]},{s.fill[1]}}} fill{', R-9' if s.fill != (1, 1) else ''})"
        what = f"step {v} element{'s' * (abs(v) != 1)}" if ".step" in f.name else f"count {v}"
        return f"{what}: {which}"
    if fmt.sync is not None and f.name in fmt.sync.values:
        return _sync_value_meaning(fmt, f.name, v, fields, ds)
    return f"{v} ({v:#x}): {f.doc}" if v > 9 else f"{v}: {f.doc}"


def _sync_value_meaning(fmt: Format, name: str, v: int, fields: dict[str, int], ds: DecisionSet) -> str:
    """What a sync lane's value dword holds for the lanes that use it (the header band's is shared: D-4)."""
    lanes = fmt.sync
    assert lanes is not None
    users = []
    for w in lanes.waits:
        if w.value != name:
            continue
        wm = fields.get(w.mode, 0)
        if wm == WAIT_WIRE[WaitMode.sem_ge_imm]:
            users.append(f"wait threshold {v}")
        elif wm == WAIT_WIRE[WaitMode.sem_ge_reg]:
            users.append(f"wait register r{v}")
    d2 = ds.get(UpdateModeWire)
    for u in lanes.updates:
        if u.value != name:
            continue
        um = fields.get(u.mode, 0)
        mode = d2.mode(um)
        if mode is not None and not (um == 0 and d2.zero_is_none) and mode not in VALUELESS_UPDATES:
            users.append(f"update value {v}")
    if len(users) > 1:
        return " and ".join(users) + " (one shared dword: D-4)"
    return users[0] if users else (f"unused ({v})" if v else "unused (0)")


def explain_bundle(raw: bytes, *, decisions: DecisionSet = DEFAULT_DECISIONS, target: Target | str = DEFAULT_TARGET,
                   stream: str | None = None, checks: CheckSet | None = None) -> Explanation:
    """Explain one 64-byte bundle field by field (``target``: a :class:`Target` or its name)."""
    target = get_target(target)
    if len(raw) != BUNDLE_SIZE:
        raise ValueError(f"a bundle is {BUNDLE_SIZE} bytes, got {len(raw)}")
    fs = build_formats(decisions)
    op = raw[0]
    sel = fs.select(op, raw)
    ex = Explanation(bytes(raw), op, opcode_name(op), None, target=target.name, decisions=decisions.describe())
    if sel is None:
        ex.error = why_undecodable(raw, fs)
        ex.unexplained = [Row(i, "u8", f"+{i:#04x}", f"{raw[i]:#04x}", "!! not explained (no layout)", "", "", "raw")
                          for i in range(BUNDLE_SIZE) if raw[i]]
        return ex
    fmt, fields = sel
    from ..decode.bundle import DecodedBundle

    ex.mnemonic = mnemonic_of(DecodedBundle(0, op, fmt, fields, bytes(raw)), fs)
    ex.layout = fmt.name
    imm_dtypes: dict[str, str | int] = {}
    for o in template_for(fmt).operands:
        if isinstance(o, ImmOp):
            imm_dtypes[o.fld] = o.dt if o.dt else (o.fixed or 0)
    for f in fmt.fields:
        v = fields[f.name]
        ex.rows.append(Row(f.offset, _width(f), f.name, v, _meaning(fmt, f, v, fields, decisions, target, imm_dtypes),
                           f.conf.value, _decision_text(f.decision, decisions), f.kind_text))
    mask = fmt.covered_mask()
    for i in range(BUNDLE_SIZE):
        extra = raw[i] & ~mask[i] & 0xFF
        if extra:
            ex.unexplained.append(Row(i, "u8", f"+{i:#04x}", f"{raw[i]:#04x}",
                                      f"!! bits {extra:#04x} not explained by any field of {fmt.name}", "", "", "raw"))
    ex.findings = check_bundle(fmt, fields, bytes(raw), target=target, decisions=decisions, stream=stream,
                               checks=checks)
    from ..check.races import dma_footprint, footprints
    from ..isa.layout import Sem

    d = DecodedBundle(0, op, fmt, fields, bytes(raw))
    try:
        ex.footprint = footprints(d).to_json()
        if fmt.layout.sem == Sem.DMA_2D:
            ex.dma = dma_footprint(d, None, decisions).to_json()
    except (KeyError, ValueError) as e:  # a layout whose slots the footprint cannot read: said, not guessed
        ex.footprint = {"error": f"{type(e).__name__}: {e}"}
    return ex


def _region_text(r: dict[str, Any]) -> str:
    where = (f"dram var {r['var']}" if r["space"] == "dram" else
             f"{r['space']} partitions {r['partitions'][0]}..{r['partitions'][1] - 1}")
    text = f"{where} bytes {r['bytes'][0]:#x}..{r['bytes'][1]:#x}"
    p = r.get("pattern")
    if p:
        text += f" (runs of {p['run']} at {p['first']:#x} + " + " + ".join(f"i*{st} (i < {n})" for st, n in p["dims"]) + ")"
    return text


def footprint_lines(fp: dict[str, Any] | None, dma: dict[str, Any] | None) -> list[str]:
    """The footprint as text lines (``reads``/``writes``, and the DMA's when it issues one)."""
    out: list[str] = []
    for label, f in (("", fp), ("DMA ", dma)):
        if not f:
            continue
        if "error" in f:
            out.append(f"{label}footprint: unknown ({f['error']})")
            continue
        for kind in ("reads", "writes"):
            for r in f[kind]:
                out.append(f"{label}{kind}: {_region_text(r)}")
    return out


def render_text(ex: Explanation) -> str:
    """The explanation as an aligned table."""
    out = [f"bundle {ex.raw.hex()}",
           f"opcode {ex.opcode:#04x} {ex.mnemonic}" + (f"   layout {ex.layout}" if ex.layout else "") +
           f"   target {ex.target}" + (f"   decisions {' '.join(ex.decisions)}" if ex.decisions else "")]
    if ex.error:
        out.append(f"!! {ex.error}")
    rows = ex.rows + ex.unexplained
    table = [("off", "width", "field", "raw", "conf", "decision", "meaning")]
    for r in sorted(rows, key=lambda r: (r.offset, r.width != "lo4")):
        raw = r.raw if isinstance(r.raw, str) else (f"{r.raw:#x}" if isinstance(r.raw, int) and r.raw > 9 else str(r.raw))
        table.append((f"+{r.offset:#04x}", r.width, r.name, raw, r.conf, r.decision, r.meaning))
    widths = [max(len(row[i]) for row in table) for i in range(6)]
    for row in table:
        out.append("  ".join(c.ljust(widths[i]) for i, c in enumerate(row[:6])) + "  " + row[6])
    out.append("")
    out.append("confidence: " + "; ".join(f"{c.value} = {c.meaning}" for c in Conf))
    if ex.layout:
        out.append("unexplained bytes: " + ("none" if not ex.unexplained else
                                            ", ".join(f"{r.name}={r.raw}" for r in ex.unexplained)))
        out.append("checks: " + ("clean" if not ex.findings else f"{len(ex.findings)} finding(s)"))
        for f in ex.findings:
            out.append("  " + f.line().split(": ", 1)[-1])
        fp = footprint_lines(ex.footprint, ex.dma)
        out.append("footprint: " + ("none" if not fp else ""))
        out.extend("  " + x for x in fp)
    return "\n".join(out)
