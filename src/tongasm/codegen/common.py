"""Shared codegen helpers: operands → field values (SPEC §3).

Everything that turns an IR operand into wire values lives here once: dtype and ALU wire bytes,
register ids, the sync band, the ADDR4 start address and the TENSOR descriptor packer. The
per-family modules (:mod:`.sp`, :mod:`.tensor`, :mod:`.act`, :mod:`.scalar`, :mod:`.reduce`, ...) only
decide *which* fields an opcode gets. Each error message that SPEC quotes is produced verbatim here. The
vector families share the rest of this module: operand counts, the scalar operand words (chapter §1.3),
the engine rules and the helpers of the two-bundle forms.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import EncodeError, brief_int
from ..isa.decisions import DecisionSet
from ..isa.decisions.spec import SharedSyncValue, SyncBandScope, UpdateModeWire
from ..isa.descriptors import (
    PACKINGS, NUM_MAX, NUM_MIN, PSUM_BANK_BYTES, PSUM_PARTITION_SHIFT, SBUF_PARTITION_SHIFT, STEP_MAX, STEP_MIN, addr4_psum, addr4_register,
    addr4_sbuf,
)
from ..isa.enums import (
    ACC_INVALID_MSG, ACC_WIRE, ALU_INVALID_MSG, ALU_WIRE, DTYPE_INFO, VALUELESS_UPDATES, WAIT_WIRE,
    AccType, AluClass, AluOp, Dtype, Engine, MemoryType, UpdateMode, WaitMode,
)
from ..isa.fields import Format, Slot
from ..isa.layout import HEADER_SYNC, SyncLanes
from ..isa.formats import FormatSet, build_formats
from ..isa.targets import Target
from ..ir.operands import Operand, PhysicalAP, Register, RegisterAccess, RegisterAP, SymbolicAP, SyncInfo
from ..isa.decisions.scalar import PointerWord
from ..isa.vector_enums import ScalarKind
from ..ir.instructions import Instruction
from ..ir.operands import Immediate
from ..numeric import NumericError, bit_pattern

if TYPE_CHECKING:
    from .plan import Family

SYMBOLIC_AP_MSG = "codegen stage can only have PhysicalAP or RegisterAP, no SymbolicAP is allowed"
REGLOC_OFFSET_MSG = "offset register cannot be applied to 32bit Addressing in ISA"
TOO_MANY_WAITS_MSG = "Too many sync wait commands"
TOO_MANY_UPDATES_MSG = "Too many sync update commands"
SEMAPHORE_MAX = 255


class Context:
    """What codegen needs besides the instruction: the target and the decision selection.

    It also carries what the encode path would otherwise recompute per instruction: the format
    tables, the decisions the packer consults, the memos of packed descriptors (an access pattern
    that recurs — the same location, dtype, pairs and offset — is packed once) and of sync bands,
    and the plans (:class:`tongasm.codegen.plan.Encoder`).
    """

    __slots__ = ("target", "decisions", "formats", "desc_memo", "shape_memo", "op_memo", "sync_memo", "addr4_memo", "builders",
                 "encoder", "stream_rules")

    def __init__(self, target: Target, decisions: DecisionSet) -> None:
        self.target = target
        self.decisions = decisions
        self.formats: FormatSet = build_formats(decisions)
        self.desc_memo: dict[tuple[Any, ...], tuple[tuple[int, ...], int]] = {}  # see slot_part
        self.shape_memo: dict[tuple[Any, ...], tuple[Any, ...]] = {}  # see physical_part
        # format → slot → operand object → the slot's placed bits (see plan._builder)
        self.op_memo: dict[Format, dict[str, dict[Any, int]]] = {}
        self.sync_memo: dict[tuple[Any, ...], tuple[SyncInfo, int]] = {}  # see sync_part
        # physical access pattern → its ADDR4 word under addr4_word (the same in every slot; see plan._slot_miss)
        self.addr4_memo: dict[Any, int] = {}
        self.builders: dict[tuple[Any, ...], Callable[..., int]] = {}  # generated plan builders, per shape
        self.encoder: Any = None  # the plans (created by the encode path on first use)
        self.stream_rules: Any = None  # state of the checks on a stream's order (N-35), made by the checks

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Context) and (self.target, self.decisions) == (other.target, other.decisions)

    def __hash__(self) -> int:
        return hash((self.target, self.decisions))


DESC_MEMO_LIMIT = 100_000


# --- enums ------------------------------------------------------------------------------------

def dtype_of(op: Operand | None, role: str) -> Dtype:
    """The operand's BIR dtype; an out-of-range ordinal is refused here (the compiler asserts ≤ 0x13)."""
    if op is None:
        raise EncodeError(f"the {role} operand is missing", field=role, check="operands.shape")
    d = op.dtype
    if isinstance(d, Dtype):
        return d
    raise EncodeError(f"{role}: unknown dtype ordinal {d} (bir::Dtype has 20 members, 0..19)",
                      field=f"{role}.dtype", value=d, limit="0..19", check="enum.dtype")


