"""Checks of the next families (``next-families.md``): bundle checks on the decoded fields, IR
checks on the BIR instruction, the encoder refusals' ids, and the one stream rule, function-set
residency (N-35): an Activation's function must be in the set the last LoadActFuncSet (0x23) of its
stream installed.

Bundle checks apply to the layouts whose record lists their id; IR checks to the instruction types
they name. A rule between the geometries of two operands (partition counts, element counts) is an IR
check here, not an encoder refusal: the plan of an instruction is shared by every instruction that
differs only in the geometry of its bound operands (codegen/plan.py), so codegen never compares them.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ..isa.enums import ALU_FROM_WIRE, ALU_WIRE, AluClass, AluOp
from ..isa.opcodes import TR_BITVEC, TR_T_BITVEC, CROSS_BITVEC
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.decisions.scalar import (
    ActivationUnsupportedKeys, ActTableIndex, NonPreluAlpha, PoolPacking, Residency, kind_of_names,
)
from ..isa.decisions.spec import FreeDimOrder
from ..isa.opcodes import (
    ACT_TABLE_LOAD, ACTIVATE, STT_BITVEC, TS_BITVEC, TS_CACHE_CUMULATIVE, TS_CACHE_REDUCE, TS_PTR_BITVEC,
)
from ..isa.vector_enums import REDUCE_IDENTITY
from ..isa.vector_enums import ACT_FUNC_FROM_WIRE, ACT_FUNC_WIRE, ActFunc, AxisList
from ..ir.act import Activation
from ..ir.scalar import ScalarTensorTensor, TensorScalar, TensorScalarCache, TensorScalarPtr, is_scalar_tensor_tensor
from ..ir.reduce import BNStats, BNStatsAggregate, Iota, Pool, TensorReduce
from ..passes.lower_compound import is_lowered_part
from ..ir.instructions import Instruction
from ..ir.operands import Operand, PhysicalAP, RegisterAP, SymbolicAP
from .bundle_checks import BundleView, bundle_check
from .vectorized import Columns, VectorFn, by_classes, vector
from .ir_checks import ir_check
from .registry import CHECKS, CheckSet, Finding, register

_TENSOR = (PhysicalAP, RegisterAP, SymbolicAP)


def _f(check: str, message: str, field: str | None = None, value: object = None, allowed: str | None = None) -> Finding:
    return Finding(check, message, field, value, allowed)


# --- encoder refusals (the vector families' codegen raises these ids) ------------------------------------------------

_ENCODE = [
    ("family.gpsimd_psum", "on the Pool (GpSimd) engine no operand of these families is in PSUM", "N-17"),
    ("family.indirect", "no indirect (gather) access pattern in these families", "chapter §1.2"),
    ("family.scalar_kind", "a scalar operand is an immediate (at most 32 bits), a register without an offset "
     "register, or an SB/PSUM pointer", "chapter §1.3, N-7, N-33"),
    ("tr.axis", "the TensorReduce axis is a known AxisListType naming free dims the input has, not only size-1 ones",
     "chapter §2.4, N-13"),
    ("tr.cross_lane", "TensorReduce over the partitions (C, XYZWC) is not encoded yet", "chapter §5.2"),
    ("tr.op", "the TensorReduce op is a legal reduction", "N-14"),
    ("tr.negate", "negate only with an arithmetic reduce op", "chapter §5.1 (NKI)"),
    ("tr.transpose", "apply_transpose has an opcode under the selected pairing", "N-12"),
    ("act.operands", "an Activation has 4 ins (N-8: or 1, 2 with a scale key) and 1 or 2 outs", "chapter §3.1, N-8"),
    ("act.func", "the activation function is a 2.24 ActivationFunctionType with a wire byte (ordinals 0..29)",
     "chapter §2.1"),
    ("act.unsupported_key", "no Activation key the 0x21 band has no byte for (is_activate2, op0/op1, reverse, "
     "reduce_op other than add)", "N-27, N-31"),
    ("act.load_accumulate", "LoadAccumulate only where the bundle carries its init (Prelu)", "N-41"),
    ("act.imm_dtype", "Activation immediates (and args[2], args[3] of any kind) are float32", "chapter §3.1 (SIMACT)"),
    ("act.gen2_bias", "on gen2 the bias is a [P,1] vector (or the immediate 0.0)", "N-36"),
    ("act.alpha", "a non-zero alpha only with Prelu", "N-9"),
    ("act.no_field", "an Activation operand with no byte under the selected readings has its neutral value",
     "N-4, N-5"),
    ("ts.operands", "a TensorScalarPtr has 2 or 3 ins (NumArgs == 2 || NumArgs == 3), a second scalar for op1 and "
     "negate_second_output only with two outputs", "chapter §4.1"),
    ("family.engine", "the data-movement, search and batch-norm backward forms run on the engine whose streams hold "
     "every real bundle of them (the DVE; batch-norm backward also the Pool engine the book names)", "R-52, R-60"),
    ("ts.unsupported", "a TensorScalarAddr (0x74, is_tensor_scalar_addr) runs on the Pool engine over integer operands",
     "R-70, chapter §4.5"),
    ("stt.operands", "a ScalarTensorTensor has ins = [tensor0 (an AP), scalar, tensor1] ('ScalarTensorTensor must "
     "have 3 inputs') and one output", "chapter §4.4 (TS)"),
    ("stt.tensor1", "the ScalarTensorTensor tensor1 is an access pattern ('ScalarTensorTensor's 3rd argument must be "
     "AP')", "chapter §4.4 (TS)"),
    ("stt.unsupported", "no ScalarTensorTensor transpose or accumulator command (fused form)", "chapter §4.4 (TS)"),
    ("stt.op_class", "ScalarTensorTensor op0 and op1 of one class (N-15); the scan 0xE5 takes arithmetic ops",
     "N-15, chapter §4.4 (NKI)"),
    ("stt.scalar", "the ScalarTensorTensor scalar is encodable: not packed; bit-vector immediates integers at least "
     "as wide as tensor0, bit-vector pointers of tensor0's dtype; under N-21=one-byte-scalar an immediate whose bits "
     "fit one byte", "N-21, N-33, S-37"),
    ("stt.engine", "ScalarTensorTensor runs on the Vector engine (DVE)", "chapter §4.4 (TS, NKI)"),
    ("stt.psum", "ScalarTensorTensor tensor0 and tensor1 are not both in PSUM", "chapter §4.4 (NKI)"),
    ("ts.op_class", "op0 and op1 are both arithmetic or both bit-vector", "N-15"),
    ("ts.transpose", "no apply_transpose with a bit-vector op", "chapter §4.1 (TS)"),
    ("ts.fused", "the fused reduce folds with add/subtract/mult/max/min and has an init exactly with LoadAccumulate",
     "N-19"),
    ("ts.scalar_kind", "only pointer scalars under N-3=pointer-only", "N-3"),
    ("ts.scalar_dtype", "arithmetic scalars are float32; bit-vector immediates integers at least as wide as the "
     "data; bit-vector pointers of the data's dtype", "N-33, S-26"),
    ("ts.reduce_idle", "two outputs need an accumulating acc ('Reduce Accum result is not outputed')", "N-18"),
    ("bn.fmax", "BNStats reads at most 512 elements per partition", "chapter §7.1 (NKI)"),
    ("pool.func", "the pool function is Max or Avg ('has unimplemented Pooling type')", "chapter §5.4"),
    ("pool.shape", "a Pool input has 5 pairs (Avg) or 3 to 5 (Max): partition, outer dims, the window", "N-24"),
    ("iota.off", "Iota only when N-22 enables it (experimental)", "N-22"),
    ("iota.operands", "Iota: an SBUF dst, int32 base and multiplier, a pattern of at most 3 (4) dims with counts "
     "that fit u16", "chapter §6, N-22"),
    ("ts.cache", "TensorScalarCache: DVE only, a known TSCMode, an accumulator command, s1 only with "
     "LoadAccumulate", "chapter §4.3 (TS)"),
]
for _id, _title, _src in _ENCODE:
    register(_id, _title, _src, "encode", stage="encode")


# --- helpers --------------------------------------------------------------------------------------------

def _ap(op: Operand | None) -> PhysicalAP | RegisterAP | SymbolicAP | None:
    return op if isinstance(op, _TENSOR) and op.ap else None


def _elements(op: Operand | None) -> int | None:
    ap = _ap(op)
    return None if ap is None else math.prod(n for _s, n in ap.ap[1:])


def _partitions(op: Operand | None) -> int | None:
    ap = _ap(op)
    return None if ap is None else ap.ap[0][1]


def _slot_elements(b: BundleView, slot: str) -> int:
    s = b.fmt.slots[slot]
    return math.prod(b.fields[k] for k in s.num_keys)


def _equal_partitions(check: str, roles: tuple[str, ...]) -> Callable[[Instruction], Iterator[Finding]]:
    """N-34: the bundle carries one partition count; operands that name another would be cut."""

    def fn(inst: Instruction) -> Iterator[Finding]:
        parts = {r: p for r in roles if (p := _partitions(getattr(inst, r, None))) is not None}
        if len(set(parts.values())) > 1:
            yield Finding(check, "operands have different partition counts (the bundle carries one, N-34)",
                          "partitions", ", ".join(f"{k}={v}" for k, v in parts.items()), "equal")

    return fn


def _equal_elements(check: str, roles: tuple[str, ...]) -> Callable[[Instruction], Iterator[Finding]]:
    def fn(inst: Instruction) -> Iterator[Finding]:
        n = {r: e for r in roles if (e := _elements(getattr(inst, r, None))) is not None}
        if len(set(n.values())) > 1:
            yield Finding(check, "operands have different element counts per partition", "elements",
                          ", ".join(f"{k}={v}" for k, v in n.items()), "equal")

    return fn


# --- structural: element counts of the slots ------------------------------------------------------------

@bundle_check("family.equal_elements", "src and dst have equal element counts per partition",
              "chapter §5.3 (Reciprocal), NKI")
def _equal_slot_elements(b: BundleView) -> Iterator[Finding]:
    counts = {s: _slot_elements(b, s) for s in b.fmt.slots}
    if len(set(counts.values())) > 1:
        yield _f("family.equal_elements", "operands have different element counts per partition", "elements",
                 ", ".join(f"{k}={v}" for k, v in counts.items()), "equal")


# --- TensorReduce (chapter §5.1) -------------------------------------------------------------------------

_BITVEC_TR = frozenset({TR_BITVEC.byte, TR_T_BITVEC.byte, CROSS_BITVEC.byte})


@bundle_check("tr.opcode_class", "a TensorReduce bit-vector op is on 0x52 / 0x84, an arithmetic op on 0x42 / 0x83",
              "N-12, N-15")
def _tr_class(b: BundleView) -> Iterator[Finding]:
    op = ALU_FROM_WIRE.get(b.fields["op"])
    if op is None or op not in ALU_WIRE:
        return
    bitvec = ALU_WIRE[op][1] is AluClass.BITVEC
    if bitvec != (b.opcode in _BITVEC_TR):
        want = "a bit-vector opcode" if bitvec else "an arithmetic opcode"
        yield _f("tr.opcode_class", f"{op.name} belongs on {want}", "op", b.fields["op"], want)


@bundle_check("tr.axis_byte", "the TensorReduce axis byte names 1..4 reduced dims the src descriptor has (2..5)",
              "chapter §2.4, N-13")
def _tr_axis(b: BundleView) -> Iterator[Finding]:
    v = b.fields["axis"]
    if not 2 <= v <= 5:
        yield _f("tr.axis_byte", "axis byte out of range (1 + the number of reduced dims, 1..4)", "axis", v, "2..5")


@bundle_check("tr.flags", "the TensorReduce negate flag is 0 or 1, and 0 with a bit-vector op", "chapter §5.1")
def _tr_flags(b: BundleView) -> Iterator[Finding]:
    v = b.fields["negate"]
    if v > 1:
        yield _f("tr.flags", "negate flag must be 0 or 1", "negate", v, "0, 1")
    elif v and b.opcode in _BITVEC_TR:
        yield _f("tr.flags", "negate is only applicable to an arithmetic op", "negate", v, "0")


def _free_axis(inst: Instruction) -> bool:
    return isinstance(inst, TensorReduce) and inst.stream_family() != "pool" and not is_lowered_part(inst)


@ir_check("tr.equal_partitions", "TensorReduce src and dst have equal partition counts", "N-34", (TensorReduce,))
def _tr_partitions(inst: Instruction) -> Iterator[Finding]:
    if _free_axis(inst):
        yield from _equal_partitions("tr.equal_partitions", ("src", "dst"))(inst)


@ir_check("tr.cross_out", "a cross-lane reduce writes one partition: the src's free shape (C) or one element (XYZWC)",
          "chapter §5.2", (TensorReduce,))
def _tr_cross_out(inst: Instruction) -> Iterator[Finding]:
    assert isinstance(inst, TensorReduce)
    if inst.stream_family() != "pool" or is_lowered_part(inst):
        return
    d = _ap(inst.dst)
    if d is None:
        return
    if d.ap[0][1] != 1:
        yield Finding("tr.cross_out", "a cross-lane reduce writes one partition", "dst.partitions", d.ap[0][1], "1")
    want = _elements(inst.src) if inst.attr("axis") is AxisList.C else 1
    if want is not None and _elements(inst.dst) != want:
        yield Finding("tr.cross_out", f"dst has {_elements(inst.dst)} elements; the reduce leaves {want}", "dst",
                      _elements(inst.dst), str(want))


@ir_check("tr.out_elements", "the TensorReduce dst holds one element per non-reduced src element", "chapter §5.1 "
          "(NKI: 'consistent with the axis field')", (TensorReduce,))
def _tr_out(inst: Instruction) -> Iterator[Finding]:
    assert isinstance(inst, TensorReduce)
    src, axis = _ap(inst.src), inst.attr("axis")
    out = _elements(inst.dst)
    if src is None or out is None or not isinstance(axis, AxisList) or not axis.free_pairs or is_lowered_part(inst):
        return
    free = list(src.ap[1:])
    keep = math.prod(n for _s, n in free[:max(len(free) - axis.free_pairs, 0)])
    if out != keep:
        yield Finding("tr.out_elements", f"dst has {out} elements per partition; reducing axis {axis.name} leaves "
                      f"{keep}", "dst", out, str(keep))


# --- Reciprocal (chapter §5.3, declared by its layout record) ------------------------------------------------

def _declared(opcode: str, fn: Callable[[Instruction], Iterator[Finding]]) -> Callable[[Instruction], Iterator[Finding]]:
    """An IR check of a declared instruction (its class is made from the layout record, and made again
    when the registered layouts change): it applies by BIR opcode."""

    def check(inst: Instruction) -> Iterator[Finding]:
        if inst.opcode == opcode:
            yield from fn(inst)

    return check


ir_check("recip.equal_partitions", "Reciprocal src and dst have equal partition counts", "N-34",
         (Instruction,))(_declared("Reciprocal", _equal_partitions("recip.equal_partitions", ("src", "dst"))))


# --- Activation (chapter §3) -------------------------------------------------------------------------------

_PRELU, _FORCED = ACT_FUNC_WIRE[ActFunc.Prelu], {ACT_FUNC_WIRE[ActFunc.Copy], ACT_FUNC_WIRE[ActFunc.Reciprocal]}


@bundle_check("act.func_byte", "the activation function byte is one of the §2.1 LUT's 30 bytes", "chapter §2.1")
def _act_func(b: BundleView) -> Iterator[Finding]:
    if b.fields["func"] not in ACT_FUNC_FROM_WIRE:
        yield _f("act.func_byte", "unknown activation function byte", "func", b.fields["func"], "the §2.1 LUT")


def _unknown_kind(b: BundleView, name: str) -> bool:
    """Whether kind byte ``name`` holds no code of its own set (N-2: the layout field's enum table)."""
    table = b.fmt.field_map[name].enum
    return table is None or kind_of_names(table.names, b.fields[name]) is None


@bundle_check("act.scalar_kinds", "the scalar kind bytes hold known codes (N-2)", "chapter §1.3, N-2")
def _act_kinds(b: BundleView) -> Iterator[Finding]:
    for name in ("arg1_kind", "arg2_kind"):
        if _unknown_kind(b, name):
            yield _f("act.scalar_kinds", "unknown scalar kind code", name, b.fields[name], "0, 1, 2")
    if b.fields["func"] == _PRELU and _unknown_kind(b, "arg3_kind"):
        yield _f("act.scalar_kinds", "unknown scalar kind code", "arg3_kind", b.fields["arg3_kind"], "0, 1, 2")


@bundle_check("act.arg3_gate", "args[3]'s bytes follow the function: its kind and value for Prelu, (1, 0) for Copy "
              "and Reciprocal, (N-38, 0) otherwise", "chapter §3.1 (ACT), N-38")
def _act_gate(b: BundleView) -> Iterator[Finding]:
    from ..isa.decisions.scalar import ActivationArg3Kind

    func = b.fields["func"]
    if func == _PRELU or func not in ACT_FUNC_FROM_WIRE:
        return
    want = 1 if func in _FORCED else b.decisions.get(ActivationArg3Kind).byte()
    if b.fields["arg3_kind"] != want:
        yield _f("act.arg3_gate", f"+0x0C for {ACT_FUNC_FROM_WIRE[func].name} is {want}", "arg3_kind",
                 b.fields["arg3_kind"], str(want))
    if b.fields["arg3_value"]:
        yield _f("act.arg3_gate", f"the encoder writes args[3]'s value only for Prelu; {ACT_FUNC_FROM_WIRE[func].name} "
                 "leaves it 0", "arg3_value", b.fields["arg3_value"], "0")


@bundle_check("act.set_id", "LoadActFuncSet names one of the 21 trainium function sets", "chapter §2.2")
def _act_set(b: BundleView) -> Iterator[Finding]:
    v = b.fields["act_tbl_sel"]
    sets = b.decisions.get(ActTableIndex).sets()
    if v >= len(sets):
        yield _f("act.set_id", "no such activation function set (R-21)", "act_tbl_sel", v, f"0..{len(sets) - 1}")


@bundle_check("read.count_one", "an accumulator read-out writes one element per partition", "chapter §3.2 (ACT)")
def _read_count(b: BundleView) -> Iterator[Finding]:
    if b.fields["element_count"] != 1:
        yield _f("read.count_one", "ScalarEng read accum instr dst element count must be 1", "element_count",
                 b.fields["element_count"], "1")
    if b.fields["dst.num0"] != 1:
        yield _f("read.count_one", "ScalarEng read accum dst_mem_pattern.num_elem[0] must be 1", "dst.num0",
                 b.fields["dst.num0"], "1")


@bundle_check("read.negated_flag", "the DveReadAccumulator negated flag is 0 or 1", "chapter §4.2, N-11")
def _read_negated(b: BundleView) -> Iterator[Finding]:
    if b.fields["negated"] > 1:
        yield _f("read.negated_flag", "negated flag must be 0 or 1", "negated", b.fields["negated"], "0, 1")


@ir_check("act.equal_partitions", "Activation in, out and reduce_res have equal partition counts", "N-34",
          (Activation,))
def _act_partitions(inst: Instruction) -> Iterator[Finding]:
    if not is_lowered_part(inst):
        yield from _equal_partitions("act.equal_partitions", ("src", "dst", "reduce_res"))(inst)


@ir_check("act.equal_elements", "Activation in and out have equal element counts per partition",
          "chapter §3.1 (NKI)", (Activation,))
def _act_elements(inst: Instruction) -> Iterator[Finding]:
    if not is_lowered_part(inst):
        yield from _equal_elements("act.equal_elements", ("src", "dst"))(inst)


def _pointer_shape(check: str, data: str, scalars: tuple[tuple[str, int], ...]) -> Callable[[Instruction], Iterator[Finding]]:
    """N-6 / N-34: a pointer scalar is one element per partition, over the data's partitions from the
    data's start partition (the bundle carries one address and the data's partition count)."""

    def fn(inst: Instruction) -> Iterator[Finding]:
        if is_lowered_part(inst):
            return
        d = _ap(getattr(inst, data))
        for role, k in scalars:
            op = inst.ins[k] if k < len(inst.ins) else None
            if not isinstance(op, PhysicalAP) or not op.ap:
                continue
            if any(n != 1 for _s, n in op.ap[1:]):
                yield Finding(check, f"{role}: a pointer scalar holds one element per partition", role,
                              math.prod(n for _s, n in op.ap[1:]), "1")
            if d is not None and op.ap[0][1] != d.ap[0][1]:
                yield Finding(check, f"{role}: the pointer has {op.ap[0][1]} partitions, the data {d.ap[0][1]}",
                              f"{role}.partitions", op.ap[0][1], str(d.ap[0][1]))
            if isinstance(d, PhysicalAP) and _start(op) is not None and _start(d) is not None and \
                    _start(op) != _start(d):
                yield Finding(check, f"{role}: the pointer starts at partition {_start(op)}, the data at {_start(d)} "
                              "(the bundle has one start address per scalar, N-6)", f"{role}.start", _start(op),
                              str(_start(d)))

    return fn


def _start(op: PhysicalAP) -> int | None:
    """The start partition of a physical AP (SPEC §5 offset arithmetic)."""
    loc = op.location
    if loc is None or not loc.dims or len(loc.dims) < 2 or loc.dims[1] <= 0 or not hasattr(op.dtype, "name"):
        return None
    from ..isa.enums import DTYPE_INFO

    return loc.base + (op.offset * DTYPE_INFO[op.dtype].size) // loc.dims[1]  # type: ignore[index]


ir_check("act.pointer_shape", "an Activation pointer scalar is [P,1] over the input's partitions", "N-6, N-34",
         (Activation,), offsets=True)(_pointer_shape("act.pointer_shape", "src", (("args[1]", 1), ("args[2]", 2), ("args[3]", 3))))


@ir_check("lint.act_dropped", "an Activation key or alpha the 0x21 bundle has no byte for, dropped under N-9=drop or "
          "N-27=ignore", "N-9, N-27", (Activation,), stage="lint", needs_decisions=True)
def _act_dropped(inst: Instruction, decisions: DecisionSet) -> Iterator[Finding]:
    assert isinstance(inst, Activation)
    if is_lowered_part(inst):
        return
    func = inst.attr("func")
    if not decisions.get(NonPreluAlpha).refuses and func is not ActFunc.Prelu:
        a = inst.ins[3] if len(inst.ins) == 4 else None
        v = getattr(a, "value", inst.attr("alpha") or 0.0)
        if v not in (0, 0.0, None):
            yield Finding("lint.act_dropped", f"alpha {v} is dropped: only Prelu reads it (N-9=drop)", "alpha", v, "0.0")
    if not decisions.get(ActivationUnsupportedKeys).refuses:
        for key, neutral in (("op0", AluOp.bypass), ("op1", AluOp.bypass), ("reverse0", False), ("reverse1", False)):
            if inst.attr(key) not in (None, neutral):
                yield Finding("lint.act_dropped", f"{key} is ignored: the 0x21 band has no byte for it (N-27=ignore)",
                              key, getattr(inst.attr(key), "name", inst.attr(key)), str(getattr(neutral, "name", neutral)))


# --- TensorScalar (chapter §4) -----------------------------------------------------------------------------

_TS_BITVEC = frozenset({TS_BITVEC.byte, TS_PTR_BITVEC.byte})
_BYPASS = ALU_WIRE[AluOp.bypass][0]


@bundle_check("ts.opcode_class", "TensorScalar ops match the opcode: bit-vector ops on 0x53/0x54, arithmetic ones "
              "elsewhere (op1 bypass or the same class)", "N-15")
def _ts_class(b: BundleView) -> Iterator[Finding]:
    return _op_class("ts.opcode_class", b, b.opcode in _TS_BITVEC)


def _op_class(check: str, b: BundleView, bitvec: bool) -> Iterator[Finding]:
    """op0/op1 of the class the opcode takes (bit-vector or arithmetic; op1 may bypass), N-15."""
    for name in ("op0", "op1"):
        op = ALU_FROM_WIRE.get(b.fields[name])
        if op is None or op not in ALU_WIRE or (name == "op1" and b.fields[name] == _BYPASS):
            continue
        if (ALU_WIRE[op][1] is AluClass.BITVEC) != bitvec:
            want = "a bit-vector op" if bitvec else "an arithmetic op"
            yield _f(check, f"{op.name} on opcode {b.opcode:#04x}, which takes {want}", name, b.fields[name], want)


@bundle_check("ts.scalar_kinds", "the TensorScalar scalar kind bytes hold known codes (N-2)", "chapter §1.3, N-2")
def _ts_kinds(b: BundleView) -> Iterator[Finding]:
    if _unknown_kind(b, "s0_kind"):
        yield _f("ts.scalar_kinds", "unknown scalar kind code", "s0_kind", b.fields["s0_kind"], "0, 1, 2")
    if _unknown_kind(b, "s1_kind"):
        yield _f("ts.scalar_kinds", "unknown scalar kind code", "s1_kind", b.fields["s1_kind"], "0, 1, 2")


@bundle_check("ts.fused", "the accumulator command is Idle except on the fused reduce 0x9A and the scan 0xE6, whose "
              "op1 is a reduce op", "chapter §4.1, §4.3, N-19")
def _ts_fused(b: BundleView) -> Iterator[Finding]:
    fused = b.opcode in (TS_CACHE_REDUCE.byte, TS_CACHE_CUMULATIVE.byte)
    if not fused and b.fields["acc"]:
        yield _f("ts.fused", "an accumulator command on a TensorScalar other than 0x9A", "acc", b.fields["acc"], "0")
    if fused:
        op = ALU_FROM_WIRE.get(b.fields["op1"])
        if op not in REDUCE_IDENTITY:
            yield _f("ts.fused", f"{b.opcode:#04x} folds with op1: add, subtract, mult, max or min", "op1",
                     b.fields["op1"], "add, subtract, mult, max, min")
        if not b.fields["acc"]:
            yield _f("ts.fused", f"{b.opcode:#04x} without an accumulator command", "acc", 0, "1..4")


_TS = (TensorScalarPtr, TensorScalar, TensorScalarCache)


def _plain_ts(inst: Instruction) -> bool:
    """A TensorScalar instruction the ts.* IR checks apply to: not a lowered part, and not the
    ScalarTensorTensor form (its operands are checked as the ScalarTensorTensor it lowers to)."""
    return not is_lowered_part(inst) and not is_scalar_tensor_tensor(inst)


@ir_check("ts.equal_partitions", "TensorScalar data, dst and reduce_res have equal partition counts", "N-34", _TS)
def _ts_partitions(inst: Instruction) -> Iterator[Finding]:
    if _plain_ts(inst):
        yield from _equal_partitions("ts.equal_partitions", ("data", "dst", "reduce_res"))(inst)


@ir_check("ts.equal_elements", "TensorScalar data and dst have equal element counts per partition", "chapter §4.1",
          _TS)
def _ts_elements(inst: Instruction) -> Iterator[Finding]:
    if _plain_ts(inst):
        yield from _equal_elements("ts.equal_elements", ("data", "dst"))(inst)


_ts_pointers = _pointer_shape("ts.pointer_shape", "data", (("s0", 1), ("s1", 2)))


@ir_check("ts.pointer_shape", "a TensorScalar pointer scalar is [P,1] over the data's partitions", "N-6, N-34",
          (TensorScalarPtr, TensorScalarCache), offsets=True)
def _ts_pointer_shape(inst: Instruction) -> Iterator[Finding]:
    if not is_scalar_tensor_tensor(inst):
        yield from _ts_pointers(inst)


# --- ScalarTensorTensor (chapter §4.4, N-21) ------------------------------------------------------------------

@bundle_check("stt.opcode_class", "ScalarTensorTensor ops match the opcode: bit-vector ops on 0x9E, arithmetic ones "
              "on 0x9D and the scan 0xE5 (op1 bypass or the same class)", "N-15, chapter §4.4")
def _stt_class(b: BundleView) -> Iterator[Finding]:
    return _op_class("stt.opcode_class", b, b.opcode == STT_BITVEC.byte)


@bundle_check("stt.scalar_kind", "the ScalarTensorTensor scalar kind byte holds a known code (N-2, N-21)",
              "chapter §1.3, N-2, N-21")
def _stt_kind(b: BundleView) -> Iterator[Finding]:
    if "scalar_kind" in b.fields and _unknown_kind(b, "scalar_kind"):
        yield _f("stt.scalar_kind", "unknown scalar kind code", "scalar_kind", b.fields["scalar_kind"], "0, 1, 2")


@bundle_check("stt.acc", "no accumulator command on a ScalarTensorTensor: the book allows the fused form, but not "
              "what it folds (tongasm neither encodes nor simulates it; pedantic)", "chapter §4.4 (TS)", pedantic=True)
def _stt_acc(b: BundleView) -> Iterator[Finding]:
    if b.fields["acc"]:
        yield _f("stt.acc", f"accumulator command on {b.opcode:#04x}: its reduce is not documented (not simulated)",
                 "acc", b.fields["acc"], "0 (Idle)")


ir_check("stt.equal_partitions", "ScalarTensorTensor tensor0, tensor1 and out have equal partition counts", "N-34 "
         "(NKI: 'The partition dimension size of input data, operand1, and output dst tiles must be the same')",
         (ScalarTensorTensor,))(_equal_partitions("stt.equal_partitions", ("tensor0", "tensor1", "out")))
ir_check("stt.pointer_shape", "a ScalarTensorTensor pointer scalar is [P,1] over tensor0's partitions (0xE5: the "
         "scan's initial tile)", "N-6, N-34", (ScalarTensorTensor,), offsets=True)(
    _pointer_shape("stt.pointer_shape", "tensor0", (("scalar", 1),)))


# --- BNStats / BNStatsAggregate (chapter §7) ------------------------------------------------------------------

@bundle_check("bn.shape", "BNStats writes 6 elements per partition; BNStatsAggregate reads triples and writes 2",
              "chapter §7 (BN verifier)")
def _bn_shape(b: BundleView) -> Iterator[Finding]:
    n_in, n_out = _slot_elements(b, "src"), _slot_elements(b, "dst")
    if "n_even" in b.fields:
        if n_out != 6:
            yield _f("bn.shape", "BNStats writes 6 elements per partition", "dst", n_out, "6")
    else:
        if n_in % 3:
            yield _f("bn.shape", "BNStatsAggregate reads (n, mean, M2) triples: in elements % 3 == 0", "src", n_in,
                     "a multiple of 3")
        if n_out != 2:
            yield _f("bn.shape", "BNStatsAggregate writes mean and variance: 2 elements per partition", "dst", n_out,
                     "2")


@bundle_check("bn.counts", "the BNStats count words are (N + 1) >> 1 and N >> 1 of the src element count (float32)",
              "chapter §7.1 (BN)")
def _bn_counts(b: BundleView) -> Iterator[Finding]:
    import struct

    n = _slot_elements(b, "src")
    for name, want in (("n_even", (n + 1) >> 1), ("n_odd", n >> 1)):
        bits = struct.unpack("<I", struct.pack("<f", float(want)))[0]
        if b.fields[name] != bits:
            yield _f("bn.counts", f"{name} must be {want}.0 for {n} src elements", name, b.fields[name], f"{bits:#x}")


ir_check("bn.equal_partitions", "BNStats / BNStatsAggregate src and dst have equal partition counts", "N-34",
         (BNStats, BNStatsAggregate))(_equal_partitions("bn.equal_partitions", ("src", "dst")))


# --- the cross-lane reduce, Pool, Iota (chapter §5.2, §5.4, §6) ----------------------------------------------

@bundle_check("tr.cross_flags", "the cross-lane flag is 0 or 1 and the 1/N word is non-zero exactly for average "
              "(the lane count: partitions.count, geometry.partitions)",
              "chapter §5.2, N-23")
def _cross_flags(b: BundleView) -> Iterator[Finding]:
    if b.fields["cross_lane"] > 1:
        yield _f("tr.cross_flags", "the cross-lane flag must be 0 or 1", "cross_lane", b.fields["cross_lane"], "0, 1")
    average = b.fields["command"] == 1
    if average != bool(b.fields["scale"]):
        yield _f("tr.cross_flags", "the 1/N word goes with average only", "scale", b.fields["scale"],
                 "non-zero for average, else 0")


@bundle_check("pool.scale", "the Pool scale word is 1.0 for Max and 1/(window) for Avg (window = the two innermost "
              "slots, N-24)", "chapter §5.4 (POOL)")
def _pool_scale(b: BundleView) -> Iterator[Finding]:
    window = PoolPacking.window([(b.fields[f"src.step{i}"], b.fields[f"src.num{i}"]) for i in range(4)],
                                b.decisions.get(FreeDimOrder))  # no dropping (N-24)
    want = 1.0 if b.fields["func"] != 2 else float(np.float32(1.0) / np.float32(max(window, 1)))
    bits = struct.unpack("<I", struct.pack("<f", want))[0]
    if b.fields["scale"] != bits:
        yield _f("pool.scale", f"scale must be {want!r}", "scale", b.fields["scale"], f"{bits:#x}")


@bundle_check("iota.pattern", "the Iota pattern holds as many elements as the dst (iota_same_src_dst_count)",
              "chapter §6")
def _iota_pattern(b: BundleView) -> Iterator[Finding]:
    n = math.prod(b.fields[f"pnum{i}"] for i in range(4))
    out = _slot_elements(b, "dst")
    if n != out:
        yield _f("iota.pattern", f"the pattern has {n} elements, the dst {out}", "pattern", n, str(out))


ir_check("pool.equal_partitions", "Pool src and dst have equal partition counts", "N-34",
         (Pool,))(_equal_partitions("pool.equal_partitions", ("src", "dst")))


@ir_check("pool.out_elements", "the Pool dst holds one element per window position (the outer input dims)",
          "chapter §5.4", (Pool,))
def _pool_out(inst: Instruction) -> Iterator[Finding]:
    src = _ap(inst.ins[0] if inst.ins else None)
    out = _elements(inst.outs[0] if inst.outs else None)
    if src is None or out is None or len(src.ap) < 3:
        return
    keep = math.prod(n for _s, n in src.ap[1:-2])
    if out != keep:
        yield Finding("pool.out_elements", f"dst has {out} elements per partition; the windows are {keep}", "dst", out,
                      str(keep))


@ir_check("iota.count", "the Iota pattern's element count equals the dst's elements per partition", "chapter §6",
          (Iota,))
def _iota_count(inst: Instruction) -> Iterator[Finding]:
    assert isinstance(inst, Iota)
    out = _elements(inst.dst)
    try:
        n = math.prod(num for _s, num in inst.pattern_pairs())
    except (KeyError, TypeError, ValueError):
        return
    if out is not None and n != out:
        yield Finding("iota.count", f"the pattern has {n} elements, dst {out} per partition", "pattern", n, str(out))


# --- vector forms (check_stream): each rule reads a few fields with few distinct values per stream ------------

def _with_slot_dims(check: Callable[[BundleView], Iterator[Finding]], *names: str, steps: bool = False) -> VectorFn:
    """:func:`by_classes` over ``names`` and the counts (and steps, with ``steps``) of every descriptor
    slot of the layout at hand: the exact form of a rule on element counts or windows."""
    def fn(c: Columns) -> np.ndarray:
        dims = [k for sl in c.fmt.slots.values() for k in (*sl.num_keys, *(sl.step_keys if steps else ()))]
        return by_classes(check, *names, *dims)(c)
    return fn


vector("family.equal_elements")(_with_slot_dims(_equal_slot_elements))
vector("tr.opcode_class")(by_classes(_tr_class, "op"))
vector("tr.axis_byte")(by_classes(_tr_axis, "axis"))
vector("tr.flags")(by_classes(_tr_flags, "negate"))
vector("act.func_byte")(by_classes(_act_func, "func"))
vector("act.scalar_kinds")(by_classes(_act_kinds, "arg1_kind", "arg2_kind", "func", "arg3_kind"))
vector("act.arg3_gate")(by_classes(_act_gate, "func", "arg3_kind", "arg3_value"))
vector("act.set_id")(by_classes(_act_set, "act_tbl_sel"))
vector("read.count_one")(by_classes(_read_count, "element_count", "dst.num0"))
vector("read.negated_flag")(by_classes(_read_negated, "negated"))
vector("ts.opcode_class")(by_classes(_ts_class, "op0", "op1"))
vector("ts.scalar_kinds")(by_classes(_ts_kinds, "s0_kind", "s1_kind"))
vector("ts.fused")(by_classes(_ts_fused, "acc", "op1"))
vector("stt.opcode_class")(by_classes(_stt_class, "op0", "op1"))
vector("stt.scalar_kind")(by_classes(_stt_kind, "scalar_kind"))
vector("stt.acc")(by_classes(_stt_acc, "acc"))
vector("bn.shape")(_with_slot_dims(_bn_shape))
vector("bn.counts")(_with_slot_dims(_bn_counts, "n_even", "n_odd"))
vector("tr.cross_flags")(by_classes(_cross_flags, "cross_lane", "command", "scale"))
vector("pool.scale")(_with_slot_dims(_pool_scale, "func", "scale", steps=True))
vector("iota.pattern")(_with_slot_dims(_iota_pattern, *(f"pnum{i}" for i in range(4))))


# --- N-35: function-set residency (a rule on a stream's order of bundles) --------------------------------------

register("act.resident", "an Activation's function is in the set the last LoadActFuncSet (0x23) of its stream "
         "loaded", "N-35", "stream")


class ResidencyState:
    """The sets each stream has loaded so far (N-35), fed bundle by bundle in stream order.

    ``table``: the graph's Activation.json ``activation_function_sets`` (set names), which R-21's
    default reads the 0x23 index in; None where no graph table is at hand (a BIR kernel, a bare stream)."""

    #: the opcodes the rule reads (the others pass it by)
    OPCODES = (ACT_TABLE_LOAD.byte, ACTIVATE.byte)

    def __init__(self, decisions: DecisionSet = DEFAULT_DECISIONS, table: Sequence[str] | None = None) -> None:
        self.loaded: dict[str | None, int] = {}
        self.index = decisions.get(ActTableIndex)  # what the loaded index names
        self.table = None if table is None else tuple(table)
        self.sets = self.index.sets(self.table)

    def _set_name(self, k: int) -> str:
        if k >= len(self.sets):
            return "?"
        st = self.sets[k]
        if st is not None:
            return st.name
        return f"{self.table[k]!r}, not an act_info.json set" if self.table is not None else "?"

    def visit(self, stream: str | None, opcode: int, fields: dict[str, int]) -> Iterator[Finding]:
        if opcode == ACT_TABLE_LOAD.byte:
            sel = self.loaded[stream] = fields["act_tbl_sel"]
            if self.table is not None and (sel >= len(self.sets) or self.sets[sel] is None):
                why = (f"the graph's Activation.json lists {len(self.table)} function set(s)" if sel >= len(self.sets)
                       else f"the graph names set {sel} {self._set_name(sel)}")
                yield Finding("act.set_id", f"LoadActFuncSet {sel}: {why} (R-21)", "act_tbl_sel", sel,
                              f"0..{len(self.table) - 1}")
            return
        if opcode != ACTIVATE.byte:
            return
        func = ACT_FUNC_FROM_WIRE.get(fields["func"])
        if func is None:
            return
        where = self.index.holding(func, self.table)
        loaded = self.loaded.get(stream)
        sets = self.sets
        st = sets[loaded] if loaded is not None and loaded < len(sets) else None
        if st is not None and st.holds(func):
            return
        have = ("no LoadActFuncSet on this stream yet" if loaded is None else
                f"last LoadActFuncSet loaded set {loaded} ({self._set_name(loaded)})")
        load = f"load one of {', '.join(map(str, where))}" if where else "no set of this graph holds it"
        yield Finding("act.resident", f"Activation function {func.name} is not resident: {have}; {load}", "func",
                      func.name, ", ".join(map(str, where)))


def residency_rule(decisions: DecisionSet, checks: CheckSet,
                   table: Sequence[str] | None = None) -> ResidencyState | None:
    """A fresh N-35 rule, or None when it is off (N-35=off, or the check disabled). ``table``: the
    graph's activation function set names (R-21), when the stream comes from a NEFF."""
    if not decisions.get(Residency).enforced or not checks.wants(CHECKS["act.resident"]):
        return None
    return ResidencyState(decisions, table)


_NO_RULE = object()


def stream_rule_findings(ctx: object, stream: str, opcode: int, fields: dict[str, int],
                         checks: CheckSet | None) -> list[Finding]:
    """The N-35 findings of one bundle of a kernel, in program order: the rule's state lives on the
    codegen context (one per assemble / check run), ``ctx.stream_rules``."""
    state: Any = getattr(ctx, "stream_rules", None)
    if state is None:
        state = residency_rule(ctx.decisions, checks or CheckSet()) or _NO_RULE  # type: ignore[attr-defined]
        ctx.stream_rules = state  # type: ignore[attr-defined]
    if state is _NO_RULE:
        return []
    return list(state.visit(stream, opcode, fields))
