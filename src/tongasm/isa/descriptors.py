"""Descriptor layouts (SPEC §3.3, §3.4): the ADDR4 word and the TENSOR2D/3D/4D slots.

The 4+4N rule is declared here once: a descriptor with N free dims is ADDR4 at +0, then all N
steps (i16, element units), then all N counts (u16). :func:`slot_fields` expands a slot into
bundle fields at the slot's offset; every format that holds a descriptor uses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from collections.abc import Callable, Mapping, Sequence

from ..errors import EncodeError
from .decisions import DecisionSet
from .decisions.spec import FreeDimOrder
from .fields import Conf, Field, Kind, Slot

#: Descriptor type names by number of free dims (the TENSOR and MEM_PATTERN twins are byte-identical).
TENSOR_TYPES = {1: "TENSOR1D", 2: "TENSOR2D", 3: "TENSOR3D", 4: "TENSOR4D"}

STEP_MIN, STEP_MAX = -(1 << 15), (1 << 15) - 1
NUM_MIN, NUM_MAX = 1, (1 << 16) - 1


def step_offset(ndims: int, i: int) -> int:
    """Offset inside the slot of step i (i16)."""
    return 4 + 2 * i


def num_offset(ndims: int, i: int) -> int:
    """Offset inside the slot of count i (u16): the counts follow all N steps."""
    return 4 + 2 * ndims + 2 * i


def slot(name: str, offset: int, ndims: int, *, dtype: str | None, write: bool = False, conf: Conf = Conf.C,
         decision: str | None = None, doc: str = "", role_decision: str | None = None,
         parts: str | None = "num_partitions", fill: tuple[int, int] = (1, 1), packing: str = "free-dims",
         partitions: int | None = None, elem_bytes: int | None = None,
         elem_wire: Callable[[Mapping[str, int]], int] | None = None) -> Slot:
    """Declare a descriptor slot of ``ndims`` free dims at ``offset`` of the bundle.

    ``dtype`` names the field that holds the operand's wire dtype (None: no field does, the PSUM
    result of a Matmul); ``write`` marks the operand the op writes (a PSUM write needs a 4-byte
    dtype, reads do not). ``decision`` tags the slot's fields (by default D-5 for the address, D-6
    for the dims); ``role_decision`` names the decision that says which operand the slot holds.
    ``parts`` names the field with the operand's partition count; ``fill`` is what an unused free
    dim holds (D-6's {1, 1}; the PE opcodes' {0, 1}, R-9); ``packing`` names how an access
    pattern's free dims become the slot's (:data:`PACKINGS`); ``partitions`` fixes the count of an
    operand with no count field (``parts=None``); ``elem_bytes`` is the widest element of an operand
    with no dtype field (``dtype=None``) and ``elem_wire`` its wire dtype from the bundle's fields
    when a decision says it (R-12's transpose).
    """
    if packing not in PACKINGS:
        raise ValueError(f"slot {name}: unknown packing {packing!r} (known: {', '.join(PACKINGS)})")
    return Slot(name, offset, ndims, TENSOR_TYPES[ndims], conf, decision, doc, dtype, write, role_decision,
                parts, fill, packing, partitions, elem_bytes, elem_wire)


# --- packings: access pattern → slot dims ------------------------------------------------------------

#: A packing: (decisions, the slot, its ADDR4 word, the free pairs outermost first, the element size,
#: the operand's role) → the slot as ``(addr, step0..stepN-1, num0..numN-1)``. It raises
#: :class:`~tongasm.errors.EncodeError` for a pattern it cannot hold.
Packing = Callable[[DecisionSet, Slot, int, Sequence[tuple[int, int]], int, str], tuple[int, ...]]

#: The packings by name: ``free-dims`` (D-6) here; a layout module may add its own (the PE
#: stationary's R-10 pattern is declared with the PE records).
PACKINGS: dict[str, Packing] = {}


def packing(name: str) -> Callable[[Packing], Packing]:
    """Register a packing under ``name`` (a name is declared once)."""
    def deco(fn: Packing) -> Packing:
        if name in PACKINGS:
            raise ValueError(f"packing {name!r} declared twice")
        PACKINGS[name] = fn
        return fn
    return deco


@packing("free-dims")
def pack_free_dims(ds: DecisionSet, s: Slot, addr: int, free: Sequence[tuple[int, int]], esize: int,
                   role: str) -> tuple[int, ...]:
    """SPEC §3.4, D-6: pairs with num 1 are dropped, the rest go to the slots in D-6's order and
    the unused slots get the slot's fill."""
    kept = [p for p in free if p[1] != 1]
    if len(kept) > s.ndims:
        raise EncodeError(f"Illegal ISA memory access dimension {len(kept)}, which must be in range of "
                          f"[1, {s.ndims}]D tensor for ISA mem pattern", field=f"{role}.ap", value=len(kept),
                          limit=f"1..{s.ndims}", check="desc.active_dims")
    ordered = ds.get(FreeDimOrder).to_slots(kept) + [s.fill] * (s.ndims - len(kept))
    return (addr, *[p[0] for p in ordered], *[p[1] for p in ordered])


@packing("keep-degenerate")
def pack_keep_degenerate(ds: DecisionSet, s: Slot, addr: int, free: Sequence[tuple[int, int]], esize: int,
                         role: str) -> tuple[int, ...]:
    """D-6 without the dropping: the pairs with num 1 keep their slots (N-13=no-dropping for the
    TensorReduce src, N-24 for the Pool input); the unused slots get the slot's fill."""
    if len(free) > s.ndims:
        raise EncodeError(f"Illegal ISA memory access dimension {len(free)}, which must be in range of "
                          f"[1, {s.ndims}]D tensor for ISA mem pattern", field=f"{role}.ap", value=len(free),
                          limit=f"1..{s.ndims}", check="desc.active_dims")
    ordered = ds.get(FreeDimOrder).to_slots(list(free)) + [s.fill] * (s.ndims - len(free))
    return (addr, *[p[0] for p in ordered], *[p[1] for p in ordered])


def slot_fields(s: Slot) -> list[Field]:
    """The bundle fields of a descriptor slot: ``<name>.addr``, ``.step<i>``, ``.num<i>``."""
    out = [Field(f"{s.name}.addr", s.offset, 4, Kind.ADDR4, conf=s.conf, decision=s.decision or "D-5",
                 doc=f"{s.name} {s.type_name} start address (ADDR4)", slot=s.name)]
    # D-6 decides which access-pattern pair lands in which slot index; the layout itself is C.
    for i in range(s.ndims):
        out.append(Field(f"{s.name}.step{i}", s.offset + step_offset(s.ndims, i), 2, Kind.SIGNED,
                         conf=s.conf, decision=s.decision or "D-6",
                         doc=f"{s.name} step of free slot {i} (elements)", slot=s.name))
    for i in range(s.ndims):
        out.append(Field(f"{s.name}.num{i}", s.offset + num_offset(s.ndims, i), 2, Kind.UNSIGNED,
                         conf=s.conf, decision=s.decision or "D-6",
                         doc=f"{s.name} count of free slot {i}", slot=s.name))
    return out


# --- ADDR4 (SPEC §3.3, D-5) ---------------------------------------------------------------

ADDR4_ADDR_MASK = 0x1FFFFFFF
ADDR4_INDIRECT = 1 << 29
ADDR4_ACTIVE = 1 << 30
ADDR4_REGMODE = 1 << 31
PSUM_BASE = 0x2000000
PSUM_END = 0x23FFFFF  # inclusive
SBUF_PARTITION_SHIFT = 18  # D-5
PSUM_PARTITION_SHIFT = 15  # D-5
PSUM_BANK_SHIFT = 11  # D-5
PSUM_BANK_BYTES = 2048
PSUM_BANKS = 8
PSUM_PARTITION_BYTES = PSUM_BANK_BYTES * PSUM_BANKS  # the 16 KiB PSUM window of a partition
MAX_REGISTER_ID_ADDR4 = 0x3F  # register-mode byte 0 must be < 0x40


def addr4_sbuf(partition: int, byte_offset: int) -> int:
    """D-5: SBUF address ``(start_partition << 18) | byte_offset_in_partition``."""
    return (partition << SBUF_PARTITION_SHIFT) | byte_offset


def addr4_psum(partition: int, byte_in_partition: int) -> int:
    """D-5: PSUM address ``0x2000000 + (partition << 15) + byte`` (the bank is folded into byte)."""
    return PSUM_BASE + (partition << PSUM_PARTITION_SHIFT) + byte_in_partition


def addr4_register(reg_id: int) -> int:
    """Register mode: ``0x80000000 | reg_id``."""
    return ADDR4_REGMODE | reg_id


@dataclass(frozen=True)
class Addr4:
    """A decoded ADDR4 word."""

    word: int
    space: str  # "sbuf", "psum", "register", "invalid"
    partition: int | None = None
    byte: int | None = None  # byte offset inside the partition (PSUM: includes bank * 2048)
    register: int | None = None
    indirect: bool = False
    active: bool = False

    @property
    def bank(self) -> int | None:
        return None if self.space != "psum" or self.byte is None else self.byte // PSUM_BANK_BYTES

    def describe(self) -> str:
        if self.space == "register":
            return f"register r{self.register}"
        flags = "".join([" indirect" if self.indirect else "", " active" if self.active else ""])
        if self.space == "sbuf":
            return f"SBUF partition {self.partition} byte {self.byte:#x}{flags}"
        if self.space == "psum":
            return (f"PSUM partition {self.partition} bank {self.bank} byte "
                    f"{(self.byte or 0) % PSUM_BANK_BYTES:#x}{flags}")
        return f"invalid address word {self.word:#010x}"


@lru_cache(maxsize=1 << 16)
def decode_addr4(word: int) -> Addr4:
    """Split an ADDR4 word into space / partition / byte, or register id (SPEC §3.3).

    Memoised (an :class:`Addr4` is immutable): checkers and the simulator ask for the same few
    thousand addresses over and over."""
    indirect = bool(word & ADDR4_INDIRECT)
    active = bool(word & ADDR4_ACTIVE)
    if word & ADDR4_REGMODE:
        if word & 0x7FFFFF00:
            return Addr4(word, "invalid", indirect=indirect, active=active)
        return Addr4(word, "register", register=word & 0xFF)
    a = word & ADDR4_ADDR_MASK
    if PSUM_BASE <= a <= PSUM_END:
        rel = a - PSUM_BASE
        return Addr4(word, "psum", rel >> PSUM_PARTITION_SHIFT, rel & ((1 << PSUM_PARTITION_SHIFT) - 1),
                     indirect=indirect, active=active)
    if a >> 25:
        return Addr4(word, "invalid", indirect=indirect, active=active)
    return Addr4(word, "sbuf", a >> SBUF_PARTITION_SHIFT, a & ((1 << SBUF_PARTITION_SHIFT) - 1),
                 indirect=indirect, active=active)
