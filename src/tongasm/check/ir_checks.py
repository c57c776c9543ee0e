"""IR-level checks: rules that need the BIR instruction, not just its bytes (operand partition
counts, register dtypes on the register path, the tensor kind of a memory location). They run
when a kernel is checked or assembled, after its bundles are built."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable, Iterator

from ..isa.decisions import DecisionSet
from ..isa.decisions.spec import SelectReduceFill, VariableId
from ..isa.descriptors import PSUM_PARTITION_BYTES
from ..isa.enums import DTYPE_INFO, PACKED_DTYPES, AluOp, Dtype, MemoryType
from ..isa.targets import TARGETS, Target
from ..ir.instructions import (
    CopyPredicated, Function, Instruction, RegisterAlu, RegisterMove, Select, TensorCopy, TensorLoad, TensorSave, TensorTensor,
)
from ..ir.operands import Immediate, PhysicalAP, RegisterAccess, RegisterAP, SymbolicAP
from .registry import Finding, register


@dataclass(frozen=True)
class IrCheck:
    id: str
    types: tuple[type[Instruction], ...]
    fn: Callable[..., Iterator[Finding]]  # fn(inst); fn(inst, decisions); or fn(inst, function)
    stage: str
    needs_decisions: bool = False
    needs_function: bool = False  # run only when the instruction's function is known
    needs_target: bool = False  # fn(inst, target)
    #: whether its findings may depend on a physical access pattern's offset, for this instruction
    #: (the assembler's instruction templates run such checks per instruction, tongasm.codegen.templates)
    offsets: Callable[[Instruction], bool] | bool = False


IR_CHECKS: list[IrCheck] = []


def ir_check(id: str, title: str, source: str, types: tuple[type[Instruction], ...], *, stage: str = "isa",
             pedantic: bool = False, needs_decisions: bool = False, needs_function: bool = False,
             needs_target: bool = False, offsets: Callable[[Instruction], bool] | bool = False,
             ) -> Callable[[Callable[..., Iterator[Finding]]], Callable[..., Iterator[Finding]]]:
    """Register an IR check. ``offsets``: True (or a predicate on the instruction) when its findings
    may change with an operand's offset alone."""
    register(id, title, source, "ir", pedantic=pedantic, stage=stage)

    def deco(fn: Callable[..., Iterator[Finding]]) -> Callable[..., Iterator[Finding]]:
        IR_CHECKS.append(IrCheck(id, types, fn, stage, needs_decisions, needs_function, needs_target, offsets))
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


# --- lint: bytes that follow the spec but blur what they say (warnings, never refusals) --------------

@ir_check("lint.sr_register_fill", "a SelectReduce register fill under D-16=one-byte: the byte holds the register "
          "id with no source flag, so a reader takes it for an immediate fill", "D-16", (CopyPredicated,),
          stage="lint", needs_decisions=True)
def _sr_register_fill(inst: Instruction, decisions: DecisionSet) -> Iterator[Finding]:
    assert isinstance(inst, CopyPredicated)
    if decisions.get(SelectReduceFill).one_byte and isinstance(inst.fill, (RegisterAccess, RegisterAP)):
        yield Finding("lint.sr_register_fill", "the fill byte +0x27 carries register id "
                      f"r{inst.fill.register.lo if inst.fill.register else '?'} with no source flag: decoders and "
                      "the simulator read it as an immediate fill (D-16=one-byte)", "fill", "register_access",
                      "an immediate fill, or --decision D-16=source-byte")


@ir_check("lint.ls_offset_r0", "a TensorLoad/Save offset register r0 encodes as id 0, which also means 'no offset'",
          "D-22", (TensorLoad, TensorSave), stage="lint")
def _ls_offset_r0(inst: Instruction) -> Iterator[Finding]:
    assert isinstance(inst, (TensorLoad, TensorSave))
    off = inst.offset
    reg = getattr(off, "register", None)
    if reg is not None and reg.lo == 0:
        yield Finding("lint.ls_offset_r0", "offset register r0 is written as id 0, the value that means 'no offset': "
                      "the bundle reads as a load/save without an offset (D-22)", "offset", "r0", "r1..r61")


@ir_check("lint.var_id_collision", "a TensorLoad/Save variable id (D-8: tensor_id, else the location's index) that "
          "another memory location of the function gets too", "D-8", (TensorLoad, TensorSave), stage="lint",
          needs_function=True)
