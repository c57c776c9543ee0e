"""The layout record: everything tongasm knows about one bundle layout, in one place.

A :class:`Layout` holds a layout's fields and descriptor slots (the wire format), the opcodes that
use it (as :class:`~tongasm.isa.opcodes.Op` constants), how decoding tells it apart from its sibling
variants (``match``), its text template (the operands of the listing, :class:`TextOp`), the fields
other fields imply (``implied``), the family checks that apply to it (``checks``), what it computes
(``sem``, the simulator's hook) and how a BIR instruction fills it (``binding``: which operand fills
which descriptor slot, which supplies the partition count and the dtype fields; ``bir``: the BIR
instruction form of a layout whose encoding is fully declarative).

Every consumer gets what it needs from the record: the codec (:class:`~tongasm.isa.fields.Format`)
is compiled from ``fields``; the decoders, the checker, the listing, the text assembler, explain,
the docs and the simulator read ``fmt.layout``; codegen reads ``binding``. None of them dispatches
on a layout's name. To add an opcode, declare its record in a module of :mod:`tongasm.isa.layouts`
(see docs/adding-an-opcode.md).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any
from collections.abc import Callable, Mapping, Sequence

from .fields import Field, MatchValue, Slot
from .opcodes import Op


class Sem(enum.Enum):
    """What a layout's bundles compute: the simulator has one handler per kind (several layouts
    may share one, e.g. the three RegisterMove variants)."""

    NONE = "no effect on memory, registers or semaphores beyond the sync band"
    TENSOR_TENSOR = "elementwise ALU op of two tensors"
    COPY_PREDICATED = "predicated copy of a tensor"
    COPY_PREDICATED_SCALAR = "predicated write of a scalar"
    SELECT_REDUCE = "predicated select with a max reduction into the accumulator"
    TENSOR_COPY = "copy (and cast) of a tensor"
    MEMSET = "fill a tensor with a constant or random bits"
    MOVE_SHAPE = "load the engine's shape registers"
    REGISTER_MOVE = "move a register or an immediate into a register (pair)"
    REGISTER_ALU = "register ALU op"
    TENSOR_LOAD_SAVE = "load registers from memory or store them"
    # --- the next families (next-families.md; handlers in tongasm.sim.semantics.act, .scalar, .reduce) ---
    TENSOR_REDUCE = "fold the innermost free dims of a tensor with an ALU op"
    RECIPROCAL = "elementwise reciprocal in fp32"
    ACTIVATE = "activation function of in*scale + bias, with the accumulator"
    READ_ACCUMULATOR = "write an engine's accumulator to a [P,1] tensor"
    TENSOR_SCALAR = "two ALU ops of a tensor with per-partition scalars (or a fused reduce)"
    SCALAR_TENSOR_TENSOR = "two ALU ops: a tensor with a per-partition scalar, then with a second tensor (or a scan)"
    BN_STATS = "per-partition count, mean and M2 of the even and odd elements"
    BN_AGGREGATE = "merge (count, mean, M2) triples into mean and variance"
    CROSS_LANE_REDUCE = "fold across partitions (per free element, or everything)"
    POOL = "max or average over a window of the innermost dims"
    IOTA = "write an index pattern"
    # --- the PE, DMA and sync/control families ---
    LOAD_STATIONARY = "PE: load the stationary (weights) matrix into the array"
    MULTIPLY_MOVING = "PE: multiply the moving tensor by the stationary, into PSUM"
    DMA_2D = "DMA: copy a 2-D pattern between DRAM variables and SBUF, then signal its completion semaphore"
    SEMAPHORE_CLEAR = "set a range (or mask) of semaphores to zero"
    HALT = "stop this engine's stream"
    DRAIN = "wait until this engine's outstanding DMAs have completed"
    DMA_TRIGGER = "DMA: fire a descriptor block of the engine's sidecar, then signal the block's semaphore"
    DMA_INDIRECT = "DMA: move rows between SBUF and the DRAM addresses an index tensor holds"
    RANGE_CHECK = "check the index rows of the next indirect DMA against a variable's bounds"
    DMA_EXTENSION = "check the bytes the register-mode DMA before it read against its bound"
    # --- the DVE search family and the batch-norm backward family ---
    MAX8 = "the 8 largest values of each partition"
    MATCH_VALUE_LOAD = "latch 8 values per partition for the next MatchReplace8"
    MATCH_REPLACE = "replace the latched values in a tensor by an immediate"
    BN_GRAD_ACCUMULATE = "the three sums of the batch-norm backward reduction"
    BN_PARAM_LOAD = "latch the batch-norm backward coefficients, N and the mean"
    BN_BACKPROP = "batch-norm dx from x, dy and the latched coefficients"
    UNMODELLED = "decoded and checked, but not simulated (the simulator stops with the opcode's name)"
    # --- the Pool-engine (GPSIMD) opcodes of real output ---
    TENSOR_SCALAR_ADDR = "two integer ALU ops of a tensor with immediate or pointer scalars (address arithmetic)"
    AFFINE_SELECT = "keep an element where an affine function of its position compares true, else a fill value"
    CUSTOM_OP = "run a custom-op function on the Pool engine's CPUs (not simulated: the simulator stops, naming it)"
    GATHER = "gather through the pool buffer: load it (0x67), then pick one element per lane by index (0x68)"
    # --- the DVE data-movement family (handlers in tongasm.sim.semantics.move) ---
    LOAD_LANE_MASK = "load the engine's 32-lane mask for the next shuffle or transpose"
    STREAM_SHUFFLE = "copy partitions within each 32-partition quadrant, as the lane mask says"
    STREAM_TRANSPOSE = "transpose partitions and free elements within a 32 x 32 block"


# --- text templates (declared here as data; tongasm.text.syntax implements each kind) ------------------

@dataclass(frozen=True, kw_only=True)
class TextOp:
    """One ``name=value`` operand of the text form. ``optional``: left out of the text when every
    field it stands for has its default value."""

    name: str
    optional: bool = False

    def opt(self) -> TextOp:
        return replace(self, optional=True)


@dataclass(frozen=True, kw_only=True)
class RegText(TextOp):
    """``r5``: a register id field."""

    field: str


@dataclass(frozen=True, kw_only=True)
class PairText(TextOp):
    """``r10:r11``: a register pair; ``lo`` fields all hold the low id."""

    lo: tuple[str, ...]
    hi: str


@dataclass(frozen=True, kw_only=True)
class EnumText(TextOp):
    """An enum field by name (``op=add``), from the field's enum table."""

    field: str


