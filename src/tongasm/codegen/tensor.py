"""Codegen of the tensor family: TensorTensor, the CopyPredicated family, TensorCopy, Memset and
MoveShape (SPEC §4.4–§4.9).

As in :mod:`.sp`, each op has an ``*_opcodes`` function (opcode selection, shared by
COLLECT_OPCODES and generation) and a ``*_select`` function: the layout and the static field
values of a :mod:`plan <tongasm.codegen.plan>`. A select reads the instruction's op, attributes,
engine and its operands' kinds, dtypes, values and locations, never the geometry (pairs, offsets)
of the operands its layout's binding places: slots, partition counts and element counts are
placed per instruction by the plan.
"""

from __future__ import annotations

from ..errors import EncodeError
from ..isa.decisions.spec import BitvecOpcode, Int32OverrideGen2, PredicateFlags, ScalarImmediateDtype, SelectReduceFill
from ..isa.enums import (
    ALU_WIRE, DTYPE_INFO, FLOAT_DTYPES, INT32_BAND, INTEGER_DTYPES, MEMSET_MODE_INVALID_MSG, PACKED_DTYPES, AluOp, Dtype,
    Engine, MemoryType, MemsetMode,
)
from ..isa.fields import Format
from ..isa.layouts.tensor import INT32_FORMS_GEN2, MOVESHAPE_DIMS
from ..isa.opcodes import (
    CAST, CAST_PREDICATED, COPY, COPY_PREDICATED, COPY_PREDICATED_SCALAR, MEMSET, MOVE_SHAPE, RNG, SELECT_REDUCE,
    TT_ARITH, TT_BITVEC,
)
from ..ir.instructions import CopyPredicated, Memset, MoveShape, TensorCopy, TensorTensor
from ..ir.operands import Immediate, Operand, PhysicalAP, RegisterAccess, RegisterAP, SymbolicAP
from ..numeric import NumericError, bit_pattern
from .common import (
    Context, acc_wire, alu_class, alu_op, alu_wire, dtype_of, engine_of, is_idle, is_tensor, reg_lo, require,
)

GPSIMD_PSUM_MSG = "GPSIMD engine cannot access PSUM"
BIR218_MSG = "Non-scalar and Non-Reduce CopyPredicated cannot have reverse predication"
BIR217_MSG = "Immediate value type must match output type"
SHAPE_RANK_MSG = "ImmPattern.size() <= SHAPE_REGISTER_SIZE + 1"
SHAPE_INDIRECT_MSG = "Hardware Restriction: Shape registers doesn't work with TensorIndirect AP"

Selection = tuple[Format, dict[str, int]]


def _counts(name: str, inst: TensorTensor | CopyPredicated | TensorCopy | Memset, n_in: tuple[int, ...],
            n_out: tuple[int, ...], shape: str) -> None:
    if len(inst.ins) not in n_in or len(inst.outs) not in n_out:
        raise EncodeError(f"{name} needs {shape}; got {len(inst.ins)} input(s) and {len(inst.outs)} output(s)", check="operands.shape")


def _in_psum(op: Operand | None) -> bool:
    if isinstance(op, PhysicalAP) and op.location is not None:
        return op.location.type == MemoryType.PSUM
    if isinstance(op, RegisterAP) and op.allocation is not None:
        return MemoryType.PSUM in op.allocation.memory_types
    return False


# --- TensorTensor (TT_ARITH / TT_BITVEC / the gen2 int32 forms) -------------------------------------

