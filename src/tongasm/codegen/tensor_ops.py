"""Codegen of the tensor family: TensorTensor, the CopyPredicated family, TensorCopy, Memset and
MoveShape (SPEC §4.4–§4.9).

As in :mod:`.sp_ops`, each op has an ``*_opcodes`` function (opcode selection, shared by
COLLECT_OPCODES and generation) and a ``*_bundles`` function (field values).
"""

from __future__ import annotations

from ..errors import EncodeError
from ..isa.enums import (
    DTYPE_INFO, FLOAT_DTYPES, INTEGER_DTYPES, MEMSET_MODE_INVALID_MSG, PACKED_DTYPES, AluOp, Dtype,
    Engine, MemoryType, MemsetMode,
)
from ..isa.decisions.spec import BitvecOpcode, Int32OverrideGen2, PredicateFlags, ScalarImmediateDtype, SelectReduceFill
from ..isa.layouts.tensor import MOVESHAPE_DIMS
from ..ir.instructions import CopyPredicated, Memset, MoveShape, TensorCopy, TensorTensor
from ..ir.operands import Immediate, Operand, PhysicalAP, RegisterAccess, RegisterAP, SymbolicAP
from ..numeric import NumericError, bit_pattern
from .common import (
    BundleSpec, Context, Plan, plan_of, scalar_key, acc_wire, alu_class, alu_op, alu_wire, dtype_of, engine_of, is_idle, is_tensor,
    descriptor, partitions, reg_lo, require,
)

GPSIMD_PSUM_MSG = "GPSIMD engine cannot access PSUM"
BIR218_MSG = "Non-scalar and Non-Reduce CopyPredicated cannot have reverse predication"
BIR217_MSG = "Immediate value type must match output type"
SHAPE_RANK_MSG = "ImmPattern.size() <= SHAPE_REGISTER_SIZE + 1"
SHAPE_INDIRECT_MSG = "Hardware Restriction: Shape registers doesn't work with TensorIndirect AP"


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


# --- TensorTensor (0x41 / 0x51 / 0x8A / 0x8E) ------------------------------------------------------

#: D-13 (gen2): Pool engine, all int32: add → 0x8A with 0xC4, mult → 0x8E with 0xC5.
GEN2_INT32_OVERRIDE = {AluOp.add: (0x8A, 0xC4), AluOp.mult: (0x8E, 0xC5)}
#: D-21 (gen3): Pool engine, all int32: the opcode stays 0x41 and +0x0E comes from the CoreV3 band.
GEN3_INT32_BAND = {AluOp.add: 0xC4, AluOp.subtract: 0xC6, AluOp.mult: 0xC5, AluOp.divide: 0xC7}


def tensor_tensor_select(inst: TensorTensor, ctx: Context) -> tuple[int, int]:
    """(opcode, ALU byte) of a TensorTensor: bit-vector class (D-12) and the GPSIMD int32 overrides."""
    _counts("TensorTensor", inst, (2,), (1,), "ins = [in0, in1] and outs = [out]")
    op = alu_op(inst.attr("op"))
    wire = alu_wire(op)
    engine = engine_of(inst.engine)
    dts = [dtype_of(o, r) for o, r in ((inst.in0, "in0"), (inst.in1, "in1"), (inst.out, "out"))]
    all_int32 = all(d == Dtype.int32 for d in dts)
    if ctx.target.name == "gen2":
        gate = ctx.decisions.get(Int32OverrideGen2).gate(engine == Engine.Pool)
        if gate and all_int32 and op in GEN2_INT32_OVERRIDE:
            return GEN2_INT32_OVERRIDE[op]
    else:
        if engine == Engine.Pool and all_int32 and op in GEN3_INT32_BAND:
            return 0x41, GEN3_INT32_BAND[op]
    bitvec = ctx.decisions.get(BitvecOpcode).is_bitvec(op, alu_class(op))
    return (0x51 if bitvec else 0x41), wire


def tensor_tensor_opcodes(inst: TensorTensor, ctx: Context) -> list[int]:
    return [tensor_tensor_select(inst, ctx)[0]]


