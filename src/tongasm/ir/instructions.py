"""IR instructions: one class per BIR opcode of SPEC §4, plus containers (block, loop, function,
kernel).

Each class declares its op-specific BIR JSON keys in ``ATTRS`` (key, enum type, default); the JSON
reader and writer use that declaration, so a key is spelled in one place. Operand roles are
exposed as named properties (``TensorTensor.in0``...) that return ``None`` when the operand is
missing; codegen reports missing operands by role.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar
from collections.abc import Callable
from collections.abc import Iterator, Mapping, Sequence

from ..errors import EncodeError
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.decisions.spec import MemsetConstant
from ..isa.enums import PACKED_DTYPES, AccType, AluOp, Dtype, Engine, MemsetMode
from ..numeric import NumericError, bit_pattern
from ..isa.layout import BirForm
from ..isa.layouts import layouts, on_change
from .operands import Allocation, MemoryLocation, Operand, Register, SyncInfo


class Number:
    """The type of an attribute whose JSON value is a number (int or float), kept as given: a value
    whose meaning depends on an operand's dtype (the Memset ``constant``)."""


@dataclass(frozen=True)
class Attr:
    """One op-specific BIR JSON key: its enum type (or ``bool``/``int``) and its default."""

    key: str
    type: type
    default: Any = None
    required: bool = False


@dataclass(eq=False, slots=True)
class Instruction:
    """Base of every BIR instruction.

    ``attrs`` holds the op-specific keys of ``ATTRS`` that were given (enums resolved to members,
    or plain ints for out-of-range ordinals); :meth:`attr` falls back to the declared default.
    ``extra`` keeps any other JSON key so the writer gives it back.
    """

    OPCODE: ClassVar[str] = ""
    ATTRS: ClassVar[tuple[Attr, ...]] = ()
    #: groups of ``ATTRS`` keys of which exactly one must be given (the reader refuses none or two)
    ONE_OF: ClassVar[tuple[tuple[str, ...], ...]] = ()
    FAMILY: ClassVar[str] = "tensor"  # "sp" register-lane ops go to the sp stream when Unassigned
    #: operand role → (is an output, index in outs/ins); the role names of the layout bindings
    ROLES: ClassVar[Mapping[str, tuple[bool, int]]] = {}

    name: str = ""
    engine: Engine | int = Engine.Unassigned
    ins: Sequence[Operand] = field(default_factory=list)  # the BIR reader gives (shared) tuples
    outs: Sequence[Operand] = field(default_factory=list)
    attrs: Mapping[str, Any] = field(default_factory=dict)  # the BIR reader gives shared read-only views
    sync: SyncInfo | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def opcode(self) -> str:
        return self.OPCODE

    def attr(self, key: str) -> Any:
        """An op-specific attribute, or its declared default when the JSON did not give it."""
        if key in self.attrs:
            return self.attrs[key]
        for a in self.ATTRS:
            if a.key == key:
                return a.default
        return None

    def stream_family(self) -> str:
        """The family that picks an Unassigned instruction's stream (N-16): ``FAMILY``, unless an
        attribute decides (a cross-lane TensorReduce runs on Pool)."""
        return self.FAMILY

    def _in(self, i: int) -> Operand | None:
        return self.ins[i] if i < len(self.ins) else None

    def _out(self, i: int) -> Operand | None:
        return self.outs[i] if i < len(self.outs) else None

class UnaryInstruction(Instruction):
    """An instruction of one input and one output operand: ``src`` is ``ins[0]``, ``dst`` is ``outs[0]``
    (the shape of most data-path opcodes; each subclass declares its own ``ROLES`` and ``ATTRS``)."""

    __slots__ = ()

    @property
    def src(self) -> Operand | None:
        return self._in(0)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)


class RegisterMove(UnaryInstruction):
    """SPEC §4.1: ins = [src: register_access or imm_value], outs = [dst: register_access]."""

    __slots__ = ()

    OPCODE = "RegisterMove"
    FAMILY = "sp"
    ROLES = {"src": (False, 0), "dst": (True, 0)}