def tensor_tensor_opcode(inst: TensorTensor, ctx: Context) -> tuple[int, int]:
    """(opcode, ALU byte) of a TensorTensor: bit-vector class (D-12) and the GPSIMD int32 overrides
    (D-13 on gen2: own opcodes; D-21 on gen3: the band byte on TT_ARITH)."""
    _counts("TensorTensor", inst, (2,), (1,), "ins = [in0, in1] and outs = [out]")
    op = alu_op(inst.attr("op"))
    wire = alu_wire(op)
    engine = engine_of(inst.engine)
    dts = [dtype_of(o, r) for o, r in ((inst.in0, "in0"), (inst.in1, "in1"), (inst.out, "out"))]
    all_int32 = all(d == Dtype.int32 for d in dts)
    if ctx.target.name == "gen2":
        gate = ctx.decisions.get(Int32OverrideGen2).gate(engine == Engine.Pool)
        if gate and all_int32 and op in INT32_FORMS_GEN2:
            form, band = INT32_FORMS_GEN2[op]
            return form.byte, band
    else:
        if engine == Engine.Pool and all_int32 and op in INT32_BAND:
            return TT_ARITH.byte, INT32_BAND[op]
    bitvec = ctx.decisions.get(BitvecOpcode).is_bitvec(op, alu_class(op))
    return (TT_BITVEC if bitvec else TT_ARITH).byte, wire


def tensor_tensor_opcodes(inst: TensorTensor, ctx: Context) -> list[int]:
    return [tensor_tensor_opcode(inst, ctx)[0]]


def tensor_tensor_select(inst: TensorTensor, ctx: Context) -> Selection:
    """The opcode and ALU byte (the wire dtypes come from the binding)."""
    opcode, alu = tensor_tensor_opcode(inst, ctx)
    acc = inst.attr("acc")
    if not is_idle(acc):
        raise EncodeError(f"TensorTensor acc {getattr(acc, 'name', acc)} has no field in the TensorTensor bundle; "
                          "refused rather than dropped", field="acc", value=getattr(acc, "name", acc), limit="Idle",
                          check="tt.acc")
    in0, in1, out = inst.in0, inst.in1, inst.out
    if ctx.target.name == "gen3":
        for o, r in ((in0, "in0"), (in1, "in1"), (out, "out")):
            d = dtype_of(o, r)
            if d in PACKED_DTYPES:
                # D-26: the CoreV3 TensorTensor dtype mapper rejects the packed dtypes.
                raise EncodeError(f"{r}: packed dtype {d.name} is not accepted by TensorTensor on gen3 (D-26)",
                                  field=f"{r}.dtype", value=d.name, check="tt.packed_gen3")
    if engine_of(inst.engine) == Engine.Pool and (_in_psum(in0) or _in_psum(in1)):
        raise EncodeError(GPSIMD_PSUM_MSG, field="in0" if _in_psum(in0) else "in1", value="PSUM", check="tt.gpsimd_psum")
    return ctx.formats.by_name["TensorTensor"], {"opcode": opcode, "op": alu}


# --- CopyPredicated family (COPY_PREDICATED / CAST_PREDICATED / COPY_PREDICATED_SCALAR / SELECT_REDUCE) ---

def copy_predicated_opcodes(inst: CopyPredicated, ctx: Context) -> list[int]:
    """SPEC §4.5 selector (C)."""
    _counts("CopyPredicated", inst, (2, 3), (1,), "ins = [mask, src, optional fill] and outs = [dst]")
    op = alu_op(inst.attr("op"))
    src, dst = inst.src, inst.dst
    if op != AluOp.bypass:
        if isinstance(src, Immediate):
            raise EncodeError(f"CopyPredicated with reduce op {op.name} needs a tensor src, not a scalar",
                              field="src", value="imm_value", check="cp.scalar_reduce")
        return [SELECT_REDUCE.byte]
    if isinstance(src, Immediate):
        return [COPY_PREDICATED_SCALAR.byte]
    require(is_tensor(src), f"CopyPredicated src must be an access pattern or an imm_value, got "
            f"{getattr(src, 'kind', src)}", field="src", check="operands.shape")
    assert src is not None and dst is not None
    same = dtype_of(src, "src") == dtype_of(dst, "dst")
    return [(COPY_PREDICATED if same else CAST_PREDICATED).byte]


