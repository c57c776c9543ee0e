"""The BIR JSON reference, rendered from the IR declarations (``docs/bir-reference.md``,
``tongasm bir-reference``).

Nothing here is written per opcode: the keys come from each instruction class's ``ATTRS`` (or the
layout record's :class:`~tongasm.isa.layout.BirForm`), the operand roles from ``ROLES`` / the form's
``ins``/``outs``, the dtypes a role may have from the wire-dtype fields its layouts bind it to, the
bundles from the layout records whose opcodes name the BIR instruction, and the engines from
assembling and checking the opcode's example with each engine in turn. Each example is a complete,
minimal kernel shipped in ``tongasm/text/bir_examples/<opcode>.json`` (taken from ``examples/*.json``
or a golden vector: its ``source`` says which). A test regenerates the document and fails when the
committed copy differs, and assembles and checks every example.
"""

from __future__ import annotations

import copy
import enum
import json
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.decisions.scalar import DefaultStream
from ..isa.enums import DTYPE_INFO, Dtype, Engine, UpdateMode, WaitMode
from ..isa.formats import build_formats
from ..isa.layout import Layout
from ..isa.layouts import layouts
from ..isa.opcodes import ISA_OPCODE_NAMES
from .. import ir  # noqa: F401  (the package registers every family's IR classes)
from ..ir.instructions import (
    INSTRUCTION_CLASSES, DeclaredInstruction, Instruction, Number, RefusedInstruction, instruction_class,
)

#: The engines an instruction may name (ALL and Unassigned are not engines: D-25, SPEC §5; DMA
#: names no instruction stream).
ENGINES: tuple[Engine, ...] = (Engine.SP, Engine.Pool, Engine.Activation, Engine.PE, Engine.DVE)

#: The keys every instruction takes (SPEC §5), before its own.
COMMON_KEYS: tuple[tuple[str, str], ...] = (
    ("opcode", "the BIR opcode (the headings below)"),
    ("name", "the instruction's name (listings, manifest and messages use it)"),
    ("engine", f"one of {', '.join(e.name for e in Engine)}: the stream it is encoded into "
               "(ALL is refused; Unassigned picks the stream by family, or is refused where the op runs on "
               "every engine)"),
    ("ins", "input operands, in the order of the roles below"),
    ("outs", "output operands, in the order of the roles below"),
    ("sync", "optional: {\"wait\": {mode, index, value}, \"update\": {mode, index, value}} (an EventSemaphore "
             "takes a list of up to two waits); wait modes "
             f"{', '.join(m.name for m in WaitMode)}; update modes {', '.join(m.name for m in UpdateMode)}"),
)


def bir_opcodes() -> list[str]:
    """Every BIR opcode tongasm encodes (hand-written classes and forms declared by layout records),
    sorted; the ones it reads but refuses (SPEC §4.10) are left out."""
    instruction_class("")  # builds the declared classes
    names = set(INSTRUCTION_CLASSES) | set(_declared_names())
    return sorted(n for n in names if not issubclass(_class(n), RefusedInstruction))


def refused_opcodes() -> dict[str, str]:
    """The BIR opcodes tongasm reads and writes back but refuses to encode, with the reason it gives."""
    return {n: c.REASON for n, c in sorted(INSTRUCTION_CLASSES.items())
            if issubclass(c, RefusedInstruction)}


def _declared_names() -> Iterator[str]:
    for layout in layouts(DEFAULT_DECISIONS):
        if layout.bir is not None:
            yield layout.bir.opcode


def _class(opcode: str) -> type[Instruction]:
    cls = instruction_class(opcode)
    if cls is None:
        raise KeyError(f"no BIR instruction {opcode!r}")
    return cls


@cache
def example(opcode: str) -> tuple[str, Mapping[str, Any]]:
    """The opcode's example: where it was taken from, and the kernel (BIR JSON, as a dict)."""
    try:
        text = resources.files(__package__).joinpath("bir_examples", f"{opcode}.json").read_text()
    except FileNotFoundError:
        raise KeyError(f"no example kernel for BIR {opcode} (tongasm/text/bir_examples/{opcode}.json)") from None
    data = json.loads(text)
    return str(data["source"]), data["kernel"]


