"""Per-instruction codegen and the CodeGenMode fork (SPEC §3.1).

``generate(item, ctx, mode)`` encodes one program item:

* ``COLLECT_OPCODES`` records only the opcode(s) the instruction gets;
* ``GENERATE_ISACODE`` builds the zeroed 64-byte bundle(s): header, sync band, op body;
* ``RUN_ISA_CHECKS`` builds the same bytes and runs the ISA checks on them; nothing is emitted.

Any other mode value fails with the compiler's own message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import EncodeError
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.decisions.scalar import DefaultStream
from ..isa.enums import CODEGEN_MODE_MSG, ENGINE_STREAM, CodeGenMode, Engine
from ..ir.instructions import (
    CopyPredicated, DeclaredInstruction, DMACopy, GenericCopy, Instruction, LoadStationary, Matmult, Memset, MoveShape,
    MultiplyMoving, RefusedInstruction, RegisterAlu, RegisterMove, Select,
    TensorCopy, TensorLoad, TensorSave, TensorTensor, UnknownInstruction,
)
from ..passes.program import ProgramItem
from . import act, batchnorm, dma, gpsimd, move, pe, reduce, scalar, search, sp, tensor
from ..isa.fields import BUNDLE_SIZE, Format
from .common import Context, engine_of, sync_part
from .declared import declared_family
from .plan import Encoder, Family


#: IR class → its family's codegen. GenericCopy encodes as TensorCopy (D-17).
FAMILIES: dict[type[Instruction], Family] = {
    RegisterMove: Family("RegisterMove", sp.register_move_select, sp.register_move_opcodes),
    RegisterAlu: Family("RegisterAlu", sp.register_alu_select, sp.register_alu_opcodes),
    TensorLoad: Family("TensorLoad", sp.tensor_load_save_select, sp.tensor_load_save_opcodes,
                       sp.tensor_load_save_offset_fields),
    TensorSave: Family("TensorSave", sp.tensor_load_save_select, sp.tensor_load_save_opcodes,
                       sp.tensor_load_save_offset_fields),
    TensorTensor: Family("TensorTensor", tensor.tensor_tensor_select, tensor.tensor_tensor_opcodes),
    CopyPredicated: Family("CopyPredicated", tensor.copy_predicated_select, tensor.copy_predicated_opcodes),
    TensorCopy: Family("TensorCopy", tensor.tensor_copy_select, tensor.tensor_copy_opcodes),
    GenericCopy: Family("TensorCopy", tensor.tensor_copy_select, tensor.tensor_copy_opcodes),
    Memset: Family("Memset", tensor.memset_select, tensor.memset_opcodes),
    MoveShape: Family("MoveShape", tensor.move_shape_select, tensor.move_shape_opcodes),
    # --- the PE and DMA families (Matmult is lowered to the PE pair before codegen) ---
    LoadStationary: Family("LoadStationary", pe.load_stationary_select, pe.load_stationary_opcodes),
    MultiplyMoving: Family("MultiplyMoving", pe.multiply_moving_select, pe.multiply_moving_opcodes),
    DMACopy: Family("DMACopy", dma.dma_copy_select, dma.dma_copy_opcodes),
}

# --- the vector families, each with its own FAMILIES ---
for _family in (reduce, act, scalar, move, search, batchnorm, gpsimd):
    FAMILIES.update(_family.FAMILIES)

SUPPORTED = ", ".join(["Select", "Matmult", *(c.OPCODE for c in FAMILIES)])


_STREAMS: dict[tuple[object, str, DecisionSet], str] = {}


def stream_of(inst: Instruction, decisions: DecisionSet = DEFAULT_DECISIONS) -> str:
    """The output stream of an instruction (SPEC §5): its engine's, or by family when Unassigned
    (N-16: the Activation family goes to act, the Pool-only ops to pool)."""
    key = (inst.engine, inst.stream_family(), decisions)
    hit = _STREAMS.get(key)
    if hit is None:
        hit = _STREAMS[key] = _stream_of(inst, decisions)
    return hit


def _stream_of(inst: Instruction, decisions: DecisionSet) -> str:
    engine = engine_of(inst.engine)
    if engine == Engine.ALL:
        # D-25: an instruction must run on one engine.
        raise EncodeError("engine ALL is refused: an instruction is encoded into one engine's stream (D-25)",
                          field="engine", value="ALL", check="engine.all")
    if engine == Engine.Unassigned:
        if inst.FAMILY == "engine":
            # the DMA and sync/control ops exist on every engine: which stream is the program's choice
            raise EncodeError(f"{inst.opcode} runs on every engine; name the one (engine is Unassigned)",
                              field="engine", value="Unassigned", check="engine.unassigned")
        return decisions.get(DefaultStream).stream(inst.stream_family())  # SPEC §5, N-16
    return ENGINE_STREAM[engine]


def codegen_for(inst: Instruction) -> Family:
    """The codegen of an instruction, or the spec's refusal for the ones tongasm does not encode."""
    cg = FAMILIES.get(type(inst))
    if cg is not None:
        return cg
    if isinstance(inst, DeclaredInstruction):
        return declared_family(type(inst))  # type: ignore[arg-type]
    if isinstance(inst, RefusedInstruction):
        raise EncodeError(inst.REASON, field="opcode", value=inst.opcode, check="opcode.supported")
    if isinstance(inst, (Select, Matmult)):  # only reached if it was not lowered
        raise EncodeError(f"{inst.opcode} must be lowered before codegen (tongasm.passes.lower)", check="opcode.supported")
    name = inst.opcode if isinstance(inst, UnknownInstruction) else type(inst).__name__
    raise EncodeError(f"unsupported opcode {name!r}: tongasm encodes {SUPPORTED}", field="opcode", value=name, check="opcode.supported")


