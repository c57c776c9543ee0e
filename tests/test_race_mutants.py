"""Mutants of real NEFFs: each semaphore wait deleted in turn, and the race check must find the race
that wait prevented, or the wait must be shown redundant; and the real corpus reports no race.

A deleted wait (its mode, semaphore and threshold cleared; the bundle otherwise unchanged) leaves
the bundles after it in its stream unordered with what the wait ordered them after. The check must
then report races, each with one side at or after the mutated bundle (the
race the wait prevented, nothing else; "at or after" also in the streams the wait's ordering flows
to through the semaphores the mutated stream raises after it). When it reports none, the wait must be redundant for a
reason found here independently of the analysis:

* ``dominated``: an earlier bundle of the same stream waits on the same semaphore for at least as
  much (program order carries that wait's ordering);
* ``nothing-to-order``: no bundle of the stream from the mutated one to its next wait, and no DMA
  they issue, touches bytes any access of another stream or DMA writes, or writes bytes any of them
  reads (footprints only, ignoring every ordering): the wait ordered nothing that can conflict;
* ``own-stream``: only bundles of the waiting stream raise the semaphore: program order already puts
  them before it (the compiler waits on an engine's own semaphore before a DMA or an instruction reads
  what that engine wrote: it does not trust the engine's pipeline; the race check, which compares only
  different engines and queues, takes program order as ordering, a gap said in the report);
* ``implied``: a later wait of the same stream before the next conflicting access needs the same
  sources (same semaphore, at least as much).

The full corpus run (all 96 NEFFs, minutes) is ``benchmarks/corpus_races.py``; here the small ones.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from corpus_support import corpus_dir, corpus_files
from tongasm.check.races import Footprint, _conflict, decode_streams, footprints
from tongasm.isa.enums import WAIT_WIRE, WaitMode
from tongasm.neff.neff import Neff
from tongasm.neff.semaphores import dma_blocks, graph_races, indirect_semaphores

_GE = WAIT_WIRE[WaitMode.sem_ge_imm]


@dataclass
class Mutant:
    neff: Neff  # with the wait deleted
    graph: str
    stream: str
    index: int
    sem: int
    need: int
    original: dict[str, list]  # stream -> decoded bundles of the real NEFF


def mutants(n: Neff, graph: str = "sg00") -> Iterator[Mutant]:
    """One mutant per sem_ge_imm wait of the graph (every stream, every wait lane)."""
    g = n.graph(graph)
    decoded = decode_streams({s.stream: n.stream_data(s) for s in g.streams.values()})
    for sname, bs in decoded.items():
        for i, d in enumerate(bs):
            lanes = d.fmt.sync
            for w in lanes.waits if lanes is not None else ():
                if d.fields.get(w.mode, 0) != _GE:
                    continue
                f = dict(d.fields)
                shared = any(f.get(u.value) is not None and u.value == w.value and f.get(u.mode, 0)
                             for u in lanes.updates)
                sem, need = f[w.index], f[w.value]
                f[w.mode] = 0
                f[w.index] = 0
                if not shared:
                    f[w.value] = 0
                raw = d.fmt.encode(f)
                m = Neff.from_bytes(n.to_bytes())
                data = bytearray(m.stream_data(m.graph(graph).streams[sname]))
                data[d.offset:d.offset + len(raw)] = raw
                m.replace_stream(graph, sname, bytes(data))
                yield Mutant(m, graph, f"{graph}.{sname}", i, sem, need, decoded)


def _waits(d) -> list[tuple[int, int]]:
    lanes = d.fmt.sync
    return [(d.fields[w.index], d.fields[w.value]) for w in (lanes.waits if lanes else ())
            if d.fields.get(w.mode, 0) == _GE]


def classify(m: Mutant) -> tuple[str, str]:
    """("race", ...) when the check finds the wait's race; else the reason the wait is redundant, or
    ("unexplained", ...)."""
    r = graph_races(m.neff, m.graph)
    if r.count:
        reach = _downstream(m)
        stray = [x for x in r.races if not any(a.index >= reach.get(a.stream, 1 << 60) for a in (x.first, x.second))]
        return ("stray", stray[0].line()) if stray else ("race", r.races[0].line())
    short = m.stream.split(".", 1)[1]
    bs = m.original[short]
    if any(m.sem == s and v >= m.need for d in bs[:m.index] for s, v in _waits(d)):
        return "dominated", ""
    if _raisers(m) == {short}:
        return "own-stream", ""
    blocks = dma_blocks(m.neff, m.graph)
    end = next((j for j in range(m.index + 1, len(bs)) if _waits(bs[j])), len(bs))
    later = [(s, v) for s, v in _waits(bs[end])] if end < len(bs) else []
    mine = [_all(bs[j], blocks) for j in range(m.index, end)]
    others = [_all(d, blocks) for name, ob in m.original.items() if name != short for d in ob]
    if not any(_conflict(a, b) for a in mine for b in others):
        return "nothing-to-order", ""
    if any(s == m.sem and v >= m.need for s, v in later):
        return "implied", ""
    if _reuse_ordered(m):
        return "reuse-ordered", ""
    return "unexplained", ""


def _reuse_ordered(m: Mutant) -> bool:
    """The deleted wait is a DMA's wait on its own completion semaphore for the uses before it (S-94:
    the compiler re-uses a queue's semaphore only once the earlier count is reached), and every bundle
    of another stream that waits that semaphore for at most that count reaches the DMA's bundle through
    chains of waits on semaphores one stream's bundles alone raise (the k-th increment is then a fixed
    bundle): found here by a search of its own, not by the analysis."""
    from tongasm.check.races import _updates
    from tongasm.isa.decisions import DEFAULT_DECISIONS
    from tongasm.isa.decisions.spec import UpdateModeWire

    short = m.stream.split(".", 1)[1]
    d = m.original[short][m.index]
    if d.fmt.layout.sem.name != "DMA_2D" or d.fields["dma_semaphore"] != m.sem:
        return False
    d2 = DEFAULT_DECISIONS.get(UpdateModeWire)
    raisers: dict[int, set[str]] = {}
    ups: dict[str, list[tuple[int, int]]] = {}  # stream -> (bundle, semaphore) of each increment by one
    for name, bs in m.original.items():
        ups[name] = []
        for i, x in enumerate(bs):
            for um, idx, v in _updates(x, d2.by_wire(), d2.zero_is_none):
                raisers.setdefault(idx, set()).add(name if um.name == "sem_inc" else "?")
                if um.name == "sem_inc":
                    ups[name].append((i, idx))
            if x.fmt.layout.sem.name in ("DMA_2D", "DMA_TRIGGER", "DMA_INDIRECT"):
                raisers.setdefault(x.fields.get("dma_semaphore", -1), set()).add("dma")
    for b in dma_blocks(m.neff, m.graph).values():
        raisers.setdefault(b.semaphore, set()).add("dma")
    static = {sem for sem, who in raisers.items() if len(who) == 1 and "dma" not in who and "?" not in who}

    def reaches(start: str, at: int) -> bool:
        reach = {start: at}
        changed = True
        while changed:
            changed = False
            for name, r in list(reach.items()):
                count: dict[int, int] = {}
                for i, sem in ups[name]:
                    count[sem] = count.get(sem, 0) + 1
                    if i < r or sem not in static:
                        continue
                    for other, bs in m.original.items():  # a wait for more than the increments before i
                        for j, x in enumerate(bs):
                            if (other, j) == (short, m.index) or j >= reach.get(other, 1 << 60):
                                continue
                            if any(s == sem and count[sem] <= v for s, v in _waits(x)):
                                reach[other] = j
                                changed = True
                                break
        return reach.get(short, 1 << 60) <= m.index

    waiters = [(name, j) for name, bs in m.original.items() if name != short for j, x in enumerate(bs)
               if any(s == m.sem and v <= m.need for s, v in _waits(x))]
    return bool(waiters) and all(reaches(name, j) for name, j in waiters)


def _downstream(m: Mutant) -> dict[str, int]:
    """Per stream, its first bundle the deleted wait's ordering can flow to: the mutated bundle in its
    own stream; in another, the first bundle waiting on a semaphore a bundle already reached raises
    (by an update or the completion of a DMA it issues), to a fixed point."""
    from tongasm.check.races import _updates
    from tongasm.isa.decisions import DEFAULT_DECISIONS
    from tongasm.isa.decisions.spec import UpdateModeWire

    d2 = DEFAULT_DECISIONS.get(UpdateModeWire)
    blocks = dma_blocks(m.neff, m.graph)
    g = m.graph
    indirect = indirect_semaphores(m.neff, g)
    raised: dict[str, list[tuple[int, int]]] = {}
    for name, bs in m.original.items():
        ups = []
        for i, d in enumerate(bs):
            ups += [(i, idx) for _, idx, _ in _updates(d, d2.by_wire(), d2.zero_is_none)]
            if d.fmt.layout.sem.name == "DMA_2D":
                ups.append((i, d.fields["dma_semaphore"]))
            elif d.fmt.layout.sem.name == "DMA_INDIRECT" and f"{g}.{name}" in indirect:
                ups.append((i, indirect[f"{g}.{name}"]))
            elif d.mnemonic == "PseudoDMATrigger":
                q = bytes(d.raw[0x0C:0x2B]).split(b"\0")[0].decode("ascii", "replace")
                b = blocks.get((q, d.fields.get("dma_block_id", -1)))
                if b is not None:
                    ups.append((i, b.semaphore))
        raised[f"{g}.{name}"] = ups
    reach = {m.stream: m.index}
    changed = True
    while changed:
        changed = False
        sems = {sem for st, ups in raised.items() if st in reach for i, sem in ups if i >= reach[st]}
        for name, bs in m.original.items():
            st = f"{g}.{name}"
            j = next((i for i, d in enumerate(bs) if any(s in sems for s, _ in _waits(d))), None)
            if j is not None and j < reach.get(st, 1 << 60):
                reach[st] = j
                changed = True
    return reach


def _raisers(m: Mutant) -> set[str]:
    """The streams whose bundles raise the mutant's semaphore, and "dma" when a DMA's completion does."""
    from tongasm.check.races import _updates
    from tongasm.isa.decisions import DEFAULT_DECISIONS
    from tongasm.isa.decisions.spec import UpdateModeWire

    d2 = DEFAULT_DECISIONS.get(UpdateModeWire)
    out: set[str] = set()
    for name, bs in m.original.items():
        for d in bs:
            if any(idx == m.sem for _, idx, _ in _updates(d, d2.by_wire(), d2.zero_is_none)):
                out.add(name)
            if d.fields.get("dma_semaphore") == m.sem and d.fmt.layout.sem.name == "DMA_2D":
                out.add("dma")
    if any(b.semaphore == m.sem for b in dma_blocks(m.neff, m.graph).values()):
        out.add("dma")
    if m.sem in indirect_semaphores(m.neff, m.graph).values():
        out.add("dma")
    return out


def _all(d, blocks) -> Footprint:
    """A bundle's footprint with its DMA's transfer (ignoring every ordering)."""
    fp = footprints(d)
    if d.mnemonic == "PseudoDMATrigger":
        q = bytes(d.raw[0x0C:0x2B]).split(b"\0")[0].decode("ascii", "replace")
        b = blocks.get((q, d.fields.get("dma_block_id", -1)))
        if b is not None:
            fp = Footprint(fp.reads + b.footprint.reads, fp.writes + b.footprint.writes)
    elif d.fmt.layout.sem.name in ("DMA_2D", "DMA_INDIRECT"):
        from tongasm.check.races import dma_footprint, indirect_footprint

        t = dma_footprint(d, None) if d.fmt.layout.sem.name == "DMA_2D" else indirect_footprint(d)
        fp = Footprint(fp.reads + t.reads, fp.writes + t.writes)
    return fp


SMALL = ["yolox-trn1/MODULE_10437825443067299145.neff", "yolox-trn1/MODULE_12365272536577238319.neff",
         "yolox-trn1/MODULE_11828253985398670757.neff", "yolox-trn1/MODULE_3288600609627781372.neff",
         "attention-trn2/baseline_attention.neff"]


@pytest.mark.parametrize("rel", SMALL)
def test_each_deleted_wait_is_found_or_redundant(rel: str) -> None:
    n = Neff.read(corpus_dir() / rel)
    assert graph_races(n, "sg00").count == 0
    kinds = []
    for m in mutants(n):
        k, why = classify(m)
        assert k not in ("stray", "unexplained"), f"{rel}: wait of {m.stream} bundle {m.index} on sem{m.sem} >= " \
                                                  f"{m.need}: {k} {why}"
        kinds.append(k)
    assert "race" in kinds  # at least one wait of each kernel is load-bearing and found


def test_matmul_small_each_deleted_wait() -> None:
    p = corpus_dir().parent / "matmul_small.neff"
    if not p.is_file():
        pytest.skip("the real matmul_small.neff is not beside the corpus")
    n = Neff.read(p)
    kinds = [classify(m)[0] for m in mutants(n)]
    assert "unexplained" not in kinds and "stray" not in kinds and kinds.count("race") >= 1


@pytest.mark.slow
def test_the_corpus_neffs_of_up_to_36000_bundles_report_no_race() -> None:
    """Every corpus NEFF whose graphs hold at most 36,000 bundles (86 of the 96, ~52 s CPU in all): correct
    compiler output, so 0 races. The other 10 (48,364 to 109,042 bundles, 3 to 14 s CPU each) report 0
    too in benchmarks/corpus_races.py (benchmarks/RESULTS.md)."""
    checked = 0
    for f in corpus_files():
        n = Neff.read(f.path)
        if sum(len(n.stream_data(s)) for g in n.graphs for s in n.graph(g).streams.values()) > 36_000 * 64:
            continue
        for g in n.graphs:
            r = graph_races(n, g)
            assert r.count == 0, f"{f.relative}:{g}: {r.races[0].line()}"
        checked += 1
    assert checked >= 86  # 86 NEFFs of the corpus