@dataclass(frozen=True, kw_only=True)
class DtypeText(TextOp):
    """A wire dtype field by name (``float32``)."""

    field: str


@dataclass(frozen=True, kw_only=True)
class ImmText(TextOp):
    """``1.5:float32``: an immediate field typed by a dtype field (or a fixed wire dtype).
    ``claim_dtype``: the dtype field is set by this operand (else another operand owns it)."""

    field: str
    dtype_field: str | None = None
    fixed_dtype: int | None = None
    claim_dtype: bool = True


@dataclass(frozen=True, kw_only=True)
class ApText(TextOp):
    """An access pattern: a descriptor slot, its dtype field and, for the operand that supplies it,
    the partition count (``parts``). A slot with a fixed partition count (:attr:`Slot.partitions`)
    shows that count, and the parser requires it."""

    slot: str
    parts: bool = False


@dataclass(frozen=True, kw_only=True)
class IntText(TextOp):
    """A plain integer field under its own name (hex when ``hexa``)."""

    field: str
    hexa: bool = False


@dataclass(frozen=True, kw_only=True)
class M2dText(TextOp):
    """TensorLoad/Save memory pattern ``[STEP1xNUM1][STEP0xNUM0].dtype``."""

    name: str = "m2d"


@dataclass(frozen=True, kw_only=True)
class VarText(TextOp):
    """``var=7+0x8``: DRAM variable id and byte offset (D-8)."""

    name: str = "var"


@dataclass(frozen=True, kw_only=True)
class ShapeText(TextOp):
    """MoveShape: four ``[STEPxCOUNT]`` dims, outermost first."""

    name: str = "shape"
    dims: int = 4


