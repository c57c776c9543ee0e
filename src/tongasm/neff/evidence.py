"""What a real NEFF says about each decision: ``tongasm decisions --evidence FILE.neff``.

For every D-n and R-n the report says **confirmed** (real bundles exercise it and the chosen reading
fits every one of them), **contradicted** (the chosen reading does not fit some real bundle, which
is named) or **not exercised** (nothing in the file depends on it), and for each alternative
reading whether it too fits the file or is ruled out.

Two kinds of evidence:

* **Decoding.** Every distinct bundle of the file is decoded and checked under the chosen readings
  and again under each alternative reading on its own. A reading *fits* a bundle when the bundle
  decodes, every non-zero byte is explained by a field and no ISA check fails; a bundle
  *distinguishes* two readings when its decoding, its fields or its findings differ between them.
  A decision whose readings no bundle distinguishes is not exercised, unless it has a single reading
  and a field or slot of a decoded bundle carries its id (then that bundle exercises it).
* **Probes** for what decoding cannot see: the container decisions (R-1..R-6: what the file's header
  and archive hold) and the dataflow behind R-7 (which TensorTensor slot is written).

The report is evidence about *this file*: a reading that fits it may still be wrong elsewhere, and
an alternative that also fits is left open (the report says so).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ..check.registry import CheckSet
from ..check.runner import check_bundle
from ..isa.decisions import DECISIONS, DecisionSet
from ..isa.decisions.archive import ArchiveStyle, NewMemberHeader
from ..isa.decisions.base import D, Decision
from ..isa.decisions.dma import RangeCheckRows
from ..isa.decisions.neff import GzipMtime, HeaderHash, HeaderUuid, KelpVersionMajor, MemberOrder, UnknownHeaderWords
from ..isa.decisions.tensor import TensorTensorSlots
from ..isa.fields import BUNDLE_SIZE, Format
from ..isa.formats import FormatSet, build_formats
from ..isa.opcodes import CAST, COPY, MEMSET, TT_ARITH, TT_BITVEC
from ..isa.targets import Target
from .neff import Neff

CONFIRMED, CONTRADICTED, NOT_EXERCISED = "confirmed", "contradicted", "not exercised"
#: examples named per verdict
EXAMPLES = 3


@dataclass
class ReadingVerdict:
    """How one reading of a decision fares on the file."""

    reading: str
    fits: bool | None  # None: the file cannot tell
    note: str = ""
    bundles: list[str] = field(default_factory=list)  # bundles that rule it out (or show it)

    def to_json(self) -> dict[str, Any]:
        return {"reading": self.reading, "fits": self.fits, "note": self.note, "bundles": self.bundles}


@dataclass
class Evidence:
    """The verdict on one decision."""

    id: str
    subject: str
    status: str
    chosen: str
    note: str = ""
    bundles: list[str] = field(default_factory=list)  # bundles that exercise it (examples)
    exercised_by: int = 0  # how many distinct bundles (or archive facts) bear on it
    readings: list[ReadingVerdict] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "subject": self.subject, "status": self.status, "chosen": self.chosen,
                "note": self.note, "exercised_by": self.exercised_by, "bundles": self.bundles,
                "readings": [r.to_json() for r in self.readings]}


# --- the distinct bundles of the file ---------------------------------------------------------------

@dataclass
class _Bundle:
    raw: bytes
    stream: str  # tongasm engine stream name
    target: Target
    where: list[str]  # "sg00/pe[12]" (one file) or "FILE:sg00/pe[12]" for every place it occurs


def _bundles(neffs: Sequence[tuple[str, Neff]]) -> list[_Bundle]:
    """The distinct (bytes, engine, target) bundles of the files; ``where`` prefixed with the file's
    label when there are several."""
    seen: dict[tuple[bytes, str, str], _Bundle] = {}
    for label, neff in neffs:
        target = neff.target
        prefix = f"{label}:" if len(neffs) > 1 else ""
        for s in neff.streams():
            data = neff.stream_data(s)
            for k in range(len(data) // BUNDLE_SIZE):
                raw = bytes(data[k * BUNDLE_SIZE:(k + 1) * BUNDLE_SIZE])
                b = seen.get((raw, s.stream, target.name))
                if b is None:
                    b = seen[(raw, s.stream, target.name)] = _Bundle(raw, s.stream, target, [])
                b.where.append(f"{prefix}{s.graph}/{s.stream}[{k}]")
    return list(seen.values())


@dataclass(frozen=True)
class _Outcome:
    """A bundle decoded and checked under one selection of readings."""

    layout: str | None
    fields: tuple[tuple[str, int], ...]
    problems: tuple[str, ...]  # ids of the failed checks, "undecodable", "unexplained"

    @property
    def fits(self) -> bool:
        return self.layout is not None and not self.problems


def _outcome(fs: FormatSet, b: _Bundle, ds: DecisionSet, checks: CheckSet) -> _Outcome:
    sel = fs.select(b.raw[0], b.raw)
    if sel is None:
        return _Outcome(None, (), ("undecodable",))
    fmt, vals = sel
    findings = check_bundle(fmt, vals, b.raw, target=b.target, decisions=ds, stream=b.stream, checks=checks)
    return _Outcome(fmt.name, tuple(vals.items()),
                    tuple(sorted({f.check for f in findings if f.severity == "error"})))


def _outcomes(fs: FormatSet, ds: DecisionSet, checks: CheckSet, bundles: list[_Bundle],
              idx: list[int]) -> dict[int, _Outcome]:
    """:func:`_outcome` of the bundles ``idx`` (bundle by bundle: :func:`check_bundle` memoises
    repeats; the column path's masks are not exact under every alternative reading)."""
    return {k: _outcome(fs, bundles[k], ds, checks) for k in idx}


@cache
def _tags(fmt: Format) -> set[str]:
    """The decision ids a layout's fields and slots carry."""
    out = {f.decision for f in fmt.fields if f.decision}
    for s in fmt.slots.values():
        out |= {d for d in (s.decision, s.role_decision) if d}
    return out


# --- probes ---------------------------------------------------------------------------------------------

Probe = Callable[[Neff, list[_Bundle], FormatSet], Evidence | None]
_PROBES: dict[str, Probe] = {}
#: the probes that read one file's container (header, archive): over several files, one verdict each
_PER_FILE: set[str] = set()


def probe(cls: type[Decision], *, per_file: bool = False) -> Callable[[Probe], Probe]:
    """Register ``fn`` as the evidence of decision ``cls`` (instead of decoding); ``per_file``: it
    weighs one file's container, so over several files it runs on each and the verdicts are joined."""
    def deco(fn: Probe) -> Probe:
        _PROBES[cls.id] = fn
        if per_file:
            _PER_FILE.add(cls.id)
        return fn
    return deco


def _container(cls: type[Decision], chosen: str, facts: dict[str, tuple[bool | None, str]], note: str) -> Evidence:
    info = DECISIONS[cls.id]
    return Evidence(cls.id, info.subject, CONFIRMED if facts.get(chosen, (None,))[0] else CONTRADICTED, chosen, note,
                    ["header", "archive"], 1, [ReadingVerdict(r, *facts.get(r, (None, "the file cannot tell")))
                                               for r in info.choices])


@probe(HeaderHash, per_file=True)
def _r1(neff: Neff, _b: list[_Bundle], _fs: FormatSet) -> Evidence:
    digest = neff.header.raw("hash")
    payload = neff.payload()
    md5 = hashlib.md5(payload).digest() == digest
    zero = not any(digest) and not any(neff.header.raw("hash_rest"))
    return _container(HeaderHash, "copy", {
        "copy": (True, "a repack that copies the field reproduces the file"),
        "md5-payload": (md5, "the field is MD5(payload)" if md5 else "the field is not MD5(payload)"),
        "zero": (zero, "the field is zero" if zero else "the field is not zero")},
        f"hash field {digest.hex()}; MD5(payload) {hashlib.md5(payload).hexdigest()}")


@probe(KelpVersionMajor, per_file=True)
def _r2(neff: Neff, _b: list[_Bundle], _fs: FormatSet) -> Evidence:
    v = neff.header.number("kelp_version_major")
    return _container(KelpVersionMajor, "copy", {"copy": (True, f"the word is {v}")}, f"0x018 = {v} (the book says 1)")


@probe(UnknownHeaderWords, per_file=True)
def _r3(neff: Neff, _b: list[_Bundle], _fs: FormatSet) -> Evidence:
    v, g = neff.header.number("unknown_0x228"), len(neff.kelf.graphs)
    return _container(UnknownHeaderWords, "copy", {"copy": (True, "copying reproduces the file"),
                                      "graph-count": (v == g, f"0x228 = {v}, graphs = {g}")},
                      f"0x220 = {neff.header.number('unknown_0x220'):#x}, 0x228 = {v}, {g} graph(s)")


@probe(HeaderUuid, per_file=True)
def _r4(neff: Neff, _b: list[_Bundle], _fs: FormatSet) -> Evidence:
    u = neff.header.raw("uuid")
    v4 = len(u) == 16 and u[6] >> 4 == 4 and u[8] >> 6 == 0b10
    return _container(HeaderUuid, "keep", {"keep": (True, "keeping the UUID reproduces the file"),
                                      "fresh": (None, f"the UUID {'is' if v4 else 'is not'} an RFC 4122 v4 UUID")},
                      f"uuid {u.hex()}")


@probe(GzipMtime, per_file=True)
def _r5(neff: Neff, _b: list[_Bundle], _fs: FormatSet) -> Evidence:
    m = neff.gzip.mtime
    return _container(GzipMtime, "copy", {"copy": (True, "copying the MTIME reproduces the file"),
                                      "now": (None, "any time is a valid gzip MTIME")},
                      f"gzip MTIME {m}" + (" (not zero: the book's timestamp=false is contradicted)" if m else ""))


@probe(MemberOrder, per_file=True)
def _r6(neff: Neff, _b: list[_Bundle], _fs: FormatSet) -> Evidence:
    actual = list(neff.members)
    facts: dict[str, tuple[bool | None, str]] = {}
    for r in DECISIONS[MemberOrder.id].choices:
        order = DecisionSet.of({MemberOrder.id: r}).get(MemberOrder).order(actual, neff.input_order)
        facts[r] = (order == actual, "the file's member order" if order == actual else
                    f"differs from the file's order (first at member {next(i for i, (a, b) in enumerate(zip(order, actual)) if a != b)})")
    return _container(MemberOrder, DecisionSet()[MemberOrder.id], facts, f"{len(actual)} members")


@probe(ArchiveStyle, per_file=True)
def _r40(neff: Neff, _b: list[_Bundle], _fs: FormatSet) -> Evidence:
    from .container import USTAR

    style = neff.tar_style
    pax = sum(1 for h in neff.tar_headers.values() if h.pax)
    name = style.name if style is not None else "none"
    return _container(ArchiveStyle, DecisionSet()[ArchiveStyle.id], {
        "as-read": (style is not None, f"the file's tar rebuilds in its own style {name!r}" if style is not None
                    else f"no known style rebuilds the file's tar ({neff.tar_style_why})"),
        "ustar": (style is USTAR, "the file is plain ustar" if style is USTAR else
                  f"the file is {name!r}: plain ustar drops its {pax} PAX headers")},
        f"tar style {name!r}: {len(neff.tar_headers)} members, {pax} with a PAX header")


@probe(NewMemberHeader, per_file=True)
def _r41(neff: Neff, _b: list[_Bundle], _fs: FormatSet) -> Evidence:
    info = DECISIONS[NewMemberHeader.id]
    return Evidence(NewMemberHeader.id, info.subject, NOT_EXERCISED, DecisionSet()[NewMemberHeader.id],
                    "a compiler's file has no rewritten member", readings=[ReadingVerdict(r, None) for r in info.choices])


@probe(TensorTensorSlots)
def _r7(neff: Neff, bundles: list[_Bundle], fs: FormatSet) -> Evidence | None:
    """Which slot a TensorTensor writes: the SBUF tile it names is zeroed by a Memset and read by a
    copy or cast later; if the TT only read it, nothing would ever write it but the Memset."""
    fmt = fs.by_name.get("TensorTensor")
    info = DECISIONS[TensorTensorSlots.id]
    tts: list[tuple[_Bundle, dict[str, int]]] = []
    memset_dst: set[tuple[str, int]] = set()
    copy_src: set[tuple[str, int]] = set()
    for b in bundles:
        op = b.raw[0]
        sel = fs.select(op, b.raw)
        if sel is None:
            continue
        f, v = sel
        if op in (TT_ARITH.byte, TT_BITVEC.byte) and f is fmt:
            tts.append((b, v))
        elif op == MEMSET.byte:
            memset_dst.add((b.where[0].split("/")[0], v["dst.addr"]))
        elif op in (COPY.byte, CAST.byte):
            copy_src.update((w.split("/")[0], v["src.addr"]) for w in b.where)
    if not tts:
        return Evidence(TensorTensorSlots.id, info.subject, NOT_EXERCISED, DecisionSet()[TensorTensorSlots.id], "no TensorTensor bundle in the file",
                        readings=[ReadingVerdict(r, None) for r in info.choices])
    assert fmt is not None
    key = {f"+{s.offset:#04x}": s.addr_key for s in fmt.slots.values()}  # the address word at each offset
    same = all(v[key["+0x20"]] == v[key["+0x30"]] for _b, v in tts)
    produced = [b for b, v in tts if any((w.split("/")[0], v[key["+0x20"]]) in memset_dst and
                                           (w.split("/")[0], v[key["+0x20"]]) in copy_src for w in b.where)]
    ops = {v["op"] for _b, v in tts}
    commutative = ops <= {0x04, 0x06, 0x08, 0x09}  # add, mult, max, min
    where = [w for b in produced[:EXAMPLES] for w in b.where[:1]]
    verdicts = {
        "in0-in1-out": (True, "+0x10 is read, +0x30 written"),
        "in0-out-in1": (True if same else None, "+0x20 == +0x30 in every TT: the same bytes" if same else ""),
        "in1-in0-out": (True if commutative else None,
                        "every TT op is commutative: the input order cannot be seen" if commutative else ""),
        "out-in0-in1": (False if produced else None, f"{len(produced)} of {len(tts)} distinct TTs name at +0x20/+0x30 an SBUF tile "
                                       "that a Memset zeroes and a copy/cast reads: with +0x10 written, that tile's "
                                       "only writer would be the Memset"),
    }
    status = CONFIRMED if produced else NOT_EXERCISED
    return Evidence(TensorTensorSlots.id, info.subject, status, DecisionSet()[TensorTensorSlots.id],
                    f"{len(tts)} distinct TensorTensor bundles; ops {sorted(hex(o) for o in ops)}", where, len(tts),
                    [ReadingVerdict(r, *verdicts[r], bundles=where if r == "out-in0-in1" and produced else [])
                     for r in info.choices])


@probe(RangeCheckRows, per_file=True)
def _r110(neff: Neff, _b: list[_Bundle], fs: FormatSet) -> Evidence | None:
    """The rows a PseudoRangeCheck covers: the 0xC4 after it on its stream reads its index rows at
    slot_a, idx_meta of them (one a partition); None for a file with no 0xD6."""
    info = DECISIONS[RangeCheckRows.id]
    fit: list[str] = []
    bad: list[str] = []
    for st in neff.streams():
        data = neff.stream_data(st)
        ops = data[::BUNDLE_SIZE]
        if 0xD6 not in ops:
            continue
        check: tuple[int, dict[str, int]] | None = None
        for k, op in enumerate(ops):
            if op not in (0xD6, 0xC4):
                continue
            raw = bytes(data[k * BUNDLE_SIZE:(k + 1) * BUNDLE_SIZE])
            sel = fs.select(op, raw)
            if sel is None:
                continue
            v = sel[1]
            if op == 0xD6:
                if check is not None:
                    bad.append(f"{st.graph}/{st.stream}[{check[0]}]")  # no 0xC4 reads its rows
                check = (k, v)
            elif check is not None:
                c = check[1]
                ok = c.get("slot_a.addr") == v.get("indirect_start_offset") and \
                    c.get("idx_meta") == v.get("indirect_num_elems1") and v.get("engine_config") == 1 << 18
                (fit if ok else bad).append(f"{st.graph}/{st.stream}[{check[0]}]")
                check = None
        if check is not None:
            bad.append(f"{st.graph}/{st.stream}[{check[0]}]")
    if not fit and not bad:
        return None
    n = len(fit) + len(bad)
    note = (f"{len(fit)} of {n} PseudoRangeChecks: the next 0xC4 on the stream reads idx_meta index rows at slot_a, "
            "one a partition")
    chosen = DecisionSet()[RangeCheckRows.id]
    verdicts = {"index-rows": (not bad, note), "from-first": (None, "sound but wider: the file cannot rule it out")}
    return Evidence(RangeCheckRows.id, info.subject, CONTRADICTED if bad else CONFIRMED, chosen, note,
                    (bad or fit)[:EXAMPLES], n, [ReadingVerdict(r, *verdicts.get(r, (None, ""))) for r in info.choices])


# --- the report -----------------------------------------------------------------------------------------

class _Recording(DecisionSet):
    """The default readings, noting which decisions are asked for (by the checks of one bundle)."""

    def __init__(self) -> None:
        super().__init__()
        object.__setattr__(self, "seen", set())

    def get(self, cls: type[D]) -> D:
        self.seen.add(cls.id)  # type: ignore[attr-defined]
        return super().get(cls)


def decision_evidence(neff: Neff, prefixes: str = "DR") -> list[Evidence]:
    """The verdict on every decision of the given kinds (by id prefix) for this NEFF."""
    return corpus_evidence([(neff.path or "NEFF", neff)], prefixes)


def corpus_evidence(neffs: Sequence[tuple[str, Neff]], prefixes: str = "DR") -> list[Evidence]:
    """The verdict on every decision of the given kinds over several NEFFs (``(label, neff)``): the
    distinct bundles of all of them decoded and checked together (each with its file's target), the
    container probes run on each file and their verdicts joined (contradicted by one file is
    contradicted; a reading one file rules out is ruled out)."""
    if not neffs:
        raise ValueError("corpus_evidence needs at least one NEFF")
    bundles = _bundles(neffs)
    checks = CheckSet()
    base_ds = DecisionSet()
    base_fs = build_formats(base_ds)
    # the base outcomes, and for each bundle the decisions its checks consult: under another reading of
    # a decision it does not consult, a bundle whose opcode keeps the same layouts has the same outcome
    recording = _Recording()
    base, consulted, formats = [], [], []
    for b in bundles:
        recording.seen.clear()  # type: ignore[attr-defined]
        sel = base_fs.select(b.raw[0], b.raw)
        formats.append(sel[0] if sel is not None else None)
        if sel is None:
            base.append(_Outcome(None, (), ("undecodable",)))
        else:
            found = check_bundle(sel[0], sel[1], b.raw, target=b.target, decisions=recording, stream=b.stream,
                                 checks=checks)
            base.append(_Outcome(sel[0].name, tuple(sel[1].items()),
                                 tuple(sorted({f.check for f in found if f.severity == "error"}))))
        consulted.append(frozenset(recording.seen))  # type: ignore[attr-defined]
    out: list[Evidence] = []
    for did, info in DECISIONS.items():
        if did[0] not in prefixes:
            continue
        if did in _PROBES:
            if did in _PER_FILE:
                evs = [(label, _PROBES[did](neff, [], base_fs)) for label, neff in neffs]
                got = [(label, e) for label, e in evs if e is not None]
                if got:
                    out.append(got[0][1] if len(got) == 1 else _join(got))
                    continue
            else:
                ev = _PROBES[did](neffs[0][1], bundles, base_fs)
                if ev is not None:
                    out.append(ev)
                    continue
        out.append(_decode_evidence(did, info.subject, info.choices, bundles, base, base_fs, checks, consulted,
                                    formats))
    return out


def _join(evs: list[tuple[str, Evidence]]) -> Evidence:
    """One verdict from the per-file verdicts of a container probe."""
    first = evs[0][1]
    by_status: dict[str, list[str]] = defaultdict(list)
    for label, e in evs:
        by_status[e.status].append(label)
    status = CONTRADICTED if by_status[CONTRADICTED] else CONFIRMED if by_status[CONFIRMED] else NOT_EXERCISED
    counts = ", ".join(f"{len(v)} {k}" for k, v in by_status.items() if v)
    bad = [(label, e) for label, e in evs if e.status == CONTRADICTED]
    note = f"{len(evs)} files: {counts}"
    if bad:
        note += f"; e.g. {bad[0][0]}: {bad[0][1].note}"
    elif len({e.note for _l, e in evs}) == 1:
        note += f"; {first.note}"
    readings = []
    for k, r in enumerate(first.readings):
        verdicts = [(label, e.readings[k]) for label, e in evs]
        out_by = [label for label, v in verdicts if v.fits is False]
        fit_by = [label for label, v in verdicts if v.fits is True]
        fits: bool | None = False if out_by else True if fit_by else None
        if out_by:
            why = f"ruled out by {len(out_by)} of {len(evs)} files ({next(v.note for _l, v in verdicts if v.fits is False)})"
        elif fit_by:
            why = f"fits {len(fit_by)} of {len(evs)} files"
        else:
            why = r.note
        readings.append(ReadingVerdict(r.reading, fits, why, out_by[:EXAMPLES]))
    examples = [label for label, _e in bad[:EXAMPLES]] or first.bundles
    return Evidence(first.id, first.subject, status, first.chosen, note, examples,
                    sum(e.exercised_by for _l, e in evs), readings)


def _layouts_of(fs: FormatSet, opcode: int) -> tuple[Any, ...]:
    """What decoding a bundle of ``opcode`` depends on: its variants' declarations."""
    return tuple((f.name, f.fields, tuple(f.match.items()), f.sync) for f in fs.variants(opcode))


def _decode_evidence(did: str, subject: str, choices: tuple[str, ...], bundles: list[_Bundle],
                     base: list[_Outcome], base_fs: FormatSet, checks: CheckSet,
                     consulted: list[frozenset[str]], formats: list[Format | None]) -> Evidence:
    chosen = choices[0]
    readings = [ReadingVerdict(chosen, None)]
    exercising: set[int] = set()
    alt_misfits: dict[str, list[int]] = {}
    for alt in choices[1:]:
        ds = DecisionSet.of({did: alt})
        fs = build_formats(ds)
        same_layouts: dict[int, bool] = {}
        misfit = []
        todo = []
        for k, b in enumerate(bundles):
            op = b.raw[0]
            same = same_layouts.get(op)
            if same is None:
                same = same_layouts[op] = _layouts_of(fs, op) == _layouts_of(base_fs, op)
            if same and did not in consulted[k]:
                continue  # nothing this bundle's decoding or checks read depends on the decision
            todo.append(k)
        for k, o in _outcomes(fs, ds, checks, bundles, todo).items():
            if o != base[k]:
                exercising.add(k)
                if base[k].fits and not o.fits:
                    misfit.append(k)
        alt_misfits[alt] = misfit
    if len(choices) == 1:  # a fixed reading: the bundles whose fields carry its id exercise it
        for k, fmt in enumerate(formats):
            if fmt is not None and did in _tags(fmt):
                exercising.add(k)
    if not exercising:
        note = "no bundle of the file depends on it" if len(choices) == 1 else \
            "no bundle of the file decodes or checks differently under its readings"
        return Evidence(did, subject, NOT_EXERCISED, chosen, note,
                        readings=[ReadingVerdict(r, None) for r in choices])
    bad = sorted(k for k in exercising if not base[k].fits)
    examples = [bundles[k].where[0] for k in sorted(exercising)[:EXAMPLES]]
    status = CONTRADICTED if bad else CONFIRMED
    note = f"{len(exercising)} distinct bundle(s) depend on it"
    if bad:
        probs = sorted({p for k in bad for p in base[k].problems})
        note += f"; under {chosen!r} {len(bad)} do not fit ({', '.join(probs)})"
    readings[0] = ReadingVerdict(chosen, not bad, "", [bundles[k].where[0] for k in bad[:EXAMPLES]])
    for alt in choices[1:]:
        mis = alt_misfits[alt]
        readings.append(ReadingVerdict(alt, not mis, f"{len(mis)} bundle(s) do not fit" if mis else
                                       "fits every bundle that depends on the decision",
                                       [bundles[k].where[0] for k in mis[:EXAMPLES]]))
    return Evidence(did, subject, status, chosen, note, examples, len(exercising), readings)


def render_evidence(evs: list[Evidence], path: str) -> Iterator[str]:
    """The text report."""
    counts: dict[str, int] = defaultdict(int)
    for e in evs:
        counts[e.status] += 1
    yield f"decisions against {path}: " + ", ".join(f"{n} {s}" for s, n in counts.items())
    for e in evs:
        yield f"{e.id:<5} {e.status:<13} {e.subject}"
        yield f"      chosen {e.chosen!r}" + (f": {e.note}" if e.note else "")
        if e.bundles:
            yield f"      e.g. {', '.join(e.bundles)}"
        for r in e.readings:
            if r.reading == e.chosen and r.fits is None:
                continue
            mark = {True: "fits", False: "ruled out", None: "open"}[r.fits]
            tail = f" ({r.note})" if r.note else ""
            show = f"  e.g. {', '.join(r.bundles)}" if r.bundles and r.fits is False else ""
            yield f"        {r.reading:<24} {mark}{tail}{show}"


__all__ = ["CONFIRMED", "CONTRADICTED", "NOT_EXERCISED", "Evidence", "ReadingVerdict", "corpus_evidence",
           "decision_evidence", "render_evidence"]


def evidence_markdown(reports: list[tuple[str, list[Evidence]]]) -> str:
    """The verdicts of several NEFFs side by side, as markdown (``docs/decisions-evidence.md``)."""
    names = [name for name, _ in reports]
    out = ["# What the real NEFFs say about each decision", "",
           "Generated by `tongasm decisions --evidence` over the real NEFFs in `shared/groundtruth`: the two "
           "matmul files and each folder of the corpus (its files weighed together: their distinct bundles "
           "decoded and checked as one set, the container decisions per file and joined) "
           "(see `src/tongasm/neff/evidence.py` for how each verdict is reached; `tests/test_docs.py` keeps "
           "this file current). **confirmed**: real bundles exercise the decision and the chosen reading fits "
           "every one; **contradicted**: it does not fit some bundle; **not exercised**: nothing in the file "
           "depends on it. Under *alternatives*, `ruled out` readings do not fit the file, `fits` readings fit "
           "it too (the file cannot tell them apart) and `open` ones are not tested by it.", "",
           "| id | subject | chosen | " + " | ".join(names) + " | alternatives |",
           "|---|---|---|" + "---|" * len(names) + "---|"]
    by_id = [{e.id: e for e in evs} for _name, evs in reports]
    for did in by_id[0]:
        evs = [m[did] for m in by_id]
        cells = []
        for e in evs:
            cell = e.status if not e.bundles else f"{e.status} ({e.exercised_by}; e.g. {e.bundles[0]})"
            cells.append(cell)
        alts = []
        for r in evs[0].readings:
            if r.reading == evs[0].chosen:
                continue
            verdicts = {e.readings[[x.reading for x in e.readings].index(r.reading)].fits for e in evs}
            v = "ruled out" if False in verdicts else "fits" if True in verdicts else "open"
            alts.append(f"`{r.reading}` {v}")
        subject = evs[0].subject.replace("|", "\\|")
        out.append(f"| {did} | {subject} | `{evs[0].chosen}` | " + " | ".join(cells) + f" | {'; '.join(alts)} |")
    notes = [(name, e) for name, evs in reports for e in evs if e.status != NOT_EXERCISED and e.note]
    out += ["", "## Notes", ""]
    out += [f"- **{e.id}** ({name}): {e.note}" for name, e in notes]
    return "\n".join(out) + "\n"