def wire(op: Operand | None, role: str) -> int:
    """Wire tag of the operand's dtype (SPEC §2.1 LUT)."""
    return DTYPE_INFO[dtype_of(op, role)].wire


def dtype_size(op: Operand | None, role: str) -> int:
    return DTYPE_INFO[dtype_of(op, role)].size


def alu_op(v: Any) -> AluOp:
    """A resolved ALU op; ordinals with no member fail with the compiler's message."""
    if isinstance(v, AluOp):
        return v
    raise EncodeError(ALU_INVALID_MSG, field="op", value=v, limit="0..29 except 24, 25", check="enum.alu")


def alu_wire(v: Any) -> int:
    """SPEC §2.2: ALU op → wire byte; 24, 25 and ≥ 30 fail with ``Invalid enum variant for enum AluOpType``."""
    op = alu_op(v)
    entry = ALU_WIRE.get(op)
    if entry is None:
        raise EncodeError(ALU_INVALID_MSG, field="op", value=op.name, limit="0..29 except 24, 25", check="enum.alu")
    return entry[0]


def alu_class(v: Any) -> AluClass:
    op = alu_op(v)
    entry = ALU_WIRE.get(op)
    if entry is None:
        raise EncodeError(ALU_INVALID_MSG, field="op", value=op.name, limit="0..29 except 24, 25", check="enum.alu")
    return entry[1]


def acc_wire(v: Any) -> int:
    """SPEC §2.3: accumulation type → wire byte; Accumulate (2) has none."""
    if isinstance(v, AccType) and v in ACC_WIRE:
        return ACC_WIRE[v]
    name = v.name if isinstance(v, AccType) else v
    raise EncodeError(ACC_INVALID_MSG, field="acc", value=name, limit="Idle, Zero, ZeroAccumulate, AddAccumulate, "
                      "LoadAccumulate", check="enum.acc")


def is_idle(v: Any) -> bool:
    return v is None or v == AccType.Idle


# --- registers ----------------------------------------------------------------------------------

def reg_id(ctx: Context, reg_id_value: int, role: str) -> int:
    """A physical register id. It must fit the u8 id fields; the usable range (0..61 on gen2/gen3)
    is an ISA-validator rule (``register.id_range``), not an encoder refusal."""
    if not 0 <= reg_id_value <= 0xFF:
        raise EncodeError(f"{role}: register id {brief_int(reg_id_value)} does not fit a register id byte (0..255)",
                          field=role, value=reg_id_value, limit="0..255", check="field.range")
    return reg_id_value


def register_of(op: Operand | None, role: str) -> Register:
    """The register of a register operand (register_access or register_ap)."""
    if isinstance(op, RegisterAccess):
        return op.register
    if isinstance(op, RegisterAP) and op.register is not None:
        return op.register
    got = "nothing" if op is None else op.kind
    raise EncodeError(f"{role} must be a register (register_access), got {got}", field=role, check="operands.shape")


def reg_lo(ctx: Context, op: Operand | None, role: str) -> int:
    return reg_id(ctx, register_of(op, role).lo, role)


def reg_pair(ctx: Context, op: Operand | None, role: str) -> tuple[int, int]:
    """The (lo, hi) ids of a 64-bit register operand, for every opcode and every role alike: a 64-bit
    value lives in r{lo} and r{lo + 1}, so a declared pair that is not [N, N + 1] is refused
    (``reg.pair``) whether or not the bundle has a field for the hi id. (Whether hi is a usable
    register is the validator's ``register.id_range``, like any register id.)"""
    lo, hi = register_of(op, role).pair()
    if hi != lo + 1:
        raise EncodeError(f"{role}: a 64-bit value is held in r{lo} and r{lo + 1}; the declared pair [{lo}, {hi}] "
                          "cannot be encoded", field=role, value=f"[{lo}, {hi}]", limit=f"[{lo}, {lo + 1}]",
                          check="reg.pair")
    return reg_id(ctx, lo, f"{role} (lo)"), reg_id(ctx, hi, f"{role} (hi)")


# --- sync band (SPEC §3.2) ----------------------------------------------------------------------

