"""A static race check over engine streams: footprints, a happens-before relation, unordered conflicts.

What it holds:

* :func:`footprints` -- the memory regions one decoded bundle reads and writes, derived from its
  layout's descriptor slots (one rule for every slot: the slot's ``write`` flag is its role, the
  ADDR4 word its space/partition/byte, the steps and counts its extent, the dtype field -- or the
  slot's ``elem_bytes`` -- its element size, the count field -- or the slot's fixed count -- its
  partitions; a slot with neither covers every partition from its first). A region is a bounding box
  ``(space, first partition, partition count, first byte, end byte)``: an over-approximation, so a
  conflict may be reported that the exact element sets would not show, never the other way round.
  A DRAM region is ``("dram", var_id, 1, first byte, end byte)``; an address tongasm cannot resolve
  (a DGE register offset, no DGE table) is every variable (:data:`ANY_DRAM`).
* :func:`dma_footprint` -- what a 0xD4 DMA moves (its two ADDR8 sides, R-17); a 0xC1 trigger moves
  what its descriptor block says (:class:`DmaBlock`, given by the caller: a NEFF's sidecars, R-90); a
  0xC4 indirect DMA its index and data rows (:func:`indirect_footprint`, its DRAM side any variable) and
  its completion raises its engine's indirect_memcpy semaphore (given by the caller: def.json, S-92).
* :func:`races` -- the happens-before relation every legal schedule respects, and the conflicting
  pairs it does not order.

Happens-before (``A -> B``: in every schedule A has finished before B starts):

* program order within each engine stream;
* a DMA's transfer happens after its issuing bundle and before its completion increment; it is
  ordered with nothing else by itself (S-40: the engine goes on at once);
* a wait ``sem >= n`` (``sem_ge_imm``; EventSemaphore's two lanes both) comes after an update E of
  that semaphore when every way of reaching n needs E: the increments that can happen without E
  before the wait -- every other update not known to come after E or after the wait -- sum to less
  than n (counting semantics; semaphores start at 0 and only the known sources raise them, S-90;
  decrements only lower the count, so leaving them out keeps the bound sound; a semaphore that is
  ever written (``sem_wr_imm``) proves nothing). Under R-15=parts a DMA's completion is observed
  whole only when its last part is needed. An event wait is the same rule with n = 1 over the
  event's setters. A ``sem_ge_reg`` wait proves nothing (the register's value is not tracked).

"Known to come after" is the relation found so far: before a wait is resolved only program order,
the waits of semaphores raised from one stream by bundles alone (whose n-th increment is fixed: the
static clocks) and the waits already resolved are used, so every proof holds in every schedule --
a pair is ordered only when every schedule orders it. Vector clocks (one per bundle, one component
per stream) carry the relation; a DMA transfer is after bundle B iff B's clock covers one of the
waits proven after its completion (``after`` below).

A race is a pair of accesses -- bundles on different engines, or a DMA transfer and anything it is
not ordered with -- whose regions overlap, at least one writing. Bundles are visited in an order
that respects happens-before, one per stream in turn (as the simulator's turns), so each bundle is
compared only with the other streams' visited bundles its clock does not cover and the DMAs not yet
known to be finished everywhere.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from operator import gt

from ..decode.bundle import DecodedBundle, DecodeFailure, iter_stream
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.descriptors import SBUF_PARTITION_SHIFT, decode_addr4
from ..isa.enums import WAIT_WIRE, WIRE_DTYPE_ALIGN, UpdateMode, WaitMode
from ..isa.fields import BUNDLE_SIZE, Slot
from ..isa.formats import build_formats
from ..isa.layout import Sem
from ..io.limits import Limit
from ..numeric import signed
from .registry import register

register("races.unordered", "every two accesses on different engines or DMA queues whose footprints overlap, one "
         "writing, are ordered by program order, semaphore waits or DMA completions in every schedule",
         "S-90", "stream")

#: Byte runs [first, end) of a region, sorted and disjoint.
Runs = tuple[tuple[int, int], ...]
#: The exact bytes of a strided access in each partition it covers: (first byte, ((byte step, count),
#: ...), run bytes): runs of ``run`` bytes at first + sum(i_k * step_k), i_k < count_k.
Pattern = tuple[int, tuple[tuple[int, int], ...], int]
#: A region: (space, first partition, partition count, first byte, end byte (exclusive)), optionally
#: followed by its :data:`Pattern` when the bytes inside the box are not one run (interleaved rows of
#: two accesses are disjoint though their boxes overlap; the pattern is expanded only then).
Region = tuple[str, int, int, int, int] | tuple[str, int, int, int, int, Pattern]
#: At most this many runs of one pattern are compared; beyond it the box alone (an over-approximation).
MAX_RUNS = 1 << 14
#: A byte end past every variable: a region of unknown extent.
WHOLE = 1 << 62
#: Every byte of every DRAM variable (an address tongasm cannot resolve statically).
ANY_DRAM: Region = ("dram", 0, 1 << 31, 0, WHOLE)
#: The partitions of SBUF and PSUM (every target tongasm knows).
PARTITIONS = 128

#: The footprint comparisons one race check may make (an access against an earlier one it is not
#: ordered with; a run of identical open DMA transfers counts once). Past it the check stops with no
#: verdict (exit 2): a stream built to make every access unordered with every other costs n^2 / 2.
#: The largest corpus graph makes 19,481,478 (yolox MODULE_15023315273075843957, 109,042 bundles, 12 s CPU).
RACE_WORK = Limit("the race check's footprint comparisons", 1 << 27, "TONGASM_MAX_RACE_COMPARISONS",
                  "134,217,728: 7x the largest corpus graph's 19,481,478, a minute or two of CPU",
                  template="{where}: the race check made {figure} footprint comparisons, more than the limit of "
                           "{limit}; it was cut there and says nothing of this graph's races ({env} raises the limit)",
                  grouped=True)
#: The bundles one race check holds decoded (all of a graph's streams at once; about 3 KB each).
RACE_BUNDLES = Limit("the bundles of one race check", 1 << 19, "TONGASM_MAX_RACE_BUNDLES",
                     "524,288: 5x the largest corpus graph (109,042 bundles, 310 MB peak); about 1.5 GB",
                     template="{where}: the race check would hold {figure} bundles, more than the limit of {limit}; "
                              "refused before decoding, no verdict on this graph's races ({env} raises the limit)",
                     grouped=True)


@dataclass(frozen=True)
class Footprint:
    """What one bundle (or one DMA transfer) reads and writes."""

    reads: tuple[Region, ...]
    writes: tuple[Region, ...]

    def to_json(self) -> dict[str, object]:
        return {"reads": [region_json(r) for r in self.reads], "writes": [region_json(r) for r in self.writes]}

    @property
    def empty(self) -> bool:
        return not self.reads and not self.writes

    @cached_property
    def write_box(self) -> tuple[int, int, int, int] | None:
        """One box around every region written (:func:`_summary`), None when nothing is."""
        return _summary(self.writes)

    @cached_property
    def read_box(self) -> tuple[int, int, int, int] | None:
        """One box around every region read, None when nothing is."""
        return _summary(self.reads)


#: Where each space's partitions (DRAM: variables) start on the one axis of :func:`_summary`'s boxes.
_SPACE_AXIS = {"sbuf": 0, "psum": 1 << 8, "dram": 1 << 16}


def _summary(regions: Sequence[Region]) -> tuple[int, int, int, int] | None:
    """(first, end) on one axis of every space's partitions -- SBUF, PSUM, then the DRAM variables --
    and (first, end) bytes: a box around all of ``regions`` but registers (an engine's own), so two
    footprints whose boxes are apart share no byte (the exact test is :func:`_conflict`'s)."""
    p0 = b0 = WHOLE << 1
    p1 = b1 = -1
    for r in regions:
        if r[0] == "register":
            continue
        base = _SPACE_AXIS.get(r[0])
        if base is None:  # a space of no axis: every place
            return (-1, WHOLE << 1, -1, WHOLE << 1)
        p0, p1 = min(p0, base + r[1]), max(p1, base + r[1] + r[2])
        b0, b1 = min(b0, r[3]), max(b1, r[4])
    return None if p1 < 0 else (p0, p1, b0, b1)


def region_json(r: Region) -> dict[str, object]:
    """A region as JSON: space, variable or partitions, the byte box and the exact pattern when it has one."""
    out: dict[str, object]
    if r[0] == "dram":
        var: object = "any" if r == ANY_DRAM else r[1]
        out = {"space": "dram", "var": var, "bytes": [r[3], r[4]]}
    else:
        out = {"space": r[0], "partitions": [r[1], r[1] + r[2]], "bytes": [r[3], r[4]]}
    if len(r) == 6:  # the exact bytes: runs of 'run' bytes at first + sum(i_k * step_k)
        first, dims, run = r[5]
        out["pattern"] = {"first": first, "dims": [list(x) for x in dims], "run": run}
    return out


EMPTY = Footprint((), ())


def _element_size(s: Slot, fields: Mapping[str, int]) -> int:
    """The slot's element size in bytes: its wire dtype's (SPEC §2.1 aligns each element to its
    size, so the alignment table is the size table); the slot's ``elem_bytes`` when no field gives the
    dtype; else 8, the widest, so the box still covers every element."""
    if s.dtype_field is not None and s.dtype_field in fields:
        return WIRE_DTYPE_ALIGN.get(fields[s.dtype_field], 8)
    if s.elem_wire is not None:
        return WIRE_DTYPE_ALIGN.get(s.elem_wire(fields), s.elem_bytes or 8)
    return s.elem_bytes or 8


def _partitions(d: DecodedBundle, s: Slot, first: int) -> int:
    """The slot's partition count: the layout's fixed count, else its count field's; a slot whose
    layout declares neither covers every partition from its first."""
    if s.partitions is not None:
        return s.partitions
    if s.parts_field is None:
        return max(PARTITIONS - first, 1)
    try:
        return max(d.fields[s.parts_field], 1)
    except KeyError:
        raise ValueError(f"layout {d.fmt.name}: slot {s.name} names count field {s.parts_field!r}, which the "
                         "layout does not have") from None


def footprints(d: DecodedBundle) -> Footprint:
    """The regions ``d``'s descriptor slots read and write (registers: ``space="register"``); a DMA's
    transfer is :func:`dma_footprint`'s."""
    reads: list[Region] = []
    writes: list[Region] = []
    f = d.fields
    for s in d.fmt.layout.slots:
        if s.addr_key not in f:
            continue
        a = decode_addr4(f[s.addr_key])
        if a.space == "register":
            region: Region = ("register", a.register or 0, 1, 0, 1)
        elif a.space in ("sbuf", "psum"):
            size = _element_size(s, f)
            lo, hi = s.extent(f, size)
            first = a.partition or 0
            base = a.byte or 0
            box = (a.space, first, _partitions(d, s, first), base + lo, base + hi + 1)
            region = _with_runs(box, _pattern(base, [(f[sk] * size, f[nk]) for sk, nk in zip(s.step_keys, s.num_keys)],
                                              size))
        else:
            continue
        (writes if s.write else reads).append(region)
    for ptr, dt in d.fmt.layout.pointer_reads:  # [P, 1] columns read through a bare ADDR4 word
        if ptr in f:
            a = decode_addr4(f[ptr])
            if a.space in ("sbuf", "psum"):
                first, base = a.partition or 0, a.byte or 0
                parts = max(f.get(d.fmt.layout.pointer_parts, PARTITIONS - first), 1)
                reads.append((a.space, first, parts, base, base + WIRE_DTYPE_ALIGN.get(f.get(dt, -1), 8)))
    return Footprint(tuple(reads), tuple(writes))


def byte_span(start: int, dims: Sequence[tuple[int, int]], run: int) -> tuple[int, int]:
    """[first, end) bytes of runs of ``run`` bytes at start + sum(i_k * step_k), i_k < num_k."""
    lo = hi = start
    for step, num in dims:
        if num > 1:
            if step < 0:
                lo += step * (num - 1)
            else:
                hi += step * (num - 1)
    return lo, hi + run


def _pattern(start: int, dims: Sequence[tuple[int, int]], run: int) -> Pattern | None:
    """The pattern of runs of ``run`` bytes at start + sum(i_k * step_k), its dims that only lengthen
    the run folded in; None when it is one run (the box says it all) or more than :data:`MAX_RUNS`."""
    live = sorted(((st, n) for st, n in dims if n > 1 and st != 0), key=lambda d: abs(d[0]))
    while live and 0 < live[0][0] <= run:  # a dim contiguous with the run (or overlapping it) extends it
        st, n = live.pop(0)
        run = st * (n - 1) + run
    total = 1
    for _, n in live:
        total *= n
    if total == 1 or total > MAX_RUNS:
        return None
    return (start, tuple(live), run)


@lru_cache(maxsize=1 << 14)
def byte_runs(p: Pattern) -> Runs:
    """The runs [first, end) of a pattern, sorted and merged."""
    start, dims, run = p
    offs = [start]
    for st, n in dims:
        offs = [o + i * st for o in offs for i in range(n)]
    offs.sort()
    out: list[list[int]] = []
    for o in offs:
        if out and o <= out[-1][1]:
            out[-1][1] = max(out[-1][1], o + run)
        else:
            out.append([o, o + run])
    return tuple((a, b) for a, b in out)


def _with_runs(box: tuple[str, int, int, int, int], p: Pattern | None) -> Region:
    return box if p is None else (*box, p)


def sbuf_box(start: int, dims: Sequence[tuple[int, int]], run: int) -> Region:
    """The SBUF box of runs at byte addresses ``partition << 18 | byte`` (DMA sides, R-17): a dim whose
    step is a multiple of one partition moves partitions, any other dim bytes (their exact runs kept)."""
    unit = 1 << SBUF_PARTITION_SHIFT
    p0, b0 = start >> SBUF_PARTITION_SHIFT, start & (unit - 1)
    pdims = [(st // unit, n) for st, n in dims if st % unit == 0]
    bdims = [(st, n) for st, n in dims if st % unit != 0]
    plo, phi = byte_span(p0, pdims, 1)
    blo, bhi = byte_span(b0, bdims, run)
    runs = _pattern(b0, bdims, run)
    if blo < 0 or bhi > unit:  # the bytes cross a partition: take the whole partitions
        plo, phi = min(plo, (start + blo - b0) >> SBUF_PARTITION_SHIFT), max(phi, ((start + bhi - b0) >> SBUF_PARTITION_SHIFT) + 1)
        blo, bhi, runs = 0, unit, None
    plo = max(plo, 0)
    return _with_runs(("sbuf", plo, max(phi - plo, 1), blo, bhi), runs)


def dram_range(var: int, start: int, dims: Sequence[tuple[int, int]], run: int) -> Region:
    """The bytes of DRAM variable ``var`` a DMA side moves: the span, with its exact runs."""
    lo, hi = byte_span(start, dims, run)
    runs = _pattern(start, dims, run) if lo >= 0 else None
    return _with_runs(("dram", var, 1, max(lo, 0), hi), runs)


def dma_footprint(d: DecodedBundle, dge_table: Sequence[int] | None, decisions: DecisionSet = DEFAULT_DECISIONS
                  ) -> Footprint:
    """What a 0xD4 DMA reads (its src side) and writes (its dst side), R-16/R-17: SBUF as a box,
    DRAM as a byte range of a variable (a DGE-table entry resolved through ``dge_table``; a register
    offset, mode 0x28, any byte of its variable, R-91)."""
    from ..isa.decisions.dma import Addr8Modes, DgeRegisterSide

    modes = decisions.get(Addr8Modes)
    dge_side = decisions.get(DgeRegisterSide)
    f = d.fields
    out: list[Region] = []
    for side in ("src", "dst"):
        mode, var = f[f"{side}.addr_mode"], f[f"{side}.var"] | f[f"{side}.var_hi"] << 16
        word, run = f[f"{side}.addr"], max(f[f"{side}.elem_size"], 1)
        dims = [(f[f"{side}.step0"], f[f"{side}.num0"]), (f[f"{side}.step1"], f[f"{side}.num1"])]
        if mode == Addr8Modes.PHYSICAL and var == Addr8Modes.SBUF_VAR:
            out.append(sbuf_box(word, dims, run))
            continue
        vid: int | None = None
        register = mode == Addr8Modes.DGE_REGISTER
        if mode == Addr8Modes.PHYSICAL:
            vid = var
        elif dge_table is not None and (mode == Addr8Modes.DGE_IMMEDIATE or register and dge_side.indexed):
            try:
                vid = modes.var_id(Addr8Modes.DGE_IMMEDIATE, var, list(dge_table))
            except ValueError:
                vid = None
        if vid is None:  # an unknown mode or entry, or no DGE table: any variable, any byte
            out.append(ANY_DRAM)
        elif register:  # the offset is a register's: any byte of the variable
            out.append(("dram", vid, 1, 0, WHOLE))
        else:
            out.append(dram_range(vid, word, dims, run))
    return Footprint((out[0],), (out[1],))


#: The queue name of an engine's 0xC4 transfers (one indirect_memcpy queue per engine, S-92).
INDIRECT_QUEUE = "<indirect_memcpy>"


def indirect_footprint(d: DecodedBundle, dram: Sequence[Region] = (ANY_DRAM,)) -> Footprint:
    """What a 0xC4 PseudoDMAMemcpyFullInd moves (R-101): it reads its index rows (the uint64 addresses at
    indirect_start_offset, one row every engine_config bytes) and moves direct_elem_size bytes per row
    between those DRAM addresses and SBUF at direct_start_offset (a row every engine_config2 bytes);
    direction 0 loads (DRAM to SBUF), 1 saves. The addresses are computed at run time: the DRAM side is
    ``dram`` (by default any byte of any variable, :data:`ANY_DRAM`; S-93 narrows it)."""
    f = d.fields
    rows = f["indirect_num_elems1"]

    def rows_at(word: int, stride: int, run: int) -> Region:
        a = decode_addr4(word)
        if a.space != "sbuf" or a.partition is None or a.byte is None:
            return (a.space if a.space == "psum" else "sbuf", 0, PARTITIONS, 0, WHOLE)
        return sbuf_box(a.partition << SBUF_PARTITION_SHIFT | a.byte, [(stride, rows)], max(run, 1))

    index = rows_at(f["indirect_start_offset"], f["engine_config"], 8 * max(f["indirect_num_elems0"], 1))
    data = rows_at(f["direct_start_offset"], f["engine_config2"], f["direct_elem_size"] * max(f["direct_num_elems0"], 1))
    if f["direction"] == 0:
        return Footprint((index, *dram), (data,))
    return Footprint((index, data), tuple(dram))


def _overlap(a: Region, b: Region) -> bool:
    if not (a[0] == b[0] and a[1] < b[1] + b[2] and b[1] < a[1] + a[2] and a[3] < b[4] and b[3] < a[4]):
        return False
    if len(a) == 5 and len(b) == 5:
        return True
    ra: Runs = byte_runs(a[5]) if len(a) == 6 else ((a[3], a[4]),)
    rb: Runs = byte_runs(b[5]) if len(b) == 6 else ((b[3], b[4]),)
    i = j = 0
    while i < len(ra) and j < len(rb):  # two sorted lists of disjoint runs: one sweep
        if ra[i][0] < rb[j][1] and rb[j][0] < ra[i][1]:
            return True
        if ra[i][1] <= rb[j][1]:
            i += 1
        else:
            j += 1
    return False


def _boxes_meet(x: Footprint, y: Footprint) -> bool:
    """Whether a box of what ``x`` writes meets one of what ``y`` reads or writes, or a box of what
    ``x`` reads one of what ``y`` writes (:func:`_summary`): False proves :func:`_conflict` None."""
    u, v = x.write_box, y.write_box
    if u is not None:
        if v is not None and u[0] < v[1] and v[0] < u[1] and u[2] < v[3] and v[2] < u[3]:
            return True
        w = y.read_box
        if w is not None and u[0] < w[1] and w[0] < u[1] and u[2] < w[3] and w[2] < u[3]:
            return True
    u = x.read_box
    return u is not None and v is not None and u[0] < v[1] and v[0] < u[1] and u[2] < v[3] and v[2] < u[3]


def _conflict(x: Footprint, y: Footprint) -> Region | None:
    """The first region of ``x`` that overlaps one of ``y`` with at least one of the two writing."""
    if not _boxes_meet(x, y):  # first the two footprints' boxes: most pairs are apart
        return None
    for mine, group in ((x.writes, (y.writes, y.reads)), (x.reads, (y.writes,))):
        for a in mine:
            space = a[0]
            if space == "register":  # an engine's registers are its own
                continue
            p0, p1, b0, b1 = a[1], a[1] + a[2], a[3], a[4]
            for theirs in group:
                for b in theirs:  # the boxes first (inline: most pairs are apart), then the exact runs
                    if b[0] == space and p0 < b[1] + b[2] and b[1] < p1 and b0 < b[4] and b[3] < b1 and _overlap(a, b):
                        return a
    return None


@dataclass
class _Run:
    """Open DMA transfers issued by one stream with one footprint (one object, interned), in issue
    order: one entry of a stream's open list. While ``clean`` none of them is known to have finished
    before anything, so an access is unordered with exactly those issued before it -- a prefix, since
    clocks grow along the issuing stream -- and one footprint comparison answers for all of them (the
    pairs are counted as before, the races kept in issue order). Once a wait proves one of them
    finished somewhere the run is compared member by member, and the stream's next such transfer
    starts a new run. A stream repeating one DMA n times costs one comparison per access, not n."""

    fp: Footprint
    stream: int
    members: list[int]
    clean: bool


@dataclass(frozen=True)
class DmaBlock:
    """A pre-built descriptor block a 0xC1 PseudoDMATrigger fires (a NEFF sidecar's ``dma`` entry):
    what it moves and the semaphore its completion raises by ``increment`` (R-90)."""

    semaphore: int
    footprint: Footprint
    increment: int = 16


@dataclass(frozen=True)
class Access:
    """One side of a race: a bundle, or the transfer of the DMA a bundle issued."""

    stream: str
    index: int
    offset: int
    mnemonic: str
    label: str | None = None
    dma: bool = False
    source: str | None = None  # the kernel's file:line (.dbg)

    def text(self) -> str:
        what = f"{self.label}, {self.mnemonic}" if self.label else self.mnemonic
        src = f", {self.source}" if self.source else ""
        return (f"{self.stream} {'DMA issued by bundle' if self.dma else 'bundle'} {self.index} ({what}{src}) "
                f"at +{self.offset:#x}")

    def to_json(self) -> dict[str, object]:
        return {"stream": self.stream, "index": self.index, "offset": self.offset, "mnemonic": self.mnemonic,
                "bir": self.label, "dma": self.dma, "source": self.source}


@dataclass(frozen=True)
class Race:
    """Two unordered accesses whose footprints conflict."""

    first: Access
    second: Access
    region: Region
    semaphore: int | None  # the nearest semaphore that could order them (the first's DMA's, or one its stream raises)

    def line(self) -> str:
        r = self.region
        if r[0] == "dram":
            where = "DRAM (any variable)" if r == ANY_DRAM else f"DRAM var {r[1]}"
        else:
            where = f"{r[0]} partitions {r[1]}..{r[1] + r[2] - 1}"
        sem = f"; nearest semaphore sem{self.semaphore}" if self.semaphore is not None else ""
        return (f"race: {self.first.text()} and {self.second.text()} both touch {where} bytes "
                f"{r[3]:#x}..{r[4]:#x} (at least one writing) with no ordering{sem}")

    def to_json(self) -> dict[str, object]:
        return {"first": self.first.to_json(), "second": self.second.to_json(),
                "region": region_json(self.region), "semaphore": self.semaphore}


@dataclass
class RaceReport:
    """The races of a set of streams and what the analysis did."""

    races: list[Race]
    pairs_examined: int
    bundles: int
    dmas: int = 0
    #: DMA bundles whose transfer or completion tongasm does not know (a 0xC4 of an engine with no known
    #: indirect_memcpy semaphore, a 0xC1 of no known block)
    unanalysed: list[Access] = field(default_factory=list)
    #: waits that prove nothing by their form (sem_ge_reg; a written semaphore), by (stream, index)
    unproven_waits: int = 0
    #: the races found beyond ``limit`` (counted, not kept)
    more: int = 0
    #: bundles never reached (their waits can never hold: a deadlock)
    unreached: int = 0
    #: passes over the streams (each proves what the one before made provable)
    passes: int = 0
    #: footprint comparisons made (at most ``pairs_examined``: a run of identical open transfers is one)
    comparisons: int = 0

    @property
    def count(self) -> int:
        return len(self.races) + self.more


# --- semaphore sources --------------------------------------------------------------------------------


@dataclass
class _Group:
    """The sources of one semaphore that one stream's bundles raise or issue, in program order."""

    index: list[int] = field(default_factory=list)  # the bundle of each source
    amount: list[int] = field(default_factory=list)
    transfer: list[int] = field(default_factory=list)  # the DMA transfer (-1: the bundle's own update)
    cum: list[int] = field(default_factory=lambda: [0])  # cum[k] = sum of amount[:k]


@dataclass
class _Counter:
    groups: dict[int, _Group] = field(default_factory=dict)
    written: bool = False
    static: bool = False  # raised only by one stream's own updates: the n-th increment is fixed
    serial: bool = False  # raised only by one engine's 0xC4s, completing in issue order (S-92): the n-th is fixed


_WAIT_GE = WAIT_WIRE[WaitMode.sem_ge_imm]
_WAIT_REG = WAIT_WIRE[WaitMode.sem_ge_reg]
_WAIT_EVT = WAIT_WIRE[WaitMode.evt_set_clear]


def _updates(d: DecodedBundle, by_wire: Mapping[int, UpdateMode], zero_is_none: bool
             ) -> list[tuple[UpdateMode, int, int]]:
    """(mode, semaphore or event, value) of each update lane of ``d`` that updates (D-2, as the
    scheduler reads it)."""
    lanes = d.fmt.sync
    out: list[tuple[UpdateMode, int, int]] = []
    if lanes is None:
        return out
    f = d.fields
    for u in lanes.updates:
        mode = f.get(u.mode, 0)
        if mode == 0:
            if zero_is_none:
                continue
            if f.get(u.index, 0) == 0:
                owns = any(f.get(w.mode, 0) in (_WAIT_GE, _WAIT_REG) for w in lanes.waits if w.value == u.value)
                if not f.get(u.value, 0) or owns:
                    continue
        um = by_wire.get(mode)
        if um is None:
            continue
        out.append((um, f[u.index], signed(f[u.value], 32)))
    return out


def _masked_transpose(d: DecodedBundle, fp: Footprint, mask: tuple[int, ...], lane_index: bool) -> Footprint:
    """A StreamTranspose under its lane mask (S-66, S-67): it reads only the src columns the mask picks
    (each lane's byte under R-53=lane-index, else the lanes not left alone), so its src box narrows to
    those columns when the src is one contiguous run per partition; any other form keeps the box."""
    from ..isa.layouts.move import KEEP_LANE

    f = d.fields
    picks = [m for m in mask if m != KEEP_LANE] if lane_index else [i for i, m in enumerate(mask) if m != KEEP_LANE]
    contiguous = f.get("src.step0") == 1 and all(f.get(f"src.num{j}", 1) == 1 for j in range(1, 4))
    if not picks or not contiguous or len(fp.reads) != 1 or len(fp.reads[0]) != 5:
        return fp
    r = fp.reads[0]
    size = (r[4] - r[3]) // max(f["src.num0"], 1)
    lo, hi = r[3] + min(picks) * size, r[3] + (max(picks) + 1) * size
    if not r[3] <= lo < hi <= r[4]:
        return fp
    return Footprint(((r[0], r[1], r[2], lo, hi),), fp.writes)


def races(streams: Mapping[str, Sequence[DecodedBundle]], decisions: DecisionSet = DEFAULT_DECISIONS, *,
          blocks: Mapping[tuple[str, int], DmaBlock] | None = None, dge_table: Sequence[int] | None = None,
          labels: Mapping[str, Sequence[str | None] | None] | None = None,
          sources: Mapping[str, Sequence[str | None] | None] | None = None,
          indirect: Mapping[str, int] | None = None,
          indirect_targets: Mapping[int, Sequence[int]] | None = None,
          pointer_copies: Mapping[tuple[int, int], Sequence[int]] | None = None, limit: int = 100,
          cap: int = 512, max_passes: int = 8, where: str = "the streams") -> RaceReport:
    """The unordered conflicting pairs of ``streams`` (name -> decoded bundles); see the module doc.

    ``blocks``: the 0xC1 descriptor blocks by (queue name, block id); ``dge_table``: the var_ids of
    the DGE table (R-17); ``labels``: each stream's BIR instruction names, ``sources`` its kernel source
    lines, for the reports. At most
    ``limit`` races are kept (the rest counted). ``cap`` bounds the updates examined one by one for
    one candidate of one wait (beyond it the candidate is not proven: sound, and said by a race).
    Past :data:`RACE_WORK` comparisons it raises (``where`` names the input), never a partial answer."""
    from ..isa.decisions.dma import (DmaBlockCompletion, IndirectRaceBounds, IndirectRaceSource, IndirectTransfer,
                                     QueueOrder, RaceSources, SelfWaits)
    from ..isa.decisions.move import TransposeMask
    from ..isa.layouts.move import lane_fields
    from ..isa.decisions.dma import DmaCompletion
    from ..isa.decisions.spec import UpdateModeWire

    d2 = decisions.get(UpdateModeWire)
    by_wire, zero_is_none = d2.by_wire(), d2.zero_is_none
    parts = decisions.get(DmaCompletion).reading is DmaCompletion.PARTS
    completion = decisions.get(DmaCompletion)
    strict = decisions.get(RaceSources).strict
    lane_index = decisions.get(TransposeMask).lane_index
    fifo = decisions.get(QueueOrder).fifo
    block_inc = DmaBlockCompletion.INCREMENT
    indirect_inc = decisions.get(IndirectTransfer).increment
    indirect_on = decisions.get(IndirectRaceSource).modelled
    indirect_fifo = decisions.get(IndirectRaceSource).fifo
    if not decisions.get(SelfWaits).program_order:
        from ..errors import UsageError

        raise UsageError("S-94=pipelined (an engine's bundles overlapping their successors) is not modelled by the "
                         "race check; S-94=program-order is")
    bounded = decisions.get(IndirectRaceBounds).bounded

    def indirect_dram(chk: DecodedBundle | None, d: DecodedBundle) -> tuple[Region, ...]:
        """S-93: the DRAM a 0xC4 may touch, from the PseudoRangeCheck on its index rows (the same rows and
        count) before it: the variables referenced by the pointers the DMAs copy to its bound_addr; without
        such a copy, the variables a pointer references whose size is its bound; else any."""
        if not bounded or chk is None or not (indirect_targets or pointer_copies):
            return (ANY_DRAM,)
        f, c = d.fields, chk.fields
        if c.get("slot_a.addr") != f["indirect_start_offset"] or c.get("idx_meta") != f["indirect_num_elems1"]:
            return (ANY_DRAM,)
        a = decode_addr4(c.get("bound_addr", 0))
        vids = (pointer_copies or {}).get((a.partition or 0, a.byte or 0)) if a.space == "sbuf" else None
        if vids is None:  # no block copies a pointer there: the referenced variables of the bound's size
            vids = (indirect_targets or {}).get(c["bound_size_bytes"])
        return tuple(("dram", v, 1, 0, WHOLE) for v in vids) if vids else (ANY_DRAM,)
    names = list(streams)
    k = len(names)
    bs = [list(streams[n]) for n in names]
    lens = [len(b) for b in bs]
    blocks = blocks or {}
    report = RaceReport([], 0, sum(lens))

    def access(s: int, i: int, dma: bool = False) -> Access:
        d = bs[s][i]
        lab = (labels or {}).get(names[s])
        src = (sources or {}).get(names[s])
        return Access(names[s], i, d.offset, d.mnemonic, lab[i] if lab is not None and i < len(lab) else None, dma,
                      src[i] if src is not None and i < len(src) else None)

    # --- pass 1: footprints, DMA transfers, the sources of every semaphore and event ---------------------
    fps: list[list[Footprint]] = []
    tr_of: list[dict[int, int]] = []  # stream -> bundle -> transfer
    tr_point: list[tuple[int, int]] = []
    tr_fp: list[Footprint] = []
    tr_slack: list[int] = []
    tr_prev: list[int] = []
    tr_sem: list[int | None] = []  # the semaphore each transfer's completion raises
    sem_ups: list[list[tuple[int, int]]] = [[] for _ in range(k)]  # per stream: (bundle, semaphore) raised  # the transfer triggered on the same queue just before (S-91), -1 for none
    queue_last: dict[tuple[int, str], int] = {}
    serial_tr: set[int] = set()  # the 0xC4 transfers of an engine's indirect queue, completing in issue order
    counters: dict[tuple[str, int], _Counter] = {}
    interned: dict[Footprint, Footprint] = {}
    fcache: dict[tuple[int, bytes], Footprint] = {}

    def source(key: tuple[str, int], s: int, i: int, amount: int, t: int) -> None:
        c = counters.setdefault(key, _Counter())
        g = c.groups.setdefault(s, _Group())
        g.index.append(i)
        g.amount.append(amount)
        g.transfer.append(t)
        g.cum.append(g.cum[-1] + amount)

    for s in range(k):
        row: list[Footprint] = []
        mine: dict[int, int] = {}
        mask: tuple[int, ...] | None = None  # the engine's lane mask (the last LoadMaskSelect, S-68)
        check: DecodedBundle | None = None  # the stream's last PseudoRangeCheck (S-93)
        for i, d in enumerate(bs[s]):
            key = (id(d.fmt), bytes(d.raw))  # identical bundles of one layout: one footprint (a pure function)
            fp = fcache.get(key)
            if fp is None:
                fp = fcache[key] = footprints(d)
            lsem = d.fmt.layout.sem
            if lsem == Sem.LOAD_LANE_MASK:
                mask = tuple(d.fields[n] for n in lane_fields())
            elif lsem == Sem.RANGE_CHECK:
                check = d
            elif lsem == Sem.STREAM_TRANSPOSE and d.fields.get("use_mask") and mask is not None:
                fp = _masked_transpose(d, fp, mask, lane_index)
            row.append(interned.setdefault(fp, fp) if not fp.empty else EMPTY)
            for um, idx, value in _updates(d, by_wire, zero_is_none):
                if um == UpdateMode.evt_set:
                    source(("evt", idx), s, i, 1, -1)
                elif um == UpdateMode.sem_wr_imm:
                    counters.setdefault(("sem", idx), _Counter()).written = True
                elif um == UpdateMode.sem_inc:
                    source(("sem", idx), s, i, 1, -1)
                    sem_ups[s].append((i, idx))
                elif um == UpdateMode.sem_add_imm and value > 0:
                    source(("sem", idx), s, i, value, -1)
                    sem_ups[s].append((i, idx))
                elif um == UpdateMode.sem_sub_imm and value < 0:
                    source(("sem", idx), s, i, -value, -1)
                # decrements only lower the count: leaving them out keeps every bound sound
            sem = d.fmt.layout.sem
            tsem: int | None = None
            tfp: Footprint | None = None
            amount = 0
            queue: str | None = None
            if sem == Sem.DMA_2D:
                tfp = dma_footprint(d, dge_table, decisions)
                tsem = d.fields["dma_semaphore"]
                amount = sum(completion.increments(d.fields["dma_sem_increment"]))
            elif d.mnemonic == "PseudoDMATrigger":
                q = queue = bytes(d.raw[0x0C:0x2B]).split(b"\0")[0].decode("ascii", "replace")
                blk = blocks.get((q, d.fields.get("dma_block_id", -1)))
                if blk is None:
                    report.unanalysed.append(access(s, i, True))
                else:
                    tfp, tsem, amount = blk.footprint, blk.semaphore, block_inc
            elif sem == Sem.DMA_INDIRECT:
                isem = (indirect or {}).get(names[s]) if indirect_on else None
                if isem is None:
                    report.unanalysed.append(access(s, i, True))
                else:  # the rows move in the transfer, the queue's semaphore gains the increment at its end
                    tfp, tsem, amount = indirect_footprint(d, indirect_dram(check, d)), isem, indirect_inc
                    if indirect_fifo:
                        queue = INDIRECT_QUEUE
            if tfp is not None:
                tfp = interned.setdefault(tfp, tfp)  # one object per footprint: runs compare by identity
                t = len(tr_point)
                mine[i] = t
                tr_point.append((s, i))
                tr_fp.append(tfp)
                tr_slack.append(amount - 1 if parts and sem != Sem.DMA_INDIRECT else 0)
                prev_t = -1
                if queue is not None and (fifo or queue == INDIRECT_QUEUE):
                    prev_t = queue_last.get((s, queue), -1)
                    queue_last[(s, queue)] = t
                tr_prev.append(prev_t)
                if queue == INDIRECT_QUEUE:
                    serial_tr.add(t)
                tr_sem.append(tsem if amount > 0 else None)
                if tsem is not None and amount > 0:
                    source(("sem", tsem), s, i, amount, t)
        fps.append(row)
        tr_of.append(mine)
    report.dmas = len(tr_point)
    if strict and report.unanalysed:
        for c in counters.values():
            c.written = True  # an unknown DMA might raise any semaphore: no wait proves anything
    for c in counters.values():
        c.static = not c.written and len(c.groups) == 1 and all(t < 0 for g in c.groups.values() for t in g.transfer)
        c.serial = not c.written and len(c.groups) == 1 and all(t in serial_tr for g in c.groups.values()
                                                                for t in g.transfer)

    def waits(d: DecodedBundle) -> list[tuple[tuple[str, int], int] | None]:
        """Each wait of ``d``: (semaphore or event, count needed), None for one that proves nothing."""
        lanes = d.fmt.sync
        out: list[tuple[tuple[str, int], int] | None] = []
        for w in lanes.waits if lanes is not None else ():
            mode = d.fields.get(w.mode, 0)
            if mode == _WAIT_GE:
                need = signed(d.fields[w.value], 32)
                if need > 0:
                    out.append((("sem", d.fields[w.index]), need))
            elif mode == _WAIT_EVT:
                out.append((("evt", d.fields[w.index]), 1))
            elif mode == _WAIT_REG:
                out.append(None)
        return out

    wait_of = [[waits(d) for d in b] for b in bs]  # each bundle's waits, once (every pass reads them)

    # --- pass 2: static clocks (program order and the waits of one-stream update-only semaphores) --------
    zero = (0,) * k

    def nth(c: _Counter, need: int) -> tuple[int, int] | None:
        (s, g), = c.groups.items()
        j = bisect_left(g.cum, need)  # cum[j] >= need: the j-th source (1-based) reaches it
        return (s, g.index[j - 1]) if j < len(g.cum) else None

    static: list[list[tuple[int, ...]]] = [[zero] * n for n in lens]

    def visit_static() -> None:
        pc = [0] * k
        progressed = True
        while progressed:
            progressed = False
            for s in range(k):
                while pc[s] < lens[s]:
                    i = pc[s]
                    vc = list(static[s][i - 1]) if i else [0] * k
                    vc[s] = i + 1
                    blocked = False
                    for w in wait_of[s][i]:
                        c = counters.get(w[0]) if w is not None else None
                        if w is None or c is None or not c.static:
                            continue
                        hit = nth(c, w[1])
                        if hit is None:
                            continue
                        if hit[1] >= pc[hit[0]]:
                            blocked = True
                            break
                        vc = list(map(max, vc, static[hit[0]][hit[1]]))
                    if blocked:
                        break
                    static[s][i] = tuple(vc)
                    pc[s] += 1
                    progressed = True
        for s in range(k):  # never reached statically (a deadlock): program order only
            for i in range(pc[s], lens[s]):
                prev = static[s][i - 1] if i else zero
                static[s][i] = prev[:s] + (i + 1,) + prev[s + 1:]

    visit_static()

    # --- pass 3: the happens-before clocks, visiting one bundle per stream in turn ------------------------
    # Each pass starts from what the one before proved (``prior``: at first the static clocks), so a
    # wait whose other sources only a later wait shows to come after it is proven in a later pass;
    # the passes stop when nothing changes, and the last one (the same clocks again) finds the races.
    prior = static
    clocks: list[list[tuple[int, ...] | None]] = [[None] * n for n in lens]
    aft: list[list[int]] = [[WHOLE] * k for _ in tr_point]  # per transfer: first bundle per stream after it
    pc = [0] * k

    def clock_of(s: int, i: int) -> tuple[int, ...]:
        c = clocks[s][i]
        return c if c is not None else prior[s][i]

    def after_transfer(t: int, vc: Sequence[int]) -> bool:
        a = aft[t]
        return any(map(gt, vc, a))

    def after_source(s: int, i: int, t: int, vc: Sequence[int]) -> bool:
        """Is the point with clock ``vc`` after source (s, i) (its completion when ``t`` >= 0)?"""
        return after_transfer(t, vc) if t >= 0 else vc[s] > i

    done: dict[tuple[tuple[str, int], int, int], int] = {}  # (key, source stream, waiter) -> covered prefix
    pristine = [True] * len(tr_point)  # per transfer: never proven finished before anything (``aft`` all WHOLE)
    runs_of: dict[int, list[_Run]] = {}  # the clean runs each transfer is in (the scanning pass)
    max_work = RACE_WORK.value()

    def prove(key: tuple[str, int], need: int, ws: int, wi: int, vc: list[int], patient: bool
              ) -> list[tuple[int, int, int]] | tuple[int, int]:
        """The sources (stream, bundle, transfer) the wait of bundle (ws, wi) needs in every schedule
        and that ``vc`` does not already cover; or the (stream, bundle) of a source not yet visited that
        the answer waits for: a needed one, or (``patient``) one counted as possible without a candidate
        only because it is not visited yet (once visited its clock may show it comes after)."""
        c = counters.get(key)
        if c is None or c.written:
            return []
        if c.serial:  # S-92: the n-th unit comes from a fixed source, the first whose running sum reaches n
            (s, g), = c.groups.items()
            j = bisect_left(g.cum, need)
            if j >= len(g.cum):
                return []  # never satisfied: a deadlock, not a race
            ei, et = g.index[j - 1], g.transfer[j - 1]
            return (s, ei) if clocks[s][ei] is None else [(s, ei, et)]
        # the sources not known to come after the wait: a prefix of each stream's
        prefix: dict[int, int] = {}
        total = 0
        for s, g in c.groups.items():
            lo, hi = 0, len(g.index)
            while lo < hi:
                mid = (lo + hi) // 2
                if prior[s][g.index[mid]][ws] > wi:
                    hi = mid
                else:
                    lo = mid + 1
            prefix[s] = lo
            total += g.cum[lo]
        if total < need:
            return []  # never satisfied: a deadlock, not a race
        found: list[tuple[int, int, int]] = []
        pending: tuple[int, int] | None = None
        for s, g in c.groups.items():
            p = prefix[s]
            top = min(bisect_left(g.cum, need), p)  # candidates: fewer than need before them in their stream
            dk = (key, s, ws)
            low = done.get(dk, 0)
            while low < top - 1 and after_source(s, g.index[low], g.transfer[low], vc):
                low += 1
            done[dk] = low
            j = top - 1
            while j >= low:
                ei, et = g.index[j], g.transfer[j]
                if after_source(s, ei, et, vc):
                    if clocks[s][ei] is None:
                        return (s, ei)  # covered by an earlier pass, not yet visited in this one
                    found.append((s, ei, et))  # needed and covered: its clock is joined all the same
                    if et < 0:
                        break  # this one and every earlier update of the stream are covered
                    j -= 1
                    continue
                ce = clock_of(s, ei)
                bound = tr_slack[et] if et >= 0 else 0
                ok = True
                examined = 0
                unseen: tuple[int, int] | None = None
                for h, gh in c.groups.items():
                    ph = prefix[h]
                    before = min(bisect_left(gh.index, ce[h]), ph)  # raised before E's bundle: not after E
                    bound += gh.cum[before]
                    if h == s and j < before:
                        bound -= g.amount[j]
                    if bound >= need:
                        ok = False
                        break
                    for m in range(before, ph):
                        if h == s and m == j:
                            continue
                        examined += 1
                        if examined > cap:
                            ok = False
                            break
                        if not after_source(s, ei, et, clock_of(h, gh.index[m])):
                            if unseen is None and clocks[h][gh.index[m]] is None:
                                unseen = (h, gh.index[m])
                            bound += gh.amount[m]
                            if bound >= need:
                                ok = False
                                break
                    if not ok:
                        break
                if ok:
                    if clocks[s][ei] is None:
                        return (s, ei)
                    found.append((s, ei, et))
                    if et < 0:
                        break  # every earlier update of the stream comes before this one
                elif pending is None:
                    pending = unseen
                j -= 1
        if patient and pending is not None:
            return pending
        return found

    def run(scanning: bool) -> None:
        """One pass over every stream (``scanning``: and compare each access with what it is not ordered with)."""
        nonlocal clocks, pc
        clocks = [[None] * n for n in lens]
        pc = [0] * k
        done.clear()
        last_sem: list[int | None] = [None] * k
        # the visited bundles of each stream that touch memory, for the windows
        touching: list[list[int]] = [[] for _ in range(k)]
        # per stream, the issued transfers not yet known to have finished before its next bundle: a
        # transfer after one bundle's clock is after every later bundle's of that stream (clocks grow
        # along a stream, ``aft`` only shrinks), so it leaves that stream's list for good
        # (runs: the consecutive transfers of one stream with one footprint, never proven finished, are
        # one entry, compared once per access; see :class:`_Run`)
        open_by: list[list[_Run]] = [[] for _ in range(k)]
        clean_run: list[dict[tuple[int, Footprint], _Run]] = [{} for _ in range(k)]  # per list: its clean run by key
        visit: dict[int, int] = {}  # per transfer: when it was issued in this pass
        runs_of.clear()
        found = report.races
        seen: set[tuple[int, int, int, int]] = set()
        waiting: list[tuple[int, int] | None] = [None] * k  # what a blocked stream waits to be visited

        def nearest(s1: int, i1: int, t1: int, s2: int) -> int | None:
            """The semaphore that could order access 1 before access 2: a DMA's completion semaphore,
            else the first one stream 1 raises at or after bundle 1; else the last stream 2 waited on."""
            if t1 >= 0 and tr_sem[t1] is not None:
                return tr_sem[t1]
            ups = sem_ups[s1]
            j = bisect_left(ups, (i1, -1))
            return ups[j][1] if j < len(ups) else last_sem[s2]

        def record(a: Access, b: Access, region: Region, sem: int | None) -> None:
            if len(found) < limit:
                found.append(Race(a, b, region, sem))
            else:
                report.more += 1

        def issued_after(t: int, s: int, i: int, tr: int) -> bool:
            """Is transfer ``t`` issued after access (s, i) (the transfer ``tr`` it issued, when >= 0)?"""
            ts, ti = tr_point[t]
            return after_transfer(tr, clock_of(ts, ti)) if tr >= 0 else clock_of(ts, ti)[s] > i

        def scan(s: int, i: int, fp: Footprint, vc: Sequence[int], tr: int) -> None:
            """Compare one access (bundle (s, i), or the transfer ``tr`` it issued) with what it is not ordered with."""
            me_: list[Access] = []

            def me() -> Access:  # made only for a race (most scans find none)
                if not me_:
                    me_.append(access(s, i, tr >= 0))
                return me_[0]

            xw, xr = fp.write_box, fp.read_box
            for sj in range(k):
                if sj == s:
                    continue
                lst = touching[sj]
                start = bisect_left(lst, vc[sj])
                cl, fl = clocks[sj], fps[sj]
                examined = 0
                for j in lst[start:]:
                    cj = cl[j]
                    # visited earlier in this pass, but after this access by what earlier passes proved
                    if cj is not None and (after_transfer(tr, cj) if tr >= 0 else cj[s] > i):
                        continue
                    other = fl[j]
                    examined += 1
                    # the boxes first, inline (as _boxes_meet: most pairs are apart)
                    u = other.write_box
                    if u is None or not (xw is not None and xw[0] < u[1] and u[0] < xw[1] and xw[2] < u[3] and
                                         u[2] < xw[3] or xr is not None and xr[0] < u[1] and u[0] < xr[1] and
                                         xr[2] < u[3] and u[2] < xr[3]):
                        u = other.read_box
                        if xw is None or u is None or not (xw[0] < u[1] and u[0] < xw[1] and xw[2] < u[3] and
                                                           u[2] < xw[3]):
                            continue
                    r = _conflict(fp, other)
                    if r is not None and (sj, j, s, i * 2 + (tr >= 0)) not in seen:
                        seen.add((sj, j, s, i * 2 + (tr >= 0)))
                        record(access(sj, j), me(), r, nearest(sj, j, -1, s))
                report.pairs_examined += examined
                report.comparisons += examined
            runs: list[_Run] = []
            room = max(limit - len(found), 0)  # the races still kept one by one; the rest are counted
            hits: list[tuple[int, int, Region]] = []  # (visit order, transfer, region) of the kept ones
            conflicting = 0
            for run_ in open_by[s]:
                ms = run_.members
                if run_.clean:  # none finished (never proven); those issued before the access are a prefix
                    lo, hi = 0, len(ms)
                    while lo < hi:
                        mid = (lo + hi) // 2
                        if issued_after(ms[mid], s, i, tr):
                            hi = mid
                        else:
                            lo = mid + 1
                    runs.append(run_)
                    if lo:
                        report.pairs_examined += lo
                        report.comparisons += 1
                        r = _conflict(fp, run_.fp)
                        if r is not None:  # every member issued before is a race
                            conflicting += lo
                            hits.extend((visit[t], t, r) for t in ms[:min(lo, room)])
                    continue
                keep: list[int] = []
                for t in ms:
                    if any(map(gt, vc, aft[t])):
                        continue  # finished before this access (and every later one of the stream)
                    keep.append(t)
                    ts, ti = tr_point[t]
                    ct = clocks[ts][ti]
                    if ct is None:
                        ct = prior[ts][ti]
                    if (any(map(gt, ct, aft[tr])) if tr >= 0 else ct[s] > i):
                        continue  # issued after this access (as issued_after)
                    report.pairs_examined += 1
                    report.comparisons += 1
                    r = _conflict(fp, tr_fp[t])
                    if r is not None:
                        conflicting += 1
                        if room:
                            hits.append((visit[t], t, r))
                if keep:
                    run_.members = keep
                    runs.append(run_)
            if conflicting:  # kept in the order the transfers were issued, as one list of them would give
                hits.sort()
                for _, t, r in hits[:room]:
                    ts, ti = tr_point[t]
                    record(access(ts, ti, True), me(), r, nearest(ts, ti, t, s))
                report.more += conflicting - min(len(hits), room)
            open_by[s] = runs
            if report.comparisons > max_work:
                raise RACE_WORK.error(report.comparisons, f"{where}: at {names[s]} bundle {i} of {lens[s]}")

        progressed = True
        stuck = False  # every stream waits: resolve the first waiting one with what is known
        while progressed or (not stuck and any(w is not None for w in waiting)):
            if not progressed:
                stuck = True
            progressed = False
            for s in range(k):
                if pc[s] >= lens[s]:
                    continue
                i = pc[s]
                wt = waiting[s]
                if wt is not None and pc[wt[0]] <= wt[1] and not stuck:
                    continue
                waiting[s] = None
                prev = clocks[s][i - 1] if i else None
                # what earlier passes proved holds in every schedule: start from it (the needed updates
                # are joined even when it covers them, so at the fixed point a clock that covers a
                # bundle holds that bundle's whole clock)
                vc = list(prior[s][i]) if prev is None else list(map(max, prev, prior[s][i]))
                blocked = False
                proven: list[tuple[int, int, int]] = []
                for w in wait_of[s][i]:
                    if w is None:
                        report.unproven_waits += scanning
                        continue
                    key, need = w
                    if key[0] == "sem":
                        last_sem[s] = key[1]
                    got = prove(key, need, s, i, vc, not stuck)
                    if isinstance(got, tuple):
                        waiting[s] = got  # retried once that bundle is visited
                        blocked = True
                        break
                    for ps, pi, pt in got:
                        cp = clocks[ps][pi]
                        assert cp is not None
                        vc = list(map(max, vc, cp))
                        proven.append((ps, pi, pt))
                    c = counters.get(key)
                    if c is not None and c.written:
                        report.unproven_waits += scanning
                if blocked:
                    continue
                for _ps, _pi, pt in proven:
                    while pt >= 0 and aft[pt][s] > i:  # S-91: and every earlier block of its queue
                        aft[pt][s] = i
                        if pristine[pt]:
                            pristine[pt] = False
                            for run_ in runs_of.get(pt, ()):
                                run_.clean = False  # its members are compared one by one from now on
                        pt = tr_prev[pt]
                clocks[s][i] = tuple(vc)
                fp = fps[s][i]
                if scanning and not fp.empty:
                    scan(s, i, fp, vc, -1)
                t = tr_of[s].get(i)
                if t is not None and scanning:
                    if not tr_fp[t].empty:
                        scan(s, i, tr_fp[t], vc, t)
                    tf, clean = tr_fp[t], pristine[t]
                    visit[t] = len(visit)
                    for lst, by_key in zip(open_by, clean_run):
                        last = by_key.get((s, tf)) if clean else None
                        if last is not None and last.clean:
                            last.members.append(t)
                        else:
                            last = _Run(tf, s, [t], clean)
                            lst.append(last)
                            if clean:
                                by_key[(s, tf)] = last
                        if clean:
                            runs_of.setdefault(t, []).append(last)
                if not fp.empty:
                    touching[s].append(i)
                pc[s] += 1
                progressed = True
                stuck = False

    passes = 0
    while True:
        passes += 1
        run(False)
        filled = _filled(clocks, prior, lens, k)
        if filled == prior or passes >= max_passes:
            break
        prior = filled
    run(True)
    report.passes = passes + 1
    report.unreached = sum(lens[s] - pc[s] for s in range(k))
    return report


def _filled(clocks: list[list[tuple[int, ...] | None]], prior: list[list[tuple[int, ...]]], lens: list[int], k: int
            ) -> list[list[tuple[int, ...]]]:
    """The clocks of a pass, a bundle it did not reach keeping its prior clock."""
    return [[c if c is not None else prior[s][i] for i, c in enumerate(clocks[s])] for s in range(k)]


def decode_streams(streams: Mapping[str, bytes], decisions: DecisionSet = DEFAULT_DECISIONS, where: str = "the streams"
                   ) -> dict[str, list[DecodedBundle]]:
    """Decode each stream (undecodable bundles are left out: they have no known footprint); more than
    :data:`RACE_BUNDLES` bundles in all are refused first (``where`` names the input)."""
    RACE_BUNDLES.check(sum(len(data) // BUNDLE_SIZE for data in streams.values()), where)
    fs = build_formats(decisions)
    return {n: [d for d in iter_stream(data, formats=fs) if not isinstance(d, DecodeFailure)]
            for n, data in streams.items()}