def _var_id_collision(inst: Instruction, func: Function) -> Iterator[Finding]:
    var_id = VariableId.var_id  # D-8
    assert isinstance(inst, (TensorLoad, TensorSave))
    mem = inst.memory
    loc = mem.location if isinstance(mem, PhysicalAP) else None
    if loc is None:
        return
    vid = var_id(loc)
    others = [o.name for a in func.allocations for o in a.locations if o is not loc and var_id(o) == vid]
    if others:
        yield Finding("lint.var_id_collision", f"memory location {loc.name!r} is variable {vid}, and so is "
                      f"{', '.join(repr(n) for n in others)} (D-8: tensor_id, else the location's index): the bundle "
                      "does not say which one it means", "var_id", vid, "a variable id no other location has")


@ir_check("lint.select_overlap", "a Select whose dst overlaps its predicate or on_true: the lowering writes dst "
          "before the predicated copy reads them", "D-17", (Select,), stage="lint",
          offsets=lambda inst: any(_same_location(inst.dst, op) for op in (inst.predicate, inst.on_true)))  # type: ignore[attr-defined]
def _select_overlap(inst: Instruction) -> Iterator[Finding]:
    assert isinstance(inst, Select)
    dst = inst.dst
    for role, op in (("predicate", inst.predicate), ("on_true", inst.on_true)):
        if _may_overlap(dst, op):
            yield Finding("lint.select_overlap", f"dst may overlap {role}: the lowering (D-17) first copies on_false "
                          f"into dst, so the predicated copy then reads overwritten {role} values, not "
                          f"where(predicate, on_true, on_false)", role, "overlaps dst", "disjoint from dst")


def _same_location(x: object, y: object) -> bool:
    """Two physical APs on one memory location: only then may their overlap depend on offsets."""
    return isinstance(x, PhysicalAP) and isinstance(y, PhysicalAP) and x.location is not None and \
        x.location is y.location


def _may_overlap(x: object, y: object) -> bool:
    """Conservatively: two physical APs on the same memory location whose partition ranges and
    per-partition byte ranges intersect (register APs: same register)."""
    if isinstance(x, RegisterAP) and isinstance(y, RegisterAP):
        return x.register is not None and x.register is y.register
    if not (isinstance(x, PhysicalAP) and isinstance(y, PhysicalAP)) or x.location is None:
        return False
    if x.location is not y.location or not x.ap or not y.ap:
        return False
    ex, ey = _extent(x), _extent(y)
    return ex is not None and ey is not None and ex[0] < ey[1] and ey[0] < ex[1] and ex[2] < ey[3] and ey[2] < ex[3]


def _extent(op: PhysicalAP) -> tuple[int, int, int, int] | None:
    """[first partition, last + 1), [first byte, last + 1) of an AP (element offsets row-major, SPEC §5)."""
    loc = op.location
    if loc is None or not isinstance(op.dtype, Dtype) or not loc.dims or len(loc.dims) < 2 or loc.dims[1] <= 0:
        return None
    size = DTYPE_INFO[op.dtype].size
    off = op.offset * size
    p0, b0 = off // loc.dims[1], off % loc.dims[1]
    (_pstep, pnum), *free = op.ap
    lo = hi = 0
    for step, num in free:
        span = step * (num - 1) * size
        lo, hi = lo + min(span, 0), hi + max(span, 0)
    return p0, p0 + pnum, b0 + lo, b0 + hi + size  # consecutive partitions: the partition step is not used


@ir_check("lint.ls_reads_as_64bit", "a 32-bit TensorLoad/Save with an even innermost count and offset register = "
          "data register + 1 is byte-identical to a 64-bit access", "D-22, D-9", (TensorLoad, TensorSave), stage="lint")
def _ls_reads_as_64bit(inst: Instruction) -> Iterator[Finding]:
    assert isinstance(inst, (TensorLoad, TensorSave))
    mem, data, off = inst.memory, getattr(inst.reg, "register", None), getattr(inst.offset, "register", None)
    if data is None or off is None or not isinstance(mem, (PhysicalAP, RegisterAP)) or not mem.ap:
        return
    if mem.dtype in (Dtype.int64, Dtype.uint64) or mem.ap[-1][1] % 2 or off.lo != data.lo + 1:
        return
    yield Finding("lint.ls_reads_as_64bit", f"data r{data.lo} with offset r{off.lo} and an even count writes the same "
                  "bytes as a 64-bit access of the pair (D-9, D-22): decoders and the simulator (S-14) read it as "
                  "64-bit", "offset", f"r{off.lo}", f"any register but r{data.lo + 1}")


