"""Running the checks: on one bundle, on a raw stream, on a whole kernel.

``check_kernel`` runs codegen in RUN_ISA_CHECKS mode over every instruction and collects every
finding (an encoder refusal ends that instruction, not the run). ``check_stream`` decodes a raw
stream and runs the bundle checks on every bundle, reporting undecodable bundles and a bad length
as findings too. Nothing here raises for a rule violation; only unusable input raises.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from ..errors import TongasmError
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.fields import BUNDLE_SIZE, Format
from ..decode.batch import as_uint8, decode_stream
from ..decode.bundle import why_undecodable
from ..isa.opcodes import ISA_OPCODE_NAMES
from ..isa.formats import FormatSet, build_formats
from ..isa.targets import DEFAULT_TARGET, Target, get_target
from ..ir.instructions import Function, Instruction
from .bundle_checks import BUNDLE_CHECKS, BundleCheck, BundleView
from .act import ResidencyState, residency_rule
from .ir_checks import IR_CHECKS, IrCheck
from .registry import CHECKS, Check, CheckSet, Finding, register
from .vectorized import VECTOR, Columns

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


def check_bundle(fmt: Format, fields: dict[str, int] | None, raw: bytes, *, target: Target | str = DEFAULT_TARGET,
                 decisions: DecisionSet = DEFAULT_DECISIONS, stream: str | None = None,
                 checks: CheckSet | None = None) -> list[Finding]:
    """All findings of the bundle checks on one decoded bundle (location left for the caller);
    ``fields=None`` decodes ``raw`` with ``fmt`` when needed.

    The bundle checks are a function of the bytes, the layout, the stream, the target, the
    decisions and the check selection, so results are memoised on those: a stream repeats its
    bundles (every unrolled loop does), and a repeat costs one dictionary lookup.
    """
    cs = checks or CheckSet()
    target = get_target(target)
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
    return run_ir_checks(inst, _ir_checks_for(type(inst), checks or CheckSet()), decisions, function, target)


def run_ir_checks(inst: Instruction, checks: tuple[IrCheck, ...], decisions: DecisionSet = DEFAULT_DECISIONS,
                  function: Function | None = None, target: Target = DEFAULT_TARGET) -> list[Finding]:
    """The findings of these IR checks on ``inst`` (see :func:`check_instruction`)."""
    out: list[Finding] = []
    for c in checks:
        if c.needs_function:
            if function is not None:
                out.extend(c.fn(inst, function))
        elif c.needs_target:
            out.extend(c.fn(inst, target))
        else:
            out.extend(c.fn(inst, decisions) if c.needs_decisions else c.fn(inst))
    return _lint_as_warnings(out) if out else out


def offset_checks(inst: Instruction, checks: CheckSet | None = None) -> tuple[IrCheck, ...]:
    """The IR checks that run on ``inst`` and may find differently for other operand offsets alone
    (``IrCheck.offsets``)."""
    return tuple(c for c in _ir_checks_for(type(inst), checks or CheckSet())
                 if c.offsets is True or (c.offsets and c.offsets(inst)))


def _ir_checks_for(cls: type[Instruction], cs: CheckSet) -> tuple[IrCheck, ...]:
    """The IR checks that run on instructions of ``cls`` under ``cs``, in registration order (memoised)."""
    key = (cls, cs.pedantic, cs.disabled, len(IR_CHECKS))
    hit = _IR_FOR.get(key)
    if hit is None:
        hit = _IR_FOR[key] = tuple(c for c in IR_CHECKS if issubclass(cls, c.types) and cs.wants(CHECKS[c.id]))
    return hit


_IR_FOR: dict[tuple[Any, ...], tuple[IrCheck, ...]] = {}


def _lint_as_warnings(findings: list[Finding]) -> list[Finding]:
    for f in findings:
        if stage_of(f) == "lint":
            f.severity = "warning"
    return findings


def all_checks() -> Iterator[Check]:
    """Every declared check, sorted by id (this module imports every check module, so all are registered)."""
    yield from sorted(CHECKS.values(), key=lambda c: c.id)


def stage_of(f: Finding) -> str:
    """The stage of a finding's check: ``isa`` (refused by assemble), ``bir`` (the BIR verifier's
    rules: reported, not refused by assemble) or ``lint`` (tongasm's own warnings)."""
    c = CHECKS.get(f.check)
    return c.stage if c is not None else "isa"


#: bundles checked at a time by check_stream (bounded memory on any stream size)
STREAM_CHUNK = 1 << 16


def _check_columns(arr: np.ndarray, fs: FormatSet, target: Target, decisions: DecisionSet, stream: str | None,
                   cs: CheckSet, unmodelled: str, skipped: dict[int, list[int]],
                   base: int, rule: ResidencyState | None = None) -> list[tuple[int, Finding]]:
    """The findings of the bundle checks on a piece of a stream, as (bundle number, finding), in the
    order checking bundle by bundle gives: by bundle, then by check, then as each check yields them.

    The stream is decoded into columns once; each check's vector form (:mod:`.vectorized`) marks the
    rows it may fail on and the scalar check runs on those rows only. ``rule``: the state of the rule
    on the stream's order of bundles (N-35 residency), fed the bundles it reads in stream order after
    the piece's bundle checks (its findings come after a bundle's own)."""
    cols = decode_stream(arr, decisions=decisions)
    rows2d = arr.reshape(-1, BUNDLE_SIZE)
    found: list[tuple[int, int, int, Finding]] = []  # (bundle, check order, yield order, finding)
    for k in cols.undecodable.tolist():
        raw = bytes(rows2d[k])
        if unmodelled == "note" and raw[0] in ISA_OPCODE_NAMES and not fs.variants(raw[0]):
            skipped.setdefault(raw[0], [0, (base + k) * BUNDLE_SIZE])[0] += 1
            continue
        cid = "bundle.layout" if fs.variants(raw[0]) else "bundle.opcode"
        found.append((base + k, -1, 0, Finding(cid, why_undecodable(raw, fs), "opcode", raw[0])))
    for g in cols.groups.values():
        fmt = g.fmt
        view = Columns(fmt, g.fields, rows2d, g.index, target, decisions, stream)
        fields_of: dict[int, dict[str, int]] = {}
        for order, c in enumerate(_checks_for(fmt, cs)):
            vec = VECTOR.get(c.id)
            if vec is not None:
                mask = vec(view)
                if not mask.any():
                    continue
                marked = np.flatnonzero(mask)
            else:
                marked = np.arange(len(g))
            for k in marked.tolist():
                raw = rows2d[g.index[k]]
                fields = fields_of.get(k)
                if fields is None:
                    fields = fields_of[k] = fmt.decode(raw)
                b = BundleView(fmt, fields, bytes(raw), target, decisions, stream)
                for j, f in enumerate(c.fn(b)):
                    if f.check not in cs.disabled:
                        found.append((base + int(g.index[k]), order, j, f))
    if rule is not None:
        rows = np.flatnonzero(np.isin(arr[::BUNDLE_SIZE], rule.OPCODES))
        undecodable = set(cols.undecodable.tolist())
        for k in rows.tolist():
            if k in undecodable:
                continue
            raw = bytes(rows2d[k])
            sel = fs.select(raw[0], raw)
            if sel is None:
                continue
            for j, f in enumerate(rule.visit(stream, raw[0], sel[1])):
                if f.check not in cs.disabled:
                    found.append((base + k, _ORDER_RULE, j, f))
    found.sort(key=lambda t: (t[0], t[1], t[2]))
    return [(pos, f) for pos, _o, _j, f in found if _lint_as_warnings([f])]


#: the sort position of the stream-order rule's findings: after every bundle check of the same bundle
_ORDER_RULE = 1 << 30


def bundle_findings(data: bytes | bytearray | memoryview, *, target: Target, decisions: DecisionSet,
                    stream: str | None, checks: CheckSet, unmodelled: str = "error",
                    skipped: dict[int, list[int]] | None = None,
                    progress: Callable[[int, int | None], None] | None = None,
                    act_sets: Sequence[str] | None = None) -> Iterator[tuple[int, Finding]]:
    """(bundle number, finding) of the bundle checks over a stream's whole bundles, piece by piece
    (:data:`STREAM_CHUNK` bundles), in the order checking bundle by bundle gives, without a location.
    ``unmodelled="note"`` counts bundles of live opcodes without a layout into ``skipped`` instead.
    ``act_sets``: the graph's Activation.json ``activation_function_sets`` (R-21), for a NEFF's stream."""
    fs = build_formats(decisions)
    arr = as_uint8(data)
    whole = len(arr) // BUNDLE_SIZE
    order = residency_rule(decisions, checks, act_sets)  # N-35: a rule on the stream's order of bundles
    skipped = {} if skipped is None else skipped
    for start in range(0, whole, STREAM_CHUNK):
        if progress is not None:
            progress(start, whole)
        part = arr[start * BUNDLE_SIZE:min(whole, start + STREAM_CHUNK) * BUNDLE_SIZE]
        yield from _check_columns(part, fs, target, decisions, stream, checks, unmodelled, skipped, start, order)


def check_stream(data: bytes | bytearray | memoryview, stream: str | None = None, *, name: str | None = None,
                 target: Target | str = DEFAULT_TARGET,
                 decisions: DecisionSet = DEFAULT_DECISIONS, checks: CheckSet | None = None,
                 progress: Callable[[int, int | None], None] | None = None,
                 unmodelled: str = "error", act_sets: Sequence[str] | None = None) -> list[Finding]:
    """Check a raw bundle stream. ``stream`` (also the second positional argument:
    ``check_stream(data, "dve")``) is the engine when known; ``name`` labels findings; ``target`` is a
    :class:`Target` or its name (``"gen3"``).

    ``progress(bundles_done, bundles)`` is called for every piece of :data:`STREAM_CHUNK` bundles.
    The checks run over the stream's columns (:func:`_check_columns`); the findings are exactly those
    of :func:`check_bundle` on every bundle, in stream order.
    ``unmodelled="note"`` (real compiler output, e.g. a NEFF): a bundle of a live ISA opcode tongasm
    has no layout for is not an error but counted, one ``bundle.unmodelled`` warning per opcode;
    an opcode the ISA does not have stays a ``bundle.opcode`` error. The default reports every such
    bundle as ``bundle.opcode``. ``act_sets``: the graph's Activation.json ``activation_function_sets``
    (set names) when the stream comes from a NEFF: R-21 reads a LoadActFuncSet's index in it.
    """
    if unmodelled not in ("error", "note"):
        raise ValueError(f"unmodelled must be 'error' or 'note', not {unmodelled!r}")
    if stream is not None and not isinstance(stream, str):
        raise TypeError(f"stream must be an engine name such as 'dve' (the target goes in target=), not {stream!r}")
    target = get_target(target)
    label = name or stream or "stream"
    out: list[Finding] = []
    n = len(data)
    if n % BUNDLE_SIZE:
        out.append(Finding("stream.length", f"{n} bytes is not a whole number of {BUNDLE_SIZE}-byte bundles; the "
                           f"{n % BUNDLE_SIZE} trailing bytes are not checked", "length", n,
                           f"a multiple of {BUNDLE_SIZE}", stream=label, offset=n - n % BUNDLE_SIZE))
    cs = checks or CheckSet()
    skipped: dict[int, list[int]] = {}  # opcode → [count, first offset] (unmodelled="note")
    for pos, f in bundle_findings(data, target=target, decisions=decisions, stream=stream, checks=cs,
                                  unmodelled=unmodelled, skipped=skipped, progress=progress, act_sets=act_sets):
        f.stream, f.offset = label, pos * BUNDLE_SIZE
        out.append(f)
    if "bundle.unmodelled" not in cs.disabled:
        for op, (count, first) in sorted(skipped.items()):
            out.append(Finding("bundle.unmodelled", f"{count} bundle{'s' * (count != 1)} of opcode {op:#04x} "
                               f"({ISA_OPCODE_NAMES[op]}) not checked: tongasm has no layout for this ISA opcode "
                               "yet (the first is at this offset)", "opcode", op, severity="warning",
                               stream=label, offset=first))
    return out


__all__ = ["all_checks", "check_bundle", "check_instruction", "check_stream", "stage_of", "TongasmError"]
