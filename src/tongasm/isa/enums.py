"""Enumerations of the Tonga ISA and of BIR, with their wire look-up tables (SPEC §2).

Everything here is data: ordinals, names and the byte each one becomes on the wire. The
tables are the single source of truth for every layer (codegen, decode, checks, explain,
simulator). Choices where the sources disagree are *not* made here; they live in
:mod:`tongasm.isa.decisions`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from collections.abc import Mapping


class Dtype(enum.IntEnum):
    """``bir::Dtype``: BIR ordinal; member names are the BIR JSON spellings (SPEC §2.1)."""

    uint8 = 0
    int8 = 1
    float4_e2m1fn_x4 = 2
    float8e3 = 3
    float8e4 = 4
    float8_e4m3fn = 5
    float8_e8m0fnu = 6
    float8e5 = 7
    float8_e4m3fn_x4 = 8
    float8_e5m2_x4 = 9
    uint16 = 10
    int16 = 11
    bfloat16 = 12
    float16 = 13
    uint32 = 14
    int32 = 15
    float32 = 16
    float32r = 17
    uint64 = 18
    int64 = 19


@dataclass(frozen=True)
class DtypeInfo:
    """One row of the SPEC §2.1 dtype table."""

    dtype: Dtype
    wire: int
    size: int
    numpy_name: str | None  # numpy / ml_dtypes type name; None for packed encode-only types


#: SPEC §2.1, confidence C. Wire LUT (gen2/gen3)
#: ``03 02 05 0d 0e 0e 03 0f 0e 0f 05 04 06 07 09 08 0a 0b 01 0c`` and the element sizes.
DTYPE_INFO: Mapping[Dtype, DtypeInfo] = {
    d.dtype: d
    for d in (
        DtypeInfo(Dtype.uint8, 0x03, 1, "uint8"),
        DtypeInfo(Dtype.int8, 0x02, 1, "int8"),
        DtypeInfo(Dtype.float4_e2m1fn_x4, 0x05, 2, None),
        DtypeInfo(Dtype.float8e3, 0x0D, 1, "float8_e3m4"),
        DtypeInfo(Dtype.float8e4, 0x0E, 1, "float8_e4m3"),
        DtypeInfo(Dtype.float8_e4m3fn, 0x0E, 1, "float8_e4m3fn"),
        DtypeInfo(Dtype.float8_e8m0fnu, 0x03, 1, "float8_e8m0fnu"),
        DtypeInfo(Dtype.float8e5, 0x0F, 1, "float8_e5m2"),
        DtypeInfo(Dtype.float8_e4m3fn_x4, 0x0E, 4, None),
        DtypeInfo(Dtype.float8_e5m2_x4, 0x0F, 4, None),
        DtypeInfo(Dtype.uint16, 0x05, 2, "uint16"),
        DtypeInfo(Dtype.int16, 0x04, 2, "int16"),
        DtypeInfo(Dtype.bfloat16, 0x06, 2, "bfloat16"),
        DtypeInfo(Dtype.float16, 0x07, 2, "float16"),
        DtypeInfo(Dtype.uint32, 0x09, 4, "uint32"),
        DtypeInfo(Dtype.int32, 0x08, 4, "int32"),
        DtypeInfo(Dtype.float32, 0x0A, 4, "float32"),
        DtypeInfo(Dtype.float32r, 0x0B, 4, "float32"),
        DtypeInfo(Dtype.uint64, 0x01, 8, "uint64"),
        DtypeInfo(Dtype.int64, 0x0C, 8, "int64"),
    )
}

#: Packed dtypes (the ``_x4`` types): encode only, refused by the gen3 TensorTensor mapper (D-26).
PACKED_DTYPES = frozenset({Dtype.float4_e2m1fn_x4, Dtype.float8_e4m3fn_x4, Dtype.float8_e5m2_x4})
INT64_DTYPES = frozenset({Dtype.int64, Dtype.uint64})
FLOAT_DTYPES = frozenset(
    {
        Dtype.float8e3, Dtype.float8e4, Dtype.float8_e4m3fn, Dtype.float8_e8m0fnu, Dtype.float8e5,
        Dtype.bfloat16, Dtype.float16, Dtype.float32, Dtype.float32r,
    }
)
INTEGER_DTYPES = frozenset(
    {Dtype.uint8, Dtype.int8, Dtype.uint16, Dtype.int16, Dtype.uint32, Dtype.int32, Dtype.uint64, Dtype.int64}
)
SIGNED_INT_DTYPES = frozenset({Dtype.int8, Dtype.int16, Dtype.int32, Dtype.int64})


class WireDtype(enum.IntEnum):
    """The ISA's own wire dtype enum (``NEURON_ISA_TPB_DTYPE``); 0 and 16+ are unknown on gen2/gen3."""

    UINT64 = 1
    INT8 = 2
    UINT8 = 3
    INT16 = 4
    UINT16 = 5
    BFLOAT16 = 6
    FLOAT16 = 7
    INT32 = 8
    UINT32 = 9
    FLOAT32 = 10
    FLOAT32R = 11
    INT64 = 12
    FLOAT8_E3 = 13
    FLOAT8_E4M3 = 14
    FLOAT8_E5M2 = 15


