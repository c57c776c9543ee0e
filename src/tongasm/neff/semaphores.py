"""What a NEFF's graph says about its semaphores: the role of each, for the profiler's syntax.

The vendor profiler prints a semaphore with its role (``S[40] (qScalarDynamicHW)``, ``S[4] (Scalar)``).
The bytes hold only the number; the role is in the graph's own tables: the ``def.json`` DMA queue
whose ``semaphore_set`` holds it, else the one engine whose stream increments it
(:func:`tongasm.text.profile.semaphore_roles`).

The race check's view of a graph is here too (:func:`graph_races`): which DMA descriptor blocks
signal which semaphores (the engine sidecars' ``dma`` blocks, R-90) and the DGE table (R-17).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..check.races import ANY_DRAM, DmaBlock, Footprint, RaceReport, Region, decode_streams, dram_range, races, sbuf_box
from ..check.registry import Finding
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.formats import build_formats
from ..text.profile import ProfileContext, semaphore_roles
from .errors import NeffError
from .neff import Neff


def profile_context(neff: Neff, graph: str, decisions: DecisionSet = DEFAULT_DECISIONS,
                    dram_bases: Mapping[int, int] | None = None) -> ProfileContext:
    """The profile context of one graph: its ``def.json`` queues and its streams' semaphore increments
    (``dram_bases``: where the runtime placed the DRAM variables, by variable id, when known)."""
    g = neff.graph(graph)
    queues = [(q.name, q.owner, q.semaphore_set) for q in g.definition.dma_queues.values()]
    streams = {s.stream: neff.stream_data(s) for s in g.streams.values()}
    roles = semaphore_roles(queues, streams, build_formats(decisions))
    return ProfileContext(decisions, neff.target.name, roles, dict(dram_bases or {}))


def _desc_region(name: str, off: int, sizes: list[int], steps: list[int], dtype: str,
                 var_ids: Mapping[str, int], in_bytes: bool = True) -> Region:
    """One side of a descriptor of a 0xC1 block (R-90): ``SB`` (offset partition << 18 | byte) or a
    DRAM variable by name. R-100: offsets, sizes and steps are bytes, dims innermost first, the dtype no
    factor (``in_bytes``); or elements of ``dtype``, an SB step of k x 0x40000 being k partitions."""
    if in_bytes:
        dims, run = list(zip(steps, sizes)), 1
    else:
        from ..isa.descriptors import SBUF_PARTITION_SHIFT
        from ..isa.enums import Dtype
        from ..numeric import numpy_dtype

        size = numpy_dtype(Dtype[dtype]).itemsize if dtype in Dtype.__members__ else 8
        unit = 1 << SBUF_PARTITION_SHIFT
        dims = [(st if name == "SB" and st % unit == 0 else st * size, n) for n, st in zip(sizes, steps)]
        run = size
    if name == "SB":
        return sbuf_box(off, dims, run)
    vid = var_ids.get(name)
    if vid is None:
        return ANY_DRAM
    return dram_range(vid, off, dims, run)


def dma_blocks(neff: Neff, graph: str, decisions: DecisionSet = DEFAULT_DECISIONS) -> dict[tuple[str, int], DmaBlock]:
    """The descriptor blocks of a graph's engine sidecars by (queue, block id): what each moves and the
    semaphore it signals (R-90), for the race check's 0xC1 triggers."""
    from ..isa.decisions.dma import DescriptorUnits

    in_bytes = decisions.get(DescriptorUnits).bytes
    g = neff.graph(graph)
    var_ids = {name: v.var_id for name, v in g.definition.variables.items()}
    out: dict[tuple[str, int], DmaBlock] = {}
    for s in g.streams.values():
        side = neff.sidecar(s)
        for b in side.dma if side is not None else ():
            where = f"{s.sidecar} dma block {b.get('id') if isinstance(b, dict) else b!r}"
            try:
                reads = tuple(_desc_region(d["from"], d["from_off"], d["from_sizes"], d["from_steps"], d["from_dtype"],
                                           var_ids, in_bytes) for d in b["desc"])
                writes = tuple(_desc_region(d["to"], d["to_off"], d["to_sizes"], d["to_steps"], d["to_dtype"], var_ids,
                                            in_bytes) for d in b["desc"])
                out[(b["queue"], b["id"])] = DmaBlock(int(b["semaphore"]), Footprint(reads, writes))
            except (KeyError, TypeError, ValueError) as e:
                raise NeffError(f"{where}: not a descriptor block tongasm can read ({type(e).__name__}: {e})") from None
    return out


def dge_table(neff: Neff, graph: str) -> list[int] | None:
    """The var_ids of the graph's DGE table (its ``dge-table`` variable's list, R-17), None without one."""
    for v in neff.graph(graph).definition.variables.values():
        if v.type == "dge-table" and isinstance(v.raw.get("list"), list):
            return [int(e) for e in v.raw["list"]]
    return None