def copy_predicated_select(inst: CopyPredicated, ctx: Context) -> Selection:
    """The layout of the predicated copy the operands call for, and its static fields."""
    opcode = copy_predicated_opcodes(inst, ctx)[0]
    if opcode == SELECT_REDUCE.byte:
        return _select_reduce(inst, ctx)
    if opcode == COPY_PREDICATED_SCALAR.byte:
        return _copy_predicated_scalar(inst, ctx)
    return _copy_predicated_tensor(inst, ctx, opcode)


def _refuse_acc_fill(inst: CopyPredicated, what: str) -> None:
    acc = inst.attr("acc")
    if not is_idle(acc):
        raise EncodeError(f"{what}: acc {getattr(acc, 'name', acc)} has no field here; refused rather than dropped",
                          field="acc", value=getattr(acc, "name", acc), limit="Idle", check="cp.acc")
    if inst.fill is not None:
        raise EncodeError(f"{what}: a fill operand has no field here; refused rather than dropped", field="fill", check="cp.fill")


def _copy_predicated_tensor(inst: CopyPredicated, ctx: Context, opcode: int) -> Selection:
    what = "CopyPredicated" if opcode == COPY_PREDICATED.byte else "CastPredicated"
    if inst.attr("reverse_pred"):
        raise EncodeError(BIR218_MSG, field="reverse_pred", value=True, check="cp.reverse_pred")
    _refuse_acc_fill(inst, what)
    return ctx.formats.by_name["CopyPredicated"], {"opcode": opcode}


def _same_kind(a: Dtype, b: Dtype) -> bool:
    return (a in FLOAT_DTYPES) == (b in FLOAT_DTYPES) and (a in INTEGER_DTYPES) == (b in INTEGER_DTYPES)


def _copy_predicated_scalar(inst: CopyPredicated, ctx: Context) -> Selection:
    _refuse_acc_fill(inst, "CopyPredicatedScalar")
    fmt = ctx.formats.by_name["CopyPredicatedScalar"]
    src, dst = inst.src, inst.dst
    assert isinstance(src, Immediate) and dst is not None
    sd, dd = dtype_of(src, "src"), dtype_of(dst, "dst")
    if ctx.decisions.get(ScalarImmediateDtype).must_equal:
        if sd != dd:  # D-27: BIR217
            raise EncodeError(BIR217_MSG, field="src.dtype", value=sd.name, limit=dd.name, check="cps.imm_dtype")
    elif not _same_kind(sd, dd):
        raise EncodeError(BIR217_MSG + " (kind)", field="src.dtype", value=sd.name, limit=dd.name, check="cps.imm_dtype")
    try:
        bits = bit_pattern(src.value, sd)
    except NumericError as e:
        raise EncodeError(f"scalar src: {e}", field="scalar", value=src.value, check="imm.value") from None
    if bits > 0xFFFFFFFF:
        raise EncodeError(f"scalar src {src.value} ({sd.name}) needs {bits.bit_length()} bits; the scalar field holds 32",
                          field="scalar", value=src.value, limit="32 bits", check="imm.value")
    rev = bool(inst.attr("reverse_pred"))
    # D-14: +0x21 = 1 iff reverse_pred is false (1 writes where the predicate is non-zero).
    polarity = ctx.decisions.get(PredicateFlags).polarity(rev)
    vals = {
        "opcode": COPY_PREDICATED_SCALAR.byte,
        "polarity": polarity,
        "scalar_dtype": DTYPE_INFO[sd].wire,
        "scalar": bits,
    }
    return fmt, vals