W = WireDtype
#: Wire-tag alignment groups (SPEC §2.1, C): start addresses are aligned to the element size.
WIRE_DTYPE_ALIGN: Mapping[int, int] = {
    **{w: 1 for w in (W.INT8, W.UINT8, W.FLOAT8_E3, W.FLOAT8_E4M3, W.FLOAT8_E5M2)},
    **{w: 2 for w in (W.INT16, W.UINT16, W.BFLOAT16, W.FLOAT16)},
    **{w: 4 for w in (W.INT32, W.UINT32, W.FLOAT32, W.FLOAT32R)},
    **{w: 8 for w in (W.UINT64, W.INT64)},
}
#: A PSUM write needs a 4-byte wire dtype (SPEC §2.1, C; an ISA-validator rule).
PSUM_WRITE_WIRE_DTYPES = frozenset({W.INT32, W.UINT32, W.FLOAT32, W.FLOAT32R})
#: Wire dtypes that are 8/16/32-bit integers (the predicate-mask dtypes of SPEC §4.5).
INT_MASK_WIRE_DTYPES = frozenset({W.INT8, W.UINT8, W.INT16, W.UINT16, W.INT32, W.UINT32})
#: Wire dtypes that are integers of any width.
INT_WIRE_DTYPES = frozenset({*INT_MASK_WIRE_DTYPES, W.UINT64, W.INT64})
#: The 64-bit wire dtypes (not datapath dtypes of the tensor engines).
WIDE_WIRE_DTYPES = frozenset({W.UINT64, W.INT64})


def dtype_size(d: Dtype) -> int:
    """Element (container) size in bytes of a BIR dtype."""
    return DTYPE_INFO[d].size


class AluOp(enum.IntEnum):
    """``bir::AluOpType`` ordinals (SPEC §2.2)."""

    bypass = 0
    bitwise_not = 1
    arith_shift_left = 2
    arith_shift_right = 3
    add = 4
    subtract = 5
    mult = 6
    divide = 7
    max = 8
    min = 9
    bitwise_and = 10
    bitwise_or = 11
    bitwise_xor = 12
    logical_and = 13
    logical_or = 14
    logical_xor = 15
    logical_shift_left = 16
    logical_shift_right = 17
    is_equal = 18
    not_equal = 19
    is_gt = 20
    is_ge = 21
    is_lt = 22
    is_le = 23
    average = 24
    elemwise_mul = 25
    pow = 26
    mod = 27
    rsqrt = 28
    abs = 29


class AluClass(enum.Enum):
    """Class column of SPEC §2.2."""

    ARITH = "arith"
    BITVEC = "bitvec"
    COMPARE = "compare"


