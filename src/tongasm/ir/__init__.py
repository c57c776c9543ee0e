"""IR: operands, instructions, the BIR JSON reader/writer and the Python builder."""

from .bir_json import kernel_from_json, kernel_to_json, read_bir, write_bir
from .instructions import (
    INSTRUCTION_CLASSES, Block, CopyPredicated, Function, GenericCopy, Instruction, Kernel, Loop, LoopAxis, Memset,
    MoveShape, RegisterAlu, RegisterMove, Select, TensorCopy, TensorLoad, TensorSave, TensorTensor,
)
from . import scalar  # noqa: F401  (the next families' IR classes register in INSTRUCTION_CLASSES)
from .operands import (
    Allocation, Immediate, MemoryLocation, PhysicalAP, Register, RegisterAccess, RegisterAP, SymbolicAP, SyncInfo,
    SyncUpdate, SyncWait,
)

__all__ = [
    "Allocation", "Block", "CopyPredicated", "Function", "GenericCopy", "INSTRUCTION_CLASSES", "Immediate",
    "Instruction", "Kernel", "Loop", "LoopAxis", "MemoryLocation", "Memset", "MoveShape", "PhysicalAP", "Register",
    "RegisterAP", "RegisterAccess", "RegisterAlu", "RegisterMove", "Select", "SymbolicAP", "SyncInfo", "SyncUpdate",
    "SyncWait", "TensorCopy", "TensorLoad", "TensorSave", "TensorTensor", "kernel_from_json", "kernel_to_json",
    "read_bir", "write_bir",
]
