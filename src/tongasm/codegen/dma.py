"""Codegen of the DMA family: DMACopy → 0xD4 PseudoDmaDirect2d (chapter §2.7).

Every field depends on the two access patterns (the ADDR8 addresses, the byte dims, the run sizes),
so the layout binds no slot: the select reads the whole operands, as MoveShape's does, and the plan
is keyed on them.

One side of a DMA, from a physical access pattern (R-16, R-17):

* the address: a DRAM location is its variable (D-8's var_id; mode 0x10) at byte ``offset x size``,
  or, when the location names a ``dge_entry``, that DGE-table entry (mode 0x20); an SBUF location is
  variable 0 with the ``partition << 18 | byte`` word;
* the dims: every pair as a byte step and a count (an SBUF partition pair steps one partition,
  0x40000 bytes); the innermost pair, when its step is one element, is the run (``elem_size`` bytes);
  pairs with count 1 are dropped; at most two dims remain, dim 0 the inner (R-16);
* the element dtypes of the two sides may differ (a converting DMA).
"""

from __future__ import annotations

from typing import Any

from ..errors import EncodeError, brief_int
from ..isa.decisions.dma import Addr8Modes, DmaElementOrder, DmaStepWords, DmaSyncCommand
from ..isa.decisions.spec import VariableId
from ..isa.descriptors import NUM_MAX, NUM_MIN, SBUF_PARTITION_SHIFT
from ..isa.enums import DTYPE_INFO, MemoryType
from ..isa.fields import Format
from ..isa.layouts.dma import DMA_DIRECT2D
from ..ir.instructions import DMACopy
from ..ir.operands import Operand, PhysicalAP
from .common import Context, check_pairs, dtype_of, resolve_offset

Selection = tuple[Format, dict[str, int]]
#: What an SBUF partition step is in a DMA's byte steps (the partition field of the address word).
PARTITION_BYTES = 1 << SBUF_PARTITION_SHIFT
#: DMACopy attributes that have no field, and the only value encoded (KLR's defaults).
_DEFAULTS: dict[str, Any] = {"mode": "Copy", "duplicate": False, "transpose_op": "None", "cce_op": "bypass"}


def dma_copy_opcodes(inst: DMACopy, ctx: Context) -> list[int]:
    if len(inst.ins) != 1 or len(inst.outs) != 1:
        raise EncodeError(f"DMACopy needs ins = [src] and outs = [dst]; got {len(inst.ins)} input(s) and "
                          f"{len(inst.outs)} output(s)", check="operands.shape")
    return [DMA_DIRECT2D.byte]


def dma_copy_select(inst: DMACopy, ctx: Context) -> Selection:
    dma_copy_opcodes(inst, ctx)
    for key, default in _DEFAULTS.items():
        if inst.attr(key) != default:
            raise EncodeError(f"DMACopy {key} = {inst.attr(key)!r} has no field in the 0xD4 bundle (only {default!r} "
                              "is encoded)", field=key, value=inst.attr(key), limit=repr(default), check="dma.attrs")
    vals: dict[str, int] = {"opcode": DMA_DIRECT2D.byte, "sync_command": ctx.decisions.get(DmaSyncCommand).sync_command(),
                            "dma_semaphore": inst.attr("dma_semaphore"), "dma_sem_increment": inst.attr("dma_sem_increment"),
                            "qos": inst.attr("qos")}
    counts = []
    for role, op in (("src", inst.src), ("dst", inst.dst)):
        side, elements = _side(op, role, ctx)
        vals.update({f"{role}.{k}": v for k, v in side.items()})
        vals[f"{role}_dtype"] = DTYPE_INFO[dtype_of(op, role)].wire
        counts.append(elements)
    if counts[0] != counts[1]:
        raise EncodeError(f"DMACopy src moves {counts[0]} elements, dst {counts[1]}", field="dst", value=counts[1],
                          limit=str(counts[0]), check="dma.elements")
    if vals["dma_sem_increment"] < 1:
        raise EncodeError("DMACopy dma_sem_increment must be at least 1 (its completion is seen through it, R-15)",
                          field="dma_sem_increment", value=vals["dma_sem_increment"], limit="1..255",
                          check="dma.attrs")
    return ctx.formats.by_name["DmaDirect2d"], vals