def sync_values(ctx: Context, sync: SyncInfo | None, *, sp_op: bool,
                lanes: SyncLanes | None = HEADER_SYNC) -> dict[str, int]:
    """Field values of the sync lanes for an instruction's ``sync`` (empty when there is none): the
    k-th wait goes to the k-th wait lane, the k-th update to the k-th update lane (the header band
    has one of each, EventSemaphore two waits and an update). ``lanes`` None: the layout has no sync
    fields (D-3=sp-only)."""
    if not sync:
        return {}
    if lanes is None or not ctx.decisions.get(SyncBandScope).carries_sync(sp_op) and lanes is HEADER_SYNC:
        raise EncodeError("sync info on a non-SP op has no field under D-3=sp-only", field="sync", check="sync.sp_only")
    if len(sync.waits) > len(lanes.waits):
        raise EncodeError(TOO_MANY_WAITS_MSG, field="sync.wait", value=len(sync.waits), limit=str(len(lanes.waits)),
                          check="sync.too_many")
    if len(sync.updates) > len(lanes.updates):
        raise EncodeError(TOO_MANY_UPDATES_MSG, field="sync.update", value=len(sync.updates),
                          limit=str(len(lanes.updates)), check="sync.too_many")
    vals: dict[str, int] = {}
    # value field → (what writes it, the value): a wait and an update sharing a dword is D-4
    values: dict[str, list[tuple[str, int]]] = {}
    for w, lane in zip(sync.waits, lanes.waits):
        if not isinstance(w.mode, WaitMode):
            raise EncodeError(f"sync wait: unknown wait mode ordinal {w.mode} (0..2)", field=lane.mode,
                              value=w.mode, limit="0..2", check="sync.mode")
        vals[lane.mode] = WAIT_WIRE[w.mode]
        vals[lane.index] = _sem_index(w.index, "wait", lane.index)
        if w.mode == WaitMode.evt_set_clear:
            if w.value not in (None, 0) or w.register is not None:
                raise EncodeError(f"sync wait: an evt_set_clear wait writes no value; value {w.value!r} is refused",
                                  field=lane.value, value=w.value, check="sync.value")
            continue
        if w.mode == WaitMode.sem_ge_imm:
            if w.value is None:
                raise EncodeError("sync wait: a sem_ge_imm wait needs a 'value' (the threshold)", field=lane.value,
                                  check="sync.value")
            value = _u32(w.value, "sync wait value", lane.value)
        elif w.register is None:
            if w.value is None:
                raise EncodeError("sync wait: a sem_ge_reg wait needs a 'value' naming the register",
                                  field=lane.value, check="sync.value")
            value = reg_id(ctx, w.value, "sync wait register")
        else:
            value = reg_id(ctx, w.register.lo, "sync wait register")
        values.setdefault(lane.value, []).append((w.mode.name, value))
    for u, ulane in zip(sync.updates, lanes.updates):
        if not isinstance(u.mode, UpdateMode):
            raise EncodeError(f"sync update: unknown update mode ordinal {u.mode} (0..5)", field=ulane.mode,
                              value=u.mode, limit="0..5", check="sync.mode")
        # D-2: the update mode goes through the LUT 11 15 17 13 14 19 (alternative: written raw).
        vals[ulane.mode] = ctx.decisions.get(UpdateModeWire).wire(u.mode)
        vals[ulane.index] = _sem_index(u.index, "update", ulane.index)
        if u.mode in VALUELESS_UPDATES:
            if u.value not in (None, 0, 1):
                raise EncodeError(f"sync update: {u.mode.name} writes no value (it always counts 1); "
                                  f"value {u.value} is refused", field=ulane.value, value=u.value, check="sync.value")
            continue
        if u.value is None and u.mode != UpdateMode.evt_set:
            raise EncodeError(f"sync update: a {u.mode.name} update needs a 'value'", field=ulane.value,
                              check="sync.value")
        values.setdefault(ulane.value, []).append((u.mode.name, _u32(u.value or 0, "sync update value", ulane.value)))
    for name, users in values.items():
        if len(users) > 1:
            # D-4: a wait and a value-carrying update both want the shared dword at +0x08.
            if ctx.decisions.get(SharedSyncValue).refuses:
                raise EncodeError(
                    f"sync: a {users[0][0]} wait and a {users[-1][0]} update both need the shared "
                    "value dword at +0x08 (D-4); put the update on a later instruction, or use sem_inc/sem_dec",
                    field=name, check="sync.d4_conflict")
        vals[name] = users[-1][1]  # D-4=update-wins: the update is written last
    return vals