def graph_races(neff: Neff, graph: str, decisions: DecisionSet = DEFAULT_DECISIONS, *, limit: int = 100
                ) -> RaceReport:
    """The race check (:func:`tongasm.check.races.races`) of one graph: its engine streams with their
    0xC1 blocks, DGE table and BIR names."""
    g = neff.graph(graph)
    where = f"{neff.path}:{graph}" if neff.path else graph
    streams = decode_streams({s.stream: neff.stream_data(s) for s in g.streams.values()}, decisions, where)
    # the .dbg members are parsed only if a race (or an unanalysed DMA) is reported: a clean graph never reads them
    by_name = {f"{graph}.{s.stream}": s for s in g.streams.values()}
    labels = _Lazy(by_name, neff.bir_names)
    sources = _Lazy(by_name, neff.source_lines)
    blocks = dma_blocks(neff, graph, decisions)
    return races({f"{graph}.{n}": b for n, b in streams.items()}, decisions, blocks=blocks,
                 dge_table=dge_table(neff, graph), labels=labels, sources=sources,
                 indirect=indirect_semaphores(neff, graph), indirect_targets=pointer_targets(neff, graph),
                 pointer_copies=pointer_copies(neff, graph, blocks), limit=limit, where=where)


class _Lazy(Mapping[str, "list[str | None] | None"]):
    """Per stream name, ``make(stream)`` computed when first asked for (then kept)."""

    def __init__(self, streams: Mapping[str, Any], make: Callable[[Any], list[str | None] | None]) -> None:
        self._streams, self._make = streams, make
        self._done: dict[str, list[str | None] | None] = {}

    def __getitem__(self, name: str) -> list[str | None] | None:
        if name not in self._done:
            self._done[name] = self._make(self._streams[name])
        return self._done[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._streams)

    def __len__(self) -> int:
        return len(self._streams)


def pointer_copies(neff: Neff, graph: str, blocks: Mapping[tuple[str, int], DmaBlock]
                   ) -> dict[tuple[int, int], list[int]]:
    """By SBUF (partition, first byte), the variables referenced by the def.json pointers the graph's
    descriptor blocks copy there (the bound of a PseudoRangeCheck, S-93). A place some block also
    writes from anything but a pointer is left out."""
    vs = neff.graph(graph).definition.variables.values()
    ref = {v.var_id: v.raw.get("referenced_var_id") for v in vs if v.type == "pointer"}
    out: dict[tuple[int, int], list[int]] = {}
    others: list[Region] = []  # the SBUF writes of anything but a pointer
    for b in blocks.values():
        for r, w in zip(b.footprint.reads, b.footprint.writes):
            if w[0] != "sbuf":
                continue
            target = ref.get(r[1]) if r[0] == "dram" and r != ANY_DRAM else None
            if not isinstance(target, int):
                others.append(w)
                continue
            for p in range(w[1], w[1] + w[2]):
                if target not in out.setdefault((p, w[3]), []):
                    out[(p, w[3])].append(target)
    return {(p, at): v for (p, at), v in out.items()
            if not any(o[1] <= p < o[1] + o[2] and o[3] < at + 8 and at < o[4] for o in others)}


def pointer_targets(neff: Neff, graph: str) -> dict[int, list[int]]:
    """By size in bytes, the var_ids of the variables a def.json ``pointer`` variable references (its
    ``referenced_var_id``): what an indirect DMA bounded by a PseudoRangeCheck of that size may touch (S-93)."""
    vs = neff.graph(graph).definition.variables.values()
    size = {v.var_id: v.size for v in vs if v.size is not None}
    out: dict[int, list[int]] = {}
    for v in vs:
        ref = v.raw.get("referenced_var_id") if v.type == "pointer" else None
        if isinstance(ref, int) and ref in size and ref not in out.get(size[ref], []):
            out.setdefault(size[ref], []).append(ref)
    return out


def indirect_semaphores(neff: Neff, graph: str) -> dict[str, int]:
    """The semaphore of each engine's ``indirect_memcpy`` DMA queue (def.json), by the race check's stream
    name: the 0xC4 completions of that engine raise it (R-101). An engine with more than one such
    queue, or a queue of more than one semaphore, is left out (its 0xC4s stay unanalysed)."""
    out: dict[str, int] = {}
    seen: set[str] = set()
    for q in neff.graph(graph).definition.dma_queues.values():
        if q.raw.get("indirect_memcpy") is True:
            key = f"{graph}.{q.owner}"
            if key in seen or len(q.semaphore_set) != 1:
                out.pop(key, None)
            else:
                out[key] = q.semaphore_set[0]
            seen.add(key)
    return out


def race_findings(report: RaceReport, where: str) -> list[Finding]:
    """The race check's findings (``races.unordered``): one per race kept, one counting the rest."""
    out = [Finding("races.unordered", r.line().removeprefix("race: "), stream=f"{where}:{r.second.stream}",
                   offset=r.second.offset) for r in report.races]
    if report.more:
        out.append(Finding("races.unordered", f"and {report.more} more unordered conflicting pairs", stream=where))
    return out