def _type_text(t: type) -> tuple[str, list[str]]:
    """A key's type as the reference writes it, and its enum member names (the JSON spelling)."""
    if isinstance(t, type) and issubclass(t, enum.Enum):
        return f"enum {t.__name__}", [m.name for m in t]
    names = {bool: "bool", int: "int", float: "float", str: "string", list: "list", Number: "number"}
    return names.get(t, t.__name__), []


def _default_text(v: Any) -> Any:
    return v.name if isinstance(v, enum.Enum) else v


def _layouts_of(opcode: str, decisions: DecisionSet) -> list[Layout]:
    """The layout records whose opcodes (or BIR form) name this BIR instruction."""
    return [lay for lay in layouts(decisions)
            if (lay.bir is not None and lay.bir.opcode == opcode) or any(o.bir == opcode for o in lay.opcodes)]


def _roles(cls: type[Instruction]) -> list[dict[str, Any]]:
    optional: set[str] = set()
    if issubclass(cls, DeclaredInstruction):
        optional = {r.rstrip("?") for r in (*cls.FORM.ins, *cls.FORM.outs) if r.endswith("?")}
    rows = [{"role": role, "list": "outs" if out else "ins", "index": k, "optional": role in optional}
            for role, (out, k) in cls.ROLES.items()]
    return sorted(rows, key=lambda r: (r["list"] == "outs", r["index"]))


def _role_dtypes(lays: Sequence[Layout], decisions: DecisionSet) -> dict[str, list[str]]:
    """Role → the BIR dtypes (SPEC §2.1 names) whose wire code its layouts' wire-dtype fields accept."""
    fs = build_formats(decisions)
    out: dict[str, set[int]] = {}
    for lay in lays:
        fmt = fs.by_name.get(lay.name)
        if fmt is None:
            continue
        by_name = {f.name: f for f in fmt.fields}
        for fname, role in lay.binding.dtypes.items():
            f = by_name.get(fname)
            if f is not None and f.enum is not None:
                out.setdefault(role, set()).update(f.enum.names)
    return {r: [d.name for d in Dtype if DTYPE_INFO[d].wire in v] for r, v in out.items()}


