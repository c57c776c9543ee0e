"""``tongasm neff survey``: what tongasm makes of a set of real NEFFs, per target, engine and opcode.

For every (target, engine stream, opcode) line: how many bundles and files hold it, how many
bundles decode, how many have bytes no field explains (and how many such bytes), how many come back
identical through the text form (disassembled, then parsed back), and the ``check`` findings by
check id. It is the corpus in one table: a line with a layout that is not 100% decoded, 0
unexplained, 100% round trip and 0 findings names a wrong layout or a wrong rule.

How it stays fast (the 96-file corpus, 1.2 M bundles, in seconds):

* each stream is decoded once into columns (:func:`tongasm.decode.batch.decode_stream`) and checked
  through the column path (:func:`tongasm.check.runner.bundle_findings`, what ``check`` runs), file by file;
* explaining and the text round trip depend only on a bundle's bytes (and the engine it is on), so
  they run once per *distinct* bundle of a (target, engine), weighted by how often it occurs: the
  unexplained bytes from each layout's covered-bit mask over the layout's rows at once, the text
  from :func:`tongasm.text.fast.stream_bodies` and back through the listing's own operand parser;
* ``workers`` > 1 spreads the files (then the distinct bundles) over processes.

Findings of the checks that report undecodable bundles (``bundle.layout``, ``bundle.opcode``,
``bundle.unmodelled``) are not counted as findings: the *decoded* column says it.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..decode.batch import as_uint8, decode_stream
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.fields import BUNDLE_SIZE
from ..isa.formats import build_formats
from ..isa.opcodes import opcode_name
from .errors import NeffError

#: the checks that say a bundle does not decode: the survey's ``decoded`` column, not findings
UNDECODED_CHECKS = frozenset({"bundle.layout", "bundle.opcode", "bundle.unmodelled"})
#: example places kept per problem of a line
EXAMPLES = 3


@dataclass
class SurveyLine:
    """One (target, engine, opcode) of the survey."""

    target: str
    engine: str
    opcode: int
    layouts: tuple[str, ...]  # the layouts tongasm has for the opcode (empty: none)
    bundles: int = 0
    distinct: int = 0
    files: set[str] = field(default_factory=set)
    decoded: int = 0
    unexplained: int = 0  # bundles with bits no field explains
    unexplained_bytes: int = 0  # bytes (summed over those bundles) with such bits
    roundtrip: int = 0  # decoded bundles whose text parses back to the same bytes
    findings: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)  # problem -> places

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.target, self.engine, self.opcode)

    @property
    def has_layout(self) -> bool:
        return bool(self.layouts)

    @property
    def clean(self) -> bool:
        """Every bundle decodes, is explained, round-trips and passes the checks."""
        return (self.decoded == self.bundles and not self.unexplained and self.roundtrip == self.decoded
                and not self.findings)

    def example(self, problem: str, place: str) -> None:
        got = self.examples.setdefault(problem, [])
        if len(got) < EXAMPLES:
            got.append(place)

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target, "engine": self.engine, "opcode": self.opcode, "name": opcode_name(self.opcode),
                "layouts": list(self.layouts), "bundles": self.bundles, "distinct": self.distinct,
                "files": len(self.files), "decoded": self.decoded, "unexplained": self.unexplained,
                "unexplained_bytes": self.unexplained_bytes, "roundtrip": self.roundtrip,
                "findings": dict(sorted(self.findings.items())), "clean": self.clean,
                "examples": self.examples}


@dataclass
class Survey:
    """The survey of a set of NEFFs: its lines, the files and what could not be read."""

    lines: dict[tuple[str, str, int], SurveyLine]
    files: list[str]
    unreadable: dict[str, str]  # file -> why it could not be read
    seconds: float = 0.0
    #: wall seconds of each pass: "files" (read, decode, check), "bundles" (explain, text round trip)
    phases: dict[str, float] = field(default_factory=dict)

    def totals(self) -> dict[str, int]:
        ls = self.lines.values()
        return {"files": len(self.files), "unreadable": len(self.unreadable), "lines": len(self.lines),
                "bundles": sum(x.bundles for x in ls), "decoded": sum(x.decoded for x in ls),
                "unexplained": sum(x.unexplained for x in ls), "roundtrip": sum(x.roundtrip for x in ls),
                "findings": sum(sum(x.findings.values()) for x in ls),
                "clean_lines": sum(x.clean for x in ls),
                "lines_without_layout": sum(not x.has_layout for x in ls)}

    def to_json(self) -> dict[str, Any]:
        return {"totals": self.totals(), "seconds": round(self.seconds, 3),
                "phases": {k: round(v, 3) for k, v in self.phases.items()}, "unreadable": self.unreadable,
                "lines": [x.to_json() for x in self.sorted_lines()]}

    def sorted_lines(self) -> list[SurveyLine]:
        return [self.lines[k] for k in sorted(self.lines)]


# --- inputs ---------------------------------------------------------------------------------------

def neff_paths(inputs: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The NEFF files named by ``inputs``: a file as given, a directory searched for ``*.neff``
    (recursively, in path order). A path that does not exist, or a directory without NEFFs, is a
    :class:`NeffError`."""
    out: list[Path] = []
    for i in inputs:
        p = Path(i)
        if p.is_dir():
            found = sorted(q for q in p.rglob("*.neff") if q.is_file())
            if not found:
                raise NeffError(f"{p}: a directory with no *.neff file")
            out += found
        elif p.exists():
            out.append(p)
        else:
            raise NeffError(f"cannot read {p}: no such file or directory")
    return out


