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
    # --- the next families (next-families.md; handlers in tongasm.sim.execute_families) ---
    TENSOR_REDUCE = "fold the innermost free dims of a tensor with an ALU op"
    RECIPROCAL = "elementwise reciprocal in fp32"
    ACTIVATE = "activation function of in*scale + bias, with the accumulator"
    READ_ACCUMULATOR = "write an engine's accumulator to a [P,1] tensor"
    TENSOR_SCALAR = "two ALU ops of a tensor with per-partition scalars (or a fused reduce)"
    BN_STATS = "per-partition count, mean and M2 of the even and odd elements"
    BN_AGGREGATE = "merge (count, mean, M2) triples into mean and variance"
    CROSS_LANE_REDUCE = "fold across partitions (per free element, or everything)"
    POOL = "max or average over a window of the innermost dims"
    IOTA = "write an index pattern"


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

    @property
    def geometry_roles(self) -> frozenset[str]:
        """The roles whose geometry (access-pattern pairs, offset) reaches the bundle only through
        this binding: a plan must not depend on it."""
        roles = set(self.slots.values()) | set(self.elements.values())
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
    family: str = "tensor"  # "sp": an Unassigned instruction goes to the sp stream, else dve


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

    @property
    def family(self) -> str:
        """``sp`` for the SP register-lane ops, else the opcodes' family."""
        fams = {o.family for o in self.opcodes}
        return fams.pop() if len(fams) == 1 else "tensor"

    @property
    def variant(self) -> str | None:
        """The part of the name after the first dot (``imm64`` of ``RegisterMove.imm64``), if any."""
        return self.name.split(".", 1)[1] if "." in self.name else None
