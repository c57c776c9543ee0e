"""The SP register-lane layouts (SPEC §4.1–§4.3): RegisterMove 0xA7, RegisterAlu 0xA8,
TensorLoad/TensorSave 0xCE/0xCD (IMM form) and 0xAA/0xAB (REG form)."""

from __future__ import annotations

from ..decisions import DecisionSet
from ..decisions.sp import RegisterAluImmediateForm, RegisterAluImmediateRoles
from ..decisions.spec import LoadSaveOffset, RegisterAluDtypes
from ..enums import WireDtype
from ..fields import NONZERO, Field, Kind
from ..layout import (
    DtypeText, EnumText, ImmText, Layout, M2dText, PairText, RegText, Sem, TextOp, VarText,
)
from ..opcodes import ALU, MOVE, PSEUDO_TENSOR_LOAD, PSEUDO_TENSOR_STORE, TENSOR_LOAD, TENSOR_STORE
from ..tables import ALU_TABLE
from .common import C, D, H, I, V, const, copy_of, dtype, reg, u8, zero_run


def register_move(ds: DecisionSet) -> list[Layout]:
    """SPEC §4.1 RegisterMove 0xA7."""
    valid_num = u8("valid_num", 0x0C, C, "1 = 32-bit move, 2 = 64-bit move")
    dt = dtype("dtype", 0x0D, C, "wire(dst dtype); the 64-bit path writes INT32")
    src_mode = u8("src_mode", 0x0E, C, "0 = register source, 1 = immediate source")
    src = reg("src", 0x10, C, "source register")
    dst = reg("dst", 0x18, C, "destination register (lo)")
    dst_hi = reg("dst_hi", 0x19, C, "destination register (hi), 64-bit only")
    imm_off = 0x20
    imm32 = Field("imm", imm_off, 4, conf=C, decision="D-23", doc="immediate, bit pattern in the dst dtype")
    imm64 = Field("imm", imm_off, 8, conf=C, decision="D-23", doc="64-bit immediate")
    ops = (MOVE,)
    checks = ("move.dtype",)
    return [
        Layout("RegisterMove.reg", ops, (valid_num, dt, src_mode, src, dst), Sem.REGISTER_MOVE,
               (RegText(name="dst", field="dst"), RegText(name="src", field="src"), DtypeText(name="dtype", field="dtype")),
               match={"valid_num": 1, "src_mode": 0}, checks=checks, doc="32-bit register → register"),
        Layout("RegisterMove.imm", ops, (valid_num, dt, src_mode, dst, imm32), Sem.REGISTER_MOVE,
               (RegText(name="dst", field="dst"), ImmText(name="imm", field="imm", dtype_field="dtype")),
               match={"valid_num": 1, "src_mode": 1}, checks=checks, doc="32-bit immediate → register"),
        Layout("RegisterMove.imm64", ops, (valid_num, dt, src_mode, dst, dst_hi, imm64), Sem.REGISTER_MOVE,
               (PairText(name="dst", lo=("dst",), hi="dst_hi"),
                ImmText(name="imm", field="imm", fixed_dtype=WireDtype.INT64)),
               match={"valid_num": 2, "src_mode": 1}, implied={"dtype": const(WireDtype.INT32)}, checks=checks,
               doc="64-bit immediate → register pair"),
    ]


