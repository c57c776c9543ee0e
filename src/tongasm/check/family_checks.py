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
from collections.abc import Callable, Iterator

from ..isa.enums import ALU_FROM_WIRE, ALU_WIRE, AluClass
from ..isa.family_opcodes import TR_BITVEC, TR_T_BITVEC, CROSS_BITVEC
from ..isa.family_tables import AxisList
from ..ir.family_instructions import TensorReduce
from ..ir.instructions import Instruction
from ..ir.operands import Operand, PhysicalAP, RegisterAP, SymbolicAP
from .bundle_checks import BundleView, bundle_check
from .ir_checks import ir_check
from .registry import Finding, register

_TENSOR = (PhysicalAP, RegisterAP, SymbolicAP)


def _f(check: str, message: str, field: str | None = None, value: object = None, allowed: str | None = None) -> Finding:
    return Finding(check, message, field, value, allowed)


# --- encoder refusals (codegen.family_ops raises these ids) ------------------------------------------------

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


ir_check("tr.equal_partitions", "TensorReduce src and dst have equal partition counts", "N-34",
         (TensorReduce,))(_equal_partitions("tr.equal_partitions", ("src", "dst")))


@ir_check("tr.out_elements", "the TensorReduce dst holds one element per non-reduced src element", "chapter §5.1 "
          "(NKI: 'consistent with the axis field')", (TensorReduce,))
def _tr_out(inst: Instruction) -> Iterator[Finding]:
    assert isinstance(inst, TensorReduce)
    src, axis = _ap(inst.src), inst.attr("axis")
    out = _elements(inst.dst)
    if src is None or out is None or not isinstance(axis, AxisList) or not axis.free_pairs:
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
