"""Per-instruction codegen and the CodeGenMode fork (SPEC §3.1).

``generate(item, ctx, mode)`` encodes one program item:

* ``COLLECT_OPCODES`` records only the opcode(s) the instruction gets;
* ``GENERATE_ISACODE`` builds the zeroed 64-byte bundle(s): header, sync band, op body;
* ``RUN_ISA_CHECKS`` builds the same bytes and runs the ISA checks on them; nothing is emitted.

Any other mode value fails with the compiler's own message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import EncodeError
from ..isa.enums import CODEGEN_MODE_MSG, ENGINE_STREAM, CodeGenMode, Engine
from ..ir.instructions import (
    CopyPredicated, GenericCopy, Instruction, Memset, MoveShape, RefusedInstruction, RegisterAlu, RegisterMove, Select,
    TensorCopy, TensorLoad, TensorSave, TensorTensor, UnknownInstruction,
)
from ..passes.program import ProgramItem
from . import sp_ops, tensor_ops
from .common import BundleSpec, Context, engine_of, sync_values


@dataclass(frozen=True)
class OpCodegen:
    """The two entry points of one instruction family."""

    opcodes: Callable[[Any, Context], list[int]]
    bundles: Callable[[Any, Context], list[BundleSpec]]


#: IR class → codegen. GenericCopy encodes as TensorCopy (D-17).
CODEGEN: dict[type[Instruction], OpCodegen] = {
    RegisterMove: OpCodegen(sp_ops.register_move_opcodes, sp_ops.register_move_bundles),
    RegisterAlu: OpCodegen(sp_ops.register_alu_opcodes, sp_ops.register_alu_bundles),
    TensorLoad: OpCodegen(sp_ops.tensor_load_save_opcodes, sp_ops.tensor_load_save_bundles),
    TensorSave: OpCodegen(sp_ops.tensor_load_save_opcodes, sp_ops.tensor_load_save_bundles),
    TensorTensor: OpCodegen(tensor_ops.tensor_tensor_opcodes, tensor_ops.tensor_tensor_bundles),
    CopyPredicated: OpCodegen(tensor_ops.copy_predicated_opcodes, tensor_ops.copy_predicated_bundles),
    TensorCopy: OpCodegen(tensor_ops.tensor_copy_opcodes, tensor_ops.tensor_copy_bundles),
    GenericCopy: OpCodegen(tensor_ops.tensor_copy_opcodes, tensor_ops.tensor_copy_bundles),
    Memset: OpCodegen(tensor_ops.memset_opcodes, tensor_ops.memset_bundles),
    MoveShape: OpCodegen(tensor_ops.move_shape_opcodes, tensor_ops.move_shape_bundles),
}

SUPPORTED = ", ".join(["Select", *(c.OPCODE for c in CODEGEN)])


_STREAMS: dict[tuple[object, str], str] = {}


def stream_of(inst: Instruction) -> str:
    """The output stream of an instruction (SPEC §5): its engine's, or by family when Unassigned."""
    key = (inst.engine, inst.FAMILY)
    hit = _STREAMS.get(key)
    if hit is None:
        hit = _STREAMS[key] = _stream_of(inst)
    return hit


def _stream_of(inst: Instruction) -> str:
    engine = engine_of(inst.engine)
    if engine == Engine.ALL:
        # D-25: an instruction must run on one engine.
        raise EncodeError("engine ALL is refused: an instruction is encoded into one engine's stream (D-25)",
                          field="engine", value="ALL", check="engine.all")
    if engine == Engine.Unassigned:
        return "sp" if inst.FAMILY == "sp" else "dve"
    return ENGINE_STREAM[engine]


def codegen_for(inst: Instruction) -> OpCodegen:
    """The codegen of an instruction, or the spec's refusal for the ones tongasm does not encode."""
    cg = CODEGEN.get(type(inst))
    if cg is not None:
        return cg
    if isinstance(inst, RefusedInstruction):
        raise EncodeError(inst.REASON, field="opcode", value=inst.opcode, check="opcode.supported")
    if isinstance(inst, Select):  # only reached if a Select was not lowered
        raise EncodeError("Select must be lowered before codegen (passes.lower_select)", check="opcode.supported")
    name = inst.opcode if isinstance(inst, UnknownInstruction) else type(inst).__name__
    raise EncodeError(f"unsupported opcode {name!r}: tongasm encodes {SUPPORTED}", field="opcode", value=name, check="opcode.supported")


@dataclass(slots=True)
class CodegenResult:
    """What one item produced: its stream, opcodes, (unless collecting) its bundles, and in
    RUN_ISA_CHECKS mode the findings of the checks on them."""

    item: ProgramItem
    stream: str
    opcodes: list[int]
    specs: list[BundleSpec] = field(default_factory=list)
    bundles: list[bytes] = field(default_factory=list)
    findings: list[Any] = field(default_factory=list)


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

    In RUN_ISA_CHECKS mode the bundles are built exactly as for GENERATE_ISACODE, decoded back and
    run through the ISA checks (``checks``: a :class:`tongasm.check.registry.CheckSet`); the
    result carries the findings. The caller decides whether the bytes are emitted.
    """
    if type(mode) is not CodeGenMode:
        mode = check_mode(mode)
    inst = item.inst
    try:
        stream = stream_of(inst)
        cg = codegen_for(inst)
        if mode == CodeGenMode.COLLECT_OPCODES:
            return CodegenResult(item, stream, cg.opcodes(inst, ctx))
        specs = cg.bundles(inst, ctx)
        sync = sync_values(ctx, inst.sync, sp_op=inst.FAMILY == "sp") if inst.sync else None
        if sync:
            # Every instruction reaching codegen yields one bundle (a Select was split by the
            # lowering, which put its wait on the first part and its update on the last: D-24).
            assert len(specs) == 1
            specs[0].add(sync)
        bundles = [s.encode() for s in specs]
        result = CodegenResult(item, stream, [s.opcode for s in specs], specs, bundles)
        if mode == CodeGenMode.RUN_ISA_CHECKS:
            result.findings = _run_checks(result, ctx, checks)
        return result
    except EncodeError as e:
        raise e.at(item.source.name or None, item.index, item.label) from None


def _run_checks(result: CodegenResult, ctx: Context, checks: Any) -> list[Any]:
    from ..check.runner import check_bundle, check_instruction

    item = result.item
    findings = []
    for spec, raw in zip(result.specs, result.bundles):
        # the checks read the bytes (decoded again), exactly as for a raw stream
        findings.extend(check_bundle(spec.fmt, None, raw, target=ctx.target, decisions=ctx.decisions,
                                     stream=result.stream, checks=checks))
    findings.extend(check_instruction(item.inst, checks, ctx.decisions, item.function))
    if item.part == 0 and item.source is not item.inst:  # rules on the instruction before its lowering
        findings.extend(check_instruction(item.source, checks, ctx.decisions, item.function))
    for f in findings:
        f.inst_name, f.inst_index, f.inst_opcode = item.source.name or None, item.index, item.label
        f.bundle = item.part if item.parts > 1 else None
    return findings
