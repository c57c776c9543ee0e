"""A small Python builder: write a kernel in Python without JSON.

    from tongasm.ir.builder import KernelBuilder
    kb = KernelBuilder(arch="gen2")
    a = kb.sbuf("a", bytes_per_partition=2048)
    b = kb.sbuf("b", bytes_per_partition=2048, addr=2048)
    kb.tensor_tensor(out=b.tile("float32", 128, 512), in0=a.tile("float32", 128, 512),
                     in1=a.tile("float32", 128, 512), op="add")
    kernel = kb.build()            # IR, ready for tongasm.codegen.assemble
    text = kb.to_json_text()       # the same kernel as BIR JSON

Enum arguments take the BIR names of SPEC §2 (``"add"``, ``"float32"``, ``"Pool"``...) or enum
members. The builder produces exactly the IR the JSON reader would, so a kernel built here and the
same kernel read from its JSON encode to the same bytes.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any
from collections.abc import Sequence

from ..errors import UsageError
from ..isa.enums import AccType, AluOp, Dtype, Engine, MemoryType, MemsetMode, UpdateMode, WaitMode, dtype_size
from ..isa.vector_enums import ACT_FUNC_ALIASES, ActFunc, AxisList
from .bir_json import DTYPE_ALIASES, ENGINE_ALIASES, kernel_to_json, write_bir
from .instructions import (
    Block, CopyPredicated, Function, GenericCopy, Instruction, Kernel, Matmult, Memset, MoveShape, RegisterAlu,
    RegisterMove, Select, TensorCopy, TensorLoad, TensorSave, TensorTensor, instruction_class,
)
from .operands import (
    Allocation, APPair, Immediate, MemoryLocation, Operand, PhysicalAP, Register, RegisterAccess, RegisterAP,
    SyncInfo, SyncUpdate, SyncWait,
)

EnumArg = str | int | enum.Enum


def _enum(cls: type[enum.IntEnum], v: EnumArg, aliases: dict[str, Any] | None = None) -> Any:
    if isinstance(v, cls):
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        try:
            return cls(v)
        except ValueError:
            return v
    if isinstance(v, str):
        if v in cls.__members__:
            return cls[v]
        if aliases and v.lower() in aliases:
            return aliases[v.lower()]
        for m in cls:
            if m.name.lower() == v.lower():
                return m
    raise UsageError(f"unknown {cls.__name__} {v!r}; known: {', '.join(m.name for m in cls)}")


def dtype(v: EnumArg) -> Dtype:
    return _enum(Dtype, v, dict(DTYPE_ALIASES))


@dataclass(eq=False)
class Tensor:
    """A memory location created by the builder; makes access patterns on itself."""

    location: MemoryLocation
    allocation: Allocation

    @property
    def name(self) -> str:
        return self.location.name

    def ap(self, dt: EnumArg, ap: Sequence[Sequence[int]], offset: int = 0) -> PhysicalAP:
        """A physical AP: ``ap`` = ``[[step, num], ...]`` (partition pair first), offset in elements."""
        pairs: tuple[APPair, ...] = tuple((int(s), int(n)) for s, n in ap)
        return PhysicalAP(dtype(dt), pairs, self.location, self.location.name, self.allocation.name, offset)

    def tile(self, dt: EnumArg, partitions: int, *free: int, offset: int = 0) -> PhysicalAP:
        """A dense row-major AP: ``tile("float32", 128, 512)`` = ``[[512, 128], [1, 512]]``."""
        dims = (partitions, *free)
        pairs = []
        for i, n in enumerate(dims):
            pairs.append((math.prod(dims[i + 1:]), n))
        return self.ap(dt, pairs, offset)

    def reg_ap(self, dt: EnumArg, register: Register, ap: Sequence[Sequence[int]]) -> RegisterAP:
        """A register AP whose address is in ``register``, on this tensor's location set."""
        pairs = tuple((int(s), int(n)) for s, n in ap)
        return RegisterAP(dtype(dt), pairs, register, register.name, self.allocation.name, self.allocation)