@dataclass(slots=True)
class CodegenResult:
    """What one item produced: its stream, opcodes, (unless collecting) its layouts and bundles, and
    in RUN_ISA_CHECKS mode the findings of the checks on them."""

    item: ProgramItem
    stream: str
    opcodes: list[int]
    formats: list[Format] = field(default_factory=list)
    bundles: list[bytes] = field(default_factory=list)
    findings: list[Any] = field(default_factory=list)


def encoder_of(ctx: Context) -> Encoder:
    """The context's plans (made on first use)."""
    enc = ctx.encoder
    if enc is None:
        enc = ctx.encoder = Encoder(ctx)
    return enc


def encode_bits(inst: Instruction, ctx: Context, family: Family | None = None) -> tuple[Format, int]:
    """GENERATE_ISACODE of one instruction: its layout and its bundle's bits, sync band included.
    The one encode path: :func:`generate` and the assembler both come through here."""
    fmt, bits = encoder_of(ctx).encode(inst, family or codegen_for(inst))
    sync = inst.sync
    if sync is not None:
        bits |= sync_part(ctx, fmt, sync, sp_op=inst.FAMILY == "sp")
    return fmt, bits


def check_mode(mode: Any) -> CodeGenMode:
    """The mode as a :class:`CodeGenMode`; anything else fails with the compiler's message."""
    if isinstance(mode, CodeGenMode):
        return mode
    if isinstance(mode, int) and not isinstance(mode, bool) and mode in CodeGenMode._value2member_map_:
        return CodeGenMode(mode)
    raise EncodeError(CODEGEN_MODE_MSG, field="mode", value=mode, limit="0, 1, 2", check="enum.codegen_mode")


def generate(item: ProgramItem, ctx: Context, mode: CodeGenMode | int = CodeGenMode.GENERATE_ISACODE,
             checks: Any = None) -> CodegenResult:
    """Encode one program item in the given CodeGenMode. Errors carry the instruction's identity.

    In RUN_ISA_CHECKS mode the bundle is built exactly as for GENERATE_ISACODE, decoded back and
    run through the ISA checks (``checks``: a :class:`tongasm.check.registry.CheckSet`); the result
    carries the findings. The caller decides whether the bytes are emitted.
    """
    if type(mode) is not CodeGenMode:
        mode = check_mode(mode)
    inst = item.inst
    try:
        stream = stream_of(inst, ctx.decisions)
        cg = codegen_for(inst)
        if mode == CodeGenMode.COLLECT_OPCODES:
            return CodegenResult(item, stream, cg.opcodes(inst, ctx))
        # Every instruction reaching codegen yields one bundle (a Select was split by the lowering,
        # which put its wait on the first part and its update on the last: D-24).
        fmt, bits = encode_bits(inst, ctx, cg)
        raw = bits.to_bytes(BUNDLE_SIZE, "little")
        result = CodegenResult(item, stream, [raw[0]], [fmt], [raw])
        if mode == CodeGenMode.RUN_ISA_CHECKS:
            result.findings = _run_checks(result, ctx, checks)
        return result
    except EncodeError as e:
        raise e.at(item.source.name or None, item.index, item.label) from None


def _run_checks(result: CodegenResult, ctx: Context, checks: Any) -> list[Any]:
    from ..check.act import stream_rule_findings
    from ..check.runner import check_bundle, check_instruction

    item = result.item
    findings = []
    for fmt, raw in zip(result.formats, result.bundles):
        # the checks read the bytes (decoded again), exactly as for a raw stream
        findings.extend(check_bundle(fmt, None, raw, target=ctx.target, decisions=ctx.decisions,
                                     stream=result.stream, checks=checks))
        # rules on a stream's order of bundles (N-35 residency), in program order
        findings.extend(stream_rule_findings(ctx, result.stream, raw[0], fmt.decode(raw), checks))
    findings.extend(check_instruction(item.inst, checks, ctx.decisions, item.function, ctx.target))
    if item.part == 0 and item.source is not item.inst:  # rules on the instruction before its lowering
        findings.extend(check_instruction(item.source, checks, ctx.decisions, item.function, ctx.target))
    for f in findings:
        f.inst_name, f.inst_index, f.inst_opcode = item.source.name or None, item.index, item.label
        f.bundle = item.part if item.parts > 1 else None
    return findings