class RegisterAlu(Instruction):
    """SPEC §4.2: ``op``, ``is_64bit``; ins = [src1, src2 (register or imm)], outs = [dst]."""

    __slots__ = ()

    OPCODE = "RegisterAlu"
    FAMILY = "sp"
    ROLES = {"src1": (False, 0), "src2": (False, 1), "dst": (True, 0)}
    ATTRS = (
        Attr("op", AluOp, required=True),
        Attr("is_64bit", bool, False),
        Attr("acc", AccType),
        Attr("reduce_cmd", AccType),
        Attr("dge_type", str),
    )

    @property
    def src1(self) -> Operand | None:
        return self._in(0)

    @property
    def src2(self) -> Operand | None:
        return self._in(1)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)


class TensorLoad(Instruction):
    """SPEC §4.3: ins = [memory AP, optional offset register], outs = [dst register_access]."""

    __slots__ = ()

    OPCODE = "TensorLoad"
    FAMILY = "sp"
    ROLES = {"memory": (False, 0), "offset": (False, 1), "reg": (True, 0)}

    @property
    def memory(self) -> Operand | None:
        return self._in(0)

    @property
    def offset(self) -> Operand | None:
        return self._in(1)

    @property
    def reg(self) -> Operand | None:
        return self._out(0)


class TensorSave(Instruction):
    """SPEC §4.3: ins = [src register_access], outs = [memory AP, optional offset register]."""

    __slots__ = ()

    OPCODE = "TensorSave"
    FAMILY = "sp"
    ROLES = {"reg": (False, 0), "memory": (True, 0), "offset": (True, 1)}

    @property
    def memory(self) -> Operand | None:
        return self._out(0)

    @property
    def offset(self) -> Operand | None:
        return self._out(1)

    @property
    def reg(self) -> Operand | None:
        return self._in(0)


class TensorTensor(Instruction):
    """SPEC §4.4: ``op``, ``acc``; ins = [in0, in1], outs = [out]."""

    __slots__ = ()

    OPCODE = "TensorTensor"
    ROLES = {"in0": (False, 0), "in1": (False, 1), "out": (True, 0)}
    ATTRS = (Attr("op", AluOp, required=True), Attr("acc", AccType, AccType.Idle))

    @property
    def in0(self) -> Operand | None:
        return self._in(0)

    @property
    def in1(self) -> Operand | None:
        return self._in(1)

    @property
    def out(self) -> Operand | None:
        return self._out(0)


class CopyPredicated(Instruction):
    """SPEC §4.5: ``reverse_pred``, ``op`` (reduce), ``acc``; ins = [mask, src, fill?], outs = [dst]."""

    __slots__ = ()

    OPCODE = "CopyPredicated"
    ROLES = {"mask": (False, 0), "src": (False, 1), "fill": (False, 2), "dst": (True, 0)}
    ATTRS = (
        Attr("reverse_pred", bool, False),
        Attr("op", AluOp, AluOp.bypass),
        Attr("acc", AccType, AccType.Idle),
    )

    @property
    def mask(self) -> Operand | None:
        return self._in(0)

    @property
    def src(self) -> Operand | None:
        return self._in(1)

    @property
    def fill(self) -> Operand | None:
        return self._in(2)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)


class Select(Instruction):
    """SPEC §4.6: ins = [predicate, on_true, on_false], outs = [dst]. Lowered before codegen."""

    __slots__ = ()

    OPCODE = "Select"
    ROLES = {"predicate": (False, 0), "on_true": (False, 1), "on_false": (False, 2), "dst": (True, 0)}

    @property
    def predicate(self) -> Operand | None:
        return self._in(0)

    @property
    def on_true(self) -> Operand | None:
        return self._in(1)

    @property
    def on_false(self) -> Operand | None:
        return self._in(2)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)


class TensorCopy(UnaryInstruction):
    """SPEC §4.7: ins = [src], outs = [dst]."""

    __slots__ = ()

    OPCODE = "TensorCopy"
    ROLES = {"src": (False, 0), "dst": (True, 0)}



class GenericCopy(TensorCopy):
    """SPEC §4.7 / D-17: encodes as TensorCopy."""

    __slots__ = ()

    OPCODE = "GenericCopy"