@dataclass(frozen=True, kw_only=True)
class ScalarText(TextOp):
    """A scalar operand of the next families (chapter §1.3, IMM_SRC): a kind byte (its codes are
    N-2) and a value word. Written ``1.5:float32`` (an immediate), ``r5`` (a register) or
    ``ptr(0x00008000)`` (a pointer: the raw value word, whose format is N-6), each followed by
    ``:dtype`` when the layout has a dtype field for it; with no value word on the wire (N-5) just
    ``imm``, ``reg`` or ``ptr``. ``fixed_dtype``: the wire dtype an immediate is read in when the
    bundle has no field for it."""

    kind: str
    value: str | None = None
    dtype_field: str | None = None
    fixed_dtype: int | None = None
# --- text operands of the PE, DMA and sync/control layouts ---

@dataclass(frozen=True, kw_only=True)
class Addr8Text(TextOp):
    """One side of a DMA (0xD4): ``<side>.addr/.var/.var_hi/.addr_mode`` (the ADDR8 address),
    ``.step1/.num1/.step0/.num0`` (byte steps; dim 1 left out when {1, 1}), ``.elem_size`` and the side's
    dtype field, written ``var4+0x80[4096x128]/0x100.float16``, ``dge1+0x80[...]``,
    ``sb[p0]+0x37b00[262144x128]/...``."""

    side: str
    dtype_field: str


@dataclass(frozen=True, kw_only=True)
class AsciiText(TextOp):
    """A NUL-padded ASCII name spread over consecutive fields (``queue="qPoolDynamic"``)."""

    fields: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class LanesText(TextOp):
    """A run of one-byte lane fields as a bracketed list in lane order, runs of one value written
    ``value*count`` and the byte 0xFF (a lane left alone) as ``-``: ``mask=[0*5,-*27]``."""

    fields: tuple[str, ...]


def aps(slots: Sequence[Slot], parts: str | None) -> list[TextOp]:
    """The access-pattern operands of a layout's slots, the one named ``parts`` owning the count."""
    return [ApText(name=s.name, slot=s.name, parts=s.name == parts) for s in slots]


# --- how a BIR instruction fills a layout ----------------------------------------------------------

@dataclass(frozen=True)
class Binding:
    """Which operand (by its IR role name: ``in0``, ``dst``, ``mask``...) fills which part of the
    bundle. Codegen places these per instruction; every other field of the layout is *static*: a
    function of the instruction's op, attributes, engine and operand kinds/dtypes/values, worked
    out once per such combination (a plan) by the family's codegen.

    ``slots``: descriptor slot → role. ``partitions``: the role whose partition-pair count goes to
    ``num_partitions``. ``elements``: field → role whose element count per partition it holds.
    ``dtypes``: wire-dtype field → role (static: wire(dtype of the role's operand)).
    """

    slots: Mapping[str, str] = field(default_factory=dict)
    partitions: str | None = None
    elements: Mapping[str, str] = field(default_factory=dict)
    dtypes: Mapping[str, str] = field(default_factory=dict)
    #: field → role whose partition count it holds, besides ``num_partitions`` (the PE layouts put
    #: K in ``num_rows`` and M in ``num_active_cols``)
    parts: Mapping[str, str] = field(default_factory=dict)

    @property
    def partition_fields(self) -> dict[str, str]:
        """Every partition-count field → the role it comes from (``num_partitions`` first)."""
        out = {"num_partitions": self.partitions} if self.partitions else {}
        out.update(self.parts)
        return out

    @property
    def geometry_roles(self) -> frozenset[str]:
        """The roles whose geometry (access-pattern pairs, offset) reaches the bundle only through
        this binding: a plan must not depend on it."""
        roles = set(self.slots.values()) | set(self.elements.values()) | set(self.parts.values())
        if self.partitions:
            roles.add(self.partitions)
        return frozenset(roles)


@dataclass(frozen=True)
class BirAttr:
    """A BIR attribute of a declaratively encoded instruction and the field it fills.

    ``type`` is ``int``, ``bool`` or an enum class (read by name or ordinal); ``wire`` maps the BIR
    value to the field's value (default: the int itself, or the enum's ordinal)."""

    key: str
    field: str
    type: type = int
    wire: Mapping[Any, int] | None = None
    default: Any = None
    required: bool = False