def register_alu(ds: DecisionSet) -> list[Layout]:
    """SPEC §4.2 RegisterAlu 0xA8 (register roles and dtype bytes: D-7)."""
    op_f = Field("op", 0x0C, 1, Kind.ENUM, enum=ALU_TABLE, conf=C, doc="ALU op")
    count = Field("count", 0x0D, 1, Kind.CONSTANT, const=1, conf=H, decision="D-7", doc="register path: constant 1")
    src_dtype = dtype("src_dtype", 0x0D, H, "wire(src1 dtype)", decision="D-7")
    mode = u8("operand_mode", 0x0E, C, "0 = src2 is a register, 1 = src2 is an immediate")
    dst_dtype = dtype("dst_dtype", 0x0F, H, "wire(dst dtype)", decision="D-7")
    dst = reg("dst", 0x10, I, "destination register", "D-7")
    src1 = reg("src1", 0x11, I, "first source register", "D-7")
    src2 = reg("src2", 0x12, I, "second source register", "D-7")
    third = Field("third", 0x13, 1, Kind.CONSTANT, const=0, conf=I, decision="D-7", doc="third source (role unknown), 0")
    dst_lo = reg("dst_lo", 0x14, I, "64-bit destination pair, lo", "D-7")
    dst_hi = reg("dst_hi", 0x15, I, "64-bit destination pair, hi", "D-7")
    imm_off = 0x18
    imm32 = Field("imm", imm_off, 4, conf=C, decision="D-23", doc="immediate, bit pattern in src1's dtype")
    imm64 = Field("imm", imm_off, 8, conf=C, decision="D-23", doc="64-bit immediate")
    reg_dtypes = ((src_dtype, dst_dtype) if ds.get(RegisterAluDtypes).register_path_has_dtypes else (count,))
    imm_dtypes = (src_dtype, dst_dtype)
    ops = (ALU,)
    reg_common = (op_f, *reg_dtypes, mode, dst, src1, src2, third)
    imm_common = (op_f, *imm_dtypes, mode, dst, src1, third)
    real_imm = ds.get(RegisterAluImmediateForm).src1_at_14
    seen = "all 2,704 corpus RegisterAlus"
    # which of the two register bytes is read (the corpus's dataflow: +0x10) and which written (+0x14)
    at10, at14 = (("src1", "first source register"), ("dst", "destination register")) \
        if ds.get(RegisterAluImmediateRoles).source_at_10 else \
        (("dst", "destination register"), ("src1", "first source register"))
    # the corpus's immediate path (32-bit): registers at +0x10 and +0x14, +0x0F zero, +0x11..+0x13 zero
    imm32_body = ((op_f, dtype("src_dtype", 0x0D, V, "wire(src1 dtype): uint32 in " + seen, decision="R-31"), mode,
                   reg(at10[0], 0x10, V, at10[1] + " (R-103)", "R-31"),
                   Field("reserved_0f", 0x0F, 1, Kind.CONSTANT, const=0, conf=V, decision="R-31",
                         doc=f"0 in {seen} (D-7's dst dtype is not written)"),
                   *zero_run(0x11, 3, V, f"observed zero in {seen}"),
                   reg(at14[0], 0x14, V, at14[1] + " (R-103)", "R-31"),
                   *zero_run(0x15, 3, V, f"observed zero in {seen}"))
                  if real_imm else imm_common)

    def text(wide: bool, imm: bool) -> tuple[TextOp, ...]:
        out: list[TextOp] = [EnumText(name="op", field="op")]
        out.append(PairText(name="dst", lo=("dst",), hi="dst_hi") if wide else RegText(name="dst", field="dst"))
        out.append(RegText(name="src1", field="src1"))
        if imm:
            out.append(ImmText(name="imm", field="imm", dtype_field="src_dtype"))
            if wide or not real_imm:  # the corpus's 32-bit immediate path has no dst dtype
                out.append(DtypeText(name="dst_dtype", field="dst_dtype"))
        else:
            out.append(RegText(name="src2", field="src2"))
            if src_dtype in reg_dtypes:  # D-7 alternative: dtype bytes on the register path too
                out += [DtypeText(name="src_dtype", field="src_dtype"), DtypeText(name="dst_dtype", field="dst_dtype")]
        return tuple(out)

    wide_implied = {"dst_lo": copy_of("dst")}  # the pair's lo repeats dst
    checks = ("alu.valid_op", "alu.dtypes")
    # 64-bit variants first: they are told apart by a non-zero dst pair hi byte (hi = lo + 1 ≥ 1).
    return [
        Layout("RegisterAlu.reg64", ops, (*reg_common, dst_lo, dst_hi), Sem.REGISTER_ALU, text(True, False),
               match={"operand_mode": 0, "dst_hi": NONZERO}, implied=wide_implied, checks=checks,
               doc="64-bit, src2 register"),
        Layout("RegisterAlu.reg", ops, reg_common, Sem.REGISTER_ALU, text(False, False), match={"operand_mode": 0},
               checks=checks, doc="32-bit, src2 register"),
        Layout("RegisterAlu.imm64", ops, (*imm_common, dst_lo, dst_hi, imm64), Sem.REGISTER_ALU, text(True, True),
               match={"operand_mode": 1, "dst_hi": NONZERO}, implied=wide_implied, checks=checks,
               doc="64-bit, src2 immediate"),
        Layout("RegisterAlu.imm", ops, (*imm32_body, imm32), Sem.REGISTER_ALU, text(False, True),
               match={"operand_mode": 1}, checks=checks, doc="32-bit, src2 immediate"),
    ]