class Memset(Instruction):
    """SPEC §4.8: ``mode``, and the fill as exactly one of ``constant`` (a value in the dst dtype: 1 on
    float32 fills 1.0, -1 on int32 fills 0xffffffff; a value the dtype cannot hold is refused; D-29) or
    ``constant_bits`` (the raw bit pattern, 0 .. the dtype's width, up to 32 bits; a packed dtype takes
    only this one); Random mode takes 0; ins = [], outs = [dst]."""

    __slots__ = ()

    OPCODE = "Memset"
    ROLES = {"dst": (True, 0)}
    ATTRS = (Attr("mode", MemsetMode, required=True), Attr("constant", Number), Attr("constant_bits", int))
    #: the fill is given by exactly one of these keys
    ONE_OF = (("constant", "constant_bits"),)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)

    def fill_bits(self, decisions: DecisionSet = DEFAULT_DECISIONS) -> int:
        """The raw fill pattern: ``constant_bits`` as given, or the bit pattern of ``constant`` in the
        dst dtype (D-29; under its ``bits`` reading ``constant`` is the raw pattern too). The width
        check of a raw pattern is the caller's (it knows the dtype's size). Raises
        :class:`~tongasm.errors.EncodeError` (field ``fill``, check ``memset.fill_value``) when the
        keys are missing or both given, or the value does not fit the dtype."""
        given = [k for k in ("constant", "constant_bits") if k in self.attrs]
        if len(given) != 1:
            raise EncodeError(f"Memset needs exactly one of 'constant' (a value in the dst dtype) "
                              f"and 'constant_bits' (the raw bit pattern), got {' and '.join(given) or 'neither'}",
                              field="fill", check="memset.fill_value")
        v = self.attrs[given[0]]
        if given[0] == "constant_bits" or not decisions.get(MemsetConstant).is_value:
            if isinstance(v, bool) or not isinstance(v, int):
                raise EncodeError(f"Memset {given[0]} is a raw bit pattern and must be an integer, "
                                  f"got {v!r}", field="fill", value=v, check="memset.fill_value")
            return v
        d = getattr(self.dst, "dtype", None)
        if not isinstance(d, Dtype):
            raise EncodeError(f"Memset constant {v!r}: the dst has no dtype to hold it (give "
                              "'constant_bits' instead)", field="fill", value=v, check="memset.fill_value")
        if d in PACKED_DTYPES and v == 0 and math.copysign(1.0, v) > 0:
            return 0  # zero is all-zero bits in every dtype, a packed one included
        try:
            return bit_pattern(v, d)
        except NumericError as e:
            hint = " (a packed dtype has no scalar value: give 'constant_bits')" if d in PACKED_DTYPES else ""
            raise EncodeError(f"Memset constant {v!r} is not a {d.name} value: {e}{hint}",
                              field="fill", value=v, limit=f"a {d.name} value", check="memset.fill_value") from None


class MoveShape(Instruction):
    """SPEC §4.9 (tongasm extension): one AP, in ``ins`` (DMA source) or ``outs`` (destination)."""

    __slots__ = ()

    OPCODE = "MoveShape"

    @property
    def ap(self) -> Operand | None:
        return self._out(0) if self.outs else self._in(0)

    @property
    def is_output(self) -> bool:
        return bool(self.outs)


# --- the PE and DMA instructions of the real NEFFs -------------------------------------------

class Matmult(Instruction):
    """BIR ``Matmult`` (KLR ``MatmultBase``): ins = [stationary, moving], outs = [dst (PSUM)].

    Lowered before codegen (:mod:`tongasm.passes.lower_matmult`) into a LoadStationary (0x01) and a
    MultiplyMoving (0x02), as the compiler does. The attributes with no field in either bundle must
    keep their defaults (``pe.attrs``)."""

    __slots__ = ()

    OPCODE = "Matmult"
    FAMILY = "pe"
    ROLES = {"stationary": (False, 0), "moving": (False, 1), "dst": (True, 0)}
    ATTRS = (
        Attr("start_tensor_calc", bool, required=True),
        Attr("stop_tensor_calc", bool, False),
        Attr("is_transpose", bool, False),
        Attr("perf_mode", str, "None"),
        Attr("replication_resolution", int, 0),
        Attr("replication_shift_amnt", int, 0),
        Attr("replication_num_rows", int, 0),
        Attr("is_fmap_onezero", bool, False),
        Attr("is_weight_onezero", bool, False),
        Attr("ifmap_quant_offset", int, 0),
        Attr("weights_quant_offset", int, 0),
    )

    @property
    def stationary(self) -> Operand | None:
        return self._in(0)

    @property
    def moving(self) -> Operand | None:
        return self._in(1)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)