def _side(op: Operand | None, role: str, ctx: Context) -> tuple[dict[str, int], int]:
    """The fields of one side (``addr``, ``var``, ``var_hi``, ``addr_mode``, dims, ``elem_size``) and the
    number of elements it moves."""
    if not isinstance(op, PhysicalAP) or op.location is None:
        got = "nothing" if op is None else op.kind
        raise EncodeError(f"DMACopy {role} must be a physical access pattern on a DRAM or SBUF location, got {got}",
                          field=role, value=got, check="dma.operands")
    loc = op.location
    size = DTYPE_INFO[dtype_of(op, role)].size
    if loc.type == MemoryType.SB:
        pairs = check_pairs(op, role)  # SBUF: pair 0 is the partition pair
        part, byte = resolve_offset(op, role)
        if part > 127 or byte >= PARTITION_BYTES:
            raise EncodeError(f"{role}: SBUF start partition {brief_int(part)} / byte {brief_int(byte, hexa=True)} do not fit the address word",
                              field=f"{role}.addr", value=(part, byte), check="addr4.composition")
        addr = {"addr": part << SBUF_PARTITION_SHIFT | byte, "var": Addr8Modes.SBUF_VAR, "var_hi": 0,
                "addr_mode": Addr8Modes.PHYSICAL}
        first = pairs[0]
        dims = [(PARTITION_BYTES if first[0] else 0, first[1])] + [(st * size, n) for st, n in pairs[1:]]
    elif loc.type.is_dram:
        entry = loc.extra.get("dge_entry")
        if entry is not None:
            if not isinstance(entry, int) or isinstance(entry, bool) or not 0 <= entry <= 0xFFFF:
                raise EncodeError(f"{role}: memory location {loc.name!r} dge_entry must be 0..65535, got {entry!r}",
                                  field=f"{role}.var", value=str(entry), limit="0..65535", check="dma.operands")
            var, mode = entry, Addr8Modes.DGE_IMMEDIATE
        else:
            var, mode = VariableId.var_id(loc), Addr8Modes.PHYSICAL  # D-8
            if var == Addr8Modes.SBUF_VAR:
                raise EncodeError(f"{role}: DRAM location {loc.name!r} has var_id 0, which names SBUF in a DMA (R-17); "
                                  "give it a tensor_id", field=f"{role}.var", value=0, limit=">= 1", check="dma.operands")
            if var >> 24:
                raise EncodeError(f"{role}: var_id {brief_int(var)} does not fit the 24-bit ADDR8 variable", field=f"{role}.var",
                                  value=var, limit="< 2**24", check="dma.operands")
        byte = op.offset * size
        if byte >> 32:
            raise EncodeError(f"{role}: byte offset {brief_int(byte)} does not fit the u32 address word", field=f"{role}.addr",
                              value=byte, limit="< 2**32", check="dma.operands")
        addr = {"addr": byte, "var": var & 0xFFFF, "var_hi": var >> 16, "addr_mode": mode}
        pairs = op.ap  # DRAM: every pair is a dim (no partition pair; a negative step is R-22's business)
        for k, (_st, n) in enumerate(pairs):
            if not NUM_MIN <= n <= NUM_MAX:
                raise EncodeError(f"{role}: num {brief_int(n)} of access-pattern pair {k} does not fit (allowed {NUM_MIN}..{NUM_MAX})",
                                  field=f"{role}.ap[{k}].num", value=n, limit=f"{NUM_MIN}..{NUM_MAX}",
                                  check="desc.count_range")
        dims = [(st * size, n) for st, n in pairs]
    else:
        raise EncodeError(f"DMACopy {role} is in {loc.type.value} (memory location {loc.name!r}); a DMA reads and "
                          "writes DRAM and SBUF", field=role, value=loc.type.value, limit="DRAM, SB", check="dma.operands")
    # the run: the innermost dim when it is contiguous, else one element per run
    if dims and dims[-1][0] == size:
        run = dims.pop()[1] * size
    else:
        raise EncodeError(f"{role}: the innermost access-pattern pair must be contiguous (step 1 element): it is the "
                          f"DMA's run of bytes (R-16); got step {dims[-1][0] // size if dims else None}",
                          field=f"{role}.ap", value=dims[-1][0] // size if dims else None, limit="1",
                          check="dma.contiguous")
    elements = run // size
    kept = [d for d in dims if d[1] != 1]
    if len(kept) > 2:
        raise EncodeError(f"{role}: {len(kept)} dims besides the run; a DMA side has two (R-16)", field=f"{role}.ap",
                          value=len(kept), limit="0..2", check="dma.dims")
    for _st, n in kept:
        elements *= n
    if not ctx.decisions.get(DmaStepWords).signed and any(st < 0 for st, _n in kept):
        raise EncodeError(f"{role}: a negative byte step has no encoding under R-22=unsigned", field=f"{role}.ap",
                          value=min(st for st, _n in kept), limit=">= 0", check="dma.step_sign")
    (step0, num0), (step1, num1) = ctx.decisions.get(DmaElementOrder).dims_of(kept or [(1, 1)])
    return {**addr, "step0": step0, "num0": num0, "step1": step1, "num1": num1, "elem_size": run}, elements
