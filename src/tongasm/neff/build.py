"""A NEFF from an assembled kernel: every member written the way the real 2.23 files of the target write it.

:func:`build_neff` turns an :class:`~tongasm.codegen.assembler.Assembly` (streams, bundle log,
kernel) into a :class:`~tongasm.neff.neff.Neff` that ``tongasm neff info``, ``check``, ``disasm`` and
``run`` read like any real one (``docs/research/neff-members.md`` lists what the real files hold):

* the variables (R-80): the kernel's DRAM locations keep their var_ids (D-8, what the bundles name);
  inputs and outputs outside DRAM are staged through DRAM variables of the same name (R-81: Pool
  DMAs before and after the kernel, a DVE copy for a PSUM output), numbered after the kernel's;
  ``SB`` is var 0, the DGE table (R-17) the last id;
* ``def.json`` (keys as the target's files: engine tokens, ``var``, ``dma_queue`` per engine that
  issues DMAs (R-86) and the fields of unknown derivation copied, R-84), the five engine streams ``<E>.bin`` with their sidecars
  (DMAs are in-stream 0xD4 bundles: every sidecar's ``dma`` is empty, as in the real files),
  the ``.dbg`` members (one asm entry per bundle naming its BIR instruction, one backend entry per
  instruction), ``kelf-0.json``, ``info.json`` (R-82), ``neff.json`` (inputs and outputs with
  dtypes and shapes) and, for sunda, ``metrics.json``;
* the activation sets the Activation stream loads are named in ``Activation.json`` (R-85, R-21), and given a
  real NEFF of the target (``tables``), its table members copied (D-36);
* the header: data_size and the info.json mirrors derived, the rest per R-83.

:func:`build_neff_from_listing` writes a listing (``tongasm disasm FILE.neff``, with its ``.var`` lines) the
same way (D-35). Nothing here has been loaded on hardware: the checks are the real files' key sets and the simulator.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._meta import __version__
from ..errors import InputError
from ..isa.decisions import DecisionSet
from ..isa.decisions.neff import (NeffCopiedFields, NeffDmaQueues, NeffFreshHeader, NeffFromListing, NeffInterface,
                                  NeffStaging, NeffTableSource, NeffToolVersion, NeffDebugDeps)
from ..isa.decisions.act import ActTableIndex
from ..isa.enums import ENGINE_STREAM
from ..isa.fields import BUNDLE_SIZE
from ..isa.opcodes import ISA_OPCODE_NAMES
from ..isa.targets import Target, get_target
from ..isa.vector_enums import ACT_SETS
from .container import USTAR, GzipInfo, gzip_header
from .errors import NeffError
from .header import HEADER_FIELDS, HEADER_SIZE, HeaderValue, NeffHeader
from .neff import GRAPH_JSON, INFO, KELF, Neff

#: the compiler whose files' layout is followed (R-82)
COMPILER = "2.23.6484.0+3b612583"
#: tongasm target → kelf-0.json target
KELF_TARGET = {"gen2": "sunda", "gen3": "cayman"}
#: the engine stream files of a real graph, in def.json token order (the keys are sorted there)
ENGINE_FILES = {"act": "Activation", "dve": "DVE", "pe": "PE", "pool": "Pool", "sp": "SP"}
#: the .dbg layer's engine numbers (debuginfo.DEBUG_ENGINES, inverted)
DBG_ENGINE = {"PE": 1, "Activation": 2, "Pool": 3, "DMA": 4, "DVE": 5, "SP": 6}
ASM_DBG_TEXT = ("Debug info for one engine's assembly instructions. Most fields for each instruction are left "
                "blank, and instructions in this debug info occur in the same order as those in the actual binary "
                "file. Using this file, all instructions in the binary can be connected back to the BIR "
                "Instruction from which they were generated.")
BACKEND_DBG_TEXT = ("Debug info for one engine's BIR Instructions. The instructions in this debug info should be "
                    "fully filled out, and are the main source of metadata in the current implementation of "
                    "Protobuf debug info.")
DMA_DBG_TEXT = ("Debug info for DMA blocks. In this level (BIR) of debug info, DMA blocks are treated as normal "
                "instructions So, they have scheduling dependencies and are dependended on by other BIR "
                "instructions, and have pointers to their Penguin ancestorThe instructions in this debug info "
                "should be fully filled out, and are the main source of metadata in the current implementation of "
                "Protobuf debug info.")
#: R-86: a DMA queue's name per owner engine (pool, sp, act as the 2.23 files name them; dve, pe guessed)
QUEUE_NAMES = {"pool": "qPoolDynamic", "sp": "qSPDynamicHW", "act": "qActDynamicHW", "dve": "qDVEDynamicHW",
               "pe": "qPEDynamicHW"}
#: R-86: queue semaphores come in blocks of 16 from 8 (8..23, 24..39, 40..55 in every 2.23 file)
QUEUE_BASE, QUEUE_BLOCK = 8, 16
#: the Pool queue's DMA scratch (every qPoolDynamic of the 2.23 files)
POOL_SCRATCH = {"SB_scratch_partition_offset": 0, "SB_scratch_partition_size": 16384}
FP8_CONFIG = {"emax_fp8_e4m3": 8, "emax_fp8_e5m2": 15, "fp8_range_extension": True, "fp8_sis": False,
              "fp8_sns": False, "ocp_sat": True}
#: cayman's reserved SBUF bytes (evtaccel), which a staging buffer must not touch
RESERVATION = {"base_partition": 0, "offset": 229368, "partitions": 128, "size": 8, "type": "evtaccel"}
_ACT_TABLE_LOAD = {name: byte for byte, name in ISA_OPCODE_NAMES.items()}["ActivationTableLoad"]
_ACT_SEL = 0x23  # ActivationTableLoad's act_tbl_sel byte
_WAIT = "sem_ge_imm"
_OUTPUT_KINDS = ("Output", "ExternalOutput", "ExternalOutputParameter")


@dataclass
class NeffVariable:
    """One variable of the written ``def.json`` ``var`` table (besides SB and the DGE table)."""

    name: str
    var_id: int
    type: str  # input, output, virtual
    size: int
    dtype: str
    shape: list[int]
    #: the kernel's SBUF/PSUM location it is staged from/to (R-81), as a memory-description variable
    staged: Any = None


@dataclass
class NeffPlan:
    """What the written NEFF holds besides the kernel's own bundles: its variables and the staging."""

    variables: list[NeffVariable] = field(default_factory=list)
    dge_table: list[int] = field(default_factory=list)
    queues: dict[str, dict[str, Any]] = field(default_factory=dict)  # def.json dma_queue
    prologue: dict[str, bytes] = field(default_factory=dict)  # stream -> bundles before the kernel's
    epilogue: dict[str, bytes] = field(default_factory=dict)  # stream -> bundles after
    #: per stream, the BIR instruction name of each staging bundle (prologue, epilogue)
    labels: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)