#: SPEC §2.2 (C): ordinal → (wire byte, class). Ordinals 24/25 have no wire byte.
ALU_WIRE: Mapping[AluOp, tuple[int, AluClass]] = {
    AluOp.bypass: (0x00, AluClass.ARITH),
    AluOp.bitwise_not: (0x01, AluClass.BITVEC),
    AluOp.arith_shift_left: (0x02, AluClass.BITVEC),
    AluOp.arith_shift_right: (0x03, AluClass.BITVEC),
    AluOp.add: (0x04, AluClass.ARITH),
    AluOp.subtract: (0x05, AluClass.ARITH),
    AluOp.mult: (0x06, AluClass.ARITH),
    AluOp.divide: (0x07, AluClass.ARITH),
    AluOp.max: (0x08, AluClass.ARITH),
    AluOp.min: (0x09, AluClass.ARITH),
    AluOp.bitwise_and: (0x0A, AluClass.BITVEC),
    AluOp.bitwise_or: (0x0B, AluClass.BITVEC),
    AluOp.bitwise_xor: (0x0C, AluClass.BITVEC),
    AluOp.logical_and: (0x0D, AluClass.ARITH),
    AluOp.logical_or: (0x0E, AluClass.ARITH),
    AluOp.logical_xor: (0x0F, AluClass.ARITH),
    AluOp.logical_shift_left: (0x10, AluClass.BITVEC),
    AluOp.logical_shift_right: (0x11, AluClass.BITVEC),
    AluOp.is_equal: (0x12, AluClass.COMPARE),
    AluOp.not_equal: (0x18, AluClass.COMPARE),
    AluOp.is_gt: (0x13, AluClass.COMPARE),
    AluOp.is_ge: (0x14, AluClass.COMPARE),
    AluOp.is_lt: (0x16, AluClass.COMPARE),
    AluOp.is_le: (0x15, AluClass.COMPARE),
    AluOp.pow: (0x1A, AluClass.ARITH),
    AluOp.mod: (0x1B, AluClass.ARITH),
    AluOp.rsqrt: (0x1D, AluClass.ARITH),
    AluOp.abs: (0x19, AluClass.ARITH),
}

#: The GPSIMD int32 band (SPEC §4.4, D-13/D-21): op → its byte in the band. Only these bytes ≥ 0x20 are produced.
INT32_BAND: Mapping[AluOp, int] = {AluOp.add: 0xC4, AluOp.mult: 0xC5, AluOp.subtract: 0xC6, AluOp.divide: 0xC7}
#: The band by wire byte → name.
ALU_INT_BAND: Mapping[int, str] = {w: f"{op.name}_int" for op, w in INT32_BAND.items()}

#: Every ALU wire byte a decoder can name: the §2.2 table plus the int32 band.
ALU_WIRE_NAMES: Mapping[int, str] = {
    **{wire: op.name for op, (wire, _cls) in ALU_WIRE.items()},
    **ALU_INT_BAND,
}
#: ALU wire byte → BIR op (inverse of ALU_WIRE; the band maps to its plain op).
ALU_FROM_WIRE: Mapping[int, AluOp] = {
    **{wire: op for op, (wire, _cls) in ALU_WIRE.items()},
    **{w: op for op, w in INT32_BAND.items()},
}

#: Message the compiler raises for ordinals with no wire byte (C).
ALU_INVALID_MSG = "Invalid enum variant for enum AluOpType"


class AccType(enum.IntEnum):
    """``EngineAccumulationType`` (BIR key ``acc``; SPEC §2.3)."""

    Idle = 0
    Zero = 1
    Accumulate = 2
    ZeroAccumulate = 3
    AddAccumulate = 4
    LoadAccumulate = 5


#: SPEC §2.3 (C): accumulation ordinal → wire byte; Accumulate has none.
ACC_WIRE: Mapping[AccType, int] = {
    AccType.Idle: 0,
    AccType.Zero: 1,
    AccType.ZeroAccumulate: 3,
    AccType.AddAccumulate: 2,
    AccType.LoadAccumulate: 4,
}
ACC_INVALID_MSG = "Invalid enum variant for enum EngineAccumulationType"