def _role_slots(lays: Sequence[Layout]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for lay in lays:
        for slot, role in lay.binding.slots.items():
            if slot not in out.setdefault(role, []):
                out[role].append(slot)
    return out


def _with_engine(kernel: Mapping[str, Any], opcode: str, engine: Engine) -> dict[str, Any]:
    k = copy.deepcopy(dict(kernel))
    for f in k["functions"]:
        for b in f["blocks"]:
            for inst in b["instructions"]:
                if inst.get("opcode") == opcode:
                    inst["engine"] = engine.name
    return k


def check_example(kernel: Mapping[str, Any], decisions: DecisionSet = DEFAULT_DECISIONS) -> list[str]:
    """Read, check and assemble an example kernel; every note, finding and refusal, as text (empty:
    clean)."""
    from ..codegen import assemble, check_kernel
    from ..errors import TongasmError
    from ..ir.bir_json import read_bir

    kern = read_bir(json.dumps(kernel).encode())
    problems = [f"note: {n}" for n in kern.notes]
    problems += [f"{f.severity} {f.check}: {f.message}" for f in check_kernel(kern, decisions=decisions).findings]
    if not problems:
        try:
            assemble(kern, decisions=decisions)
        except TongasmError as e:
            problems.append(f"assemble: {e}")
    return problems


def _assembled(kernel: Mapping[str, Any], opcode: str, decisions: DecisionSet) -> list[dict[str, Any]]:
    from ..codegen import assemble
    from ..ir.bir_json import read_bir

    asm = assemble(read_bir(json.dumps(kernel).encode()), decisions=decisions)
    return [{"name": e.name, "stream": e.stream,
             "bundles": [f"{b:#04x} {ISA_OPCODE_NAMES.get(b, '?')}" for b in e.opcodes]}
            for e in asm.instructions if e.opcode == opcode or opcode in ("Matmult", "Select")]


def opcode_reference(opcode: str, decisions: DecisionSet = DEFAULT_DECISIONS) -> dict[str, Any]:
    """One opcode's entry of the reference (JSON-able)."""
    cls = _class(opcode)
    source, kernel = example(opcode)
    assembled = _assembled(kernel, opcode, decisions)
    lays = _layouts_of(opcode, decisions)
    via = not lays
    produced = {int(b.split()[0], 16) for a in assembled for b in a["bundles"]}
    if via:  # lowered, or encoded as another opcode (GenericCopy as TensorCopy): the layouts it assembles to
        lays = [lay for lay in layouts(decisions) if any(o.byte in produced for o in lay.opcodes)]
    dtypes = _role_dtypes(lays, decisions)
    slots = _role_slots(lays)
    keys = []
    for a in cls.ATTRS:
        tname, values = _type_text(a.type)
        group = next((list(g) for g in cls.ONE_OF if a.key in g), [])
        keys.append({"key": a.key, "type": tname, "values": values, "required": a.required,
                     "default": None if a.required else _default_text(a.default), "one_of": group})
    roles = _roles(cls)
    for r in roles:
        r["slots"] = slots.get(r["role"], [])
        r["dtypes"] = dtypes.get(r["role"], [])
    engines = [e.name for e in ENGINES if not check_example(_with_engine(kernel, opcode, e), decisions)]
    if cls.FAMILY == "engine":
        unassigned = None
    else:
        unassigned = decisions.get(DefaultStream).stream(cls.FAMILY)
    doc = (cls.__doc__ or "").strip()
    if issubclass(cls, DeclaredInstruction):
        lay = next((x for x in lays if x.name == cls.LAYOUT), None)
        doc = (lay.doc if lay is not None and lay.doc else doc)
    bundles = sorted({(o.byte, o.mnemonic, lay.name) for lay in lays for o in lay.opcodes
                      if (o.byte in produced if via else o.bir == opcode) or (lay.bir is not None and lay.bir.opcode == opcode)})
    return {
        "opcode": opcode, "doc": " ".join(doc.split()), "keys": keys, "operands": roles,
        "bundles": [{"opcode": f"{b:#04x}", "mnemonic": m, "layout": n} for b, m, n in bundles],
        "encoded_through": sorted({o.bir for lay in lays for o in lay.opcodes if o.byte in produced}) if via else [],
        "engines": engines, "unassigned_stream": unassigned,
        "example": {"source": source, "kernel": kernel, "assembles_to": assembled},
    }


def bir_reference(decisions: DecisionSet = DEFAULT_DECISIONS) -> list[dict[str, Any]]:
    """The whole reference: one entry per BIR opcode tongasm encodes (:func:`opcode_reference`)."""
    return [opcode_reference(op, decisions) for op in bir_opcodes()]


def _cell(s: str) -> str:
    return s.replace("|", "\\|")


def _compact(kernel: Mapping[str, Any]) -> str:
    """The kernel as JSON, one instruction / location per line (readable, still valid JSON)."""
    lines = ["{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in kernel.items() if k != "functions")
             + (", " if len(kernel) > 1 else "") + '"functions": [']
    fns = []
    for f in kernel["functions"]:
        head = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in f.items() if k not in ("allocations", "blocks"))
        allocs = ",\n".join(f"    {json.dumps(a)}" for a in f.get("allocations", []))
        blocks = []
        for b in f["blocks"]:
            insts = ",\n".join(f"      {json.dumps(i)}" for i in b["instructions"])
            bhead = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in b.items() if k != "instructions")
            blocks.append(f"    {{{bhead}, \"instructions\": [\n{insts}]}}")
        fns.append(f" {{{head}{', ' if head else ''}\"allocations\": [\n{allocs}],\n  \"blocks\": [\n"
                   + ",\n".join(blocks) + "]}")
    return "\n".join(lines) + "\n" + ",\n".join(fns) + "]}"