def _tensor_tensor_plan(inst: TensorTensor, ctx: Context) -> tuple[Plan, bool]:
    """Everything about a TensorTensor that depends only on its op, acc, engine and dtypes: the
    opcode, ALU byte and wire dtypes (placed once), and whether it runs on Pool. Memoised on those."""
    opcode, alu = tensor_tensor_select(inst, ctx)
    acc = inst.attr("acc")
    if not is_idle(acc):
        raise EncodeError(f"TensorTensor acc {getattr(acc, 'name', acc)} has no field in the TensorTensor bundle; "
                          "refused rather than dropped", field="acc", value=getattr(acc, "name", acc), limit="Idle",
                          check="tt.acc")
    in0, in1, out = inst.in0, inst.in1, inst.out
    if ctx.target.name == "gen3":
        for o, r in ((in0, "in0"), (in1, "in1"), (out, "out")):
            d = dtype_of(o, r)  # type: ignore[arg-type]
            if d in PACKED_DTYPES:
                # D-26: the CoreV3 TensorTensor dtype mapper rejects the packed dtypes.
                raise EncodeError(f"{r}: packed dtype {d.name} is not accepted by TensorTensor on gen3 (D-26)",
                                  field=f"{r}.dtype", value=d.name, check="tt.packed_gen3")
    fmt = ctx.formats.by_name["TensorTensor"]
    static = {"opcode": opcode, "in0_dtype": DTYPE_INFO[dtype_of(in0, "in0")].wire,  # type: ignore[arg-type]
              "in1_dtype": DTYPE_INFO[dtype_of(in1, "in1")].wire,  # type: ignore[arg-type]
              "out_dtype": DTYPE_INFO[dtype_of(out, "out")].wire, "op": alu}  # type: ignore[arg-type]
    return Plan(ctx, fmt, static, ("out", "in0", "in1"), ("num_partitions",)), engine_of(inst.engine) == Engine.Pool


def tensor_tensor_bundles(inst: TensorTensor, ctx: Context) -> list[BundleSpec]:
    ins, outs = inst.ins, inst.outs
    if len(ins) != 2 or len(outs) != 1:
        _counts("TensorTensor", inst, (2,), (1,), "ins = [in0, in1] and outs = [out]")
    in0, in1 = ins
    out = outs[0]
    attrs = inst.attrs
    key = ("TT", attrs.get("op"), attrs.get("acc"), inst.engine, in0.dtype, in1.dtype, out.dtype)
    hit = ctx.plans.get(key)
    if hit is None:
        hit = ctx.plans[key] = _tensor_tensor_plan(inst, ctx)
    plan, pool = hit
    if pool and (_in_psum(in0) or _in_psum(in1)):
        raise EncodeError(GPSIMD_PSUM_MSG, field="in0" if _in_psum(in0) else "in1", value="PSUM", check="tt.gpsimd_psum")
    return [plan.build(partitions(in0, "in0"), out, in0, in1)]


# --- CopyPredicated family (0x72 / 0x99 / 0xE8 / 0xEA) ---------------------------------------------

def copy_predicated_opcodes(inst: CopyPredicated, ctx: Context) -> list[int]:
    """SPEC §4.5 selector (C)."""
    _counts("CopyPredicated", inst, (2, 3), (1,), "ins = [mask, src, optional fill] and outs = [dst]")
    op = alu_op(inst.attr("op"))
    src, dst = inst.src, inst.dst
    if op != AluOp.bypass:
        if isinstance(src, Immediate):
            raise EncodeError(f"CopyPredicated with reduce op {op.name} needs a tensor src, not a scalar",
                              field="src", value="imm_value", check="cp.scalar_reduce")
        return [0xEA]
    if isinstance(src, Immediate):
        return [0xE8]
    require(is_tensor(src), f"CopyPredicated src must be an access pattern or an imm_value, got "
            f"{getattr(src, 'kind', src)}", field="src", check="operands.shape")
    assert src is not None and dst is not None
    return [0x72 if dtype_of(src, "src") == dtype_of(dst, "dst") else 0x99]


#: Which operand fills each descriptor slot, and which gives the partition count, per layout.
_CP_ROLES = {"CopyPredicated": ("mask", {"dst": "dst", "src": "src", "mask": "mask"}),
             "CopyPredicatedScalar": ("dst", {"dst": "dst", "mask": "mask"}),
             "SelectReduce": ("mask", {"src": "src", "dst": "dst", "mask": "mask"})}