# --- the per-file pass: decode and check ------------------------------------------------------------

@dataclass
class _FilePart:
    """What one file contributes: counts per line and its bundles per (target, engine)."""

    path: str
    error: str | None = None
    counts: dict[tuple[str, str, int], list[int]] = field(default_factory=dict)  # [bundles, decoded]
    findings: dict[tuple[str, str, int], Counter[str]] = field(default_factory=dict)
    examples: list[tuple[tuple[str, str, int], str, str]] = field(default_factory=list)
    bundles: dict[tuple[str, str], list[bytes]] = field(default_factory=dict)  # stream data


def _survey_file(path: str, specs: tuple[str, ...]) -> _FilePart:
    from ..check.registry import CheckSet
    from ..check.runner import bundle_findings
    from .neff import Neff

    decisions = DecisionSet.parse(specs)  # by name: a reading is bound by identity, which pickling breaks

    part = _FilePart(path)
    try:
        neff = Neff.read(path)
        target = neff.target
        streams = list(neff.streams())
    except NeffError as e:
        part.error = str(e)
        return part
    checks = CheckSet()
    for s in streams:
        data = neff.stream_data(s)
        n = len(data) // BUNDLE_SIZE
        if not n:
            continue
        arr = as_uint8(data)[:n * BUNDLE_SIZE]
        cols = decode_stream(arr, decisions=decisions)
        ops = cols.opcode
        decoded = cols.layout >= 0
        present = np.bincount(ops, minlength=256)
        good = np.bincount(ops[decoded], minlength=256)
        where = f"{Path(path).name}:{s.graph}/{s.stream}"
        for op in np.flatnonzero(present).tolist():
            key = (target.name, s.stream, op)
            c = part.counts.setdefault(key, [0, 0])
            c[0] += int(present[op])
            c[1] += int(good[op])
            if good[op] < present[op]:
                k = int(np.flatnonzero((ops == op) & ~decoded)[0])
                part.examples.append((key, "undecoded", f"{where}[{k}]"))
        for k, f in bundle_findings(memoryview(data)[:n * BUNDLE_SIZE], target=target, decisions=decisions, stream=s.stream,
                                    checks=checks, unmodelled="note",
                                    act_sets=neff.activation_function_sets(s.graph)):  # the graph's own sets
            if f.check in UNDECODED_CHECKS:
                continue
            key = (target.name, s.stream, int(ops[k]))
            part.findings.setdefault(key, Counter())[f.check] += 1
            part.examples.append((key, f.check, f"{where}[{k}]"))
        part.bundles.setdefault((target.name, s.stream), []).append(bytes(arr))
    return part


# --- the per-distinct-bundle pass: explain and text round trip ---------------------------------------