def _select_reduce(inst: CopyPredicated, ctx: Context) -> Selection:
    fmt = ctx.formats.by_name["SelectReduce"]
    fill = inst.fill
    rev = bool(inst.attr("reverse_pred"))
    d14 = ctx.decisions.get(PredicateFlags)
    if rev and d14.reverse_pred_has_no_field:
        raise EncodeError("SelectReduce: reverse_pred has no known field in the 0xEA bundle (D-14); refused",
                          field="reverse_pred", value=True, check="cp.reverse_pred")
    acc = inst.attr("acc")
    vals: dict[str, int] = {
        "opcode": SELECT_REDUCE.byte,
        "copy_op": ALU_WIRE[AluOp.bypass][0],
        "reduce_op": alu_wire(inst.attr("op")),
        "use_fill": d14.use_fill(fill is not None, rev),  # D-14
        "fill_dtype": 0,
        "acc": acc_wire(acc),
    }
    if fill is not None:
        vals["fill_dtype"] = DTYPE_INFO[dtype_of(fill, "fill")].wire
        one_byte = ctx.decisions.get(SelectReduceFill).one_byte
        if isinstance(fill, Immediate):
            fd = dtype_of(fill, "fill")
            try:
                bits = bit_pattern(fill.value, fd)
            except NumericError as e:
                raise EncodeError(f"fill: {e}", field="fill", value=fill.value, check="imm.value") from None
            if one_byte:
                # D-16: later stores overwrite all but one byte of the fill.
                if bits > 0xFF:
                    raise EncodeError(
                        f"SelectReduce fill {fill.value!r} ({fd.name}) has bit pattern {bits:#x}, which does not fit "
                        "the one fill byte at +0x27 that survives on the wire (D-16); only fills whose bit pattern "
                        "fits one byte can be encoded, e.g. a +0.0 float32 fill",
                        field="fill", value=fill.value, limit="bit pattern 0x00..0xff", check="sr.fill_byte")
                vals["fill"] = bits
            else:
                if bits > 0xFFFFFFFF:
                    raise EncodeError(f"fill {fill.value!r} ({fd.name}) needs more than 32 bits", field="fill_value",
                                      value=fill.value, limit="32 bits", check="imm.value")
                vals.update(fill_source=0, fill_value=bits)
        elif isinstance(fill, (RegisterAccess, RegisterAP)):
            rid = reg_lo(ctx, fill, "fill")
            if one_byte:
                vals["fill"] = rid
            else:
                vals.update(fill_source=1, fill_value=rid)
        else:
            raise EncodeError(f"SelectReduce fill from {getattr(fill, 'kind', fill)} has no known encoding; use an "
                              "immediate or a register", field="fill", value=getattr(fill, "kind", fill), check="sr.fill_kind")
    return fmt, vals


# --- TensorCopy / GenericCopy (COPY / CAST) -------------------------------------------------------------

def tensor_copy_opcodes(inst: TensorCopy, ctx: Context) -> list[int]:
    _counts(inst.opcode, inst, (1,), (1,), "ins = [src] and outs = [dst]")
    # Copy, or Cast when the raw BIR dtypes differ (C).
    same = dtype_of(inst.src, "src") == dtype_of(inst.dst, "dst")
    return [(COPY if same else CAST).byte]


def tensor_copy_select(inst: TensorCopy, ctx: Context) -> Selection:
    """The opcode (the dtypes come from the binding, D-18: identity reinterpret)."""
    return ctx.formats.by_name["TensorCopy"], {"opcode": tensor_copy_opcodes(inst, ctx)[0]}


# --- Memset (MEMSET / RNG) ----------------------------------------------------------------------------

def memset_opcodes(inst: Memset, ctx: Context) -> list[int]:
    _counts("Memset", inst, (0,), (1,), "ins = [] and outs = [dst]")
    mode = inst.attr("mode")
    if not isinstance(mode, MemsetMode):
        raise EncodeError(MEMSET_MODE_INVALID_MSG, field="mode", value=mode, limit="Const, Random", check="enum.memset_mode")
    return [(MEMSET if mode == MemsetMode.Const else RNG).byte]