def bir_reference_markdown(decisions: DecisionSet = DEFAULT_DECISIONS) -> str:
    """The reference as the Markdown of ``docs/bir-reference.md``."""
    ref = bir_reference(decisions)
    out = ["# BIR JSON reference", "",
           "Generated from tongasm's declarations by `tongasm bir-reference --format markdown`; do not edit "
           "(a test regenerates it). One section per BIR opcode tongasm encodes: its keys (from the instruction's "
           "declaration), its operand roles (the order of `ins` and `outs`; the descriptor slots and wire dtypes "
           "from the layouts that encode it; the checks narrow the dtypes further, e.g. a PSUM write), the bundles it may produce, the engines it may name (those with which its "
           "example assembles and checks clean: where tongasm has no rule tying the op to an engine, every engine "
           "passes) and a complete, minimal kernel that the test suite assembles and checks. "
           "`docs/bir-json.md` explains the PE, DMA and sync/control forms field by field; `docs/formats.md` is "
           "the byte map.", "",
           "## Keys of every instruction", "", "| key | meaning |", "|---|---|"]
    out += [f"| `{k}` | {_cell(v)} |" for k, v in COMMON_KEYS]
    out += ["", "An operand is a `physical_ap` (`dtype`, `ap` [[step, num], ...] partition pair first, `offset`, "
            "`memref` / `memsetref` naming a location), a `register_access`, or an `imm_value` (`dtype`, `value`); "
            "see SPEC §5.", "",
            "## Opcodes", "", " ".join(f"[{e['opcode']}](#{e['opcode'].lower()})" for e in ref), ""]
    for e in ref:
        out += [f"## {e['opcode']}", "", e["doc"], ""]
        if e["keys"]:
            out += ["| key | type | values | required | default |", "|---|---|---|---|---|"]
            for k in e["keys"]:
                vals = ", ".join(f"`{v}`" for v in k["values"])
                dflt = "" if k["required"] or k["one_of"] else f"`{json.dumps(k['default'])}`"
                req = ("one of " + ", ".join(f"`{g}`" for g in k["one_of"]) if k["one_of"]
                       else "yes" if k["required"] else "no")
                out.append(f"| `{k['key']}` | {k['type']} | {vals} | {req} | {dflt} |")
        else:
            out.append("No keys of its own.")
        out.append("")
        if e["operands"]:
            out += ["| operand | role | optional | slots | dtypes |", "|---|---|---|---|---|"]
            for r in e["operands"]:
                dts = ", ".join(r["dtypes"]) if r["dtypes"] else "(no wire-dtype field)"
                out.append(f"| `{r['list']}[{r['index']}]` | `{r['role']}` | {'yes' if r['optional'] else ''} | "
                           f"{', '.join(r['slots'])} | {dts} |")
        elif any(i.get("ins") or i.get("outs") for f in e["example"]["kernel"]["functions"] for b in f["blocks"]
                 for i in b["instructions"] if i.get("opcode") == e["opcode"]):
            out.append("No fixed operand roles (the description above says where its operands go).")
        else:
            out.append("No operands (`ins` and `outs` empty).")
        out.append("")
        bundles = ", ".join(f"{b['opcode']} {b['mnemonic']} (`{b['layout']}`)" for b in e["bundles"])
        through = (f" (it has none of its own: it is encoded through {', '.join(e['encoded_through'])}, "
                   "as its example assembles; other operands or keys may pick other bundles of those)") if e["encoded_through"] else ""
        out.append(f"* Bundles: {bundles or 'none'}{through}.")
        out.append(f"* Engines tongasm accepts: {', '.join(e['engines']) or 'none'}; "
                   + (f"Unassigned goes to the `{e['unassigned_stream']}` stream." if e["unassigned_stream"]
                      else "Unassigned is refused (it runs on every engine: name one)."))
        asm = "; ".join(f"`{a['name']}` → {a['stream']}: {', '.join(a['bundles'])}" for a in e["example"]["assembles_to"])
        out += [f"* Example (from {e['example']['source']}), assembles to {asm}:", "", "```json",
                _compact(e["example"]["kernel"]), "```", ""]
    out += ["## Read but not encoded", "", "| opcode | why |", "|---|---|"]
    out += [f"| `{n}` | {_cell(r)} |" for n, r in refused_opcodes().items()]
    out.append("")
    return "\n".join(out)


__all__ = ["COMMON_KEYS", "ENGINES", "bir_opcodes", "bir_reference", "bir_reference_markdown", "check_example",
           "example", "opcode_reference", "refused_opcodes"]
