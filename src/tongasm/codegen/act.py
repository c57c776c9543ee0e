"""Codegen of the act family: Activation (N-3..N-5, N-31) and the accumulator read-outs of the ACT
(0x23/0x24) and the DVE (0x9B). Scalar operands are encoded by :func:`~.common.scalar_words`.
"""

from __future__ import annotations

import math

from ..errors import EncodeError
from ..ir.act import Activation, ActivationArgsError, ActivationReadAccumulator, DveReadAccumulator, ReadActivationAccumulator
from ..ir.instructions import Instruction
from ..ir.operands import Immediate, Operand, PhysicalAP, RegisterAP, SymbolicAP
from ..isa.decisions.act import (
    ActivationArg2Word,
    ActivationArg3Kind,
    ActivationLoadAccumulate,
    ActivationRoles,
    ActivationUnsupportedKeys,
    Gen2Bias,
    NonPreluAlpha,
    ShortActivationArgs,
)
from ..isa.decisions.scalar import KindByte, ScalarKindCodes
from ..isa.enums import AccType, AluOp, Dtype
from ..isa.opcodes import (
    ACT_READ_ACC,
    ACTIVATE,
    DVE_READ_ACC,
)
from ..isa.vector_enums import (
    ACT_FUNC_INVALID_MSG,
    ACT_FUNC_WIRE,
    ActFunc,
    ScalarKind,
)
from .common import (
    Context,
    Selection,
    acc_wire,
    counts,
    enum_name,
    no_indirect,
    no_pool_psum,
    same_space_pointer,
    scalar_words,
)
from .plan import Family

ARGS4_MSG = "Activation instruction can only have 4 arguments"


OUTS12_MSG = "Activation instruction can only have 1 or 2 outputs"


ACT_FP32_MSG = "activation function only support float32 bias/scale/alpha"


#: The value of each Activation role that changes nothing: what a role with no byte on the wire must be.
NEUTRAL = {"bias": 0.0, "scale": 1.0, "alpha": 0.0}

#: The way out of the scale refusal (under an N-5 reading that gives the scale no byte).
_SCALE_WORKAROUND = ("; to scale the input, multiply it first with a TensorScalarPtr (op0 'mult', on the DVE) and give "
                     "the Activation the immediate 1.0, as examples/rmsnorm.py does for 1/D; or keep the default "
                     "reading N-5=scale-at-0x24, under which the scale is encoded at +0x24 as the real NEFFs show")


#: wire functions whose args[3] bytes are forced (C): Copy 128 and Reciprocal 129 → (+0x0C, +0x2C) = (1, 0)
_FORCED_ARG3 = frozenset({ACT_FUNC_WIRE[ActFunc.Copy], ACT_FUNC_WIRE[ActFunc.Reciprocal]})


_PRELU = ACT_FUNC_WIRE[ActFunc.Prelu]


def _is_imm(op: Operand | None, value: float) -> bool:
    return (isinstance(op, Immediate) and op.dtype == Dtype.float32 and isinstance(op.value, (int, float))
            and float(op.value) == value and math.copysign(1.0, float(op.value)) == math.copysign(1.0, value))


def activation_func(inst: Activation) -> ActFunc:
    func = inst.attr("func")
    if not isinstance(func, ActFunc) or func not in ACT_FUNC_WIRE:
        raise EncodeError(ACT_FUNC_INVALID_MSG, field="func", value=enum_name(func), limit="ordinals 0..29",
                          check="act.func")
    return func


def activation_args(inst: Activation, ctx: Context) -> list[Operand | None]:
    """args[1..3] of an Activation (N-8: synthesised as float32 immediates when ins has 1 or 2)."""
    try:
        return inst.args(ctx.decisions.get(ActivationRoles).roles(), ctx.decisions.get(ShortActivationArgs).synthesizes)
    except ActivationArgsError as e:
        if e.why == "scale":  # KLR's default scale is 0: never synthesise one the kernel did not give (finding #6)
            raise EncodeError("Activation with fewer than 4 ins needs the 'scale' key to synthesise its scale "
                              "operand (N-8)", field="scale", value=None, check="act.operands") from None
        raise EncodeError(ARGS4_MSG, field="ins", value=len(inst.ins), limit="4 (N-8: or 1, 2 with the scale key)",
                          check="act.operands") from None