_CP_ROLE_NAMES = ("mask", "src", "dst")
_CP_INDEX = {r: i for i, r in enumerate(_CP_ROLE_NAMES)}


def copy_predicated_bundles(inst: CopyPredicated, ctx: Context) -> list[BundleSpec]:
    """Everything but the partition count and the descriptors depends only on the operands'
    kinds, dtypes and scalar values and on the attributes: that part is memoised (a plan)."""
    ins, outs = inst.ins, inst.outs
    key = ("CP", inst.engine, *inst.attrs.items(), len(ins), *map(scalar_key, ins), *map(scalar_key, outs))
    plan = ctx.plans.get(key)
    if plan is None:
        opcode = copy_predicated_opcodes(inst, ctx)[0]
        if opcode == 0xEA:
            spec = _select_reduce(inst, ctx)
        elif opcode == 0xE8:
            spec = _copy_predicated_scalar(inst, ctx)
        else:
            spec = _copy_predicated_tensor(inst, ctx, opcode)
        parts_role, slot_roles = _CP_ROLES[spec.fmt.name]
        slots = tuple(slot for slot in slot_roles if slot in spec.fmt.slots)
        ctx.plans[key] = plan_of(ctx, spec, ("num_partitions",), slots,
                                 (_CP_INDEX[parts_role], tuple(_CP_INDEX[slot_roles[s]] for s in slots)))
        return [spec]
    parts, order = plan.info
    ops = (ins[0], ins[1], outs[0])  # mask, src, dst
    return [plan.build(partitions(ops[parts], _CP_ROLE_NAMES[parts]), *[ops[i] for i in order])]


def _refuse_acc_fill(inst: CopyPredicated, what: str) -> None:
    acc = inst.attr("acc")
    if not is_idle(acc):
        raise EncodeError(f"{what}: acc {getattr(acc, 'name', acc)} has no field here; refused rather than dropped",
                          field="acc", value=getattr(acc, "name", acc), limit="Idle", check="cp.acc")
    if inst.fill is not None:
        raise EncodeError(f"{what}: a fill operand has no field here; refused rather than dropped", field="fill", check="cp.fill")


def _copy_predicated_tensor(inst: CopyPredicated, ctx: Context, opcode: int) -> BundleSpec:
    what = "CopyPredicated" if opcode == 0x72 else "CastPredicated"
    if inst.attr("reverse_pred"):
        raise EncodeError(BIR218_MSG, field="reverse_pred", value=True, check="cp.reverse_pred")
    _refuse_acc_fill(inst, what)
    fmt = ctx.formats.by_name["CopyPredicated"]
    mask, src, dst = inst.mask, inst.src, inst.dst
    vals = {
        "opcode": opcode,
        "mask_dtype": DTYPE_INFO[dtype_of(mask, "mask")].wire,  # type: ignore[arg-type]
        "src_dtype": DTYPE_INFO[dtype_of(src, "src")].wire,  # type: ignore[arg-type]
        "dst_dtype": DTYPE_INFO[dtype_of(dst, "dst")].wire,  # type: ignore[arg-type]
        "num_partitions": partitions(mask, "mask"),
    }
    descs = {"dst": descriptor(dst, fmt.slots["dst"], ctx), "src": descriptor(src, fmt.slots["src"], ctx),
             "mask": descriptor(mask, fmt.slots["mask"], ctx)}
    return BundleSpec(fmt, vals, descs)


def _same_kind(a: Dtype, b: Dtype) -> bool:
    return (a in FLOAT_DTYPES) == (b in FLOAT_DTYPES) and (a in INTEGER_DTYPES) == (b in INTEGER_DTYPES)