#: the registers usable on every target (0..61 on gen2 and gen3)
_USABLE_REGISTERS = min(t.registers for t in TARGETS.values())


@ir_check("register.id_range", "register ids are usable physical registers (0..61)", "SPEC §1",
          (RegisterAlu, RegisterMove, TensorLoad, TensorSave))
def _pair_partners(inst: Instruction) -> Iterator[Finding]:
    """A 64-bit register operand also uses r{lo + 1}; when the bundle has no field for that partner (a
    64-bit RegisterAlu source) the bundle check cannot see it, so it is checked here, the same way as
    an encoded id."""
    if not (isinstance(inst, RegisterAlu) and inst.attr("is_64bit")):
        return
    for role in ("src1", "src2"):
        op = getattr(inst, role)
        if isinstance(op, (RegisterAccess, RegisterAP)) and op.register is not None:
            lo = op.register.lo
            if lo + 1 > _USABLE_REGISTERS - 1:
                yield Finding("register.id_range", f"the 64-bit {role} is read from r{lo} and r{lo + 1}; r{lo + 1} is "
                              "not a usable register", f"{role} (hi)", lo + 1, f"0..{_USABLE_REGISTERS - 1}")


_INT_MASKS = {Dtype.uint8, Dtype.int8, Dtype.uint16, Dtype.int16, Dtype.uint32, Dtype.int32}


@ir_check("cp.mask_dtype", "the predicate mask is an 8/16/32-bit integer", "SPEC §4.5", (CopyPredicated,))
def _mask_bir_dtype(inst: Instruction) -> Iterator[Finding]:
    """On the BIR dtype: float8_e8m0fnu shares uint8's wire tag and float4_e2m1fn_x4 uint16's, so the
    bundle check on the wire tag cannot see them."""
    mask = inst.ins[0] if inst.ins else None
    if mask is not None and isinstance(mask.dtype, Dtype) and mask.dtype not in _INT_MASKS:
        yield Finding("cp.mask_dtype", "predicate mask dtype must be an 8/16/32-bit integer", "mask.dtype",
                      mask.dtype.name, "uint8, int8, uint16, int16, uint32, int32")


@ir_check("geometry.bytes", "the bytes an operand touches stay inside its partition (SBUF: the target's bytes "
          "per partition; PSUM: 16 KiB)", "SPEC §3.4", (Instruction,), needs_target=True,
          offsets=lambda inst: any(getattr(op, "dtype", None) in PACKED_DTYPES for ops in (inst.ins, inst.outs)
                                   for op in ops))
def _packed_geometry(inst: Instruction, target: Target) -> Iterator[Finding]:
    """For the packed dtypes (``*_x4``): the bundle's wire tag is the 1- or 2-byte element's, so the
    bundle check under-counts; here each element is sized by its BIR dtype."""
    for role, op in _operands(inst):
        if not isinstance(op, PhysicalAP) or op.location is None or not isinstance(op.dtype, Dtype):
            continue
        if op.dtype not in PACKED_DTYPES or op.location.type not in (MemoryType.SB, MemoryType.PSUM):
            continue
        size = DTYPE_INFO[op.dtype].size
        loc = op.location
        width = loc.dims[1] if loc.dims and len(loc.dims) > 1 and loc.dims[1] > 0 else None
        start = op.offset * size
        byte = loc.addr + (start % width if width else start)
        lo = hi = 0
        for step, num in op.ap[1:]:
            if num > 1:
                span = step * (num - 1) * size
                lo, hi = (lo + span, hi) if span < 0 else (lo, hi + span)
        first, last = byte + lo, byte + hi + size - 1
        limit = target.sbuf_bytes_per_partition if loc.type == MemoryType.SB else PSUM_PARTITION_BYTES
        if first < 0 or last >= limit:
            yield Finding("geometry.bytes", f"{role} touches bytes {first:#x}..{last:#x} of its partition "
                          f"({op.dtype.name} elements are {size} bytes)", role, f"{first:#x}..{last:#x}",
                          f"0x0..{limit - 1:#x}")


def _operands(inst: Instruction) -> Iterator[tuple[str, object]]:
    names = {(out, k): role for role, (out, k) in type(inst).ROLES.items()}
    for out, ops in ((False, inst.ins), (True, inst.outs)):
        for k, op in enumerate(ops):
            yield names.get((out, k), f"{'outs' if out else 'ins'}[{k}]"), op