def activation_checks(inst: Activation, ctx: Context, func: ActFunc) -> None:
    """N-27 / N-31: keys the 0x21 band has no byte for."""
    refuse = ctx.decisions.get(ActivationUnsupportedKeys).refuses
    if inst.attr("is_activate2"):  # Activate2 0x25 is gen4 only (N-31): never ignored
        raise EncodeError("is_activate2: Activate2 (0x25) is gen4 only (N-31); gen2/gen3 encode 0x21", field="is_activate2",
                          value=True, check="act.unsupported_key")
    if not refuse:
        return
    for key in ("op0", "op1"):
        if inst.attr(key) not in (None, AluOp.bypass):
            raise EncodeError(f"Activation {key} {enum_name(inst.attr(key))} has no byte in the 0x21 band (N-27)",
                              field=key, value=enum_name(inst.attr(key)), limit="bypass", check="act.unsupported_key")
    for key in ("reverse0", "reverse1"):
        if inst.attr(key):
            raise EncodeError(f"Activation {key} has no byte in the 0x21 band (N-27)", field=key, value=True,
                              limit="false", check="act.unsupported_key")
    if inst.attr("reduce_op") not in (None, AluOp.bypass, AluOp.add):
        raise EncodeError(f"Activation reduce_op {enum_name(inst.attr('reduce_op'))}: the Activation accumulator only "
                          "adds (N-27; NKI 'reduce_op must be nl.add')", field="reduce_op",
                          value=enum_name(inst.attr("reduce_op")), limit="bypass, add", check="act.unsupported_key")


def activation_select(inst: Activation, ctx: Context) -> Selection:
    if len(inst.outs) not in (1, 2):
        raise EncodeError(OUTS12_MSG, field="outs", value=len(inst.outs), limit="1, 2", check="act.operands")
    if len(inst.outs) == 2:
        raise EncodeError("an Activation with two outputs is lowered to 0x21 + 0x24 before codegen (N-40)",
                          check="act.operands")
    func = activation_func(inst)
    wire_func = ACT_FUNC_WIRE[func]
    activation_checks(inst, ctx, func)
    fmt = ctx.formats.by_name["Activate"]
    roles = ctx.decisions.get(ActivationRoles).roles()
    words = ctx.decisions.get(ActivationArg2Word)
    offsets = words.value_offsets()
    kinds = ctx.decisions.get(ScalarKindCodes)
    args = activation_args(inst, ctx)
    no_indirect({"src": inst.src, "dst": inst.dst})
    no_pool_psum(inst, {"src": inst.src, "dst": inst.dst, **{roles[k]: a for k, a in enumerate(args)}})
    acc = inst.attr("acc")
    values: dict[str, int] = {"opcode": ACTIVATE.byte, "func": wire_func,
                              "acc": 3 if acc in (None, AccType.Idle) else acc_wire(acc)}
    if acc == AccType.LoadAccumulate and func is not ActFunc.Prelu and \
            ctx.decisions.get(ActivationLoadAccumulate).prelu_only:
        raise EncodeError(f"Activation {func.name} with acc LoadAccumulate: the 0x21 bundle carries the init (args[3], "
                          "+0x2C) only for Prelu (N-41)", field="acc", value="LoadAccumulate", check="act.load_accumulate")
    for k, arg in enumerate(args, start=1):
        role = roles[k - 1]
        sc = scalar_words(arg, role, ctx)
        same_space_pointer(sc, arg, inst.src, role, ctx)
        if sc.kind is ScalarKind.IMMEDIATE and sc.dtype != Dtype.float32:
            raise EncodeError(ACT_FP32_MSG, field=role, value=sc.dtype.name, limit="float32", check="act.imm_dtype")
        if sc.kind is not ScalarKind.IMMEDIATE and k > 1 and sc.dtype != Dtype.float32:
            raise EncodeError(f"{role} (args[{k}]): a {sc.kind.value} scalar here is read as float32 (only args[1] has a "
                              "dtype field)", field=role, value=sc.dtype.name, limit="float32", check="act.imm_dtype")
        if role == "bias" and ctx.target.name == "gen2" and not ctx.decisions.get(Gen2Bias).allows(
                sc.kind is ScalarKind.POINTER, _is_imm(arg, 0.0)):
            raise EncodeError("gen2 Activation bias must be a [P,1] SBUF/PSUM vector (N-36)", field="bias",
                              value=sc.kind.value, check="act.gen2_bias")
        on_wire = (k == 1 or (k == 2 and offsets[2] is not None and not words.arg2_must_be_neutral)
                   or (k == 3 and wire_func == _PRELU))
        if not on_wire and not _is_imm(arg, NEUTRAL[role]):
            if role == "alpha" and k == 3:
                if ctx.decisions.get(NonPreluAlpha).refuses:
                    raise EncodeError(f"Activation {func.name}: alpha is used only by Prelu; a non-zero alpha would be "
                                      "dropped (N-9)", field="alpha", value=getattr(arg, "value", getattr(arg, "kind", None)),
                                      limit="0.0", check="act.alpha")
            else:
                why = "N-5" if k == 2 else "the +0x2C gate (written only for Prelu)"
                raise EncodeError(f"Activation {role} (args[{k}]) has no byte under {why} with the selected readings; "
                                  f"only the immediate {NEUTRAL[role]} can be encoded, refused rather than dropped"
                                  + (_SCALE_WORKAROUND if role == "scale" else ""),
                                  field=role, value=getattr(arg, "value", getattr(arg, "kind", None)),
                                  limit=f"{NEUTRAL[role]}:float32", check="act.no_field")
        if k == 1:
            values.update(arg1_kind=kinds.code(sc.kind, KindByte.ACT_ARG1), arg1_dtype=sc.wire)
            values["arg1_value"] = sc.word
        elif k == 2:
            values["arg2_kind"] = kinds.code(sc.kind, KindByte.ACT_ARG2)
            if offsets[2] is not None:
                values["arg2_value"] = sc.word
        elif wire_func == _PRELU:
            values.update(arg3_kind=kinds.code(sc.kind, KindByte.ACT_ARG3), arg3_value=sc.word)
        elif wire_func in _FORCED_ARG3:
            values.update(arg3_kind=1, arg3_value=0)  # C: bundle[0x0C] = 1; *(dword)&bundle[0x2C] = 0
        else:
            values.update(arg3_kind=ctx.decisions.get(ActivationArg3Kind).byte(), arg3_value=0)
    return fmt, values