def sync_part(ctx: Context, fmt: Format, sync: SyncInfo, *, sp_op: bool) -> int:
    """:func:`sync_values` placed in ``fmt`` (:meth:`Format.place`), memoised per context on the
    sync object (the BIR reader shares equal ones), which the memo holds so its id stays its own."""
    key = (id(sync), fmt, sp_op)
    memo = ctx.sync_memo
    hit = memo.get(key)
    if hit is None or hit[0] is not sync:
        if len(memo) >= DESC_MEMO_LIMIT:
            memo.clear()
        hit = memo[key] = (sync, fmt.place(sync_values(ctx, sync, sp_op=sp_op, lanes=fmt.sync)))
    return hit[1]


def _sem_index(index: int, what: str, field: str | None = None) -> int:
    if not 0 <= index <= SEMAPHORE_MAX:
        raise EncodeError(f"sync {what}: semaphore index {brief_int(index)} does not fit (0..{SEMAPHORE_MAX})",
                          field=field or f"{what}_idx", value=index, limit=f"0..{SEMAPHORE_MAX}",
                          check="sync.index_range")
    return index


def _u32(v: int, what: str, field: str = "sync_value") -> int:
    if not 0 <= v <= 0xFFFFFFFF:
        raise EncodeError(f"{what} {brief_int(v)} does not fit the u32 field (0..4294967295)", field=field, value=v,
                          limit="0..4294967295", check="sync.value")
    return v


# --- ADDR4 and descriptors (SPEC §3.3, §3.4) ------------------------------------------------------

def start_address(op: Operand | None, role: str, ctx: Context) -> int:
    """The ADDR4 word of an access pattern (D-5)."""
    if isinstance(op, SymbolicAP):
        raise EncodeError(SYMBOLIC_AP_MSG, field=f"{role}.addr", check="addr4.symbolic")
    if isinstance(op, RegisterAP):
        if op.is_regloc_offset:
            raise EncodeError(REGLOC_OFFSET_MSG, field=f"{role}.addr", check="addr4.regloc_offset")
        if op.reg_ap_offset:
            raise EncodeError(f"{role}: register_ap with reg_ap_offset {op.reg_ap_offset!r} has no known encoding "
                              "in a descriptor", field=f"{role}.addr", check="addr4.reg_ap_offset")
        assert op.register is not None
        return addr4_register(reg_id(ctx, op.register.lo, f"{role} address register"))
    if not isinstance(op, PhysicalAP):
        got = "nothing" if op is None else op.kind
        raise EncodeError(f"{role} must be an access pattern (physical_ap or register_ap), got {got}", field=role, check="operands.shape")
    loc = op.location
    assert loc is not None
    if loc.type.is_dram:
        raise EncodeError(f"{role} is in DRAM (memory location {loc.name!r}, type {loc.type.value}); descriptors "
                          "address SBUF and PSUM only", field=f"{role}.addr", check="addr4.memory_space")
    if loc.type not in (MemoryType.SB, MemoryType.PSUM):
        raise EncodeError(f"{role}: memory location {loc.name!r} has type {loc.type.value}; descriptors address "
                          "SBUF and PSUM only", field=f"{role}.addr", check="addr4.memory_space")
    part, byte = resolve_offset(op, role)
    psum = loc.type == MemoryType.PSUM
    word = addr4_compose(psum, part, byte, loc.bank * PSUM_BANK_BYTES)
    if word is None:
        space, shift = ("PSUM", PSUM_PARTITION_SHIFT) if psum else ("SBUF", SBUF_PARTITION_SHIFT)
        if psum:
            byte += loc.bank * PSUM_BANK_BYTES
        bank = f" (bank {brief_int(loc.bank)})" if psum else ""
        raise EncodeError(f"{role}: {space} start partition {brief_int(part)} / byte {brief_int(byte, hexa=True)}{bank} does not fit an ADDR4 word "
                          f"(partition 0..127, byte < {1 << shift:#x})", field=f"{role}.addr", value=(part, byte),
                          check="addr4.composition")
    return word


def addr4_compose(psum: bool, part: int, byte: int, bank_bytes: int = 0) -> int | None:
    """D-5: the ADDR4 word of a start partition and byte (SBUF, or PSUM with its bank's byte
    offset added), or None when they do not fit it (partition 0..127, byte below the partition
    size)."""
    if psum:
        byte += bank_bytes
        if 0 <= part <= 127 and 0 <= byte < 1 << PSUM_PARTITION_SHIFT:
            return addr4_psum(part, byte)
        return None
    if 0 <= part <= 127 and 0 <= byte < 1 << SBUF_PARTITION_SHIFT:
        return addr4_sbuf(part, byte)
    return None