def memset_select(inst: Memset, ctx: Context) -> Selection:
    """The opcode and the fill (the element count, partitions and dst come from the binding)."""
    opcode = memset_opcodes(inst, ctx)[0]
    dst = inst.dst
    require(is_tensor(dst), f"Memset dst must be an access pattern, got {getattr(dst, 'kind', dst)}", field="dst",
            check="operands.shape")
    d = dtype_of(dst, "dst")
    constant = inst.fill_bits(ctx.decisions)  # D-29: a value in the dst dtype, or constant_bits as given
    size = DTYPE_INFO[d].size
    limit = 0xFFFFFFFF if size >= 4 else (1 << (8 * size)) - 1
    if not 0 <= constant <= limit:
        raise EncodeError(f"Memset constant bits {constant:#x} do not fit the {d.name} fill value (raw bits 0..{limit:#x})",
                          field="fill", value=constant, limit=f"0..{limit:#x}", check="memset.fill_width")
    if opcode == RNG.byte and constant != 0:
        raise EncodeError(f"Memset Random requires constant 0, got bits {constant:#x}", field="fill", value=constant, limit="0", check="memset.random_zero")
    return ctx.formats.by_name["Memset"], {"opcode": opcode, "fill": constant}  # D-19: TENSOR4D at +0x2C


# --- MoveShape (MOVE_SHAPE) ---------------------------------------------------------------------------

def move_shape_opcodes(inst: MoveShape, ctx: Context) -> list[int]:
    if len(inst.ins) + len(inst.outs) != 1:
        raise EncodeError(f"MoveShape needs exactly one access pattern, in ins (the DMA source) or in outs (the "
                          f"destination); got {len(inst.ins)} input(s) and {len(inst.outs)} output(s)", check="moveshape.operands")
    return [MOVE_SHAPE.byte]


def move_shape_select(inst: MoveShape, ctx: Context) -> Selection:
    """Every field depends on the pattern's kind, dtype and pairs and on the direction (no binding)."""
    move_shape_opcodes(inst, ctx)
    return _move_shape_spec(inst, inst.ap, ctx)


def _move_shape_spec(inst: MoveShape, ap: Operand | None, ctx: Context) -> Selection:
    require(is_tensor(ap), f"MoveShape needs an access pattern, got {getattr(ap, 'kind', ap)}", field="ap",
            check="moveshape.operands")
    assert isinstance(ap, (PhysicalAP, RegisterAP, SymbolicAP))
    if "indirect_dim" in ap.extra:
        raise EncodeError(SHAPE_INDIRECT_MSG, field="ap", value="indirect_dim", check="moveshape.indirect")
    pairs = ap.ap
    if len(pairs) > MOVESHAPE_DIMS + 1:
        raise EncodeError(SHAPE_RANK_MSG, field="ap", value=len(pairs), limit=f"<= {MOVESHAPE_DIMS + 1} pairs", check="moveshape.rank")
    if not pairs:
        raise EncodeError("MoveShape: the access pattern has no pairs; it needs at least the partition pair",
                          field="ap", check="desc.pairs")
    size = DTYPE_INFO[dtype_of(ap, "ap")].size
    vals: dict[str, int] = {"opcode": MOVE_SHAPE.byte, "is_output": int(inst.is_output)}
    free = list(pairs[1:])[::-1]  # used as written, innermost first
    for i in range(MOVESHAPE_DIMS):
        step, num = free[i] if i < len(free) else (1, 1)
        if step < 0:
            raise EncodeError(f"MoveShape: step {step} of free dim {len(free) - 1 - i} is negative; byte steps are "
                              "unsigned", field=f"step{i}", value=step, limit=">= 0", check="moveshape.step_sign")
        vals[f"step{i}"] = step * size if i < len(free) else size
        vals[f"count{i}"] = num
        if num < 1:
            raise EncodeError(f"MoveShape: count {num} of free dim {len(free) - 1 - i} must be at least 1",
                              field=f"count{i}", value=num, limit=">= 1", check="moveshape.counts")
    return ctx.formats.by_name["MoveShape"], vals
