"""IR-level checks: rules that need the BIR instruction, not just its bytes (operand partition
counts, register dtypes on the register path, the tensor kind of a memory location). They run
when a kernel is checked or assembled, after its bundles are built."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

from ..isa.enums import AluOp, Dtype
from ..ir.instructions import CopyPredicated, Instruction, RegisterAlu, TensorCopy, TensorLoad, TensorSave, TensorTensor
from ..ir.operands import Immediate, PhysicalAP, RegisterAccess, RegisterAP, SymbolicAP
from .registry import Finding, register


@dataclass(frozen=True)
class IrCheck:
    id: str
    types: tuple[type[Instruction], ...]
    fn: Callable[[Instruction], Iterator[Finding]]
    stage: str


IR_CHECKS: list[IrCheck] = []


def ir_check(id: str, title: str, source: str, types: tuple[type[Instruction], ...], *, stage: str = "isa",
             pedantic: bool = False) -> Callable[[Callable[..., Iterator[Finding]]], Callable[..., Iterator[Finding]]]:
    register(id, title, source, "ir", pedantic=pedantic, stage=stage)

    def deco(fn: Callable[..., Iterator[Finding]]) -> Callable[..., Iterator[Finding]]:
        IR_CHECKS.append(IrCheck(id, types, fn, stage))
        return fn

    return deco


_TENSOR = (PhysicalAP, RegisterAP, SymbolicAP)


@ir_check("cp.equal_partitions", "tensor src, mask and dst have equal partition counts", "SPEC §4.5",
          (CopyPredicated,))
def _equal_partitions(inst: Instruction) -> Iterator[Finding]:
    assert isinstance(inst, CopyPredicated)
    parts = {role: op.ap[0][1] for role, op in (("mask", inst.mask), ("src", inst.src), ("dst", inst.dst))
             if isinstance(op, _TENSOR) and op.ap}
    if len(set(parts.values())) > 1:
        yield Finding("cp.equal_partitions", "operands have different partition counts", "partitions",
                      ", ".join(f"{k}={v}" for k, v in parts.items()), "equal")


def _same_partitions(check: str, roles: tuple[str, ...]) -> Callable[[Instruction], Iterator[Finding]]:
    """Tensor operands must name the same number of partitions: the bundle has one partition-count
    byte (taken from one operand), so a different count elsewhere would be dropped silently."""

    def fn(inst: Instruction) -> Iterator[Finding]:
        parts = {r: op.ap[0][1] for r in roles if isinstance(op := getattr(inst, r), _TENSOR) and op.ap}
        if len(set(parts.values())) > 1:
            yield Finding(check, "operands have different partition counts (the bundle carries one)", "partitions",
                          ", ".join(f"{k}={v}" for k, v in parts.items()), "equal")

    return fn


ir_check("tt.equal_partitions", "TensorTensor in0, in1 and out have equal partition counts",
         "SPEC §4.4 (one num_partitions byte); semantics.md §TensorTensor", (TensorTensor,))(
    _same_partitions("tt.equal_partitions", ("in0", "in1", "out")))
ir_check("copy.equal_partitions", "TensorCopy src and dst have equal partition counts",
         "SPEC §4.7 (one num_partitions byte); semantics.md §TensorCopy", (TensorCopy,))(
    _same_partitions("copy.equal_partitions", ("src", "dst")))


_ALU32 = {Dtype.uint32, Dtype.int32, Dtype.uint64, Dtype.int64}


@ir_check("alu.dtypes", "RegisterAlu: a 32-bit op takes src1 uint32/int32/uint64/int64; a 64-bit op "
          "operates on uint64 only", "SPEC §4.2", (RegisterAlu,))
def _alu_dtypes(inst: Instruction) -> Iterator[Finding]:
    assert isinstance(inst, RegisterAlu)
    if inst.attr("is_64bit"):
        for role, op in (("src1", inst.src1), ("src2", inst.src2), ("dst", inst.dst)):
            if isinstance(op, (RegisterAccess, RegisterAP)) and op.dtype != Dtype.uint64:
                yield Finding("alu.dtypes", "a 64-bit RegisterAlu operates on uint64 only", f"{role}.dtype",
                              getattr(op.dtype, "name", op.dtype), "uint64")
    elif isinstance(inst.src1, (RegisterAccess, RegisterAP)) and inst.src1.dtype not in _ALU32:
        yield Finding("alu.dtypes", "a 32-bit RegisterAlu takes src1 uint32, int32, uint64 or int64",
                      "src1.dtype", getattr(inst.src1.dtype, "name", inst.src1.dtype), "uint32, int32, uint64, int64")


_LS_KINDS = {"Const", "Internal", "Pointer"}


@ir_check("ls.tensor_kind", "TensorLoad/Save reference only Const/Internal/Pointer tensors (BIR145)", "SPEC §4.3",
          (TensorLoad, TensorSave), stage="bir")
def _ls_kind(inst: Instruction) -> Iterator[Finding]:
    assert isinstance(inst, (TensorLoad, TensorSave))
    mem = inst.memory
    alloc = None
    if isinstance(mem, PhysicalAP) and mem.location is not None:
        alloc = mem.location.allocation
    elif isinstance(mem, RegisterAP):
        alloc = mem.allocation
    kind = alloc.extra.get("kind") if alloc is not None else None
    if isinstance(kind, str) and kind not in _LS_KINDS:
        yield Finding("ls.tensor_kind", f"{inst.opcode} can only reference Const/Internal/Pointer tensors, but it is "
                      f"referencing a {kind} tensor (BIR145)", "memory.kind", kind, "Const, Internal, Pointer")


@ir_check("sr.operands", "SelectReduce has a predicate tensor, a src tensor and an immediate fill (BIR210)",
          "SPEC §4.5", (CopyPredicated,), stage="bir")
def _sr_operands(inst: Instruction) -> Iterator[Finding]:
    assert isinstance(inst, CopyPredicated)
    op = inst.attr("op")
    if op in (None, AluOp.bypass):
        return
    if not isinstance(inst.mask, _TENSOR):
        yield Finding("sr.operands", "SelectReduce needs a predicate tensor (BIR210)", "mask")
    if not isinstance(inst.fill, Immediate):
        yield Finding("sr.operands", "SelectReduce needs an immediate fill (BIR210)", "fill",
                      getattr(inst.fill, "kind", None), "imm_value")