def tensor_load_save(ds: DecisionSet) -> list[Layout]:
    """SPEC §4.3 TensorLoad/TensorSave: IMM form 0xCE/0xCD, REG form 0xAA/0xAB (m2d: D-10)."""
    m2d = (
        dtype("dtype", 0x0C, C, "wire(memory dtype); 64-bit dtypes → INT32"),
        Field("reserved_0d", 0x0D, 1, Kind.CONSTANT, const=0, conf=C, doc="reserved"),
        Field("num_elem0", 0x0E, 1, conf=C, decision="D-10", doc="innermost pair num (x2 for 64-bit)"),
        Field("num_elem1", 0x0F, 1, conf=C, decision="D-10", doc="next pair num, or 1"),
        Field("step_elem0", 0x18, 4, conf=C, decision="D-10", doc="innermost pair step"),
        Field("step_elem1", 0x1C, 4, conf=C, decision="D-10", doc="next pair step, or 0"),
        reg("data_reg", 0x20, D, "data register (lo)", "D-9"),
        reg("data_hi_or_offset", 0x21, D,
            "64-bit data: data register hi (D-9); 32-bit data: offset register, 0 if none (D-22)", "D-22"),
    )
    imm_body = (
        Field("var_id", 0x10, 4, conf=C, decision="D-8", doc="DRAM variable id"),
        Field("var_offset", 0x14, 4, conf=C, decision="D-8", doc="byte offset in the variable"),
    )
    offset_reg = ds.get(LoadSaveOffset).offset_register_in_reg_form
    if offset_reg:
        reg_regs: tuple[Field, ...] = (
            reg("addr_reg", 0x10, C, "register holding the memory address (regref)"),
            reg("offset_reg", 0x11, D, "offset operand register, 0 if none", "D-22"),
        )
        second: TextOp = RegText(name="offset", field="offset_reg").opt()
    else:
        reg_regs = (
            reg("addr_reg", 0x10, C, "memory address register pair, lo", "D-22"),
            reg("addr_reg_hi", 0x11, D, "memory address register pair, hi", "D-22"),
        )
        second = RegText(name="addr_hi", field="addr_reg_hi")
    reg_body = (*reg_regs,
                Field("reg_marker", 0x17, 1, Kind.CONSTANT, const=0x80, conf=C, doc="register-address marker"))
    data = RegText(name="data", field="data_reg")
    hi_or_offset = RegText(name="hi_or_offset", field="data_hi_or_offset").opt()
    checks = ("ls.pairs",)
    return [
        Layout("TensorLoadSave.imm", (PSEUDO_TENSOR_LOAD, PSEUDO_TENSOR_STORE), (*m2d, *imm_body),
               Sem.TENSOR_LOAD_SAVE, (data, VarText(), M2dText(), hi_or_offset), checks=checks,
               doc="IMM form: DRAM variable + offset"),
        Layout("TensorLoadSave.reg", (TENSOR_LOAD, TENSOR_STORE), (*m2d, *reg_body), Sem.TENSOR_LOAD_SAVE,
               (data, RegText(name="addr", field="addr_reg"), second, M2dText(), hi_or_offset), checks=checks,
               doc="REG form: address in a register"),
    ]


BUILDERS = (register_move, register_alu, tensor_load_save)