def split_offset(base: int, addr: int, row: int, off: int) -> tuple[int, int] | None:
    """SPEC §5: (start partition, byte in the partition) of a byte offset ``off`` into a location
    at partition ``base``, byte ``addr``, ``row`` bytes per partition (0: no dims; then only offset
    0 resolves, else None)."""
    if off == 0:
        return base, addr
    if row <= 0:
        return None
    return base + off // row, addr + off % row


def resolve_offset(op: PhysicalAP, role: str) -> tuple[int, int]:
    """SPEC §5: (start partition, byte offset in the partition) of a physical AP.

    ``offset`` is in elements, row-major over ``dims``: partition = base + (offset × size) // dims[1],
    byte = addr + (offset × size) % dims[1]. (PSUM's bank is added by the caller.)
    """
    loc = op.location
    assert loc is not None
    row = loc.dims[1] if loc.dims and len(loc.dims) >= 2 and loc.dims[1] > 0 else 0
    got = split_offset(loc.base, loc.addr, row, op.offset * dtype_size(op, role))
    if got is None:
        raise EncodeError(f"{role}: memory location {loc.name!r} needs 'dims' [partitions, bytes per partition] "
                          f"to resolve offset {op.offset}", field=f"{role}.addr", check="addr4.composition")
    return got


def descriptor(op: Operand | None, s: Slot, ctx: Context, role: str | None = None) -> tuple[int, ...]:
    """A TENSOR descriptor slot for an access pattern (SPEC §3.4, D-6), as the tuple
    ``(addr, step0..stepN-1, num0..numN-1)`` — the 4+4N order of the slot.

    Pair 0 (partition) goes to ADDR4 (its start) and to the op's partition-count byte (its num;
    see :func:`partitions`). Free pairs with num == 1 are dropped; the rest are packed innermost
    first (D-6) and unused slots are filled with {step 1, num 1}.
    """
    return _descriptor(op, s, ctx, role or s.name)


def pack_descriptor(op: Operand | None, s: Slot, ctx: Context, role: str | None = None) -> dict[str, int]:
    """:func:`descriptor` as named fields (``<slot>.addr``, ``<slot>.step0``...): for a family whose
    select packs a slot its binding does not place (the TensorReduce src, whose axis byte depends on
    the packing; the cross-lane and Pool inputs)."""
    t = descriptor(op, s, ctx, role)
    n = s.ndims
    vals = {f"{s.name}.addr": t[0]}
    for i in range(n):
        vals[f"{s.name}.step{i}"] = t[1 + i]
        vals[f"{s.name}.num{i}"] = t[1 + n + i]
    return vals


def slot_part(op: Operand | None, fmt: Format, s: Slot, ctx: Context) -> tuple[tuple[int, ...], int]:
    """:func:`descriptor` for slot ``s`` of ``fmt``, with the slot's bits placed in the bundle
    (:meth:`Format.place_slot`). Memoised per context on what both depend on: an access pattern
    that recurs (the same location, dtype, pairs and offset) is packed once, and a physical access
    pattern's *shape* (all but its offset) once, so an operand at a new offset costs only its ADDR4
    word (compilers' operands recur in shape, far less in offset)."""
    if type(op) is PhysicalAP:
        if s.packing == "free-dims":
            return physical_part(op, fmt, s, ctx)
        key: tuple[Any, ...] = (fmt, s.name, op.location, op.dtype, op.ap, op.offset)
    elif type(op) is RegisterAP:
        key = (fmt, s.name, op.register, op.dtype, op.ap, op.reg_ap_offset, op.is_regloc_offset)
    else:
        tup = _descriptor(op, s, ctx, s.name)
        return tup, fmt.place_slot(s.name, tup)
    memo = ctx.desc_memo
    hit = memo.get(key)
    if hit is None:
        if len(memo) >= DESC_MEMO_LIMIT:
            memo.clear()
        tup = _descriptor(op, s, ctx, s.name)
        hit = memo[key] = (tup, fmt.place_slot(s.name, tup))
    return hit


#: What the ADDR4 word of a physical access pattern in a slot depends on besides its offset (see
#: :func:`addr4_rule`): (largest word the field holds, PSUM?, the location's base partition, its
#: byte address, bytes per partition row (0: no dims), element size, the PSUM bank's byte offset)
Addr4Rule = tuple[int, bool, int, int, int, int, int]