def _distinct(chunks: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """The distinct bundles of ``chunks`` (as an (n, 64) uint8 array) and how often each occurs."""
    rows = np.frombuffer(b"".join(chunks), dtype=np.uint8).reshape(-1, BUNDLE_SIZE)
    uniq, counts = np.unique(rows.view(f"V{BUNDLE_SIZE}").ravel(), return_counts=True)
    return np.frombuffer(uniq.tobytes(), dtype=np.uint8).reshape(-1, BUNDLE_SIZE), counts


@dataclass
class _BundlePart:
    """Explain and round-trip results of a set of distinct bundles of one (target, engine)."""

    target: str
    engine: str
    # opcode -> [distinct, unexplained bundles, unexplained bytes, round trips] (weighted by occurrences)
    counts: dict[int, list[int]] = field(default_factory=dict)
    examples: list[tuple[int, str, str]] = field(default_factory=list)  # opcode, problem, bundle hex


def _explain_roundtrip(target: str, engine: str, rows: np.ndarray, weights: np.ndarray,
                       specs: tuple[str, ...]) -> _BundlePart:
    from ..text.assembler import mnemonic_table
    from ..text.fast import stream_bodies
    from ..text.syntax import ParseError, parse_operands

    decisions = DecisionSet.parse(specs)

    part = _BundlePart(target, engine)
    if not len(rows):
        return part
    fs = build_formats(decisions)
    table = mnemonic_table(fs)
    arr = np.ascontiguousarray(rows).reshape(-1)
    cols = decode_stream(arr, decisions=decisions)
    ops = cols.opcode
    unexplained = np.zeros(len(rows), dtype=np.int64)
    for g in cols.groups.values():
        spare = np.frombuffer(bytes((~b) & 0xFF for b in g.fmt.covered_mask()), dtype=np.uint8)
        unexplained[g.index] = ((rows[g.index] & spare) != 0).sum(axis=1)
    texts = stream_bodies(arr, decisions=decisions, cols=cols)
    back = np.zeros(len(rows), dtype=bool)
    for k in np.flatnonzero(cols.layout >= 0).tolist():
        text = texts[k]
        mnem, _, ops_text = text.partition(" ")
        entry = table.get(mnem.lower())
        if entry is None:
            continue
        try:
            back[k] = parse_operands(fs.by_name[entry[1]], entry[0], ops_text, decisions, 0) == rows[k].tobytes()
        except ParseError:
            back[k] = False
    decoded = cols.layout >= 0
    for op in np.unique(ops).tolist():
        sel = ops == op
        w = weights[sel]
        c = part.counts.setdefault(op, [0, 0, 0, 0])
        c[0] += int(sel.sum())
        odd = unexplained[sel] > 0
        c[1] += int(w[odd].sum())
        c[2] += int((unexplained[sel] * w).sum())
        c[3] += int(w[back[sel]].sum())
        if odd.any():
            part.examples.append((op, "unexplained", rows[np.flatnonzero(sel)[np.flatnonzero(odd)[0]]].tobytes().hex()))
        bad = decoded[sel] & ~back[sel]
        if bad.any():
            part.examples.append((op, "roundtrip", rows[np.flatnonzero(sel)[np.flatnonzero(bad)[0]]].tobytes().hex()))
    return part


# --- the survey ---------------------------------------------------------------------------------------

def _pool_map(fn: Any, args: list[tuple[Any, ...]], workers: int) -> Iterator[Any]:
    if workers <= 1 or len(args) <= 1:
        for a in args:
            yield fn(*a)
        return
    with ProcessPoolExecutor(max_workers=workers) as ex:
        yield from ex.map(fn, *zip(*args))


def _split(rows: np.ndarray, weights: np.ndarray, pieces: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    step = max(1, -(-len(rows) // pieces))
    for start in range(0, len(rows), step):
        yield rows[start:start + step], weights[start:start + step]


def default_workers() -> int:
    """Processes the survey uses by default: the machine's cores (at most 8)."""
    return max(1, min(8, os.cpu_count() or 1))


def survey(inputs: Iterable[str | os.PathLike[str]], *, decisions: DecisionSet = DEFAULT_DECISIONS,
           workers: int | None = None) -> Survey:
    """Survey the NEFFs named by ``inputs`` (files or directories, see :func:`neff_paths`).

    A file that cannot be read as a NEFF is listed in :attr:`Survey.unreadable`, not surveyed.
    """
    import time

    t0 = time.perf_counter()
    paths = [str(p) for p in neff_paths(inputs)]
    workers = default_workers() if workers is None else max(1, workers)
    fs = build_formats(decisions)
    lines: dict[tuple[str, str, int], SurveyLine] = {}

    def line(key: tuple[str, str, int]) -> SurveyLine:
        got = lines.get(key)
        if got is None:
            layouts = tuple(f.name for f in fs.variants(key[2]))
            got = lines[key] = SurveyLine(key[0], key[1], key[2], layouts)
        return got

    unreadable: dict[str, str] = {}
    per_engine: dict[tuple[str, str], list[bytes]] = defaultdict(list)
    specs = tuple(decisions.describe())
    for part in _pool_map(_survey_file, [(p, specs) for p in paths], workers):
        if part.error is not None:
            unreadable[part.path] = part.error
            continue
        for key, (n, good) in part.counts.items():
            x = line(key)
            x.bundles += n
            x.decoded += good
            x.files.add(part.path)
        for key, found in part.findings.items():
            line(key).findings.update(found)
        for key, problem, place in part.examples:
            line(key).example(problem, place)
        for te, chunks in part.bundles.items():
            per_engine[te] += chunks
    t1 = time.perf_counter()
    jobs: list[tuple[Any, ...]] = []
    for (target, engine), chunks in sorted(per_engine.items()):
        rows, weights = _distinct(chunks)
        pieces = workers if len(rows) > 20_000 else 1
        jobs += [(target, engine, r, w, specs) for r, w in _split(rows, weights, pieces)]
    for bp in _pool_map(_explain_roundtrip, jobs, workers):
        for op, (distinct, odd, odd_bytes, back) in bp.counts.items():
            x = line((bp.target, bp.engine, op))
            x.distinct += distinct
            x.unexplained += odd
            x.unexplained_bytes += odd_bytes
            x.roundtrip += back
        for op, problem, hexs in bp.examples:
            line((bp.target, bp.engine, op)).example(problem, hexs)
    t2 = time.perf_counter()
    return Survey(lines, paths, unreadable, t2 - t0, {"files": t1 - t0, "bundles": t2 - t1})


# --- reports --------------------------------------------------------------------------------------------

def _pct(n: int, d: int) -> str:
    return "-" if not d else f"{100 * n / d:.1f}%" if n != d else "100%"


def render_survey(sv: Survey) -> Iterator[str]:
    """The survey as a text table, one line per (target, engine, opcode), then the totals."""
    t = sv.totals()
    yield (f"survey of {t['files']} NEFF file(s), {t['bundles']:,} bundles in {sv.seconds:.1f} s: "
           f"{t['clean_lines']} of {t['lines']} lines clean, {t['lines_without_layout']} without a layout")
    head = (f"{'target':<6} {'engine':<5} {'opcode':<6} {'name':<24} {'bundles':>9} {'files':>5} {'decoded':>8} "
            f"{'unexpl':>7} {'bytes':>7} {'text rt':>8}  findings")
    yield head
    for x in sv.sorted_lines():
        name = opcode_name(x.opcode) + ("" if x.has_layout else " *")
        found = ", ".join(f"{k} {v:,}" for k, v in sorted(x.findings.items()))
        yield (f"{x.target:<6} {x.engine:<5} {x.opcode:#06x} {name[:24]:<24} {x.bundles:>9,} {len(x.files):>5} "
               f"{_pct(x.decoded, x.bundles):>8} {x.unexplained:>7,} {x.unexplained_bytes:>7,} "
               f"{_pct(x.roundtrip, x.decoded):>8}  {found}")
    yield (f"total: {t['bundles']:,} bundles, {t['decoded']:,} decoded, {t['unexplained']:,} with unexplained bytes, "
           f"{t['roundtrip']:,} round trips, {t['findings']:,} findings (* = no layout)")
    for path, why in sv.unreadable.items():
        yield f"unreadable: {path}: {why}"


__all__ = ["Survey", "SurveyLine", "neff_paths", "render_survey", "survey"]
