"""Codegen of the Pool engine's own opcodes that need selection logic: TensorScalarAddr 0x74 (R-70, R-71).
The other Pool opcodes encode from their records' BIR forms (:mod:`.declared`).
"""

from __future__ import annotations

from ..errors import EncodeError
from ..ir.instructions import Instruction
from ..ir.operands import Immediate
from ..ir.scalar import (
    TensorScalarAddr,
)
from ..isa.decisions.gpsimd import TensorScalarAddrKinds, TensorScalarAddrSlots
from ..isa.enums import AluOp, Dtype, Engine
from ..isa.vector_enums import (
    ScalarKind,
)
from .common import (
    TS_NUMARGS_MSG,
    Context,
    Selection,
    alu_wire,
    counts,
    dtype_of,
    engine_of,
    enum_name,
    no_indirect,
    no_pool_psum,
    one_opcode,
    scalar_words,
)
from .plan import Family

TS_ADDR_MSG = "TensorScalarAddr (0x74) runs on the Pool engine (the gen3 DVE opcode table disables 0x74)"


TS_ADDR_INT_MSG = "TensorScalarAddr (0x74) is integer address arithmetic"


def tsa_select(inst: TensorScalarAddr, ctx: Context) -> Selection:
    """0x74: data and dst from the binding; op0/op1, the reverse bits and each scalar's kind, value word
    (R-70: 8 bytes; an immediate sign-extended, as the real -1 fills all 8) and dtype nibble."""
    if engine_of(inst.engine) not in (Engine.Pool, Engine.Unassigned):
        raise EncodeError(TS_ADDR_MSG, field="engine", value=enum_name(inst.engine), limit="Pool", check="ts.unsupported")
    if len(inst.ins) not in (2, 3):
        raise EncodeError(TS_NUMARGS_MSG, field="ins", value=len(inst.ins), limit="2, 3", check="ts.operands")
    counts("TensorScalarAddr", inst, (2, 3), (1,), "ins = [data, s0, s1?] and outs = [dst]")
    no_indirect({"data": inst.ins[0], "dst": inst.outs[0]})
    no_pool_psum(inst, {"data": inst.ins[0], "dst": inst.outs[0]})
    for role, op in (("data", inst.ins[0]), ("dst", inst.outs[0])):
        d = dtype_of(op, role)
        if not d.name.startswith(("int", "uint")):
            raise EncodeError(f"{TS_ADDR_INT_MSG}: {role} is {d.name}", field=f"{role}.dtype", value=d.name,
                              limit="an integer dtype", check="ts.unsupported")
    fmt = ctx.formats.by_name["TensorScalarAddr"]
    width = ctx.decisions.get(TensorScalarAddrSlots).value_width
    codes = {v: k for k, v in ctx.decisions.get(TensorScalarAddrKinds).names().items()}
    values: dict[str, int] = {"opcode": next(iter(fmt.opcodes))}
    for k, key in ((0, "op0"), (1, "op1")):
        alu = inst.attr(key) if k == 0 or inst.attr(key) is not None else AluOp.bypass
        values[key] = alu_wire(alu)
        values[f"reverse{k}"] = int(bool(inst.attr(f"reverse{k}")))
    # no s1: the immediate int32 0 of the real bundles whose op1 is bypass
    scalars = [inst.ins[1], inst.ins[2] if len(inst.ins) == 3 else Immediate(Dtype.int32, 0)]
    for k, op in enumerate(scalars):
        role = f"s{k}"
        sc = scalar_words(op, role, ctx)
        if sc.kind not in (ScalarKind.IMMEDIATE, ScalarKind.POINTER):
            raise EncodeError(f"{role}: a TensorScalarAddr scalar is an immediate or a [P,1] pointer (R-71: no real "
                              "bundle has a register)", field=role, value=sc.kind.value, check="family.scalar_kind")
        word = sc.word
        if sc.kind is ScalarKind.IMMEDIATE and isinstance(sc.value, int):
            word = int(sc.value) & ((1 << (8 * width)) - 1)  # the real immediate -1 fills the whole word
        values[f"{role}_value"] = word
        values[f"{role}_kind"] = codes["imm" if sc.kind is ScalarKind.IMMEDIATE else "ptr"]
        values[f"{role}_dtype"] = sc.wire
    return fmt, values


FAMILIES: dict[type[Instruction], Family] = {
    TensorScalarAddr: Family("TensorScalarPtr", tsa_select, one_opcode("TensorScalarAddr")),
}