def activation_opcodes(inst: Activation, ctx: Context) -> list[int]:
    if len(inst.outs) not in (1, 2):
        raise EncodeError(OUTS12_MSG, field="outs", value=len(inst.outs), limit="1, 2", check="act.operands")
    activation_func(inst)
    return [ACTIVATE.byte] if len(inst.outs) < 2 else [ACTIVATE.byte, ACT_READ_ACC.byte]


def _read_acc(inst: Instruction, name: str) -> None:
    counts(inst.opcode, inst, (0,), (1,), "ins = [] and outs = [dst]")
    dst = inst.outs[0]
    if isinstance(dst, (PhysicalAP, RegisterAP, SymbolicAP)) and "indirect_dim" in dst.extra:
        raise EncodeError("ACTIVATION_READ_ACCUMULATOR doesn't support TensorIndirect AP since ISA only has one "
                          "dimensional AP", field="dst", value="indirect_dim", check="family.indirect")


def act_read_select(inst: ActivationReadAccumulator, ctx: Context) -> Selection:
    _read_acc(inst, "ActivationReadAccumulator")
    no_pool_psum(inst, {"dst": inst.dst})
    return ctx.formats.by_name["ActivationReadAccumulator"], {"opcode": ACT_READ_ACC.byte}


def act_read_opcodes(inst: ActivationReadAccumulator, ctx: Context) -> list[int]:
    _read_acc(inst, "ActivationReadAccumulator")
    return [ACT_READ_ACC.byte]


def dve_read_select(inst: DveReadAccumulator, ctx: Context) -> Selection:
    _read_acc(inst, "DveReadAccumulator")
    no_pool_psum(inst, {"dst": inst.dst})
    return ctx.formats.by_name["DveReadAccumulator"], {"opcode": DVE_READ_ACC.byte,
                                                       "negated": int(bool(inst.attr("negated")))}


def dve_read_opcodes(inst: DveReadAccumulator, ctx: Context) -> list[int]:
    _read_acc(inst, "DveReadAccumulator")
    return [DVE_READ_ACC.byte]


FAMILIES: dict[type[Instruction], Family] = {
    Activation: Family("Activation", activation_select, activation_opcodes),
    ActivationReadAccumulator: Family("ActivationReadAccumulator", act_read_select, act_read_opcodes),
    ReadActivationAccumulator: Family("ActivationReadAccumulator", act_read_select, act_read_opcodes),
    DveReadAccumulator: Family("DveReadAccumulator", dve_read_select, dve_read_opcodes),
}
