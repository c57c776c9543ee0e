"""Codegen of the batch-norm backward family: BNGradients 0x63 and BNBackprop (BatchNormParamLoad
0x64, then BatchNormBackProp 0x65; R-61).
"""

from __future__ import annotations

from ..errors import EncodeError
from ..ir.batchnorm import BNBackprop, BNBackpropPart, BNGradients, BNParamLoadPart
from ..ir.instructions import Instruction
from ..ir.operands import Operand
from ..isa.decisions.batchnorm import BnParamLoadKinds
from ..isa.vector_enums import (
    ScalarKind,
)
from .common import (
    DVE_OR_POOL,
    Context,
    Scalar,
    Selection,
    counts,
    f32_bits,
    lowered_only,
    no_indirect,
    one_opcode,
    pair_opcodes,
    require_engine,
    scalar_words,
)
from .plan import Family

BN_AP_MSG = "in2 and in3 must be AP argument type"


_BN_WHY = "BN names the Pool engine; every real bundle is in a DVE stream"


def _bn_pointer(op: Operand | None, role: str, ctx: Context) -> Scalar:
    sc = scalar_words(op, role, ctx)
    if sc.kind is not ScalarKind.POINTER:
        raise EncodeError(f"{role}: {BN_AP_MSG} (a [P,1] SBUF/PSUM pointer), got {sc.kind.value}", field=role,
                          value=sc.kind.value, check="family.scalar_kind")
    return sc


def bn_gradients_select(inst: BNGradients, ctx: Context) -> Selection:
    """0x63: x, dy, out from the binding; the mean and varfactor pointer words (N-6) and their dtype."""
    counts("BNGradients", inst, (4,), (1,), "ins = [x, dy, mean, varfactor] and outs = [out]")
    require_engine(inst, "BNGradients", DVE_OR_POOL, _BN_WHY)
    no_indirect({"x": inst.ins[0], "dy": inst.ins[1], "out": inst.outs[0]})
    mean = _bn_pointer(inst.ins[2], "mean", ctx)
    vf = _bn_pointer(inst.ins[3], "varfactor", ctx)
    if mean.dtype != vf.dtype:
        raise EncodeError(f"BNGradients mean ({mean.dtype.name}) and varfactor ({vf.dtype.name}) must have one dtype "
                          "(in2.getType() == in3.getType())", field="varfactor.dtype", value=vf.dtype.name,
                          limit=mean.dtype.name, check="family.scalar_kind")
    fmt = ctx.formats.by_name["BatchNormGradAccumulate"]
    return fmt, {"opcode": next(iter(fmt.opcodes)), "mean_ptr": mean.word, "varfactor_ptr": vf.word,
                 "coeff_dtype": mean.wire}


def bn_param_load_select(inst: BNParamLoadPart, ctx: Context) -> Selection:
    """0x64: coeff from the binding; N (total_elements) as float32; the mean operand's word and kind (R-61)."""
    counts("BNBackprop", inst, (4,), (1,), "ins = [x, dy, coeff, mean] and outs = [dx]")
    require_engine(inst, "BNBackprop", DVE_OR_POOL, _BN_WHY)
    no_indirect({"coeff": inst.ins[2]})
    n = inst.attr("total_elements")
    if isinstance(n, bool) or not isinstance(n, (int, float)):
        raise EncodeError(f"BNBackprop total_elements must be a number, got {n!r}", field="total_elements", value=n,
                          check="operands.shape")
    mean = scalar_words(inst.ins[3], "mean", ctx)
    codes = {v: k for k, v in ctx.decisions.get(BnParamLoadKinds).names().items()}
    fmt = ctx.formats.by_name["BatchNormParamLoad"]
    return fmt, {"opcode": next(iter(fmt.opcodes)), "total_elements": f32_bits(n), "mean_value": mean.word,
                 "mean_kind": codes[mean.kind.value]}


def bn_backprop_select(inst: BNBackpropPart, ctx: Context) -> Selection:
    """0x65: x, dy and dx from the binding."""
    counts("BNBackprop", inst, (4,), (1,), "ins = [x, dy, coeff, mean] and outs = [dx]")
    require_engine(inst, "BNBackprop", DVE_OR_POOL, _BN_WHY)
    no_indirect({"x": inst.ins[0], "dy": inst.ins[1], "dx": inst.outs[0]})
    fmt = ctx.formats.by_name["BatchNormBackProp"]
    return fmt, {"opcode": next(iter(fmt.opcodes))}


#: The 0x64 and 0x65 bundles a BNBackprop is lowered to.
PARTS: dict[type[Instruction], Family] = {
    BNParamLoadPart: Family("BNBackprop", bn_param_load_select, one_opcode("BatchNormParamLoad")),
    BNBackpropPart: Family("BNBackprop", bn_backprop_select, one_opcode("BatchNormBackProp")),
}


FAMILIES: dict[type[Instruction], Family] = {
    BNGradients: Family("BNGradients", bn_gradients_select, one_opcode("BatchNormGradAccumulate")),
    BNBackprop: Family("BNBackprop", lowered_only("BNBackprop"), pair_opcodes(PARTS)),
    **PARTS,
}
