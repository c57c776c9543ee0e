"""Running the checks: on one bundle, on a raw stream, on a whole kernel.

``check_kernel`` runs codegen in RUN_ISA_CHECKS mode over every instruction and collects every
finding (an encoder refusal ends that instruction, not the run). ``check_stream`` decodes a raw
stream and runs the bundle checks on every bundle, reporting undecodable bundles and a bad length
as findings too. Nothing here raises for a rule violation; only unusable input raises.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any
from collections.abc import Callable, Iterator

from ..errors import EncodeError, TongasmError
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.enums import CodeGenMode
from ..isa.fields import BUNDLE_SIZE, Format
from ..isa.formats import build_formats
from ..isa.targets import DEFAULT_TARGET, Target
from ..ir.instructions import Function, Instruction, Kernel
from .bundle_checks import BUNDLE_CHECKS, BundleCheck, BundleView
from .ir_checks import IR_CHECKS
from .registry import CHECKS, CheckSet, Finding, register

register("stream.length", "a stream is a whole number of 64-byte bundles", "SPEC §3.1", "stream")
register("bundle.opcode", "the opcode byte is one tongasm has a layout for", "SPEC §4", "stream")
register("bundle.layout", "the bytes match one layout of their opcode (valid_num, src_mode, operand_mode...)",
         "SPEC §4", "stream")
register("bundle.unmodelled", "bundles of a live ISA opcode tongasm has no layout for yet: not checked "
         "(counted per opcode; real NEFFs)", "SPEC §4", "stream", stage="lint")

_PER_FORMAT: dict[tuple[Format, bool, frozenset[str]], list[BundleCheck]] = {}


def _checks_for(fmt: Format, checks: CheckSet) -> list[BundleCheck]:
    key = (fmt, checks.pedantic, checks.disabled)
    out = _PER_FORMAT.get(key)
    if out is None:
        out = _PER_FORMAT[key] = [c for c in BUNDLE_CHECKS if checks.wants(CHECKS[c.id]) and c.applies(fmt)]
    return out


def check_bundle(fmt: Format, fields: dict[str, int] | None, raw: bytes, *, target: Target = DEFAULT_TARGET,
                 decisions: DecisionSet = DEFAULT_DECISIONS, stream: str | None = None,
                 checks: CheckSet | None = None) -> list[Finding]:
    """All findings of the bundle checks on one decoded bundle (location left for the caller);
    ``fields=None`` decodes ``raw`` with ``fmt`` when needed.

    The bundle checks are a function of the bytes, the layout, the stream, the target, the
    decisions and the check selection, so results are memoised on those: a stream repeats its
    bundles (every unrolled loop does), and a repeat costs one dictionary lookup.
    """
    cs = checks or CheckSet()
    key = (fmt, bytes(raw), stream, target, decisions, cs.pedantic, cs.disabled)
    hit = _MEMO.get(key)
    if hit is not None:
        return [replace(f) for f in hit]
    if fields is None:  # the caller has not decoded the bundle: only a miss needs its fields
        fields = fmt.decode(raw)
    view = BundleView(fmt, fields, raw, target, decisions, stream)
    out: list[Finding] = []
    for c in _checks_for(fmt, cs):
        for f in c.fn(view):
            if f.check in cs.disabled:
                continue
            out.append(f)
    _lint_as_warnings(out)
    if len(_MEMO) >= MEMO_LIMIT:
        _MEMO.clear()
    _MEMO[key] = tuple(replace(f) for f in out)
    return out


MEMO_LIMIT = 1 << 16
_MEMO: dict[tuple[Any, ...], tuple[Finding, ...]] = {}


def check_instruction(inst: Instruction, checks: CheckSet | None = None,
                      decisions: DecisionSet = DEFAULT_DECISIONS, function: Function | None = None,
                      target: Target = DEFAULT_TARGET) -> list[Finding]:
    """The IR-level findings of one instruction (lint findings come back as warnings). The checks
    that need the instruction's function run only when it is given."""
    cs = checks or CheckSet()
    out: list[Finding] = []
    for c in IR_CHECKS:
        if isinstance(inst, c.types) and cs.wants(CHECKS[c.id]):
            if c.needs_function:
                if function is not None:
                    out.extend(c.fn(inst, function))
            elif c.needs_target:
                out.extend(c.fn(inst, target))
            else:
                out.extend(c.fn(inst, decisions) if c.needs_decisions else c.fn(inst))
    return _lint_as_warnings(out)


def _lint_as_warnings(findings: list[Finding]) -> list[Finding]:
    for f in findings:
        if stage_of(f) == "lint":
            f.severity = "warning"
    return findings


def stage_of(f: Finding) -> str:
    """The stage of a finding's check: ``isa`` (refused by assemble), ``bir`` (the BIR verifier's
    rules: reported, not refused by assemble) or ``lint`` (tongasm's own warnings)."""
    c = CHECKS.get(f.check)
    return c.stage if c is not None else "isa"


@dataclass
class KernelReport:
    """Findings over a kernel, with how much was looked at."""

    findings: list[Finding] = field(default_factory=list)
    instructions: int = 0
    bundles: int = 0

    @property
    def clean(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)

    def to_json(self) -> dict[str, Any]:
        return {"instructions": self.instructions, "bundles": self.bundles,
                "findings": [f.to_json() for f in self.findings]}


