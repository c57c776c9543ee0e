"""IR: operands, instructions, the BIR JSON reader/writer and the Python builder."""

from .bir_json import kernel_from_json, kernel_to_json, read_bir, write_bir
from .instructions import (
    INSTRUCTION_CLASSES, Block, CopyPredicated, Function, GenericCopy, Instruction, Kernel, Loop, LoopAxis, Memset,
    MoveShape, RegisterAlu, RegisterMove, Select, TensorCopy, TensorLoad, TensorSave, TensorTensor,
)
from .act import Activation, ActivationReadAccumulator, DveReadAccumulator, ReadActivationAccumulator
from .batchnorm import BNBackprop, BNGradients
from .move import StreamShuffle, StreamTranspose
from .reduce import BNStats, BNStatsAggregate, Iota, Pool, TensorReduce
from .scalar import TensorScalar, TensorScalarCache, TensorScalarPtr
from .search import MatchReplace
from .operands import (
    Allocation, Immediate, MemoryLocation, PhysicalAP, Register, RegisterAccess, RegisterAP, SymbolicAP, SyncInfo,
    SyncUpdate, SyncWait,
)

#: The vector families' BIR classes, registered by opcode name (this order is the BIR reference's).
FAMILY_CLASSES: tuple[type[Instruction], ...] = (
    TensorReduce, Pool, Iota, Activation, ActivationReadAccumulator, ReadActivationAccumulator, DveReadAccumulator,
    TensorScalarPtr, TensorScalarCache, TensorScalar, BNStats, BNStatsAggregate,
    StreamShuffle, StreamTranspose, MatchReplace, BNGradients, BNBackprop)
INSTRUCTION_CLASSES.update({c.OPCODE: c for c in FAMILY_CLASSES})

__all__ = [
    "Allocation", "Block", "CopyPredicated", "Function", "GenericCopy", "INSTRUCTION_CLASSES", "Immediate",
    "Instruction", "Kernel", "Loop", "LoopAxis", "MemoryLocation", "Memset", "MoveShape", "PhysicalAP", "Register",
    "RegisterAP", "RegisterAccess", "RegisterAlu", "RegisterMove", "Select", "SymbolicAP", "SyncInfo", "SyncUpdate",
    "SyncWait", "TensorCopy", "TensorLoad", "TensorSave", "TensorTensor", "kernel_from_json", "kernel_to_json",
    "read_bir", "write_bir",
]