class MemsetMode(enum.IntEnum):
    """BIR ``MemsetMode`` (SPEC §2.3): Const → opcode 0x49, Random → 0x4D."""

    Const = 0
    Random = 1


MEMSET_MODE_INVALID_MSG = "has unimplemented Memset Mode"


class Engine(enum.IntEnum):
    """BIR ``EngineType`` (SPEC §2.3). No wire byte; selects the output stream."""

    Unassigned = 0
    Pool = 1
    Activation = 2
    PE = 3
    DMA = 4
    DVE = 5
    SP = 6
    ALL = 7


#: Stream (file) name of each engine (SPEC §5).
ENGINE_STREAM: Mapping[Engine, str] = {
    Engine.Pool: "pool",
    Engine.Activation: "act",
    Engine.PE: "pe",
    Engine.DMA: "dma",
    Engine.DVE: "dve",
    Engine.SP: "sp",
}
STREAM_ENGINE: Mapping[str, Engine] = {v: k for k, v in ENGINE_STREAM.items()}


class WaitMode(enum.IntEnum):
    """BIR sync wait mode (SPEC §2.3)."""

    evt_set_clear = 0
    sem_ge_imm = 1
    sem_ge_reg = 2


#: SPEC §2.3 (C): wait mode → wire byte at +0x04.
WAIT_WIRE: Mapping[WaitMode, int] = {
    WaitMode.evt_set_clear: 0x07,
    WaitMode.sem_ge_imm: 0x05,
    WaitMode.sem_ge_reg: 0x85,
}


class UpdateMode(enum.IntEnum):
    """BIR sync update mode (SPEC §2.3)."""

    evt_set = 0
    sem_add_imm = 1
    sem_sub_imm = 2
    sem_inc = 3
    sem_dec = 4
    sem_wr_imm = 5


#: SPEC §2.3 (H): the update LUT ``11 15 17 13 14 19``. Whether it is used at all is D-2.
UPDATE_LUT: Mapping[UpdateMode, int] = {
    UpdateMode.evt_set: 0x11,
    UpdateMode.sem_add_imm: 0x15,
    UpdateMode.sem_sub_imm: 0x17,
    UpdateMode.sem_inc: 0x13,
    UpdateMode.sem_dec: 0x14,
    UpdateMode.sem_wr_imm: 0x19,
}
#: Update modes that do not write the shared value dword (the value-skip rule, C).
VALUELESS_UPDATES = frozenset({UpdateMode.sem_inc, UpdateMode.sem_dec})


class CodeGenMode(enum.IntEnum):
    """The compiler's CodeGenMode (SPEC §3.1)."""

    COLLECT_OPCODES = 0
    GENERATE_ISACODE = 1
    RUN_ISA_CHECKS = 2


CODEGEN_MODE_MSG = (
    "Wrong CodeGenMode. It must be one of GENERATE_ISACODE, RUN_ISA_CHECKS, or COLLECT_OPCODES"
)


class MemoryType(enum.Enum):
    """BIR ``MemoryType`` of a memory location (SPEC §5)."""

    DRAM = "DRAM"
    SB = "SB"
    PSUM = "PSUM"
    Input = "Input"
    Output = "Output"
    REG = "REG"
    Unallocated = "Unallocated"
    RNGSTATE = "RNGSTATE"

    @property
    def is_dram(self) -> bool:
        """Input/Output locations live in DRAM (SPEC §5)."""
        return self in (MemoryType.DRAM, MemoryType.Input, MemoryType.Output)


def enum_by_name_or_ordinal(cls: type[enum.IntEnum], value: object) -> enum.IntEnum | int:
    """Resolve a BIR JSON enum value: a name, or an integer ordinal.

    An integer that is not a member is returned as a plain ``int`` so that it reaches codegen and
    gets the compiler's own error there (SPEC §5). A name that is not a member raises ``KeyError``.
    """
    if isinstance(value, bool):
        raise KeyError(value)
    if isinstance(value, int):
        try:
            return cls(value)
        except ValueError:
            return value
    if isinstance(value, str):
        return cls[value]
    raise KeyError(value)