def addr4_rule(op: PhysicalAP, fmt: Format, s: Slot) -> Addr4Rule:
    """The parts of :func:`resolve_offset`'s rule that do not depend on the offset, for ``op`` in
    slot ``s`` of ``fmt`` (see :func:`addr4_word`)."""
    loc = op.location
    assert loc is not None
    _pos, _lo, hi, _mask = fmt.placement(f"{s.name}.addr")
    dims = loc.dims[1] if loc.dims and len(loc.dims) >= 2 and loc.dims[1] > 0 else 0
    return (hi, loc.type == MemoryType.PSUM, loc.base, loc.addr, dims, dtype_size(op, s.name),
            loc.bank * PSUM_BANK_BYTES)


def addr4_word(rule: Addr4Rule, offset: int) -> int | None:
    """The ADDR4 word of an element offset under ``rule`` (:func:`split_offset` then
    :func:`addr4_compose`, as :func:`start_address` does), or None when the word is off the ADDR4
    ranges or the field; then :func:`start_address` gives the exact error."""
    hi, psum, base, addr, dims, esize, bank_bytes = rule
    got = split_offset(base, addr, dims, offset * esize)
    if got is None:
        return None
    word = addr4_compose(psum, got[0], got[1], bank_bytes)
    return word if word is not None and word <= hi else None


def physical_part(op: PhysicalAP, fmt: Format, s: Slot, ctx: Context) -> tuple[tuple[int, ...], int]:
    """slot_part of a physical access pattern in a D-6 (free-dims) slot: the shape's packing is
    memoised (validated in full by the ordinary path the first time), the ADDR4 word computed per
    offset by :func:`addr4_word`; any address it cannot vouch for takes the ordinary path, which
    raises its exact error."""
    memo = ctx.shape_memo
    skey = (fmt, s.name, op.location, op.dtype, op.ap)
    shape = memo.get(skey)
    if shape is None:
        if len(memo) >= DESC_MEMO_LIMIT:
            memo.clear()
        tup = _descriptor(op, s, ctx, s.name)  # every check of this shape (and of this offset)
        tail = tup[1:]
        shape = memo[skey] = (tail, fmt.place_slot(s.name, (0, *tail)), fmt.placement(f"{s.name}.addr")[0],
                              addr4_rule(op, fmt, s))
        return tup, shape[1] | (tup[0] << shape[2])
    tail, bits, pos, rule = shape
    word = addr4_word(rule, op.offset)
    if word is None:
        tup = _descriptor(op, s, ctx, s.name)  # raises the ordinary path's error (or agrees)
        return tup, fmt.place_slot(s.name, tup)
    return (word, *tail), bits | (word << pos)


def _descriptor(op: Operand | None, s: Slot, ctx: Context, role: str) -> tuple[int, ...]:
    addr = start_address(op, role, ctx)
    assert isinstance(op, (PhysicalAP, RegisterAP))
    pairs = check_pairs(op, role)
    # the slot's packing: D-6's drop-and-pack (innermost first, unused dims get the slot's fill), or
    # a layout's own (the PE stationary's R-10 pattern)
    return PACKINGS[s.packing](ctx.decisions, s, addr, pairs[1:], dtype_size(op, role), role)


def check_pairs(op: PhysicalAP | RegisterAP | SymbolicAP, role: str) -> tuple[tuple[int, int], ...]:
    """Range-check every pair of an access pattern (never truncate): steps i16, nums 1..65535."""
    pairs = op.ap
    if not pairs:
        raise EncodeError(f"{role}: the access pattern has no pairs; it needs at least the partition pair",
                          field=f"{role}.ap", check="desc.pairs")
    if pairs[0][0] < 0:
        raise EncodeError(f"{role}: Negative step in Pattern[0] not supported (partition step {pairs[0][0]})",
                          field=f"{role}.ap[0].step", value=pairs[0][0], limit=">= 0", check="desc.partition_step")
    for k, (step, num) in enumerate(pairs):
        if not NUM_MIN <= num <= NUM_MAX:
            raise EncodeError(f"{role}: num {brief_int(num)} of access-pattern pair {k} does not fit (allowed "
                              f"{NUM_MIN}..{NUM_MAX})", field=f"{role}.ap[{k}].num", value=num,
                              limit=f"{NUM_MIN}..{NUM_MAX}", check="desc.count_range")
        if k and not STEP_MIN <= step <= STEP_MAX and num != 1:
            raise EncodeError(f"{role}: step {brief_int(step)} of access-pattern pair {k} does not fit the i16 step field "
                              f"(allowed {STEP_MIN}..{STEP_MAX})", field=f"{role}.ap[{k}].step", value=step,
                              limit=f"{STEP_MIN}..{STEP_MAX}", check="desc.step_range")
    return pairs


