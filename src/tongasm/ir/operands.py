"""IR operands: memory locations, registers, access patterns, register accesses, immediates, sync.

These mirror BIR's argument kinds (SPEC §2.3, §5). Operands hold *resolved* references (a
physical AP knows its :class:`MemoryLocation`, a register access its :class:`Register`) so codegen
never looks names up again; the JSON writer turns them back into names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..isa.enums import Dtype, MemoryType, UpdateMode, WaitMode

class FrozenMap(dict):
    """A dict that refuses changes: the attribute and ``extra`` maps the BIR reader shares between
    instructions. Reads are a dict's; it pickles and deep-copies as itself. To change an
    instruction's attributes, give it a new map (``inst.attrs = {**inst.attrs, "op": ...}``)."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("this map is read-only (shared by the BIR reader between instructions); "
                        "assign a new dict instead")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenMap, (dict(self),))

    def __copy__(self) -> FrozenMap:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenMap:
        return self  # immutable, and the reader shares only maps of scalars


#: A pair of an access pattern: ``(step, num)``, step in elements.
APPair = tuple[int, int]


@dataclass(eq=False)
class MemoryLocation:
    """A BIR memory location (``memref`` target): where a tensor lives.

    ``addr`` is the byte offset in the partition, ``base`` the start partition, ``bank`` the PSUM
    bank, ``dims`` = ``[partitions, bytes per partition]``. ``index`` is the 0-based position of
    the location among all memory locations of its function (D-8's fallback variable id).
    """

    name: str
    type: MemoryType
    addr: int = 0
    base: int = 0
    bank: int = 0
    dims: tuple[int, ...] | None = None
    tensor_id: int | None = None
    index: int = 0
    allocation: Allocation | None = field(default=None, repr=False)
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    given: frozenset[str] | None = field(default=None, repr=False)  # keys the JSON spelled out

    @property
    def is_dram(self) -> bool:
        return self.type.is_dram


@dataclass(eq=False)
class Allocation:
    """A BIR memory-location set (``memsetref`` target), one per tensor."""

    name: str
    locations: list[MemoryLocation] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def memory_types(self) -> set[MemoryType]:
        return {loc.type for loc in self.locations}


@dataclass(frozen=True)
class Register:
    """A named register: one physical id (32-bit) or a lo/hi pair (64-bit)."""

    name: str
    ids: tuple[int, ...]

    @property
    def lo(self) -> int:
        return self.ids[0]

    def pair(self) -> tuple[int, int]:
        """The lo/hi ids of a 64-bit use: the declared pair, or ``(id, id + 1)``."""
        if len(self.ids) >= 2:
            return self.ids[0], self.ids[1]
        return self.ids[0], self.ids[0] + 1


class Operand:
    """Base of every instruction argument.

    Operands are immutable (frozen dataclasses; identity is their equality), so one operand
    object may stand in several instructions: the BIR reader shares equal ones, and the encoder
    memoises what it derives from an operand by the object.
    """

    __slots__ = ()

    kind: str = "?"
    dtype: Dtype | int


@dataclass(eq=False, frozen=True, slots=True)
class AccessPattern(Operand):
    """Common base of the three access-pattern kinds: ``ap`` is ``[[step, num], ...]``."""

    dtype: Dtype | int
    ap: tuple[APPair, ...]

    @property
    def partitions(self) -> int:
        """The partition pair's ``num`` (number of active partitions)."""
        return self.ap[0][1] if self.ap else 0

    @property
    def free(self) -> tuple[APPair, ...]:
        return self.ap[1:]

    @property
    def elements_per_partition(self) -> int:
        return math.prod(n for _s, n in self.ap[1:])


@dataclass(eq=False, frozen=True, slots=True)
class PhysicalAP(AccessPattern):
    """``physical_ap``: a compile-time access pattern on a named memory location."""

    kind = "physical_ap"
    location: MemoryLocation | None = None
    memref: str = ""
    memsetref: str | None = None
    offset: int = 0
    extra: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass(eq=False, frozen=True, slots=True)
class RegisterAP(AccessPattern):
    """``register_ap``: a dynamic access pattern whose address is held in a register."""

    kind = "register_ap"
    register: Register | None = None
    regref: str = ""
    memsetref: str | None = None
    allocation: Allocation | None = None
    reg_ap_offset: str | None = None
    is_regloc_offset: bool = False
    extra: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass(eq=False, frozen=True, slots=True)
class SymbolicAP(AccessPattern):
    """``symbolic_ap``: an access pattern with symbolic addresses (no codegen encoding)."""

    kind = "symbolic_ap"
    memsetref: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass(eq=False, frozen=True, slots=True)
class RegisterAccess(Operand):
    """``register_access``: a scalar register operand."""

    kind = "register_access"
    dtype: Dtype | int
    register: Register
    regref: str = ""
    extra: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass(eq=False, frozen=True, slots=True)
class Immediate(Operand):
    """``imm_value``: a scalar immediate (int or float)."""

    kind = "imm_value"
    dtype: Dtype | int
    value: int | float
    extra: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass(eq=False, slots=True)
class OtherOperand(Operand):
    """An argument kind tongasm reads and writes back but cannot encode (``imm_array``...)."""

    raw: dict[str, Any]
    dtype: Dtype | int = -1

    @property
    def kind(self) -> str:  # type: ignore[override]
        return str(self.raw.get("kind"))


AnyAP = PhysicalAP | RegisterAP | SymbolicAP


@dataclass(frozen=True)
class SyncWait:
    """A sync wait: ``mode``; semaphore ``index``; ``value`` (threshold, or register for sem_ge_reg)."""

    mode: WaitMode | int
    index: int
    value: int | None = None
    register: Register | None = None  # sem_ge_reg only

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", _sync_mode(WaitMode, self.mode, "wait"))


@dataclass(frozen=True)
class SyncUpdate:
    """A sync update: ``mode``; semaphore ``index``; ``value`` (absent for sem_inc/sem_dec)."""

    mode: UpdateMode | int
    index: int
    value: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", _sync_mode(UpdateMode, self.mode, "update"))


def _sync_mode(enum_type: type[WaitMode] | type[UpdateMode], mode: object, what: str) -> WaitMode | UpdateMode | int:
    """A sync mode given by its BIR name (``"sem_inc"``) or ordinal, as the enum member; an unknown
    name is refused here, naming the modes, rather than deep inside ``assemble``. An ordinal the enum
    does not have stays an int (the encoder reports it with its field)."""
    if isinstance(mode, enum_type):
        return mode
    if isinstance(mode, str):
        try:
            return enum_type[mode]
        except KeyError:
            raise ValueError(f"unknown sync {what} mode {mode!r}; one of: "
                             f"{', '.join(m.name for m in enum_type)}") from None
    if isinstance(mode, int) and not isinstance(mode, bool):
        try:
            return enum_type(mode)
        except ValueError:
            return mode
    raise TypeError(f"sync {what} mode must be a {enum_type.__name__}, its name or its ordinal, not {mode!r}")


@dataclass(frozen=True)
class SyncInfo:
    """The ``sync`` extension of an instruction. Lists so that "too many" can be reported."""

    waits: tuple[SyncWait, ...] = ()
    updates: tuple[SyncUpdate, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.waits or self.updates)
