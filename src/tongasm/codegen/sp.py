"""Codegen of the SP register-lane ops: RegisterMove, RegisterAlu, TensorLoad, TensorSave (SPEC §4.1–§4.3).

Each op has an ``*_opcodes`` function (what COLLECT_OPCODES records) and a ``*_select`` function:
the layout and the field values GENERATE_ISACODE / RUN_ISA_CHECKS encode (these layouts bind no
descriptor slot, so every field is part of the plan). Field names are those of the layout records
(:mod:`tongasm.isa.layouts.sp`); no byte offset appears here.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import EncodeError
from ..isa.decisions.spec import LoadSaveOffset, RegisterAluDtypes, SaveTargetsGen2, VariableId
from ..isa.enums import DTYPE_INFO, INT64_DTYPES, AccType, Dtype, MemoryType
from ..ir.instructions import RegisterAlu, RegisterMove, TensorLoad, TensorSave
from ..ir.operands import Immediate, Operand, PhysicalAP, RegisterAccess, RegisterAP
from ..numeric import NumericError, bit_pattern
from ..isa.fields import Format
from ..isa.opcodes import ALU, MOVE, PSEUDO_TENSOR_LOAD, PSEUDO_TENSOR_STORE, TENSOR_LOAD, TENSOR_STORE
from .common import (
    SYMBOLIC_AP_MSG, Context, alu_wire, dtype_of, reg_id, reg_lo, reg_pair, register_of, require,
)

Selection = tuple[Format, dict[str, int]]
REG_MOVE_DTYPE_MSG = "only support fp32/uint32/int32 for REG MOVE instr"
REG_MOVE_64_MSG = "64bit REG MOVE instr must have ImmediateValue src"
MOVE_32_DTYPES = frozenset({Dtype.float32, Dtype.uint32, Dtype.int32})
#: For a 32-bit ALU, a 64-bit src1 dtype's immediate is encoded in its 32-bit counterpart.
_NARROW = {Dtype.int64: Dtype.int32, Dtype.uint64: Dtype.uint32}


def _imm_bits(value: int | float, d: Dtype, role: str) -> int:
    try:
        return bit_pattern(value, d)
    except NumericError as e:
        raise EncodeError(f"{role}: {e}", field=role, value=value, check="imm.value") from None


def _operand_counts(inst_name: str, ins: Sequence[Operand], outs: Sequence[Operand], n_in: tuple[int, ...],
                    n_out: tuple[int, ...], shape: str) -> None:
    if len(ins) not in n_in or len(outs) not in n_out:
        raise EncodeError(f"{inst_name} needs {shape}; got {len(ins)} input(s) and {len(outs)} output(s)", check="operands.shape")


# --- RegisterMove 0xA7 ------------------------------------------------------------------------------

def register_move_opcodes(inst: RegisterMove, ctx: Context) -> list[int]:
    return [MOVE.byte]


var_id = VariableId.var_id  # D-8


def register_move_select(inst: RegisterMove, ctx: Context) -> Selection:
    _operand_counts("RegisterMove", inst.ins, inst.outs, (1,), (1,),
                    "ins = [src: register_access or imm_value] and outs = [dst: register_access]")
    dst, src = inst.dst, inst.src
    require(isinstance(dst, RegisterAccess), f"RegisterMove dst must be a register_access, got "
            f"{getattr(dst, 'kind', dst)}", field="dst", check="operands.shape")
    assert dst is not None
    dd = dtype_of(dst, "dst")
    fmts = ctx.formats.by_name
    if dd == Dtype.int64:
        # The 64-bit path: valid_num 2, dtype written as wire(int32), a register pair, a u64 immediate.
        if not isinstance(src, Immediate):
            raise EncodeError(REG_MOVE_64_MSG, field="src", check="move.64bit_src")
        lo, hi = reg_pair(ctx, dst, "dst")
        return fmts["RegisterMove.imm64"], {
            "opcode": MOVE.byte, "valid_num": 2, "dtype": DTYPE_INFO[Dtype.int32].wire, "src_mode": 1,
            "dst": lo, "dst_hi": hi, "imm": _imm_bits(src.value, Dtype.int64, "imm"),
        }
    if dd not in MOVE_32_DTYPES:
        raise EncodeError(REG_MOVE_DTYPE_MSG, field="dst.dtype", value=dd.name, limit="float32, uint32, int32, int64", check="move.dtype")
    common = {"opcode": MOVE.byte, "valid_num": 1, "dtype": DTYPE_INFO[dd].wire, "dst": reg_lo(ctx, dst, "dst")}
    if isinstance(src, RegisterAccess):
        return fmts["RegisterMove.reg"], {**common, "src_mode": 0, "src": reg_lo(ctx, src, "src")}
    if isinstance(src, Immediate):
        # D-23: float values are bit-cast to IEEE bits; ints are two's complement in the dst dtype.
        return fmts["RegisterMove.imm"], {**common, "src_mode": 1, "imm": _imm_bits(src.value, dd, "imm")}
    raise EncodeError(f"RegisterMove src must be a register_access or an imm_value, got {getattr(src, 'kind', src)}",
                      field="src", check="operands.shape")


# --- RegisterAlu 0xA8 --------------------------------------------------------------------------------

def register_alu_opcodes(inst: RegisterAlu, ctx: Context) -> list[int]:
    return [ALU.byte]


def register_alu_select(inst: RegisterAlu, ctx: Context) -> Selection:
    _operand_counts("RegisterAlu", inst.ins, inst.outs, (2,), (1,),
                    "ins = [src1: register, src2: register or imm_value] and outs = [dst: register]")
    for key in ("acc", "reduce_cmd"):
        v = inst.attrs.get(key)
        if v is not None and v != AccType.Idle:
            raise EncodeError(f"RegisterAlu {key} {getattr(v, 'name', v)} has no known bytes; refused rather than "
                              "dropped", field=key, value=getattr(v, "name", v), limit="Idle", check="alu.unsupported_attr")
    dge = inst.attr("dge_type")
    if dge not in (None, "None"):
        raise EncodeError(f"RegisterAlu dge_type {dge!r} has no known bytes; refused rather than dropped",
                          field="dge_type", value=dge, limit="None", check="alu.unsupported_attr")
    op = alu_wire(inst.attr("op"))
    is64 = bool(inst.attr("is_64bit"))
    src1, src2, dst = inst.src1, inst.src2, inst.dst
    vals = {"opcode": ALU.byte, "op": op, "dst": reg_lo(ctx, dst, "dst"), "src1": reg_lo(ctx, src1, "src1")}
    assert src1 is not None and dst is not None
    if is64:
        vals["dst_lo"], vals["dst_hi"] = reg_pair(ctx, dst, "dst")
        for role, operand in (("src1", src1), ("src2", src2)):
            if isinstance(operand, (RegisterAccess, RegisterAP)) and operand.register is not None:
                reg_pair(ctx, operand, role)  # only the low id has a field: the engine reads r{lo} and r{lo+1}
    fmts = ctx.formats.by_name
    if isinstance(src2, Immediate):
        # D-7: the immediate path writes both dtype bytes and the immediate (src1's dtype).
        d1 = dtype_of(src1, "src1")
        enc = d1 if is64 else _NARROW.get(d1, d1)
        bits = _imm_bits(src2.value, enc, "imm")
        fmt = fmts["RegisterAlu.imm64" if is64 else "RegisterAlu.imm"]
        vals.update(operand_mode=1, src_dtype=DTYPE_INFO[d1].wire, imm=bits)
        if "dst_dtype" in fmt.field_map:  # the corpus's 32-bit immediate path writes no dst dtype
            vals["dst_dtype"] = DTYPE_INFO[dtype_of(dst, "dst")].wire
        return fmt, vals
    register_of(src2, "src2")
    vals.update(operand_mode=0, src2=reg_lo(ctx, src2, "src2"))
    if ctx.decisions.get(RegisterAluDtypes).register_path_has_dtypes:
        # D-7 alternative: both dtype bytes on the register path too.
        vals.update(src_dtype=DTYPE_INFO[dtype_of(src1, "src1")].wire, dst_dtype=DTYPE_INFO[dtype_of(dst, "dst")].wire)
    return fmts["RegisterAlu.reg64" if is64 else "RegisterAlu.reg"], vals


# --- TensorLoad / TensorSave (0xCE/0xAA, 0xCD/0xAB) ------------------------------------------------

_LS_OPCODES = {("load", "imm"): PSEUDO_TENSOR_LOAD.byte, ("load", "reg"): TENSOR_LOAD.byte,
               ("save", "imm"): PSEUDO_TENSOR_STORE.byte, ("save", "reg"): TENSOR_STORE.byte}


def _ls_form(mem: Operand | None) -> str:
    if isinstance(mem, PhysicalAP):
        return "imm"
    if isinstance(mem, RegisterAP):
        return "reg"
    raise EncodeError(SYMBOLIC_AP_MSG, field="memory", check="ls.form")


def _ls_counts(inst: TensorLoad | TensorSave) -> None:
    if isinstance(inst, TensorLoad):
        _operand_counts("TensorLoad", inst.ins, inst.outs, (1, 2), (1,),
                        "ins = [memory AP, optional offset register] and outs = [dst register_access]")
    else:
        _operand_counts("TensorSave", inst.ins, inst.outs, (1,), (1, 2),
                        "ins = [src register_access] and outs = [memory AP, optional offset register]")


def tensor_load_save_opcodes(inst: TensorLoad | TensorSave, ctx: Context) -> list[int]:
    _ls_counts(inst)
    kind = "load" if isinstance(inst, TensorLoad) else "save"
    return [_LS_OPCODES[(kind, _ls_form(inst.memory))]]


def tensor_load_save_select(inst: TensorLoad | TensorSave, ctx: Context) -> Selection:
    _ls_counts(inst)
    save = isinstance(inst, TensorSave)
    mem, reg, offset = inst.memory, inst.reg, inst.offset
    form = _ls_form(mem)
    for role, op in (("memory", mem), ("offset", offset)):
        if isinstance(op, RegisterAP) and (op.reg_ap_offset or op.is_regloc_offset):
            # D-28: the SP page has no field for a register-AP offset (SPEC §3.3 refuses it in descriptors)
            what = f"reg_ap_offset {op.reg_ap_offset!r}" if op.reg_ap_offset else "is_regloc_offset"
            raise EncodeError(f"{role}: a register_ap with {what} has no field in the TensorLoad/Save bundle; refused "
                              "rather than dropped (D-28)", field=f"{role}.addr", value=what,
                              check="ls.reg_ap_offset")
    assert isinstance(mem, (PhysicalAP, RegisterAP))
    md = dtype_of(mem, "memory")
    register_of(reg, "register")
    assert reg is not None
    rd = dtype_of(reg, "register")
    if rd != md:
        raise EncodeError(f"the register's dtype {rd.name} must equal the memory access pattern's dtype {md.name}",
                          field="dtype", value=rd.name, limit=md.name, check="ls.reg_dtype")
    is64 = md in INT64_DTYPES
    if save:
        _check_save_target(mem, ctx)
    pairs = mem.ap
    if len(pairs) not in (1, 2):
        raise EncodeError(f"the memory access pattern must have one or two pairs (used as written), got {len(pairs)}",
                          field="memory.ap", value=len(pairs), limit="1..2", check="ls.pairs")
    for k, (step, num) in enumerate(pairs):
        if step < 0:
            raise EncodeError(f"memory access pattern pair {k} has a negative step {step}; the m2d steps are unsigned",
                              field=f"memory.ap[{k}].step", value=step, limit=">= 0", check="ls.pairs")
        if num < 1:
            raise EncodeError(f"memory access pattern pair {k} has num {num}; counts start at 1",
                              field=f"memory.ap[{k}].num", value=num, limit="1..255", check="ls.pairs")
    inner = pairs[-1]
    outer = pairs[0] if len(pairs) == 2 else (0, 1)
    # 64-bit dtypes are described as pairs of 32-bit lanes: wire(int32), doubled innermost count.
    wire_d = DTYPE_INFO[Dtype.int32 if is64 else md].wire
    vals = {
        "opcode": _LS_OPCODES[("save" if save else "load", form)],
        "dtype": wire_d,
        "num_elem0": inner[1] * (2 if is64 else 1),
        "num_elem1": outer[1],
        "step_elem0": inner[0],
        "step_elem1": outer[0],
    }
    offset_id = 0
    if offset is not None:
        if is64:
            raise EncodeError("an offset operand cannot be used with 64-bit data: +0x21 holds the data register hi "
                              "(D-22)", field="offset", check="ls.offset_64bit")
        offset_id = reg_lo(ctx, offset, "offset")
    if is64:
        vals["data_reg"], vals["data_hi_or_offset"] = reg_pair(ctx, reg, "register")  # D-9
    else:
        vals["data_reg"] = reg_lo(ctx, reg, "register")  # D-9
        vals["data_hi_or_offset"] = offset_id  # D-22
    fmts = ctx.formats.by_name
    if form == "imm":
        assert isinstance(mem, PhysicalAP) and mem.location is not None
        loc = mem.location
        # D-8: var_id = tensor_id, else the location's index; var_offset = offset × size, u32.
        vals["var_id"] = var_id(loc)
        vals[VAR_OFFSET] = mem.offset * DTYPE_INFO[md].size
        return fmts["TensorLoadSave.imm"], vals
    assert isinstance(mem, RegisterAP) and mem.register is not None
    if ctx.decisions.get(LoadSaveOffset).offset_register_in_reg_form:
        vals["addr_reg"] = reg_id(ctx, mem.register.lo, "memory address register")
        vals["offset_reg"] = offset_id
    else:
        vals["addr_reg"], vals["addr_reg_hi"] = reg_pair(ctx, mem, "memory address register")
    return fmts["TensorLoadSave.reg"], vals


#: the IMM form's field that holds the memory operand's offset (× its dtype's size, D-8)
VAR_OFFSET = "var_offset"


def tensor_load_save_offset_fields(inst: TensorLoad | TensorSave, fmt: Format) -> dict[str, tuple[str, int]]:
    """Where the memory operand's offset reaches a bundle of layout ``fmt`` that
    :func:`tensor_load_save_select` chose: role → (field, scale). In the IMM form the offset is read
    only for ``var_offset = offset × dtype size`` (D-8; the range check is the field's); nothing
    else the select does depends on it. The REG form has no offset (the address is a register)."""
    mem = inst.memory
    if fmt.name != "TensorLoadSave.imm" or not isinstance(mem, PhysicalAP) or not isinstance(mem.dtype, Dtype):
        return {}
    return {"memory": (VAR_OFFSET, DTYPE_INFO[mem.dtype].size)}


def _check_save_target(mem: PhysicalAP | RegisterAP, ctx: Context) -> None:
    """TensorSave targets: never PSUM (C); D-11 on gen2."""
    if isinstance(mem, PhysicalAP):
        assert mem.location is not None
        types = {mem.location.type}
    else:
        types = mem.allocation.memory_types if mem.allocation is not None else set()
    if MemoryType.PSUM in types:
        raise EncodeError("TensorSave cannot store into PSUM", field="memory", value="PSUM", check="ls.save_psum")
    if ctx.target.arch_level == 20:
        d11 = ctx.decisions.get(SaveTargetsGen2)
        why = d11.refusal(types)
        if why is not None:
            raise EncodeError(why, field="memory", value=d11.refused_space(), check="ls.save_target")