def partitions(op: Operand | None, role: str) -> int:
    """The partition pair's num: the op's num_partitions byte."""
    if type(op) is PhysicalAP and op.ap:
        return op.ap[0][1]
    if not isinstance(op, (PhysicalAP, RegisterAP, SymbolicAP)):
        got = "nothing" if op is None else op.kind
        raise EncodeError(f"{role} must be an access pattern (physical_ap or register_ap), got {got}", field=role,
                          value=got, check="operands.shape")
    if not op.ap:
        raise EncodeError(f"{role}: the access pattern has no pairs; it needs at least the partition pair",
                          field=f"{role}.ap", check="desc.pairs")
    return op.ap[0][1]


def require(cond: bool, msg: str, **kw: Any) -> None:
    if not cond:
        raise EncodeError(msg, **kw)


def is_tensor(op: Operand | None) -> bool:
    return isinstance(op, (PhysicalAP, RegisterAP, SymbolicAP))


def engine_of(v: Any) -> Engine:
    if isinstance(v, Engine):
        return v
    raise EncodeError(f"unknown engine ordinal {v} (0..7)", field="engine", value=v, limit="0..7", check="enum.engine")


# --- shared by the vector families (act, scalar, reduce, move, search, batchnorm, gpsimd) ---------------

#: What a family's ``*_select`` returns: the layout and its static field values.
Selection = tuple[Format, dict[str, int]]


GPSIMD_PSUM_MSG = "GPSIMD engine cannot access PSUM"


POINTER_SPACE_MSG = "ISA immediate pointer should only be SB/PSUM accesses"


REG_OFFSET_MSG = "offset register cannot be applied to register immediate in ISA"


WRONG_ARG_MSG = "contains wrong argument type"


TS_NUMARGS_MSG = "NumArgs == 2 || NumArgs == 3"


def enum_name(v: Any) -> Any:
    return getattr(v, "name", v)


def counts(what: str, inst: Instruction, n_in: tuple[int, ...], n_out: tuple[int, ...], shape: str) -> None:
    if len(inst.ins) not in n_in or len(inst.outs) not in n_out:
        raise EncodeError(f"{what} needs {shape}; got {len(inst.ins)} input(s) and {len(inst.outs)} output(s)",
                          check="operands.shape")


def in_psum(op: Operand | None) -> bool:
    if isinstance(op, PhysicalAP) and op.location is not None:
        return op.location.type == MemoryType.PSUM
    if isinstance(op, RegisterAP) and op.allocation is not None:
        return MemoryType.PSUM in op.allocation.memory_types
    return False


def no_pool_psum(inst: Instruction, roles: dict[str, Operand | None]) -> None:
    """N-17: on the Pool (GpSimd) engine no operand may be in PSUM."""
    if engine_of(inst.engine) != Engine.Pool:
        return
    for role, op in roles.items():
        if in_psum(op):
            raise EncodeError(GPSIMD_PSUM_MSG, field=role, value="PSUM", check="family.gpsimd_psum")


def no_indirect(roles: dict[str, Operand | None]) -> None:
    """§1.2: indirect (gather) descriptors are out of scope in every opcode of the chapter."""
    for role, op in roles.items():
        if isinstance(op, (PhysicalAP, RegisterAP, SymbolicAP)) and "indirect_dim" in op.extra:
            raise EncodeError(f"{role}: an indirect access pattern (indirect_dim) has no descriptor in these "
                              "opcodes (chapter §1.2)", field=role, value="indirect_dim", check="family.indirect")


def f32_bits(v: float) -> int:
    return bit_pattern(float(v), Dtype.float32)


@dataclass(frozen=True)
class Scalar:
    """A scalar operand as the wire sees it: its kind, value word and dtype (wire tag)."""

    kind: ScalarKind
    word: int
    wire: int
    dtype: Dtype
    value: float | int | None = None  # an immediate's value


def same_space_pointer(sc: Scalar, op: Operand | None, data: Operand | None, role: str, ctx: Context) -> None:
    """N-6=byte-offset: the word has no SBUF/PSUM bits, so a pointer lives where its data lives."""
    if sc.kind is ScalarKind.POINTER and not ctx.decisions.get(PointerWord).has_address and in_psum(op) != in_psum(data):
        raise EncodeError(f"{role}: under N-6=byte-offset a pointer's word carries no memory space; it must be in the "
                          "data's (SBUF or PSUM)", field=role, value="PSUM" if in_psum(op) else "SB",
                          check="family.scalar_kind")