def _copy_predicated_scalar(inst: CopyPredicated, ctx: Context) -> BundleSpec:
    _refuse_acc_fill(inst, "CopyPredicatedScalar")
    fmt = ctx.formats.by_name["CopyPredicatedScalar"]
    mask, src, dst = inst.mask, inst.src, inst.dst
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
        "opcode": 0xE8,
        "mask_dtype": DTYPE_INFO[dtype_of(mask, "mask")].wire,  # type: ignore[arg-type]
        "polarity": polarity,
        "num_partitions": partitions(dst, "dst"),
        "scalar_dtype": DTYPE_INFO[sd].wire,
        "dst_dtype": DTYPE_INFO[dd].wire,
        "scalar": bits,
    }
    descs = {"dst": descriptor(dst, fmt.slots["dst"], ctx), "mask": descriptor(mask, fmt.slots["mask"], ctx)}
    return BundleSpec(fmt, vals, descs)


def _select_reduce(inst: CopyPredicated, ctx: Context) -> BundleSpec:
    fmt = ctx.formats.by_name["SelectReduce"]
    mask, src, dst, fill = inst.mask, inst.src, inst.dst, inst.fill
    rev = bool(inst.attr("reverse_pred"))
    d14 = ctx.decisions.get(PredicateFlags)
    if rev and d14.reverse_pred_has_no_field:
        raise EncodeError("SelectReduce: reverse_pred has no known field in the 0xEA bundle (D-14); refused",
                          field="reverse_pred", value=True, check="cp.reverse_pred")
    acc = inst.attr("acc")
    vals: dict[str, int] = {
        "opcode": 0xEA,
        "copy_op": 0x00,
        "reduce_op": alu_wire(inst.attr("op")),
        "use_fill": d14.use_fill(fill is not None, rev),  # D-14
        "mask_dtype": DTYPE_INFO[dtype_of(mask, "mask")].wire,  # type: ignore[arg-type]
        "src_dtype": DTYPE_INFO[dtype_of(src, "src")].wire,  # type: ignore[arg-type]
        "dst_dtype": DTYPE_INFO[dtype_of(dst, "dst")].wire,  # type: ignore[arg-type]
        "num_partitions": partitions(mask, "mask"),
        "fill_dtype": 0,
        "acc": acc_wire(acc),
    }
    descs = {"dst": descriptor(dst, fmt.slots["dst"], ctx), "mask": descriptor(mask, fmt.slots["mask"], ctx)}
    if "src" in fmt.slots:  # D-15: src TENSOR2D at +0x0C (alternative: not encoded)
        descs["src"] = descriptor(src, fmt.slots["src"], ctx)
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
    return BundleSpec(fmt, vals, descs)


# --- TensorCopy / GenericCopy (0x46 / 0x47) ----------------------------------------------------------

def tensor_copy_opcodes(inst: TensorCopy, ctx: Context) -> list[int]:
    _counts(inst.opcode, inst, (1,), (1,), "ins = [src] and outs = [dst]")
    # Opcode = 0x46 + (src dtype != dst dtype), on the raw BIR dtypes (C).
    return [0x46 + int(dtype_of(inst.src, "src") != dtype_of(inst.dst, "dst"))]  # type: ignore[arg-type]


def tensor_copy_bundles(inst: TensorCopy, ctx: Context) -> list[BundleSpec]:
    ins, outs = inst.ins, inst.outs
    if len(ins) != 1 or len(outs) != 1:
        _counts(inst.opcode, inst, (1,), (1,), "ins = [src] and outs = [dst]")
    src, dst = ins[0], outs[0]
    key = ("TC", src.dtype, dst.dtype)
    plan = ctx.plans.get(key)
    if plan is None:
        fmt = ctx.formats.by_name["TensorCopy"]
        static = {"opcode": tensor_copy_opcodes(inst, ctx)[0],
                  "src_dtype": DTYPE_INFO[dtype_of(src, "src")].wire,  # D-18: identity
                  "dst_dtype": DTYPE_INFO[dtype_of(dst, "dst")].wire}
        plan = ctx.plans[key] = Plan(ctx, fmt, static, ("src", "dst"), ("num_partitions",))
    return [plan.build(partitions(src, "src"), src, dst)]


# --- Memset (0x49 / 0x4D) ------------------------------------------------------------------------------

