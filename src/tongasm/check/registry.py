"""The named checks of the ISA validator and the findings they report.

Every rule has a stable id (``addr4.psum_window``, ``tt.opcode_class``...), a one-line description
and the spec section or decision it comes from. A check has a *level*:

* ``encode`` — the encoder cannot produce bytes at all (a value that does not fit, a symbolic AP,
  the D-4 conflict...). Codegen raises these as :class:`~tongasm.errors.EncodeError` carrying the
  id; they cannot be downgraded.
* ``bundle`` — a rule on the decoded fields of one 64-byte bundle. It runs on bundles tongasm
  produced (RUN_ISA_CHECKS) and on raw streams no one here produced.
* ``ir`` — a rule that needs the BIR instruction (operand memory types, register dtypes...); it
  runs only on kernels.
* ``stream`` — a rule on a whole stream (its length, undecodable bundles).

A check also has a *stage*: ``isa`` rules are the compiler's ISA validator (RUN_ISA_CHECKS), which
``tongasm assemble`` enforces before writing; ``bir`` rules are the BIR verifier's (the BIRnnn
codes the spec lists as "validator, not encoder"), which ``tongasm check`` reports and
``assemble`` only warns about; ``lint`` rules are tongasm's own warnings about bytes that follow the
spec but lose or blur information (an encoding another reading of the same bytes would take for
something else). Lint findings are always warnings: they never fail ``check`` or ``assemble``.

``pedantic`` checks come from the background dossiers rather than the spec; they only run when
asked for (``--pedantic``), so that a kernel the spec calls legal passes without noise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Iterator, Mapping
from ..errors import brief_int


@dataclass(frozen=True)
class Check:
    """Metadata of one named check (its logic lives next to the layer it inspects)."""

    id: str
    title: str
    source: str
    levels: tuple[str, ...]  # where it is enforced: "encode", "bundle", "ir", "stream"
    pedantic: bool = False
    stage: str = "isa"  # "isa": RUN_ISA_CHECKS (assemble refuses); "bir": the BIR verifier's rules; "lint"

    @property
    def level(self) -> str:
        return "/".join(self.levels)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "source": self.source, "levels": list(self.levels),
                "stage": self.stage, "pedantic": self.pedantic}


@dataclass
class Finding:
    """One violated rule, with where it happened and what was wrong."""

    check: str
    message: str
    field: str | None = None
    value: Any = None
    allowed: str | None = None
    severity: str = "error"
    # where: a kernel instruction ...
    inst_name: str | None = None
    inst_index: int | None = None
    inst_opcode: str | None = None
    bundle: int | None = None  # which bundle of the instruction (a lowered Select has two)
    # ... or a raw stream
    stream: str | None = None
    offset: int | None = None

    def where(self) -> str:
        if self.stream is not None or self.offset is not None:
            s = self.stream or "stream"
            return f"{s}+{self.offset:#x}" if self.offset is not None else s
        parts = []
        if self.inst_name:
            parts.append(f"instruction {self.inst_name!r}")
        if self.inst_index is not None:
            parts.append(f"#{self.inst_index}")
        if self.inst_opcode:
            parts.append(f"({self.inst_opcode})")
        return " ".join(parts) or "kernel"

    def line(self) -> str:
        """The one-line form for people."""
        what = ""
        if self.field is not None:
            what = f" {self.field}"
            if self.value is not None:
                what += f" = {_fmt(self.value)}"
            what += ":"
        allowed = f" (allowed: {self.allowed})" if self.allowed else ""
        return f"{self.where()}: {self.severity}[{self.check}]{what} {self.message}{allowed}"

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"check": self.check, "severity": self.severity, "message": self.message,
                             "field": self.field, "value": _json_value(self.value), "allowed": self.allowed}
        if self.stream is not None or self.offset is not None:
            d.update(stream=self.stream, offset=self.offset)
        else:
            d.update(instruction=self.inst_name, index=self.inst_index, opcode=self.inst_opcode, bundle=self.bundle)
        return d


def _fmt(v: Any) -> str:
    if isinstance(v, int) and not isinstance(v, bool) and v > 255:
        return f"{brief_int(v)} ({brief_int(v, hexa=True)})"
    if isinstance(v, tuple):
        return f"({', '.join(brief_int(x) if isinstance(x, int) and not isinstance(x, bool) else repr(x) for x in v)}" \
               f"{',' * (len(v) == 1)})"
    return str(v)


def _json_value(v: Any) -> Any:
    if isinstance(v, (int, float, str, bool)) or v is None:
        return v
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    return str(v)


# --- the registry --------------------------------------------------------------------------------

CHECKS: dict[str, Check] = {}


def register_refusals(entries: list[tuple[str, str, str]]) -> None:
    """Declare the ids an encoder raises (level and stage "encode"): ``(id, title, source)`` each."""
    for id_, title, source in entries:
        register(id_, title, source, "encode", stage="encode")


def register(id: str, title: str, source: str, level: str, *, pedantic: bool = False, stage: str = "isa") -> Check:
    """Declare a check. Ids are unique and stable; one rule may be enforced at several levels (the
    encoder refuses it for kernels, a bundle check finds it in raw streams): the first declaration
    keeps its title and stage, later ones add their level."""
    if id in CHECKS:
        existing = CHECKS[id]
        if level not in existing.levels:
            existing = CHECKS[id] = Check(existing.id, existing.title, existing.source, (*existing.levels, level),
                                          existing.pedantic, existing.stage)
        return existing
    c = Check(id, title, source, (level,), pedantic, stage)
    CHECKS[id] = c
    return c


#: Compiler validators whose limits no source gives: listed, not checked (SPEC §4.3).
UNCHECKED: Mapping[str, str] = {
    "m2d_32_elem_check": "TensorLoad/Save m2d validator; its limit is unknown (SPEC §4.3)",
    "m2d_store_num_elem_check": "TensorSave m2d count validator; its limit is unknown (SPEC §4.3)",
    "m2d_datasrc_zero": "TensorLoad/Save m2d validator; its condition is unknown (SPEC §4.3)",
}


# Encoder refusals (level "encode"): raised by codegen with these ids.
_ENCODE = [
    ("operands.shape", "the instruction has the operand count and kinds its opcode needs", "SPEC §4"),
    ("opcode.supported", "the BIR opcode is one tongasm encodes (Load/Save/TensorDequantize are refused)",
     "SPEC §4.10"),
    ("enum.dtype", "a dtype ordinal is a bir::Dtype member (0..19)", "SPEC §2.1"),
    ("enum.alu", "the ALU op has a wire byte (not average, elemwise_mul or >= 30)", "SPEC §2.2"),
    ("enum.acc", "the accumulation type has a wire byte (not Accumulate)", "SPEC §2.3"),
    ("enum.engine", "the engine ordinal is an EngineType member", "SPEC §2.3"),
    ("enum.memset_mode", "the Memset mode is Const or Random", "SPEC §2.3"),
    ("enum.codegen_mode", "the CodeGenMode is one of the three", "SPEC §3.1"),
    ("engine.all", "an instruction runs on one engine, not ALL", "D-25"),
    ("field.range", "every value fits its wire field; nothing is truncated or wrapped", "SPEC §3"),
    ("imm.value", "an immediate's value is representable in the dtype it is written in", "D-23"),
    ("sync.too_many", "at most one wait and one update per instruction", "SPEC §3.2"),
    ("sync.index_range", "semaphore indexes fit 0..255", "SPEC §3.2"),
    ("sync.mode", "sync modes are known ordinals", "SPEC §2.3"),
    ("sync.value", "waits and updates carry exactly the values their modes write", "SPEC §3.2"),
    ("sync.d4_conflict", "a sem_ge wait and a value-carrying update do not share +0x08", "D-4"),
    ("sync.sp_only", "under D-3=sp-only, only SP ops carry sync info", "D-3"),
    ("addr4.symbolic", "codegen has only physical or register access patterns", "SPEC §3.3"),
    ("addr4.regloc_offset", "a register AP used as an address has no offset register", "SPEC §3.3"),
    ("addr4.reg_ap_offset", "a register AP in a descriptor has no reg_ap_offset (no known encoding)", "SPEC §3.3"),
    ("addr4.memory_space", "descriptors address SBUF or PSUM, never DRAM", "SPEC §3.3"),
    ("addr4.composition", "the start partition and byte fit the ADDR4 bit fields", "D-5"),
    ("desc.pairs", "every access pattern has at least the partition pair", "SPEC §4.4"),
    ("desc.partition_step", "the partition pair's step is not negative", "SPEC §3.4"),
    ("desc.count_range", "every access-pattern num is in 1..65535", "SPEC §3.4"),
    ("desc.step_range", "every packed step fits an i16", "SPEC §3.4"),
    ("desc.active_dims", "no more non-degenerate free dims than the descriptor has slots", "SPEC §3.4"),
    ("move.dtype", "RegisterMove dst dtype is float32, uint32, int32 or int64", "SPEC §4.1"),
    ("move.64bit_src", "a 64-bit RegisterMove has an immediate source", "SPEC §4.1"),
    ("alu.unsupported_attr", "RegisterAlu acc/reduce_cmd/dge_type are default (no known bytes)", "SPEC §4.2"),
    ("ls.form", "TensorLoad/Save memory is a physical or register AP", "SPEC §4.3"),
    ("ls.pairs", "TensorLoad/Save memory AP has one or two pairs, non-negative steps, nums >= 1", "SPEC §4.3"),
    ("ls.reg_dtype", "TensorLoad/Save register dtype equals the memory dtype", "SPEC §4.3"),
    ("ls.offset_64bit", "no offset operand with 64-bit data", "D-22"),
    ("ls.reg_ap_offset", "no register-AP offset (reg_ap_offset, is_regloc_offset) on TensorLoad/Save operands: "
     "the SP page has no field for it", "D-28"),
    ("ls.save_psum", "TensorSave never stores into PSUM", "SPEC §4.3"),
    ("ls.save_target", "TensorSave targets allowed on the target (gen2: no SBUF)", "D-11"),
    ("tt.acc", "TensorTensor acc is Idle (no field for it)", "SPEC §4.4"),
    ("tt.packed_gen3", "no packed dtypes in TensorTensor on gen3", "D-26"),
    ("tt.gpsimd_psum", "GPSIMD (Pool) cannot read PSUM", "SPEC §4.4"),
    ("cp.reverse_pred", "reverse_pred only where a field carries it (BIR218)", "SPEC §4.5"),
    ("cp.acc", "a non-Idle acc only on SelectReduce", "SPEC §4.5"),
    ("cp.fill", "a fill operand only on SelectReduce", "SPEC §4.5"),
    ("cp.scalar_reduce", "a reduce op needs a tensor src", "SPEC §4.5"),
    ("cps.imm_dtype", "CopyPredicatedScalar immediate dtype equals the dst dtype (BIR217)", "D-27"),
    ("sr.fill_byte", "a SelectReduce immediate fill fits the one surviving byte", "D-16"),
    ("sr.fill_kind", "a SelectReduce fill is an immediate or a register", "D-16"),
    ("memset.fill_width", "the Memset constant fits the dtype's width", "SPEC §4.8"),
    ("memset.fill_value", "the Memset constant is a value its dst dtype holds (or constant_bits is given)", "D-29"),
    ("memset.random_zero", "Memset Random has constant 0", "SPEC §4.8"),
    ("moveshape.operands", "MoveShape has exactly one access pattern", "SPEC §4.9"),
    ("moveshape.rank", "MoveShape rank <= 5 (ImmPattern.size() <= SHAPE_REGISTER_SIZE + 1)", "SPEC §4.9"),
    ("moveshape.indirect", "no indirect AP in MoveShape", "SPEC §4.9"),
    ("moveshape.step_sign", "MoveShape byte steps are not negative", "SPEC §4.9"),
    ("moveshape.counts", "MoveShape counts are at least 1", "SPEC §4.9"),
]
register_refusals(_ENCODE)


CheckFn = Callable[..., Iterator[Finding]]


@dataclass
class CheckSet:
    """A selection of checks to run (all non-pedantic ones by default)."""

    pedantic: bool = False
    disabled: frozenset[str] = field(default_factory=frozenset)

    def wants(self, check: Check) -> bool:
        return check.id not in self.disabled and (self.pedantic or not check.pedantic)