def _accesses(kernel: Any) -> dict[str, bool]:
    """Location name → whether its first access in program order (loop bodies once) is a read."""
    from ..ir.memory import _every_instruction
    from ..ir.operands import PhysicalAP, RegisterAP

    first: dict[str, bool] = {}

    def names(op: Any) -> Iterator[str]:
        if isinstance(op, PhysicalAP) and op.location is not None:
            yield op.location.name
        elif isinstance(op, RegisterAP) and op.allocation is not None:
            yield from (loc.name for loc in op.allocation.locations)

    for inst in _every_instruction(kernel):
        for op in inst.ins:
            for n in names(op):
                first.setdefault(n, True)
        for op in inst.outs:
            for n in names(op):
                first.setdefault(n, False)
    return first


def _scan(streams: Mapping[str, bytes], decisions: DecisionSet) -> tuple[set[int], list[tuple[str, int, int]]]:
    """Every semaphore a bundle of the streams waits on, updates or has a DMA signal, and each DMA
    (0xD4) as (stream, bundle index, its completion semaphore)."""
    from ..isa.layout import Sem
    from ..sim.scheduler import load_streams

    used: set[int] = set()
    dmas: list[tuple[str, int, int]] = []
    for s in load_streams({k: v for k, v in streams.items() if v}, decisions):
        for pc, d in enumerate(s.bundles):
            sync = d.fmt.sync
            if sync is not None:
                for index in [w.index for w in sync.waits] + [u.index for u in sync.updates]:
                    if index in d.fields:
                        used.add(int(d.fields[index]))
            for key in ("wait_idx", "update_idx", "dma_semaphore"):
                if key in d.fields:
                    used.add(int(d.fields[key]))
            if d.fmt.layout.sem is Sem.DMA_2D:
                dmas.append((s.engine, pc, int(d.fields["dma_semaphore"])))
    return used, dmas


def _block(sem: int) -> int | None:
    return (sem - QUEUE_BASE) // QUEUE_BLOCK if sem >= QUEUE_BASE else None


def dma_queues(streams: Mapping[str, bytes], decisions: DecisionSet,
               extra: Mapping[str, int] | None = None) -> tuple[dict[str, dict[str, Any]], set[int]]:
    """R-86: the ``dma_queue`` table of the streams' DMAs, and every semaphore the streams use.

    One queue per engine that issues DMAs, owning the block of 16 semaphores its DMAs signal (one
    block per engine; two engines in one block, or one engine's DMAs in two, are refused naming the
    bundle, S-64); ``extra``: engine -> block for an engine the staging adds DMAs to."""
    used, dmas = _scan(streams, decisions)
    blocks: dict[str, int] = {}
    first: dict[str, tuple[int, int]] = {}
    for engine, pc, sem in dmas:
        b = _block(sem)
        if b is None:
            raise NeffError(f"{engine} bundle {pc}: the DMA signals semaphore {sem}; a NEFF's DMA queues own "
                            f"semaphores from {QUEUE_BASE} up, in blocks of {QUEUE_BLOCK} (R-86)")
        if blocks.setdefault(engine, b) != b:
            p0, s0 = first[engine]
            raise NeffError(f"{engine} bundle {pc}: the DMA signals semaphore {sem}, but {engine} bundle {p0} signals "
                            f"{s0}: one engine's DMAs use one queue, a block of {QUEUE_BLOCK} semaphores "
                            f"({QUEUE_BASE + QUEUE_BLOCK * blocks[engine]}..{QUEUE_BASE + QUEUE_BLOCK * blocks[engine] + QUEUE_BLOCK - 1}; "
                            "R-86, S-64)")
        first.setdefault(engine, (pc, sem))
    for engine, b in (extra or {}).items():
        blocks.setdefault(engine, b)
    owners: dict[int, str] = {}
    for engine, b in blocks.items():
        if b in owners:
            raise NeffError(f"the DMAs of {owners[b]} and {engine} signal semaphores of one block "
                            f"({QUEUE_BASE + QUEUE_BLOCK * b}..{QUEUE_BASE + QUEUE_BLOCK * b + QUEUE_BLOCK - 1}); a NEFF "
                            "gives each engine's DMA queue its own block (R-86)")
        if engine not in QUEUE_NAMES:
            raise NeffError(f"stream {engine!r} issues DMAs; a NEFF's DMA queues are owned by "
                            f"{', '.join(QUEUE_NAMES)} (R-86)")
        owners[b] = engine
    table: dict[str, dict[str, Any]] = {}
    for engine in sorted(blocks, key=lambda e: QUEUE_NAMES[e]):
        b = blocks[engine]
        q: dict[str, Any] = {"dynamic_dma": dict(POOL_SCRATCH)} if engine == "pool" else {}
        q.update({"fabric_path": "main", "num_queues": QUEUE_BLOCK, "owner": engine,
                  "semaphore_set": list(range(QUEUE_BASE + QUEUE_BLOCK * b, QUEUE_BASE + QUEUE_BLOCK * (b + 1))),
                  "type": "dynamic"})
        table[QUEUE_NAMES[engine]] = q
    return table, used


def _loc_json(v: Any) -> dict[str, Any]:
    """A memory-description variable as a BIR memory location (for the staging kernel)."""
    out: dict[str, Any] = {"name": v.name, "type": v.space, "addr": v.addr, "base": v.partition,
                           "dims": list(v.dims)}
    if v.space == "PSUM":
        out["bank"] = v.bank
    return out


def _ap(name: str, dtype: str, pairs: list[list[int]]) -> dict[str, Any]:
    return {"kind": "physical_ap", "dtype": dtype, "ap": pairs, "offset": 0, "memref": name}


