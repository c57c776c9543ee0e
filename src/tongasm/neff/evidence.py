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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ..check.registry import CheckSet
from ..check.runner import check_bundle
from ..isa.decisions import DECISIONS, DecisionSet
from ..isa.decisions.base import D
from ..isa.fields import BUNDLE_SIZE, Format
from ..isa.formats import FormatSet, build_formats
from ..isa.opcodes import CAST, COPY, MEMSET, TT_ARITH, TT_BITVEC
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
    where: list[str]  # "sg00/pe[12]" for every place it occurs


def _bundles(neff: Neff) -> list[_Bundle]:
    seen: dict[tuple[bytes, str], _Bundle] = {}
    for s in neff.streams():
        data = neff.stream_data(s)
        for k in range(len(data) // BUNDLE_SIZE):
            raw = bytes(data[k * BUNDLE_SIZE:(k + 1) * BUNDLE_SIZE])
            b = seen.get((raw, s.stream))
            if b is None:
                b = seen[(raw, s.stream)] = _Bundle(raw, s.stream, [])
            b.where.append(f"{s.graph}/{s.stream}[{k}]")
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


def _outcome(fs: FormatSet, b: _Bundle, neff: Neff, ds: DecisionSet, checks: CheckSet) -> _Outcome:
    sel = fs.select(b.raw[0], b.raw)
    if sel is None:
        return _Outcome(None, (), ("undecodable",))
    fmt, vals = sel
    findings = check_bundle(fmt, vals, b.raw, target=neff.target, decisions=ds, stream=b.stream, checks=checks)
    return _Outcome(fmt.name, tuple(vals.items()),
                    tuple(sorted({f.check for f in findings if f.severity == "error"})))


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


def probe(did: str) -> Callable[[Probe], Probe]:
    def deco(fn: Probe) -> Probe:
        _PROBES[did] = fn
        return fn
    return deco


def _container(did: str, chosen: str, facts: dict[str, tuple[bool | None, str]], note: str) -> Evidence:
    info = DECISIONS[did]
    return Evidence(did, info.subject, CONFIRMED if facts.get(chosen, (None,))[0] else CONTRADICTED, chosen, note,
                    ["header", "archive"], 1, [ReadingVerdict(r, *facts.get(r, (None, "the file cannot tell")))
                                               for r in info.choices])


@probe("R-1")
def _r1(neff: Neff, _b: list[_Bundle], _fs: FormatSet) -> Evidence:
    digest = neff.header.raw("hash")
    payload = neff.payload()
    md5 = hashlib.md5(payload).digest() == digest
    zero = not any(digest) and not any(neff.header.raw("hash_rest"))
    return _container("R-1", "copy", {
        "copy": (True, "a repack that copies the field reproduces the file"),
        "md5-payload": (md5, "the field is MD5(payload)" if md5 else "the field is not MD5(payload)"),
        "zero": (zero, "the field is zero" if zero else "the field is not zero")},
        f"hash field {digest.hex()}; MD5(payload) {hashlib.md5(payload).hexdigest()}")


@probe("R-2")
def _r2(neff: Neff, _b: list[_Bundle], _fs: FormatSet) -> Evidence:
    v = neff.header.number("kelp_version_major")
    return _container("R-2", "copy", {"copy": (True, f"the word is {v}")}, f"0x018 = {v} (the book says 1)")


@probe("R-3")
def _r3(neff: Neff, _b: list[_Bundle], _fs: FormatSet) -> Evidence:
    v, g = neff.header.number("unknown_0x228"), len(neff.kelf.graphs)
    return _container("R-3", "copy", {"copy": (True, "copying reproduces the file"),
                                      "graph-count": (v == g, f"0x228 = {v}, graphs = {g}")},
                      f"0x220 = {neff.header.number('unknown_0x220'):#x}, 0x228 = {v}, {g} graph(s)")


@probe("R-4")
def _r4(neff: Neff, _b: list[_Bundle], _fs: FormatSet) -> Evidence:
    u = neff.header.raw("uuid")
    v4 = len(u) == 16 and u[6] >> 4 == 4 and u[8] >> 6 == 0b10
    return _container("R-4", "keep", {"keep": (True, "keeping the UUID reproduces the file"),
                                      "fresh": (None, f"the UUID {'is' if v4 else 'is not'} an RFC 4122 v4 UUID")},
                      f"uuid {u.hex()}")


@probe("R-5")
def _r5(neff: Neff, _b: list[_Bundle], _fs: FormatSet) -> Evidence:
    m = neff.gzip.mtime
    return _container("R-5", "copy", {"copy": (True, "copying the MTIME reproduces the file"),
                                      "now": (None, "any time is a valid gzip MTIME")},
                      f"gzip MTIME {m}" + (" (not zero: the book's timestamp=false is contradicted)" if m else ""))


@probe("R-6")
def _r6(neff: Neff, _b: list[_Bundle], _fs: FormatSet) -> Evidence:
    from ..isa.decisions.real import MemberOrder

    actual = list(neff.members)
    facts: dict[str, tuple[bool | None, str]] = {}
    for r in DECISIONS["R-6"].choices:
        order = DecisionSet.of({"R-6": r}).get(MemberOrder).order(actual, neff.input_order)
        facts[r] = (order == actual, "the file's member order" if order == actual else
                    f"differs from the file's order (first at member {next(i for i, (a, b) in enumerate(zip(order, actual)) if a != b)})")
    return _container("R-6", DecisionSet()["R-6"], facts, f"{len(actual)} members")


@probe("R-7")
def _r7(neff: Neff, bundles: list[_Bundle], fs: FormatSet) -> Evidence | None:
    """Which slot a TensorTensor writes: the SBUF tile it names is zeroed by a Memset and read by a
    copy or cast later; if the TT only read it, nothing would ever write it but the Memset."""
    fmt = fs.by_name.get("TensorTensor")
    info = DECISIONS["R-7"]
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
        return Evidence("R-7", info.subject, NOT_EXERCISED, DecisionSet()["R-7"], "no TensorTensor bundle in the file",
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
    return Evidence("R-7", info.subject, status, DecisionSet()["R-7"],
                    f"{len(tts)} distinct TensorTensor bundles; ops {sorted(hex(o) for o in ops)}", where, len(tts),
                    [ReadingVerdict(r, *verdicts[r], bundles=where if r == "out-in0-in1" and produced else [])
                     for r in info.choices])


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
    bundles = _bundles(neff)
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
            found = check_bundle(sel[0], sel[1], b.raw, target=neff.target, decisions=recording, stream=b.stream,
                                 checks=checks)
            base.append(_Outcome(sel[0].name, tuple(sel[1].items()),
                                 tuple(sorted({f.check for f in found if f.severity == "error"}))))
        consulted.append(frozenset(recording.seen))  # type: ignore[attr-defined]
    out: list[Evidence] = []
    for did, info in DECISIONS.items():
        if did[0] not in prefixes:
            continue
        if did in _PROBES:
            ev = _PROBES[did](neff, bundles, base_fs)
            if ev is not None:
                out.append(ev)
                continue
        out.append(_decode_evidence(did, info.subject, info.choices, bundles, base, base_fs, neff, checks, consulted,
                                    formats))
    return out


def _layouts_of(fs: FormatSet, opcode: int) -> tuple[Any, ...]:
    """What decoding a bundle of ``opcode`` depends on: its variants' declarations."""
    return tuple((f.name, f.fields, tuple(f.match.items()), f.sync) for f in fs.variants(opcode))


def _decode_evidence(did: str, subject: str, choices: tuple[str, ...], bundles: list[_Bundle],
                     base: list[_Outcome], base_fs: FormatSet, neff: Neff, checks: CheckSet,
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
        for k, b in enumerate(bundles):
            op = b.raw[0]
            same = same_layouts.get(op)
            if same is None:
                same = same_layouts[op] = _layouts_of(fs, op) == _layouts_of(base_fs, op)
            if same and did not in consulted[k]:
                continue  # nothing this bundle's decoding or checks read depends on the decision
            o = _outcome(fs, b, neff, ds, checks)
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


__all__ = ["CONFIRMED", "CONTRADICTED", "NOT_EXERCISED", "Evidence", "ReadingVerdict", "decision_evidence",
           "render_evidence"]


def evidence_markdown(reports: list[tuple[str, list[Evidence]]]) -> str:
    """The verdicts of several NEFFs side by side, as markdown (``docs/decisions-evidence.md``)."""
    names = [name for name, _ in reports]
    out = ["# What the real NEFFs say about each decision", "",
           "Generated by `tongasm decisions --evidence` over the real NEFFs in `shared/groundtruth` "
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