class LoadStationary(Instruction):
    """KLR core ``LoadStationary{src, isTranspose}`` (NKI: the stationary of ``nc_matmul``): ins =
    [stationary [K, M] tile in SBUF], outs = []; bundle 0x01 Ldweights."""

    __slots__ = ()

    OPCODE = "LoadStationary"
    FAMILY = "pe"
    ROLES = {"stationary": (False, 0)}
    ATTRS = (Attr("is_transpose", bool, False),)

    @property
    def stationary(self) -> Operand | None:
        return self._in(0)


class MultiplyMoving(Instruction):
    """KLR core ``MatMul{dst, moving, psumAccumulateFlag}`` (NKI: MultiplyMoving): ins = [moving [K, N]
    in SBUF], outs = [dst [M, N] in PSUM]; bundle 0x02 Matmul. ``start_tensor_calc`` and
    ``stop_tensor_calc`` give the accumulation-group role (R-11)."""

    __slots__ = ()

    OPCODE = "MultiplyMoving"
    FAMILY = "pe"
    ROLES = {"moving": (False, 0), "dst": (True, 0)}
    ATTRS = (Attr("start_tensor_calc", bool, required=True), Attr("stop_tensor_calc", bool, False),
             Attr("is_transpose", bool, False))

    @property
    def moving(self) -> Operand | None:
        return self._in(0)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)


class DMACopy(UnaryInstruction):
    """BIR ``DMACopy`` (KLR ``DMA``): ins = [src], outs = [dst], each a physical AP on a DRAM location
    (its variable, or a DGE-table entry when the location says ``dge_entry``) or on SBUF; bundle 0xD4.
    ``dma_semaphore`` is the completion semaphore (one of the issuing engine's queue set),
    ``dma_sem_increment`` what it adds (16, R-15), ``qos`` the QoS class. ``queue`` and ``dge_type``
    name the hardware queue: the bundle has no field for them (the engine and the semaphore imply it)."""

    __slots__ = ()

    OPCODE = "DMACopy"
    FAMILY = "engine"
    ROLES = {"src": (False, 0), "dst": (True, 0)}
    ATTRS = (
        Attr("mode", str, "Copy"),
        Attr("dma_semaphore", int, required=True),
        Attr("dma_sem_increment", int, 16),
        Attr("qos", int, 0),
        Attr("queue", str),
        Attr("dge_type", str, "None"),
        Attr("duplicate", bool, False),
        Attr("oob_is_err", bool, True),
        Attr("transpose_op", str, "None"),
        Attr("cce_op", str, "bypass"),
        Attr("can_read_uninit", bool, False),
    )



class RefusedInstruction(Instruction):
    """A BIR opcode tongasm reads and writes back but refuses to encode (SPEC §4.10)."""

    __slots__ = ()

    OPCODE = "?"
    REASON: ClassVar[str] = ""


class Load(RefusedInstruction):
    __slots__ = ()
    OPCODE = "Load"
    REASON = ("BIR Load is a DMA instruction without the queue fields a DMA bundle needs (SPEC §4.10); "
              "write it as a DMACopy with its dma_semaphore (the 0xD4 bundle)")


class Save(RefusedInstruction):
    __slots__ = ()
    OPCODE = "Save"
    REASON = ("BIR Save is a DMA instruction without the queue fields a DMA bundle needs (SPEC §4.10); "
              "write it as a DMACopy with its dma_semaphore (the 0xD4 bundle)")


class TensorDequantize(RefusedInstruction):
    __slots__ = ()
    OPCODE = "TensorDequantize"
    REASON = "TensorDequantize is lowered upstream by the compiler and has no bundle of its own"


@dataclass(eq=False, slots=True)
class UnknownInstruction(Instruction):
    """Any other BIR opcode: kept for round trips, refused by codegen as unsupported."""

    OPCODE = "?"
    raw_opcode: str = ""

    @property
    def opcode(self) -> str:
        return self.raw_opcode


#: BIR ``opcode`` string → IR class (the hand-written ones; see :func:`instruction_class`).
INSTRUCTION_CLASSES: dict[str, type[Instruction]] = {
    c.OPCODE: c
    for c in (RegisterMove, RegisterAlu, TensorLoad, TensorSave, TensorTensor, CopyPredicated, Select,
              TensorCopy, GenericCopy, Memset, MoveShape, Load, Save, TensorDequantize,
              Matmult, LoadStationary, MultiplyMoving, DMACopy)
}


