"""Descriptor layouts (SPEC §3.3, §3.4): the ADDR4 word and the TENSOR2D/3D/4D slots.

The 4+4N rule is declared here once: a descriptor with N free dims is ADDR4 at +0, then all N
steps (i16, element units), then all N counts (u16). :func:`slot_fields` expands a slot into
bundle fields at the slot's offset; every format that holds a descriptor uses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

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


def slot(name: str, offset: int, ndims: int, *, dtype: str, write: bool = False, conf: Conf = Conf.C,
         decision: str | None = None, doc: str = "", role_decision: str | None = None) -> Slot:
    """Declare a descriptor slot of ``ndims`` free dims at ``offset`` of the bundle.

    ``dtype`` names the field that holds the operand's wire dtype; ``write`` marks the operand the
    op writes (a PSUM write needs a 4-byte dtype, reads do not). ``decision`` tags the slot's fields
    (by default D-5 for the address, D-6 for the dims); ``role_decision`` names the decision that
    says which operand the slot holds.
    """
    return Slot(name, offset, ndims, TENSOR_TYPES[ndims], conf, decision, doc, dtype, write, role_decision)


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