def memset_opcodes(inst: Memset, ctx: Context) -> list[int]:
    _counts("Memset", inst, (0,), (1,), "ins = [] and outs = [dst]")
    mode = inst.attr("mode")
    if not isinstance(mode, MemsetMode):
        raise EncodeError(MEMSET_MODE_INVALID_MSG, field="mode", value=mode, limit="Const, Random", check="enum.memset_mode")
    return [0x49 if mode == MemsetMode.Const else 0x4D]


def memset_bundles(inst: Memset, ctx: Context) -> list[BundleSpec]:
    """Everything but the dst descriptor depends only on the mode, the constant and the dst's
    kind, dtype and pairs: a plan."""
    outs = inst.outs
    if inst.ins or len(outs) != 1:
        _counts("Memset", inst, (0,), (1,), "ins = [] and outs = [dst]")
    dst = outs[0]
    attrs = inst.attrs
    constant = attrs.get("constant", 0)
    key = ("MS", attrs.get("mode"), type(dst), dst.dtype, getattr(dst, "ap", None), type(constant), constant)
    plan = ctx.plans.get(key)
    if plan is None:
        spec = _memset_spec(inst, ctx)
        ctx.plans[key] = plan_of(ctx, spec, (), ("dst",))
        return [spec]
    return [plan.build(dst)]


def _memset_spec(inst: Memset, ctx: Context) -> BundleSpec:
    opcode = memset_opcodes(inst, ctx)[0]
    fmt = ctx.formats.by_name["Memset"]
    dst = inst.dst
    require(is_tensor(dst), f"Memset dst must be an access pattern, got {getattr(dst, 'kind', dst)}", field="dst",
            check="operands.shape")
    d = dtype_of(dst, "dst")  # type: ignore[arg-type]
    constant = inst.attrs.get("constant", 0)
    size = DTYPE_INFO[d].size
    limit = 0xFFFFFFFF if size >= 4 else (1 << (8 * size)) - 1
    if not 0 <= constant <= limit:
        raise EncodeError(f"Memset constant {constant} does not fit the {d.name} fill value (raw bits 0..{limit:#x})",
                          field="fill", value=constant, limit=f"0..{limit:#x}", check="memset.fill_width")
    if opcode == 0x4D and constant != 0:
        raise EncodeError(f"Memset Random requires constant 0, got {constant}", field="fill", value=constant, limit="0", check="memset.random_zero")
    assert isinstance(dst, (PhysicalAP, RegisterAP, SymbolicAP))
    vals = {
        "opcode": opcode,
        "element_count": dst.elements_per_partition,
        "dtype": DTYPE_INFO[d].wire,  # D-18: identity reinterpret
        "num_partitions": partitions(dst, "dst"),
        "fill": constant,
    }
    return BundleSpec(fmt, vals, {"dst": descriptor(dst, fmt.slots["dst"], ctx)})  # D-19: TENSOR4D at +0x2C


# --- MoveShape (0xB2) ----------------------------------------------------------------------------------

def move_shape_opcodes(inst: MoveShape, ctx: Context) -> list[int]:
    if len(inst.ins) + len(inst.outs) != 1:
        raise EncodeError(f"MoveShape needs exactly one access pattern, in ins (the DMA source) or in outs (the "
                          f"destination); got {len(inst.ins)} input(s) and {len(inst.outs)} output(s)", check="moveshape.operands")
    return [0xB2]


def move_shape_bundles(inst: MoveShape, ctx: Context) -> list[BundleSpec]:
    """Every field depends only on the pattern's kind, dtype and pairs and on the direction: a plan."""
    move_shape_opcodes(inst, ctx)
    ap = inst.ap
    key = ("MV", type(ap), getattr(ap, "dtype", None), getattr(ap, "ap", None), bool(inst.outs),
           "indirect_dim" in getattr(ap, "extra", ()))
    plan = ctx.plans.get(key)
    if plan is None:
        spec = _move_shape_spec(inst, ap, ctx)
        ctx.plans[key] = plan_of(ctx, spec)
        return [spec]
    return [plan.build()]


def _move_shape_spec(inst: MoveShape, ap: Operand | None, ctx: Context) -> BundleSpec:
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
    vals: dict[str, int] = {"opcode": 0xB2, "is_output": int(inst.is_output)}
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
    return BundleSpec(ctx.formats.by_name["MoveShape"], vals)