def scalar_words(op: Operand | None, role: str, ctx: Context) -> Scalar:
    """Chapter §1.3: an immediate (N-33: its bit pattern, 32 bits at most), a register (N-7: its id)
    or a pointer to one element per partition in SBUF/PSUM (N-6: ADDR4 or byte offset). The shape of
    a pointer against the data it scales is an IR check (family.pointer_shape)."""
    if isinstance(op, Immediate):
        d = dtype_of(op, role)
        try:
            bits = bit_pattern(op.value, d)
        except NumericError as e:
            raise EncodeError(f"{role}: {e}", field=role, value=op.value, check="imm.value") from None
        if DTYPE_INFO[d].size > 4:
            raise EncodeError(f"{role}: a 64-bit immediate ({d.name}) has no 32-bit value word (N-33)", field=role,
                              value=d.name, limit="a dtype of at most 32 bits", check="family.scalar_kind")
        return Scalar(ScalarKind.IMMEDIATE, bits, DTYPE_INFO[d].wire, d, op.value)
    if isinstance(op, (RegisterAccess, RegisterAP)):
        if isinstance(op, RegisterAP) and (op.is_regloc_offset or op.reg_ap_offset):
            raise EncodeError(REG_OFFSET_MSG, field=role, value="offset register", check="family.scalar_kind")
        assert op.register is not None
        rid = op.register.lo
        if not 0 <= rid <= 0xFF:
            raise EncodeError(f"{role}: register id {brief_int(rid)} does not fit", field=role, value=rid, limit="0..255",
                              check="field.range")
        d = dtype_of(op, role)
        return Scalar(ScalarKind.REGISTER, rid, DTYPE_INFO[d].wire, d)
    if isinstance(op, PhysicalAP):
        loc = op.location
        assert loc is not None
        if loc.type not in (MemoryType.SB, MemoryType.PSUM):
            raise EncodeError(POINTER_SPACE_MSG, field=role, value=loc.type.value, limit="SB, PSUM",
                              check="family.scalar_kind")
        if "indirect_dim" in op.extra:
            raise EncodeError(f"{role}: an indirect pointer has no encoding", field=role, value="indirect_dim",
                              check="family.indirect")
        check_pairs(op, role)
        word = start_address(op, role, ctx)
        addr = word & 0x1FFFFFFF
        byte = (addr - 0x2000000) & 0x7FFF if in_psum(op) else addr & 0x3FFFF
        d = dtype_of(op, role)
        return Scalar(ScalarKind.POINTER, ctx.decisions.get(PointerWord).word(word, byte), DTYPE_INFO[d].wire, d)
    got = "nothing" if op is None else op.kind
    raise EncodeError(f"{role} {WRONG_ARG_MSG} ({got}: an immediate, a register or an SB/PSUM [P,1] pointer)",
                      field=role, value=got, check="family.scalar_kind")


DVE_ONLY = (Engine.DVE, Engine.Unassigned)


DVE_OR_POOL = (Engine.DVE, Engine.Pool, Engine.Unassigned)


def require_engine(inst: Instruction, what: str, allowed: tuple[Engine, ...], why: str) -> None:
    if engine_of(inst.engine) not in allowed:
        names = "/".join(e.name for e in allowed if e is not Engine.Unassigned)
        raise EncodeError(f"{what} runs on the {names} engine ({why})", field="engine", value=enum_name(inst.engine),
                          limit=names, check="family.engine")


DVE_STREAM_WHY = "DMOV, SRCH and every real bundle: a DVE stream"


def lowered_only(what: str) -> Any:
    def select(inst: Instruction, ctx: Context) -> Selection:
        raise EncodeError(f"{what} is two bundles: it must be lowered before codegen (tongasm.passes.lower)",
                          check="opcode.supported")
    return select


def pair_opcodes(parts: Mapping[type[Instruction], Family]) -> Any:
    """COLLECT_OPCODES of a two-bundle form: its parts' opcodes (their families in ``parts``), in wire order."""
    def opcodes(inst: Instruction, ctx: Context) -> list[int]:
        from ..passes.lower_compound import lower_family

        return [x for part in lower_family(inst, ctx.decisions) for x in parts[type(part)].opcodes(part, ctx)]
    return opcodes


def one_opcode(name: str) -> Any:
    def opcodes(inst: Instruction, ctx: Context) -> list[int]:
        return [next(iter(ctx.formats.by_name[name].opcodes))]
    return opcodes