def sync(wait: tuple[Any, ...] | None = None, update: tuple[Any, ...] | None = None) -> SyncInfo:
    """Sync info: ``wait=("sem_ge_imm", index, value)``, ``update=("sem_inc", index)`` or with a value.

    A sem_ge_reg wait takes a :class:`Register` as its value.
    """
    waits: tuple[SyncWait, ...] = ()
    updates: tuple[SyncUpdate, ...] = ()
    if wait is not None:
        mode = _enum(WaitMode, wait[0])
        value = wait[2] if len(wait) > 2 else None
        if isinstance(value, Register):
            waits = (SyncWait(mode, wait[1], None, value),)
        else:
            waits = (SyncWait(mode, wait[1], value),)
    if update is not None:
        updates = (SyncUpdate(_enum(UpdateMode, update[0]), update[1], update[2] if len(update) > 2 else None),)
    return SyncInfo(waits, updates)


class KernelBuilder:
    """Builds one BIR function (one block) instruction by instruction."""

    def __init__(self, arch: str | None = "gen2", function: str = "main") -> None:
        self.arch = arch
        self.func = Function(function)
        self.block = Block("Block1")
        self.func.blocks.append(self.block)
        self._n = 0
        self._loc_index = 0

    # --- memory and registers ------------------------------------------------------------------

    def _memory(self, name: str, mtype: MemoryType, *, partitions: int, bytes_per_partition: int, addr: int = 0,
                base: int = 0, bank: int = 0, tensor_id: int | None = None, kind: str | None = None,
                dtype: EnumArg | None = None, shape: Sequence[int] | None = None) -> Tensor:
        loc = MemoryLocation(name, mtype, addr, base, bank, (partitions, bytes_per_partition), tensor_id,
                             self._loc_index)
        self._loc_index += 1
        extra: dict[str, Any] = {}
        if kind is not None:
            extra["kind"] = kind  # TensorKind: Input, Output, Internal, Const...
        if dtype is not None:
            extra["dtype"] = globals()["dtype"](dtype).name
        if shape is not None:
            extra["tensor_shape"] = list(shape)
        alloc = Allocation(f"{name}_set", [loc], extra)
        loc.allocation = alloc
        self.func.allocations.append(alloc)
        return Tensor(loc, alloc)

    def sbuf(self, name: str, *, bytes_per_partition: int, partitions: int = 128, addr: int = 0,
             base: int = 0, **meta: Any) -> Tensor:
        """An SBUF tensor starting at partition ``base``, byte ``addr`` of each partition.

        ``kind`` (TensorKind), ``dtype`` and ``shape`` (the allocation's ``tensor_shape``) are optional
        metadata; the simulator uses them to read and write the tensor as an array.
        """
        return self._memory(name, MemoryType.SB, partitions=partitions, bytes_per_partition=bytes_per_partition,
                            addr=addr, base=base, **meta)

    def psum(self, name: str, *, bytes_per_partition: int = 2048, partitions: int = 128, bank: int = 0,
             addr: int = 0, base: int = 0, **meta: Any) -> Tensor:
        """A PSUM tensor in ``bank`` (2 KiB per partition per bank)."""
        return self._memory(name, MemoryType.PSUM, partitions=partitions, bytes_per_partition=bytes_per_partition,
                            addr=addr, base=base, bank=bank, **meta)

    def dram(self, name: str, *, nbytes: int, memory_type: str = "DRAM", tensor_id: int | None = None,
             **meta: Any) -> Tensor:
        """A DRAM tensor (memory type DRAM, Input or Output), one row of ``nbytes``."""
        return self._memory(name, MemoryType(memory_type), partitions=1, bytes_per_partition=nbytes,
                            tensor_id=tensor_id, **meta)

    def register(self, name: str, ids: int | Sequence[int]) -> Register:
        """Declare a named register (one id, or a ``[lo, hi]`` pair) in the function's register table."""
        reg = Register(name, (ids,) if isinstance(ids, int) else tuple(ids))
        self.func.registers[name] = reg
        return reg

    @staticmethod
    def reg(register: Register | int, dt: EnumArg = "int32") -> RegisterAccess:
        """A register_access operand (a bare int means the literal register ``r<N>``)."""
        if isinstance(register, int):
            register = Register(f"r{register}", (register,))
        return RegisterAccess(dtype(dt), register, register.name)

    @staticmethod
    def imm(dt: EnumArg, value: int | float) -> Immediate:
        return Immediate(dtype(dt), value)

    # --- instructions ---------------------------------------------------------------------------

    def _add(self, inst: Instruction, name: str | None, engine: EnumArg, sync_: SyncInfo | None) -> Instruction:
        inst.name = name if name is not None else f"{inst.OPCODE.lower()}_{self._n}"
        inst.engine = _enum(Engine, engine, dict(ENGINE_ALIASES))
        inst.sync = sync_
        self._n += 1
        self.block.instructions.append(inst)
        return inst

    def tensor_tensor(self, out: Operand, in0: Operand, in1: Operand, op: EnumArg, *, acc: EnumArg = "Idle",
                      engine: EnumArg = "DVE", name: str | None = None, sync: SyncInfo | None = None) -> Instruction:
        attrs = {"op": _enum(AluOp, op), "acc": _enum(AccType, acc)}
        return self._add(TensorTensor(ins=[in0, in1], outs=[out], attrs=attrs), name, engine, sync)

    def copy_predicated(self, dst: Operand, mask: Operand, src: Operand, fill: Operand | None = None, *,
                        reverse_pred: bool = False, op: EnumArg = "bypass", acc: EnumArg = "Idle",
                        engine: EnumArg = "DVE", name: str | None = None, sync: SyncInfo | None = None) -> Instruction:
        attrs = {"reverse_pred": reverse_pred, "op": _enum(AluOp, op), "acc": _enum(AccType, acc)}
        ins = [mask, src] + ([fill] if fill is not None else [])
        return self._add(CopyPredicated(ins=ins, outs=[dst], attrs=attrs), name, engine, sync)

    def select(self, dst: Operand, predicate: Operand, on_true: Operand, on_false: Operand, *,
               engine: EnumArg = "DVE", name: str | None = None, sync: SyncInfo | None = None) -> Instruction:
        return self._add(Select(ins=[predicate, on_true, on_false], outs=[dst]), name, engine, sync)

    def tensor_copy(self, dst: Operand, src: Operand, *, generic: bool = False, engine: EnumArg = "DVE",
                    name: str | None = None, sync: SyncInfo | None = None) -> Instruction:
        cls = GenericCopy if generic else TensorCopy
        return self._add(cls(ins=[src], outs=[dst]), name, engine, sync)

    def memset(self, dst: Operand, constant: int | float | None = None, *, constant_bits: int | None = None,
               mode: EnumArg = "Const", engine: EnumArg = "DVE", name: str | None = None,
               sync: SyncInfo | None = None) -> Instruction:
        """Fill ``dst`` with ``constant`` (a value in its dtype: 1 on float32 fills 1.0) or with the raw
        bit pattern ``constant_bits``; neither given fills 0."""
        if constant is not None and constant_bits is not None:
            raise UsageError("memset takes constant (a value in the dst dtype) or constant_bits (raw bits), not both")
        fill: dict[str, int | float] = ({"constant_bits": constant_bits} if constant_bits is not None
                                        else {"constant": 0 if constant is None else constant})
        attrs = {"mode": _enum(MemsetMode, mode), **fill}
        return self._add(Memset(ins=[], outs=[dst], attrs=attrs), name, engine, sync)

    def move_shape(self, ap: Operand, *, output: bool = False, engine: EnumArg = "Unassigned",
                   name: str | None = None, sync: SyncInfo | None = None) -> Instruction:
        inst = MoveShape(ins=[] if output else [ap], outs=[ap] if output else [])
        return self._add(inst, name, engine, sync)

    def register_move(self, dst: Operand, src: Operand, *, engine: EnumArg = "SP", name: str | None = None,
                      sync: SyncInfo | None = None) -> Instruction:
        return self._add(RegisterMove(ins=[src], outs=[dst]), name, engine, sync)

    def register_alu(self, dst: Operand, src1: Operand, src2: Operand, op: EnumArg, *, is_64bit: bool = False,
                     engine: EnumArg = "SP", name: str | None = None, sync: SyncInfo | None = None) -> Instruction:
        attrs = {"op": _enum(AluOp, op), "is_64bit": is_64bit}
        return self._add(RegisterAlu(ins=[src1, src2], outs=[dst], attrs=attrs), name, engine, sync)

    def tensor_load(self, dst: Operand, memory: Operand, offset: Operand | None = None, *, engine: EnumArg = "SP",
                    name: str | None = None, sync: SyncInfo | None = None) -> Instruction:
        ins = [memory] + ([offset] if offset is not None else [])
        return self._add(TensorLoad(ins=ins, outs=[dst]), name, engine, sync)

    def tensor_save(self, memory: Operand, src: Operand, offset: Operand | None = None, *, engine: EnumArg = "SP",
                    name: str | None = None, sync: SyncInfo | None = None) -> Instruction:
        outs = [memory] + ([offset] if offset is not None else [])
        return self._add(TensorSave(ins=[src], outs=outs), name, engine, sync)

    # --- the next families (next-families.md) ----------------------------------------------------------
    # Scalar operands (bias, scale, alpha, s0, s1) are access patterns ([P,1] pointers), register_access
    # operands, or numbers (float32 immediates). Activation ins follow N-4's default roles:
    # [in, bias, scale, alpha].

    @staticmethod
    def _scalar(v: Operand | float | int) -> Operand:
        return v if isinstance(v, Operand) else Immediate(Dtype.float32, float(v))

    def load_act_func_set(self, set_id: int, *, engine: EnumArg = "Activation", name: str | None = None,
                          sync: SyncInfo | None = None) -> Instruction:
        """LoadActFuncSet (0x23): install activation function set ``set_id`` (chapter §2.2)."""
        return self._declared("LoadActFuncSet", [], [], {"act_func_set_id": set_id}, name, engine, sync)

    def matmult(self, dst: Operand, stationary: Operand, moving: Operand, *, start: bool = True, stop: bool = True,
                transpose: bool = False, engine: EnumArg = "PE", name: str | None = None,
                sync: SyncInfo | None = None) -> Instruction:
        """Matmult (lowered to 0x01 Ldweights + 0x02 Matmul): dst (PSUM) = stationary^T @ moving, written
        (``start``) or added to dst; ``stop`` ends the accumulation group (R-11)."""
        attrs = {"start_tensor_calc": start, "stop_tensor_calc": stop, "is_transpose": transpose}
        return self._add(Matmult(ins=[stationary, moving], outs=[dst], attrs=attrs), name, engine, sync)

    def activation(self, dst: Operand, src: Operand, func: EnumArg, *, bias: Operand | float = 0.0,
                   scale: Operand | float = 1.0, alpha: Operand | float = 0.0, acc: EnumArg = "Idle",
                   reduce_res: Operand | None = None, engine: EnumArg = "Activation", name: str | None = None,
                   sync: SyncInfo | None = None) -> Instruction:
        """Activation (0x21, + 0x24 with ``reduce_res``): dst = func(src*scale + bias; alpha)."""
        from .act import Activation

        attrs = {"func": _enum(ActFunc, func, dict(ACT_FUNC_ALIASES)), "acc": _enum(AccType, acc),
                 "scale": float(scale) if not isinstance(scale, Operand) else 1.0,
                 "alpha": float(alpha) if not isinstance(alpha, Operand) else 0.0}
        ins = [src, self._scalar(bias), self._scalar(scale), self._scalar(alpha)]
        outs = [dst] + ([reduce_res] if reduce_res is not None else [])
        return self._add(Activation(ins=ins, outs=outs, attrs=attrs), name, engine, sync)

    def read_accumulator(self, dst: Operand, *, dve: bool = False, negated: bool = False,
                         engine: EnumArg | None = None, name: str | None = None,
                         sync: SyncInfo | None = None) -> Instruction:
        """ActivationReadAccumulator (0x24), or DveReadAccumulator (0x9B) with ``dve``."""
        from .act import ActivationReadAccumulator, DveReadAccumulator

        if dve:
            inst: Instruction = DveReadAccumulator(ins=[], outs=[dst], attrs={"negated": negated})
        else:
            inst = ActivationReadAccumulator(ins=[], outs=[dst])
        return self._add(inst, name, engine or ("DVE" if dve else "Activation"), sync)

    def tensor_reduce(self, dst: Operand, src: Operand, op: EnumArg, axis: EnumArg = "X", *, negate: bool = False,
                      apply_transpose: bool = False, engine: EnumArg = "DVE", name: str | None = None,
                      sync: SyncInfo | None = None) -> Instruction:
        """TensorReduce over the innermost free dims named by ``axis`` (X, XY, XYZ, XYZW)."""
        from .reduce import TensorReduce

        attrs = {"op": _enum(AluOp, op), "axis": _enum(AxisList, axis), "negate": negate,
                 "apply_transpose": apply_transpose}
        return self._add(TensorReduce(ins=[src], outs=[dst], attrs=attrs), name, engine, sync)

    def reciprocal(self, dst: Operand, src: Operand, *, engine: EnumArg = "DVE", name: str | None = None,
                   sync: SyncInfo | None = None) -> Instruction:
        """Reciprocal (0x48): dst = 1 / src."""
        return self._declared("Reciprocal", [src], [dst], {}, name, engine, sync)

    def tensor_scalar(self, dst: Operand, data: Operand, op0: EnumArg, s0: Operand | float,
                      op1: EnumArg = "bypass", s1: Operand | float | None = None, *, reverse0: bool = False,
                      reverse1: bool = False, acc: EnumArg = "Idle", reduce_res: Operand | None = None,
                      negate_second_output: bool = False, engine: EnumArg = "DVE", name: str | None = None,
                      sync: SyncInfo | None = None) -> Instruction:
        """TensorScalarPtr: dst = op1(op0(data, s0), s1); with ``acc`` (and ``reduce_res``) the fused reduce."""
        from .scalar import TensorScalarPtr

        attrs = {"op0": _enum(AluOp, op0), "op1": _enum(AluOp, op1), "reverse0": reverse0, "reverse1": reverse1,
                 "acc": _enum(AccType, acc), "negate_second_output": negate_second_output}
        ins = [data, self._scalar(s0)] + ([self._scalar(s1)] if s1 is not None else [])
        outs = [dst] + ([reduce_res] if reduce_res is not None else [])
        return self._add(TensorScalarPtr(ins=ins, outs=outs, attrs=attrs), name, engine, sync)

    def bn_stats(self, dst: Operand, src: Operand, *, engine: EnumArg = "DVE", name: str | None = None,
                 sync: SyncInfo | None = None) -> Instruction:
        """BNStats (0x61): [n, mean, M2] of the even and the odd elements of each partition."""
        from .reduce import BNStats

        return self._add(BNStats(ins=[src], outs=[dst], attrs={"apply_transpose": False}), name, engine, sync)

    def bn_aggregate(self, dst: Operand, src: Operand, *, engine: EnumArg = "DVE", name: str | None = None,
                     sync: SyncInfo | None = None) -> Instruction:
        """BNStatsAggregate (0x62): [mean, variance] of each partition."""
        from .reduce import BNStatsAggregate

        return self._add(BNStatsAggregate(ins=[src], outs=[dst]), name, engine, sync)

    def _declared(self, opcode: str, ins: list[Operand], outs: list[Operand], attrs: dict[str, Any],
                  name: str | None, engine: EnumArg, sync_: SyncInfo | None) -> Instruction:
        """An instruction whose class a layout record declares (Reciprocal, LoadActFuncSet)."""
        cls = instruction_class(opcode)
        if cls is None:
            raise UsageError(f"no instruction class for {opcode!r}")
        inst = cls(ins=ins, outs=outs, attrs=attrs)
        return self._add(inst, name, engine, sync_)

    # --- output ---------------------------------------------------------------------------------

    def build(self) -> Kernel:
        """The kernel IR (shares the builder's objects; build once you are done adding)."""
        return Kernel([self.func], self.arch, 2, {"neuron_core_id": 0})

    def to_json(self) -> dict[str, Any]:
        return kernel_to_json(self.build())

    def to_json_text(self, indent: int | None = 1) -> str:
        return write_bir(self.build(), indent)


__all__ = ["KernelBuilder", "Tensor", "dtype", "sync", "dtype_size"]