def check_kernel(kernel: Kernel, *, target: str | Target | None = None, decisions: DecisionSet = DEFAULT_DECISIONS,
                 checks: CheckSet | None = None,
                 progress: Callable[[int, int | None], None] | None = None) -> KernelReport:
    """RUN_ISA_CHECKS over a kernel: every encoder refusal and every finding, not just the first.

    ``progress(instructions_done, None)`` is called every 256 instructions when given.
    """
    from ..codegen.assembler import resolve_target
    from ..codegen.common import Context
    from ..codegen.generator import generate
    from ..passes import ProgramItem, flatten, lower_item

    tgt = resolve_target(kernel.arch, target)
    ctx = Context(tgt, decisions)
    report = KernelReport()
    seen: set[int] = set()
    program: Iterator[ProgramItem] = flatten(kernel)
    if kernel.functions:  # the stream prologue, when selected
        from ..passes.prologue import with_prologue

        program = (ProgramItem(n, inst, func, inst, 0, 1, ix) for n, (inst, func, ix) in
                   enumerate(with_prologue(((i.inst, i.function, i.iteration) for i in program), kernel.functions[0],
                                           decisions)))
    for it in program:
        report.instructions += 1
        if progress is not None and not report.instructions & 255:
            progress(report.instructions, None)
        try:
            items = lower_item(it)
        except EncodeError as e:
            e.at(it.source.name or None, it.index, it.source.opcode)
            report.findings.append(_from_error(e))
            continue
        for item in items:
            try:
                res = generate(item, ctx, CodeGenMode.RUN_ISA_CHECKS, checks=checks)
            except EncodeError as e:
                report.findings.append(_from_error(e, item.part if item.parts > 1 else None))
                continue
            report.bundles += len(res.bundles)
            report.findings.extend(res.findings)
            seen.add(item.index)
    return report


def _from_error(e: EncodeError, bundle: int | None = None) -> Finding:
    return Finding(e.check or "encode", e.detail, e.field, e.value, e.limit, "error", e.inst_name, e.inst_index,
                   e.inst_opcode, bundle)


def check_stream(data: bytes | bytearray | memoryview, *, name: str | None = None, target: Target = DEFAULT_TARGET,
                 decisions: DecisionSet = DEFAULT_DECISIONS, checks: CheckSet | None = None,
                 stream: str | None = None,
                 progress: Callable[[int, int | None], None] | None = None,
                 unmodelled: str = "error") -> list[Finding]:
    """Check a raw bundle stream. ``name`` labels findings; ``stream`` is the engine when known.

    ``progress(bundles_done, bundles)`` is called every 4096 bundles when given.
    ``unmodelled="note"`` (real compiler output, e.g. a NEFF): a bundle of a live ISA opcode tongasm
    has no layout for is not an error but counted, one ``bundle.unmodelled`` warning per opcode;
    an opcode the ISA does not have stays a ``bundle.opcode`` error. The default reports every such
    bundle as ``bundle.opcode``.
    """
    if unmodelled not in ("error", "note"):
        raise ValueError(f"unmodelled must be 'error' or 'note', not {unmodelled!r}")
    fs = build_formats(decisions)
    label = name or stream or "stream"
    out: list[Finding] = []
    n = len(data)
    if n % BUNDLE_SIZE:
        out.append(Finding("stream.length", f"{n} bytes is not a whole number of {BUNDLE_SIZE}-byte bundles; the "
                           f"{n % BUNDLE_SIZE} trailing bytes are not checked", "length", n,
                           f"a multiple of {BUNDLE_SIZE}", stream=label, offset=n - n % BUNDLE_SIZE))
    mv = memoryview(data)
    from ..decode.bundle import why_undecodable
    from ..isa.opcodes import ISA_OPCODE_NAMES

    skipped: dict[int, list[int]] = {}  # opcode → [count, first offset] (unmodelled="note")
    for off in range(0, n - n % BUNDLE_SIZE, BUNDLE_SIZE):
        if progress is not None and not off & 0x3FFFF:
            progress(off // BUNDLE_SIZE, n // BUNDLE_SIZE)
        raw = bytes(mv[off:off + BUNDLE_SIZE])
        sel = fs.select(raw[0], raw)
        if sel is None and unmodelled == "note" and raw[0] in ISA_OPCODE_NAMES and not fs.variants(raw[0]):
            skipped.setdefault(raw[0], [0, off])[0] += 1
            continue
        if sel is None:
            cid = "bundle.layout" if fs.variants(raw[0]) else "bundle.opcode"
            out.append(Finding(cid, why_undecodable(raw, fs), "opcode", raw[0], stream=label, offset=off))
            continue
        fmt, fields = sel
        for f in check_bundle(fmt, fields, raw, target=target, decisions=decisions, stream=stream, checks=checks):
            f.stream, f.offset = label, off
            out.append(f)
    cs = checks or CheckSet()
    if "bundle.unmodelled" not in cs.disabled:
        for op, (count, first) in sorted(skipped.items()):
            out.append(Finding("bundle.unmodelled", f"{count} bundle{'s' * (count != 1)} of opcode {op:#04x} "
                               f"({ISA_OPCODE_NAMES[op]}) not checked: tongasm has no layout for this ISA opcode "
                               "yet (the first is at this offset)", "opcode", op, severity="warning",
                               stream=label, offset=first))
    return out


__all__ = ["KernelReport", "check_bundle", "check_instruction", "check_kernel", "check_stream", "stage_of",
           "TongasmError"]