@dataclass(frozen=True)
class BirForm:
    """The BIR instruction form of a layout whose encoding is entirely declarative: the BIR opcode,
    the operand roles of ``ins`` and ``outs`` (in order; a trailing ``?`` marks an optional one) and
    the attributes. Codegen then needs no family code: the opcode is the layout's only opcode, dtype
    fields and slots come from the binding, attribute fields from ``attrs``."""

    opcode: str
    ins: tuple[str, ...] = ()
    outs: tuple[str, ...] = ()
    attrs: tuple[BirAttr, ...] = ()
    #: where an Unassigned instruction goes: "sp" the sp stream, "pe" the pe stream, "engine" nowhere
    #: (it must name its engine: the sync/control and DMA ops run on every engine), else dve
    family: str = "tensor"


# --- sync lanes ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class WaitLane:
    """One wait of a bundle: its mode, semaphore and value (threshold or register) fields."""

    mode: str = "wait_mode"
    index: str = "wait_idx"
    value: str = "sync_value"


@dataclass(frozen=True)
class UpdateLane:
    """One update of a bundle: its mode (through D-2), semaphore and value fields."""

    mode: str = "update_mode"
    index: str = "update_idx"
    value: str = "sync_value"


@dataclass(frozen=True)
class SyncLanes:
    """Where a layout's waits and updates are. Every layout but EventSemaphore uses the header band
    (:data:`HEADER_SYNC`: one wait, one update, one value dword they share, D-4); a layout that
    declares its own lanes (its ``body`` holds their fields) gets no header band."""

    waits: tuple[WaitLane, ...] = (WaitLane(),)
    updates: tuple[UpdateLane, ...] = (UpdateLane(),)

    @cached_property
    def lanes(self) -> tuple[WaitLane | UpdateLane, ...]:
        """Every lane, waits first."""
        return (*self.waits, *self.updates)

    @cached_property
    def fields(self) -> tuple[str, ...]:
        """Every field name of the lanes, once: each lane's mode and semaphore (waits first), then the
        value dwords (the header band's order: wait_mode, wait_idx, update_mode, update_idx, sync_value)."""
        return tuple(dict.fromkeys([*(n for lane in self.lanes for n in (lane.mode, lane.index)), *self.values]))

    @cached_property
    def values(self) -> tuple[str, ...]:
        """The value fields of the lanes, once each."""
        return tuple(dict.fromkeys(lane.value for lane in self.lanes))

    def shared_value(self, name: str) -> bool:
        """Whether several lanes use the value field ``name`` (the header band's D-4 case)."""
        return sum(lane.value == name for lane in self.lanes) > 1


#: The header sync band (SPEC §3.2, D-3): +0x04 wait mode, +0x05 wait semaphore, +0x06 update mode,
#: +0x07 update semaphore, +0x08 the value dword they share.
HEADER_SYNC = SyncLanes()


# --- the record --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Layout:
    """One bundle layout (one variant of one or more opcodes): see the module docstring."""

    name: str
    opcodes: tuple[Op, ...]
    body: tuple[Field, ...]
    sem: Sem
    text: tuple[TextOp, ...] = ()
    slots: tuple[Slot, ...] = ()
    match: Mapping[str, MatchValue] | None = None
    binding: Binding = field(default_factory=Binding)
    #: field → how to compute it from the other fields' values (the text leaves such fields out and
    #: the checks verify them)
    implied: Mapping[str, Callable[[Mapping[str, int]], int]] = field(default_factory=dict)
    #: the family checks (by id) that apply to this layout, besides the structural ones
    checks: tuple[str, ...] = ()
    bir: BirForm | None = None
    doc: str = ""
    #: the layout's own sync lanes (their fields are in ``body``); None: the header band (D-3)
    sync: SyncLanes | None = None
    #: operands read through a bare ADDR4 pointer word (not a descriptor slot): (the pointer field, the
    #: field of their wire dtype), each one element per partition of the bundle's ``num_partitions``
    #: (0x63's mean and varfactor columns): the race check's footprint of them
    pointer_reads: tuple[tuple[str, str], ...] = ()
    #: the field holding the partition count of ``pointer_reads`` (0xD6's bound column: idx_meta, R-110)
    pointer_parts: str = "num_partitions"

    @property
    def family(self) -> str:
        """``sp`` for the SP register-lane ops, else the opcodes' family."""
        fams = {o.family for o in self.opcodes}
        return fams.pop() if len(fams) == 1 else "tensor"

    @property
    def variant(self) -> str | None:
        """The part of the name after the first dot (``imm64`` of ``RegisterMove.imm64``), if any."""
        return self.name.split(".", 1)[1] if "." in self.name else None