def _sync(wait: tuple[int, int] | None = None, inc: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if wait is not None:
        out["wait"] = {"mode": _WAIT, "index": wait[0], "value": wait[1]}
    if inc is not None:
        out["update"] = {"mode": "sem_inc", "index": inc}
    return out


def _engine(stream: str) -> str:
    return next(e.name for e, s in ENGINE_STREAM.items() if s == stream)


class _Staging:
    """The staging program (R-81): BIR instructions before and after the kernel's, per stream."""

    def __init__(self, target: Target, decisions: DecisionSet, kernel_streams: Mapping[str, bytes],
                 sb_end: int) -> None:
        self.target = target
        self.decisions = decisions
        self.engines = [s for s in ENGINE_FILES if kernel_streams.get(s)]
        table, used = dma_queues(kernel_streams, decisions)
        pool = table.get(QUEUE_NAMES["pool"])
        taken = {_block(x) for q in table.values() for x in q["semaphore_set"]} | {_block(x) for x in used}
        block = _block(pool["semaphore_set"][0]) if pool else next(b for b in range(16) if b not in taken)
        assert block is not None
        self.pool_block = block
        queue = range(QUEUE_BASE + QUEUE_BLOCK * block, QUEUE_BASE + QUEUE_BLOCK * (block + 1))
        free_dma = [x for x in queue if x not in used]
        others = {x for q in table.values() for x in q["semaphore_set"]} | set(queue)
        free = [x for x in range(1, 256) if x not in used and x not in others]
        if len(free_dma) < 2 or len(free) < 2:
            raise NeffError("the kernel uses every semaphore the staging of its inputs and outputs needs "
                            f"(two of Pool's DMA queue {queue[0]}..{queue[-1]}, two others): R-81")
        self.s_in, self.s_out = free_dma[:2]
        self.s_done, self.s_copy = free[:2]
        self.locations: dict[str, dict[str, Any]] = {}
        self.before: list[dict[str, Any]] = []
        self.after: list[dict[str, Any]] = []
        self.sb_end = sb_end

    def add_location(self, loc: dict[str, Any]) -> None:
        self.locations.setdefault(loc["name"], loc)

    def build(self, inputs: list[NeffVariable], outputs: list[NeffVariable]) -> tuple[dict[str, bytes], dict[str, bytes],
                                                                                       dict[str, tuple[list[str], list[str]]]]:
        inc = 16  # a DMA adds 16 to its semaphore
        before: list[dict[str, Any]] = []
        after: list[dict[str, Any]] = []
        psum = [v for v in outputs if v.staged.space == "PSUM"]
        waiting = sorted(set(self.engines) | {"pool"} | ({"dve"} if psum else set()), key=list(ENGINE_FILES).index)
        for v in inputs:
            before.append(self._dma(f"R-81-load-{v.name}", v, to_sbuf=True, sem=self.s_in))
        if inputs:
            for s in waiting:
                before.append({"opcode": "NoOp", "name": "R-81-wait-inputs", "engine": _engine(s),
                               "sync": _sync(wait=(self.s_in, inc * len(inputs)))})
        if outputs:
            for s in waiting:
                after.append({"opcode": "NoOp", "name": "R-81-done", "engine": _engine(s),
                              "sync": _sync(inc=self.s_done)})
            if psum:
                after.append({"opcode": "NoOp", "name": "R-81-wait-done", "engine": "DVE",
                              "sync": _sync(wait=(self.s_done, len(waiting)))})
                for v in psum:
                    after.append(self._copy_out(v))
                after.append({"opcode": "NoOp", "name": "R-81-copied", "engine": "DVE",
                              "sync": _sync(inc=self.s_copy)})
            after.append({"opcode": "NoOp", "name": "R-81-wait-done", "engine": "Pool",
                          "sync": _sync(wait=(self.s_done, len(waiting)))})
            if psum:
                after.append({"opcode": "NoOp", "name": "R-81-wait-copied", "engine": "Pool",
                              "sync": _sync(wait=(self.s_copy, 1))})
            for v in outputs:
                after.append(self._dma(f"R-81-store-{v.name}", v, to_sbuf=False, sem=self.s_out))
            after.append({"opcode": "NoOp", "name": "R-81-wait-stores", "engine": "Pool",
                          "sync": _sync(wait=(self.s_out, inc * len(outputs)))})
        pro, pro_labels = self._assemble(before)
        epi, epi_labels = self._assemble(after)
        labels = {s: (pro_labels.get(s, []), epi_labels.get(s, [])) for s in set(pro_labels) | set(epi_labels)}
        return pro, epi, labels

    def _dram(self, v: NeffVariable) -> str:
        name = f"{v.name}.R-81-dram"
        self.add_location({"name": name, "type": "DRAM", "addr": 0, "base": 0, "dims": [1, v.size],
                           "tensor_id": v.var_id})
        return name

    def _sbuf_side(self, v: NeffVariable) -> tuple[str, int, int]:
        """The SBUF location a DMA of ``v`` reads or writes (a PSUM output's staging copy), rows, row bytes."""
        src = v.staged
        rows, width = src.dims
        if src.space == "SB":
            self.add_location(_loc_json(src))
            return src.name, rows, width
        name = f"{v.name}.R-81-sbuf"
        start = -(-self.sb_end // 64) * 64
        limit = self.target.sbuf_bytes_per_partition - (8 if self.target.name == "gen3" else 0)
        if start + width > limit:
            raise NeffError(f"PSUM output {v.name!r} ({rows} x {width} bytes) has no free SBUF to be staged in "
                            f"(the kernel's SBUF locations end at byte {self.sb_end} of {limit}; R-81)")
        self.sb_end = start + width
        self.add_location({"name": name, "type": "SB", "addr": start, "base": src.partition, "dims": [rows, width]})
        v.staged = type(src)(name, 0, "SB", src.partition, start, 0, (rows, width), src.dtype, src.shape, src.kind)
        return name, rows, width

    def _dma(self, label: str, v: NeffVariable, *, to_sbuf: bool, sem: int) -> dict[str, Any]:
        dram = self._dram(v)
        sb, rows, width = self._sbuf_side(v)
        sb_ap = _ap(sb, "uint8", [[width, rows], [1, width]])
        dram_ap = _ap(dram, "uint8", [[width, rows], [1, width]])
        ins, outs = ([dram_ap], [sb_ap]) if to_sbuf else ([sb_ap], [dram_ap])
        return {"opcode": "DMACopy", "name": label, "engine": "Pool", "dma_semaphore": sem, "ins": ins, "outs": outs}

    def _copy_out(self, v: NeffVariable) -> dict[str, Any]:
        src = v.staged  # the PSUM location, until _sbuf_side replaces it with its SBUF copy
        self.add_location(_loc_json(src))
        sb, rows, width = self._sbuf_side(v)
        dtype = src.dtype or "float32"
        from ..isa.enums import DTYPE_INFO, Dtype

        size = DTYPE_INFO[Dtype[dtype]].size
        n = width // size
        return {"opcode": "TensorCopy", "name": f"R-81-copy-{v.name}", "engine": "DVE",
                "ins": [_ap(src.name, dtype, [[n, rows], [1, n]])], "outs": [_ap(sb, dtype, [[n, rows], [1, n]])]}

    def _assemble(self, insts: list[dict[str, Any]]) -> tuple[dict[str, bytes], dict[str, list[str]]]:
        if not insts:
            return {}, {}
        from ..codegen.assembler import assemble
        from ..ir.bir_json import read_bir

        allocs = [{"name": f"{n}_set", "memorylocations": [loc]} for n, loc in self.locations.items()]
        kernel = {"arch": self.target.name, "version": 2,
                  "functions": [{"name": "R-81-staging", "allocations": allocs,
                                 "blocks": [{"name": "b", "instructions": insts}]}]}
        overrides = dict(self.decisions.overrides)
        overrides["R-18"] = "explicit"  # the stream prologue stays the kernel's first bundles
        asm = assemble(read_bir(kernel), target=self.target, decisions=DecisionSet.of(overrides))
        labels: dict[str, list[str]] = {}
        for e in asm.log.entries(asm.streams):
            labels.setdefault(e.stream, []).extend([e.name] * len(e.offsets))
        return {s: bytes(b) for s, b in asm.streams.items() if b}, labels


def plan_neff(asm: Any, decisions: DecisionSet) -> NeffPlan:
    """The variables of the NEFF (R-80) and its staging bundles (R-81) for an assembled kernel."""
    from ..ir.memory import describe_kernel

    if asm.kernel is None:
        raise InputError("a NEFF is written from an assembled kernel with its memory locations; this assembly "
                         "has no kernel")
    target: Target = asm.target
    mem = describe_kernel(asm.kernel, target.name)
    first = _accesses(asm.kernel)
    iface = decisions.get(NeffInterface)
    plan = NeffPlan()
    staged_in: list[NeffVariable] = []
    staged_out: list[NeffVariable] = []
    ids: dict[int, str] = {}
    for v in mem.variables:
        if v.space != "DRAM":
            continue
        if v.var_id == 0:
            raise InputError(f"DRAM variable {v.name!r} has var_id 0, which names the state buffer in a NEFF (R-17): "
                             "give its memory location a tensor_id")
        if v.var_id in ids:
            raise InputError(f"DRAM variables {ids[v.var_id]!r} and {v.name!r} share var_id {v.var_id} (D-8)")
        ids[v.var_id] = v.name
    next_id = max(ids, default=0) + 1
    sb_end = max((v.addr + v.dims[1] for v in mem.variables if v.space == "SB"), default=0)
    for v in mem.variables:
        read_first = first.get(v.name, False)
        is_in = iface.is_input(v.kind, read_first)
        is_out = not is_in and v.kind in _OUTPUT_KINDS
        dtype = v.dtype or "uint8"
        shape = list(v.logical_shape()) if v.dtype else [v.nbytes]
        if v.space == "DRAM":
            kind = "input" if is_in else "output" if is_out else "virtual"
            plan.variables.append(NeffVariable(v.name, v.var_id, kind, v.nbytes, dtype, shape))
            continue
        if not (is_in or is_out):
            continue
        if not decisions.get(NeffStaging).staged:
            raise InputError(f"{v.space} variable {v.name!r} is an {'input' if is_in else 'output'} of the kernel; a "
                             "NEFF's inputs and outputs are DRAM variables (R-81=refuse)")
        nv = NeffVariable(v.name, next_id, "input" if is_in else "output", v.nbytes, dtype, shape, staged=v)
        next_id += 1
        plan.variables.append(nv)
        (staged_in if is_in else staged_out).append(nv)
    names = [v.name for v in plan.variables]
    for reserved in ("SB", "DGETable0"):
        if reserved in names:
            raise InputError(f"the kernel has a variable named {reserved!r}, the name a NEFF gives its "
                             f"{'state buffer' if reserved == 'SB' else 'DGE table'}; rename it")
    if mem.dge_table:
        if any(e is None for e in mem.dge_table):
            gaps = [i for i, e in enumerate(mem.dge_table) if e is None]
            raise InputError(f"the kernel's DGE table has no variable at entr{'ies' if len(gaps) > 1 else 'y'} "
                             f"{', '.join(map(str, gaps))}; a NEFF's dge-table lists a var_id per entry (R-17)")
        plan.dge_table = [int(e) for e in mem.dge_table if e is not None]
    kernel_streams = {k: bytes(b) for k, b in asm.streams.items()}
    plan.queues, _used = dma_queues(kernel_streams, decisions)
    if staged_in or staged_out:
        st = _Staging(target, decisions, kernel_streams, sb_end)
        plan.prologue, plan.epilogue, plan.labels = st.build(staged_in, staged_out)
        plan.queues, _used = dma_queues(kernel_streams, decisions, {"pool": st.pool_block})
    return plan


def _json(obj: Any, *, indent: int | None = 4, sort: bool = False) -> bytes:
    if indent is None:
        return json.dumps(obj, separators=(",", ":"), sort_keys=sort).encode()
    return json.dumps(obj, indent=indent, sort_keys=sort).encode()


def _act_sets(stream: bytearray, decisions: DecisionSet) -> list[str]:
    """R-85/R-21: the sets the Activation stream loads, in first-load order; under R-21=graph-table each
    ActivationTableLoad's +0x23 (written in act_info.json's order) is rewritten to its position in
    that list, in place."""
    table = decisions.get(ActTableIndex)
    graph_table = table.reading is table.GRAPH_TABLE
    names: list[str] = []
    for off in range(0, len(stream), BUNDLE_SIZE):
        if stream[off] != _ACT_TABLE_LOAD:
            continue
        sel = stream[off + _ACT_SEL]
        if sel >= len(ACT_SETS):
            raise NeffError(f"act bundle {off // BUNDLE_SIZE} (offset {off:#x}): ActivationTableLoad set {sel} is "
                            f"not an act_info.json set (0..{len(ACT_SETS) - 1}; R-21)")
        name = ACT_SETS[sel].name
        if name not in names:
            names.append(name)
        if graph_table:
            stream[off + _ACT_SEL] = names.index(name)
    if not graph_table:
        return [s.name for s in ACT_SETS] if table.reading is table.ACT_INFO else ["exp_and_others"]
    return names


ACT_INFO = "act_info.json"
#: D-37: the kind of a written sync dependency, and every entry's unknown_6 (the real files' commonest)
SYNC_DEP_KIND, UNKNOWN_6 = 4, 1
_NAME_KEY = re.compile(r'"name"\s*:\s*("(?:[^"\\]|\\.)*")')


def instruction_lines(path: str) -> dict[str, int]:
    """The line of each instruction's name in a BIR JSON file (a loop's body instructions too): the
    ``kernel_line`` of its backend ``.dbg`` entry."""
    from pathlib import Path

    from ..ir.stream_reader import stream_bir

    kernel = stream_bir(Path(path))  # two passes: a key after the blocks is the reader's to handle
    out: dict[str, int] = {}
    line, at = 1, 0
    for raw in kernel.raw_instructions():
        raw.read()
        text = raw.text
        for m in _NAME_KEY.finditer(text, raw.start, raw.end):
            line += text.count("\n", at, m.start())
            at = m.start()
            name = json.loads(m.group(1))
            if isinstance(name, str):
                out.setdefault(name, line)
    return out


def _sync_deps(streams: Mapping[str, bytes | bytearray], labels: Mapping[str, list[str | None]],
               decisions: DecisionSet) -> dict[str, set[str]]:
    """D-37: per BIR instruction (``stream\0name``), the instructions of other streams whose semaphore
    updates (an update lane, a DMA's completion semaphore) its bundles' waits count."""
    from ..isa.decisions.spec import UpdateModeWire
    from ..isa.enums import WAIT_WIRE, WaitMode
    from ..isa.layout import Sem
    from ..sim.scheduler import load_streams

    wire = decisions.get(UpdateModeWire)
    by_wire, zero_is_none = wire.by_wire(), wire.zero_is_none
    wait_ge = WAIT_WIRE[WaitMode.sem_ge_imm]
    updaters: dict[int, set[str]] = {}
    waits: list[tuple[str, int]] = []
    for st in load_streams({k: v for k, v in streams.items() if v}, decisions):
        names = labels.get(st.engine, [])
        for pc, d in enumerate(st.bundles):
            name = names[pc] if pc < len(names) else None
            if name is None or name == "R-18-prologue":
                continue
            key = f"{st.engine}\0{name}"
            f, lanes = d.fields, d.fmt.sync
            for u in lanes.updates if lanes is not None else ():
                mode = f.get(u.mode, 0)
                if (mode == 0 and (zero_is_none or not f.get(u.value, 0))) or by_wire.get(mode) is None:
                    continue
                updaters.setdefault(int(f[u.index]), set()).add(key)
            if d.fmt.layout.sem is Sem.DMA_2D:
                updaters.setdefault(int(f["dma_semaphore"]), set()).add(key)
            for w in lanes.waits if lanes is not None else ():
                if f.get(w.mode, 0) == wait_ge and f.get(w.value, 0):
                    waits.append((key, int(f[w.index])))
    out: dict[str, set[str]] = {}
    for key, sem in waits:
        stream = key.split("\0", 1)[0]
        out.setdefault(key, set()).update(k for k in updaters.get(sem, ()) if k.split("\0", 1)[0] != stream)
    return out


def table_copy(real: Neff, tgt: Target, sets: list[str], ds: DecisionSet) -> tuple[dict[str, bytes], list[Any]]:
    """D-36: the table members a graph loading activation ``sets`` holds, copied from the real NEFF ``real``
    (act_info.json, each set's members as act_info.json names them, the DVE tables its DVE.json names),
    and the DVE sidecar's ``dve_tables`` value."""
    where = real.path or "the tables NEFF"
    if real.kelf.target_name != KELF_TARGET[tgt.name]:
        raise InputError(f"{where} is a {real.kelf.target_name} NEFF; the tables of a {tgt.name} NEFF come from a "
                         f"{KELF_TARGET[tgt.name]} one (D-36)")
    version = str(json.loads(real.members[INFO]).get("tool_version", "?")) if INFO in real.members else "?"
    if version != COMPILER and not ds.get(NeffTableSource).any_compiler:
        raise InputError(f"{where} was written by compiler {version}; the tables of a NEFF in the layout of "
                         f"{COMPILER} come from one of its files (D-36=any-compiler takes them anyway)")
    found: dict[str, bytes] = {}
    dve: list[Any] | None = None
    for gname, graph in real.graphs.items():
        prefix = gname + "/"
        have = {m[len(prefix):]: d for m, d in real.members.items() if m.startswith(prefix)}
        if ACT_INFO not in have:
            continue
        info = json.loads(have[ACT_INFO])
        found.setdefault(ACT_INFO, have[ACT_INFO])
        for entry in info.get("act_func_sets", []):
            if entry.get("name") in sets:
                files = [entry.get(k) for k in info.get("pwp_file_keys", ["bkt_bin", "ctrl_bin", "profile_json"])]
                if all(isinstance(f, str) and f in have for f in files):
                    for f in files:
                        found.setdefault(f, have[f])
                    found.setdefault("\0" + entry["name"], b"")
        side = graph.streams.get("dve")
        if dve is None and side is not None and side.sidecar is not None and side.sidecar in real.members:
            named = json.loads(real.members[side.sidecar]).get("dve_tables")
            if isinstance(named, list) and all(isinstance(t, dict) for t in named) and all(
                    isinstance(f, str) and f in have for t in named for f in t.values()):
                dve = named
                for t in named:
                    for f in t.values():
                        found.setdefault(f, have[f])
    if ACT_INFO not in found or dve is None:
        raise InputError(f"{where} holds no graph with an {ACT_INFO} and the DVE tables its DVE.json names (D-36)")
    lacking = [x for x in sets if "\0" + x not in found]
    if lacking:
        raise InputError(f"{where} holds no table members of the activation set{'s' * (len(lacking) > 1)} "
                         f"{', '.join(lacking)} the kernel loads; take the tables from a NEFF whose graphs load "
                         f"{'them' if len(lacking) > 1 else 'it'} (D-36)")
    return {k: v for k, v in found.items() if not k.startswith("\0")}, dve


def _debug_info(engine: str, text: str, parent: str, entries: Iterable[dict[str, Any]], source: str = "") -> bytes:
    from .debuginfo import message_class

    msg = message_class("DebugInfo")()
    msg.description = text
    msg.parent_file = parent
    msg.engine = DBG_ENGINE[engine]
    if source:
        msg.source_file = source
    for e in entries:
        i = msg.instructions.add()
        if "id" in e:
            i.id = e["id"]
        if "name" in e:
            i.name = e["name"]
        i.parent_ids.extend(e.get("parent_ids", ()))
        if "sync_deps" in e:
            i.sync_deps.extend(e["sync_deps"])
            i.sync_dep_kinds.extend([SYNC_DEP_KIND] * len(e["sync_deps"]))
        if "unknown_6" in e:
            i.unknown_6 = e["unknown_6"]
        for k, v in e.get("attributes", ()):
            a = i.attributes.add()
            a.key, a.value = k, v
    return bytes(msg.SerializeToString())


def neff_json(variables: list[NeffVariable]) -> dict[str, Any]:
    """``neff.json``: one ``null`` node per input, the kelf call node, the inputs' then outputs' shapes
    and dtypes (the real files' TVM-graph form), the input signature."""
    ins = [v for v in variables if v.type == "input"]
    outs = [v for v in variables if v.type == "output"]
    nodes: list[dict[str, Any]] = [{"op": "null", "name": v.name, "inputs": [], "output_names": [v.name],
                                    "is_param": "0"} for v in ins]
    nodes.append({"op": "tvm_op", "name": "sg_coreV10",
                  "attrs": {"func_name": "__kelf", "flatten_data": "0", "num_inputs": str(len(ins)),
                            "kelf": KELF, "num_outputs": str(len(outs))},
                  "inputs": [[k, 0, 0] for k in range(len(ins))], "output_names": [v.name for v in outs]})
    both = ins + outs
    return {
        "nodes": nodes, "arg_nodes": list(range(len(ins))), "heads": [[len(ins), k, 0] for k in range(len(outs))],
        "attrs": {"shape": ["list_shape", [v.shape for v in both]], "storage_id": ["list_int", list(range(len(both)))],
                  "dltype": ["list_str", [v.dtype for v in both]]},
        "node_row_ptr": [*range(len(ins) + 1), len(ins) + len(outs)],
        "metadata": {"signatures": {"default": {
            "inputs": {v.name: {"id": k, "dtype": v.dtype, "shape": v.shape} for k, v in enumerate(ins)},
            "outputs": {}}}},
    }


def build_neff(asm: Any, *, decisions: DecisionSet | None = None, name: str = "file.neff",
               target: str | Target | None = None, tables: Neff | None = None, source: str | None = None) -> Neff:
    """A :class:`Neff` holding the assembled kernel ``asm`` as one graph ``sg00`` (see the module doc).
    ``target`` must be the assembly's (a kernel is encoded for one target); ``name`` is info.json's;
    ``tables``: a real NEFF to copy the table members from (D-36); ``source``: the kernel's BIR JSON file,
    whose line of each instruction becomes its ``.dbg`` entry's ``kernel_line`` (D-37)."""
    ds = decisions if decisions is not None else asm.decisions
    tgt: Target = asm.target
    if target is not None and get_target(target) is not tgt:
        raise InputError(f"the kernel was assembled for {tgt.name}; a {get_target(target).name} NEFF needs it "
                         f"assembled for {get_target(target).name} (--target {get_target(target).name})")
    if tgt.name not in KELF_TARGET:
        raise InputError(f"no NEFF layout for target {tgt.name} (known: {', '.join(KELF_TARGET)})")
    extra = [s for s, b in asm.streams.items() if b and s not in ENGINE_FILES]
    if extra:
        raise InputError(f"the kernel has bundles on stream{'s' * (len(extra) > 1)} {', '.join(extra)}, which a "
                         "NEFF has no engine file for (its engines: " + ", ".join(ENGINE_FILES.values()) + ")")
    plan = plan_neff(asm, ds)
    # --- streams, with the staging around the kernel's bundles (after an R-18 prologue pair) ----------
    log_names: dict[str, list[str]] = {}
    for e in asm.log.entries(asm.streams):
        if e.stream:
            log_names.setdefault(e.stream, []).extend([e.name] * len(e.offsets))
    streams: dict[str, bytearray] = {}
    labels: dict[str, list[str | None]] = {}
    for s in ENGINE_FILES:
        body = bytes(asm.streams.get(s, b""))
        names = log_names.get(s, [])
        head = 0
        while head < min(2, len(body) // BUNDLE_SIZE) and names[head] == "R-18-prologue":
            head += 1
        cut = head * BUNDLE_SIZE
        pre, post = plan.labels.get(s, ([], []))
        streams[s] = bytearray(body[:cut] + plan.prologue.get(s, b"") + body[cut:] + plan.epilogue.get(s, b""))
        labels[s] = [*names[:head], *pre, *names[head:], *post]
    sets = _act_sets(streams["act"], ds) if streams["act"] else []
    lines = instruction_lines(source) if source else None
    return _write_neff(tgt, ds, name, streams, labels, sets, plan, tables, source or "", lines)


def _write_neff(tgt: Target, ds: DecisionSet, name: str, streams: Mapping[str, bytearray | bytes],
                labels: Mapping[str, list[str | None]], sets: list[str], plan: NeffPlan,
                tables: Neff | None = None, source: str = "", lines: Mapping[str, int] | None = None) -> Neff:
    """The NEFF of one graph ``sg00``: its engine ``streams`` (every token of :data:`ENGINE_FILES`), the BIR
    instruction name of each bundle (``labels``; None or ``R-18-prologue``: an empty debug entry), the
    activation sets its Activation stream loads and the variables and queues of ``plan``."""
    g = "sg00/"
    members: dict[str, bytes] = {}
    table_members, dve_tables = table_copy(tables, tgt, sets, ds) if tables is not None else ({}, [])
    members.update({g + k: v for k, v in table_members.items()})
    # --- debug info: one backend entry per BIR instruction (program order), one asm entry per bundle -----
    ids: dict[str, int] = {}
    for s in ENGINE_FILES:
        for n in labels[s]:
            if n is not None and n != "R-18-prologue":
                ids.setdefault(f"{s}\0{n}", len(ids) + 1)
    assert ds.get(NeffDebugDeps).reading is NeffDebugDeps.SEMAPHORES
    deps = _sync_deps(streams, labels, ds)
    copied, queues = ds.get(NeffCopiedFields), ds.get(NeffDmaQueues)
    assert copied.reading is copied.COPY and queues.reading is queues.PER_ENGINE
    definition: dict[str, Any] = {"#rank_world_size": 0}
    for s, e in ENGINE_FILES.items():
        definition[s] = f"{e}.json"
        definition[f"{s}_asm_dbg"] = [f"debug_info_asm_{e}.dbg"]
        definition[f"{s}_dbg"] = [f"debug_info_backend_{e}.dbg"]
        definition[f"{s}_instr"] = f"{e}.bin"
    variables: dict[str, Any] = {"SB": {"type": "state-buffer", "var_id": 0}}
    for v in plan.variables:
        variables[v.name] = {"ops": [], "size": v.size, "type": v.type, "var_id": v.var_id}
        if v.type == "virtual":  # every 2.23 virtual variable (cayman, 50+) has backing_variable_off 0
            variables[v.name] = {"backing_variable_off": 0, **variables[v.name]}
    if plan.dge_table:
        variables["DGETable0"] = {"list": plan.dge_table, "type": "dge-table",
                                  "var_id": max((v.var_id for v in plan.variables), default=0) + 1}
    definition.update({
        "cc_streams": {"num_streams": 0}, "debug_info": {}, "dma_dbg": ["debug_info_backend_DMA.dbg"],
        "dma_queue": plan.queues, "fp8_conversion_config": FP8_CONFIG, "name": "definition",
        "neff_features": ["neff_feature_vnc"] if tgt.name == "gen3" else [],
        "runtime_event_count": 12, "runtime_semaphore_count": 3,
    })
    if tgt.name == "gen3":
        definition["runtime_statebuffer_reservation"] = [RESERVATION]
    definition["var"] = variables
    definition["version"] = "0.6"
    members[g + "def.json"] = _json(definition, sort=True)
    for s, e in ENGINE_FILES.items():
        members[f"{g}{e}.bin"] = bytes(streams[s])
        side: dict[str, Any] = {"dma": [], "instr": f"{e}.bin", "name": f"{e}.json"}
        if s == "act":
            side = {"act_semaphore": 12, "activation_function_sets": sets, **side}
            if table_members:
                side["act_info"] = ACT_INFO
        if s == "dve" and table_members:
            side["dve_tables"] = dve_tables
        members[f"{g}{e}.json"] = _json(side, indent=None, sort=True)
        backend = []
        for n, i in ids.items():
            if not n.startswith(f"{s}\0"):
                continue
            entry: dict[str, Any] = {"id": i, "name": n.split("\0", 1)[1], "unknown_6": UNKNOWN_6,
                                     "sync_deps": sorted(ids[k] for k in deps.get(n, ()) if k in ids)}
            line = (lines or {}).get(entry["name"]) if source else None
            if line is not None:
                entry["attributes"] = [("kernel_file", "0"), ("kernel_line", str(line))]
            backend.append(entry)
        members[f"{g}debug_info_backend_{e}.dbg"] = _debug_info(e, BACKEND_DBG_TEXT, "debug_info_penguin.dbg", backend,
                                                                 source if any("attributes" in x for x in backend) else "")
        asm_entries = [{"parent_ids": [ids[f"{s}\0{n}"]]} if n is not None and n != "R-18-prologue" else {}
                       for n in labels[s]]
        members[f"{g}debug_info_asm_{e}.dbg"] = _debug_info(e, ASM_DBG_TEXT, f"debug_info_backend_{e}.dbg",
                                                             asm_entries)
    members[g + "debug_info_backend_DMA.dbg"] = _debug_info("DMA", DMA_DBG_TEXT, "debug_info_penguin.dbg", [])
    # --- top level ---------------------------------------------------------------------------------------
    members[INFO] = _json({"tool_version": ds.get(NeffToolVersion).tool_version(COMPILER, __version__),
                           "kelp_version": "Dynamic", "name": name, "num_tpb": 1, "num_tpb_requested": 1,
                           "num_tpb_per_node": [1] + [0] * 63})
    members[KELF] = _json({"graphs": [{"definition": "sg00/def.json", "name": "sg00"}], "version": "0.5",
                           "target": KELF_TARGET[tgt.name]})
    if tgt.name == "gen2":
        members["metrics.json"] = _json([
            {"MetricName": "TPBCount", "Value": 1, "Unit": "Count"},
            {"MetricName": "EstimatedLowerBoundLatency", "Value": 0, "Unit": "Milliseconds"},
            {"MetricName": "EstimatedUpperBoundThroughput", "Value": 0, "Unit": "Count/Second"},
            {"MetricName": "InferentiaDRAMUsage", "Value": 0, "Unit": "Bytes"}], indent=2)
    members[GRAPH_JSON] = _json(neff_json(plan.variables))
    # the target's 2.23 order (cayman: byte order with neff.json last; sunda trn1: byte order)
    order = sorted(members, key=lambda n: n.encode())
    if tgt.name == "gen3":
        order = [n for n in order if n != GRAPH_JSON] + [GRAPH_JSON]
    members = {n: members[n] for n in order}
    fresh = ds.get(NeffFreshHeader)
    base: dict[str, HeaderValue] = {f.name: (0 if f.kind in ("u32", "u64") else bytes(f.width) if f.kind != "u8[]" else ())
            for f in HEADER_FIELDS}
    base.update(packaging_version=2, header_size=HEADER_SIZE, kelp_version_major=2)
    neff = Neff(NeffHeader(base), GzipInfo(gzip_header(fresh.gzip_mtime()), fresh.gzip_mtime(), 0, 3, 0, 0),
                members, None, input_order={n: i for i, n in enumerate(order)}, tar_style=USTAR)
    payload = neff.payload(ds)
    neff.header = neff.build_header(payload, ds).replace(**fresh.fields(payload, 1))
    return neff


# --- a NEFF from a listing (tongasm assemble LISTING.s --neff) ------------------------------------------

#: def.json variable types a NEFF written from a listing can hold (a 'file' variable's constant is a .npy
#: member, a 'pointer' one a form the writer does not have)
LISTING_VAR_TYPES = ("state-buffer", "input", "output", "virtual", "dge-table")


def graph_directives(neff: Neff, graph: str) -> list[str]:
    """The ``.var`` and ``.act_sets`` lines of one graph (``tongasm disasm FILE.neff``): each def.json
    variable as it is, with its neff.json dtype and shape for an input or output, then the graph's
    activation sets: what ``assemble LISTING.s --neff`` needs besides the bundles."""
    try:  # a listing is written whatever neff.json holds: without it, no dtypes and shapes
        graph_json = neff.graph_json
    except NeffError:
        graph_json = None
    entries = {e.name: e for e in (graph_json.entries if graph_json is not None else ())}
    lines = []
    table = neff.graph(graph).definition.variables
    order = [n for n in entries if n in table] + [n for n in table if n not in entries]  # neff.json's order first
    for v in (table[n] for n in order):
        obj: dict[str, Any] = {"graph": graph, "name": v.name, **v.raw}
        e = entries.get(v.name)
        if v.type in ("input", "output") and e is not None:
            if e.dtype is not None:
                obj["dtype"] = e.dtype
            if e.shape is not None:
                obj["shape"] = list(e.shape)
        lines.append(".var " + json.dumps(obj, separators=(", ", ": ")))
    try:
        sets = neff.activation_function_sets(graph)
    except NeffError as e:  # the listing says so, and assemble --neff then reads the 0x23 bytes as act_info's
        return [*lines, f"; no .act_sets: {e}"]
    if sets is not None:
        lines.append(".act_sets " + json.dumps({"graph": graph, "sets": list(sets)}))
    return lines


def _named_var_ids(streams: Mapping[str, bytes | bytearray], decisions: DecisionSet) -> dict[int, tuple[str, int]]:
    """var_id → (stream, bundle) of its first use, for every DRAM variable a DMA or SP load/store names."""
    from ..sim.scheduler import load_streams

    out: dict[int, tuple[str, int]] = {}
    for st in load_streams({k: v for k, v in streams.items() if v}, decisions):
        for pc, d in enumerate(st.bundles):
            for key in ("src.var", "dst.var", "var_id"):
                if key in d.fields:
                    out.setdefault(int(d.fields[key]), (st.engine, pc))
    return out


def build_neff_from_listing(prog: Any, *, source: str | None = None, decisions: DecisionSet | None = None,
                            name: str = "file.neff", tables: Neff | None = None) -> Neff:
    """A NEFF from an assembled listing (a :class:`tongasm.text.assembler.TextProgram`): its streams as they
    are (a listing's bundles already hold any staging), the BIR names of its bundles' comments as the
    ``.dbg`` members, its ``.var`` directives as def.json's ``var`` table and neff.json (D-35). A listing
    that does not hold what the NEFF needs is refused naming what is missing. ``source``: the listing's
    path, then each BIR instruction's ``kernel_line`` in the ``.dbg`` members is its first bundle's line."""
    ds = decisions if decisions is not None else prog.decisions
    where = source or "the listing"
    assert ds.get(NeffFromListing).reading is NeffFromListing.VAR_LINES
    tgt: Target = prog.target
    if tgt.name not in KELF_TARGET:
        raise InputError(f"no NEFF layout for target {tgt.name} (known: {', '.join(KELF_TARGET)})")
    graphs: dict[str, dict[str, str]] = {}  # graph -> engine token -> stream name
    for sname in prog.streams:
        graph, _, engine = sname.rpartition(".")
        if engine not in ENGINE_FILES:
            raise InputError(f"{where}: stream {sname!r} is no engine of a NEFF graph (its engines: "
                             f"{', '.join(ENGINE_FILES)}, named ENGINE or GRAPH.ENGINE)")
        graphs.setdefault(graph or "sg00", {})[engine] = sname
    declared = set(prog.variables) | set(prog.act_sets)
    if len(graphs | dict.fromkeys(declared)) > 1:
        raise InputError(f"{where}: the listing holds graphs {', '.join(sorted(set(graphs) | declared))}; a NEFF "
                         "written from a listing has one graph (list one: tongasm disasm FILE.neff:sg00)")
    graph = next(iter(graphs), None) or next(iter(declared), "sg00")
    streams = {e: bytearray(prog.streams[graphs.get(graph, {})[e]]) if e in graphs.get(graph, {}) else bytearray()
               for e in ENGINE_FILES}
    labels: dict[str, list[str | None]] = {}
    for e in ENGINE_FILES:
        n = len(streams[e]) // BUNDLE_SIZE
        notes = list(prog.comment_of.get(graphs.get(graph, {}).get(e, ""), []))[:n]
        labels[e] = notes + [None] * (n - len(notes))
    plan = NeffPlan()
    named = _named_var_ids(streams, ds)
    given = prog.variables.get(graph, [])
    by_id = {int(v["var_id"]): v for v in given}
    missing = sorted(i for i in named if i not in by_id and i != 0)
    if missing:
        what = ", ".join(f"{i} ({named[i][0]} bundle {named[i][1]})" for i in missing[:8])
        more = f" and {len(missing) - 8} more" if len(missing) > 8 else ""
        held = "no .var directive" if not given else f".var directives for var_ids {', '.join(map(str, sorted(by_id)))}"
        raise InputError(f"{where}: the bundles name DRAM variables {what}{more}, and the listing holds {held}: a "
                         "NEFF needs each one's name, type (input, output, virtual) and size (.var lines, which "
                         "'tongasm disasm FILE.neff' writes)")
    for v in given:
        kind = v["type"]
        if kind not in LISTING_VAR_TYPES:
            raise InputError(f"{where}: variable {v['name']!r} is a {kind!r} variable, which a NEFF written from a "
                             "listing cannot hold (" + ("its constant is a .npy member, not in a listing"
                                                        if kind == "file" else f"known: {', '.join(LISTING_VAR_TYPES)}")
                             + ")")
        if kind == "state-buffer":
            if v["name"] != "SB" or v["var_id"] != 0:
                raise InputError(f"{where}: the state buffer is variable 'SB', var_id 0, in a NEFF; got "
                                 f"{v['name']!r}, var_id {v['var_id']}")
            continue
        if kind == "dge-table":
            if v["name"] != "DGETable0" or not all(isinstance(x, int) for x in v.get("list", [None])):
                raise InputError(f"{where}: a DGE table is variable 'DGETable0' with a list of var_ids; got "
                                 f"{v['name']!r} with {v.get('list')!r}")
            plan.dge_table = list(v["list"])
            continue
        if v["name"] in ("SB", "DGETable0"):
            raise InputError(f"{where}: variable {v['name']!r} is a {kind} variable; that name is the "
                             f"{'state buffer' if v['name'] == 'SB' else 'DGE table'}'s in a NEFF")
        if "size" not in v:
            raise InputError(f"{where}: {kind} variable {v['name']!r} has no size")
        dtype = v.get("dtype", "uint8")
        shape = v.get("shape", [v["size"]])
        plan.variables.append(NeffVariable(v["name"], v["var_id"], kind, v["size"], dtype, shape))
    dge_id = next((v["var_id"] for v in given if v["type"] == "dge-table"), None)
    want_id = max((v.var_id for v in plan.variables), default=0) + 1
    if dge_id is not None and dge_id != want_id:
        raise InputError(f"{where}: the DGE table has var_id {dge_id}; a NEFF's DGE table takes the id after the "
                         f"variables' ({want_id}, R-17)")
    plan.queues, _used = dma_queues({e: bytes(b) for e, b in streams.items()}, ds)
    sets = prog.act_sets.get(graph)
    if sets is None:
        sets = _act_sets(streams["act"], ds) if streams["act"] else []  # the sel bytes name act_info's sets
    else:
        known = {x.name for x in ACT_SETS}
        unknown = [x for x in sets if x not in known]
        if unknown:
            raise InputError(f"{where}: .act_sets names {', '.join(unknown)}, which act_info.json has not (R-21)")
        for off in range(0, len(streams["act"]), BUNDLE_SIZE):
            if streams["act"][off] == _ACT_TABLE_LOAD and streams["act"][off + _ACT_SEL] >= len(sets):
                raise InputError(f"{where}: act bundle {off // BUNDLE_SIZE}: ActivationTableLoad loads set "
                                 f"{streams['act'][off + _ACT_SEL]} of the graph's {len(sets)} (.act_sets; R-21)")
    lines: dict[str, int] = {}  # each BIR name's first bundle line in the listing
    for e in ENGINE_FILES:
        sname = graphs.get(graph, {}).get(e)
        for nm, ln in zip(labels[e], prog.line_of.get(sname, []) if sname else []):
            if nm is not None:
                lines.setdefault(nm, ln)
    return _write_neff(tgt, ds, name, streams, labels, list(sets), plan, tables, source or "", lines)


__all__ = ["COMPILER", "KELF_TARGET", "NeffPlan", "NeffVariable", "build_neff", "build_neff_from_listing", "dma_queues", "graph_directives", "neff_json",
           "plan_neff"]