class DeclaredInstruction(Instruction):
    """An instruction whose BIR form a layout record declares (:class:`tongasm.isa.layout.BirForm`):
    its class is made from the record, so a new opcode needs no IR code."""

    __slots__ = ()

    FORM: ClassVar[BirForm]
    LAYOUT: ClassVar[str] = ""  # the name of the layout record it encodes as


def declared_class(form: BirForm, layout: str) -> type[Instruction]:
    """The IR class of a declared BIR form: its opcode, attributes, family and operand roles (each
    also a property, ``inst.dst``)."""
    roles: dict[str, tuple[bool, int]] = {}
    for out, names in ((False, form.ins), (True, form.outs)):
        for k, role in enumerate(names):
            roles[role.rstrip("?")] = (out, k)
    ns: dict[str, Any] = {
        "__slots__": (), "__doc__": f"BIR {form.opcode} (declared by the layout record {layout}).",
        "OPCODE": form.opcode, "FAMILY": form.family, "ROLES": roles, "FORM": form, "LAYOUT": layout,
        "ATTRS": tuple(Attr(a.key, a.type, a.default, a.required) for a in form.attrs),
    }
    for role, (out, k) in roles.items():
        ns[role] = property(_role_getter(out, k))
    return type(form.opcode, (DeclaredInstruction,), ns)


def _role_getter(out: bool, k: int) -> Callable[[Instruction], Operand | None]:
    def get(self: Instruction) -> Operand | None:
        return self._out(k) if out else self._in(k)
    return get


_DECLARED: dict[str, type[Instruction]] = {}


def instruction_class(opcode: str) -> type[Instruction] | None:
    """The IR class of a BIR opcode: a hand-written one, else one declared by a layout record."""
    cls = INSTRUCTION_CLASSES.get(opcode)
    if cls is not None:
        return cls
    if not _DECLARED:
        for layout in layouts(DEFAULT_DECISIONS):
            if layout.bir is not None and layout.bir.opcode not in INSTRUCTION_CLASSES:
                _DECLARED.setdefault(layout.bir.opcode, declared_class(layout.bir, layout.name))
        _DECLARED.setdefault("", Instruction)  # built (even when nothing is declared)
    return _DECLARED.get(opcode) if opcode else None


on_change(_DECLARED.clear)


@dataclass(frozen=True)
class LoopAxis:
    """``LoopAxis`` of a BIR Loop: ``for name in range(lb, ub, stride)``."""

    name: str
    lb: int = 0
    ub: int = 0
    stride: int = 0
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(eq=False)
class Loop:
    """A BIR ``Loop`` (``opcode: "Loop"``): an axis and nested blocks."""

    axis: LoopAxis
    blocks: list[Block] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    OPCODE: ClassVar[str] = "Loop"


@dataclass(eq=False)
class Block:
    name: str
    instructions: list[Instruction | Loop] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass(eq=False)
class Function:
    """A BIR function: allocations (memory locations), registers and blocks."""

    name: str
    allocations: list[Allocation] = field(default_factory=list)
    registers: dict[str, Register] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)
    attributes: Any = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    def locations(self) -> Iterator[MemoryLocation]:
        for a in self.allocations:
            yield from a.locations

    def instructions(self) -> Iterator[Instruction | Loop]:
        """Top-level items of every block, in program order (loops not expanded)."""
        for b in self.blocks:
            yield from b.instructions


@dataclass(eq=False)
class Kernel:
    """A BIR module: the unit tongasm reads, assembles and writes back."""

    functions: list[Function] = field(default_factory=list)
    arch: str | None = None
    version: Any = None
    attributes: Any = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    #: what the reader noticed and kept (e.g. a key that looks like a misspelt known key); commands
    #: print them as notes. Not part of the module: equality and the JSON form ignore it.
    notes: list[str] = field(default_factory=list, repr=False, compare=False)


def enum_text(value: Any) -> Any:
    """An attribute value as BIR JSON writes it: enum name, or the raw value."""
    if isinstance(value, enum.Enum):
        return value.name
    return value
