"""Checks of the act family: Activation, LoadActFuncSet and the accumulator read-outs (bundle and IR
checks, the ids of the encoder refusals), and the one stream rule, function-set residency (N-35): an
Activation's function must be in the set the last LoadActFuncSet (0x23) of its stream installed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ..ir.act import Activation
from ..ir.instructions import Instruction
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.decisions.act import (
    ActivationUnsupportedKeys,
    ActTableIndex,
    NonPreluAlpha,
    Residency,
)
from ..isa.enums import AluOp
from ..isa.opcodes import (
    ACT_TABLE_LOAD,
    ACTIVATE,
)
from ..isa.vector_enums import ACT_FUNC_FROM_WIRE, ACT_FUNC_WIRE, ActFunc
from ..passes.lower_compound import is_lowered_part
from .bundle_checks import BundleView, bundle_check
from .ir_checks import ir_check
from .operands import equal_elements, equal_partitions, finding, pointer_shape, unknown_kind
from .registry import CHECKS, CheckSet, Finding, register, register_refusals
from .vectorized import by_classes, vector

# --- encoder refusals (the act family's; the codegen raises these ids) ---

_ENCODE = [
    ("act.operands", "an Activation has 4 ins (N-8: or 1, 2 with a scale key) and 1 or 2 outs", "chapter §3.1, N-8"),
    ("act.func", "the activation function is a 2.24 ActivationFunctionType with a wire byte (ordinals 0..29)",
     "chapter §2.1"),
    ("act.unsupported_key", "no Activation key the 0x21 band has no byte for (is_activate2, op0/op1, reverse, "
     "reduce_op other than add)", "N-27, N-31"),
    ("act.load_accumulate", "LoadAccumulate only where the bundle carries its init (Prelu)", "N-41"),
    ("act.imm_dtype", "Activation immediates (and args[2], args[3] of any kind) are float32", "chapter §3.1 (SIMACT)"),
    ("act.gen2_bias", "on gen2 the bias is a [P,1] vector (or the immediate 0.0)", "N-36"),
    ("act.alpha", "a non-zero alpha only with Prelu", "N-9"),
    ("act.no_field", "an Activation operand with no byte under the selected readings has its neutral value",
     "N-4, N-5"),
]
register_refusals(_ENCODE)


_PRELU, _FORCED = ACT_FUNC_WIRE[ActFunc.Prelu], {ACT_FUNC_WIRE[ActFunc.Copy], ACT_FUNC_WIRE[ActFunc.Reciprocal]}


@bundle_check("act.func_byte", "the activation function byte is one of the §2.1 LUT's 30 bytes", "chapter §2.1")
def _act_func(b: BundleView) -> Iterator[Finding]:
    if b.fields["func"] not in ACT_FUNC_FROM_WIRE:
        yield finding("act.func_byte", "unknown activation function byte", "func", b.fields["func"], "the §2.1 LUT")


@bundle_check("act.scalar_kinds", "the scalar kind bytes hold known codes (N-2)", "chapter §1.3, N-2")
def _act_kinds(b: BundleView) -> Iterator[Finding]:
    for name in ("arg1_kind", "arg2_kind"):
        if unknown_kind(b, name):
            yield finding("act.scalar_kinds", "unknown scalar kind code", name, b.fields[name], "0, 1, 2")
    if b.fields["func"] == _PRELU and unknown_kind(b, "arg3_kind"):
        yield finding("act.scalar_kinds", "unknown scalar kind code", "arg3_kind", b.fields["arg3_kind"], "0, 1, 2")


@bundle_check("act.arg3_gate", "args[3]'s bytes follow the function: its kind and value for Prelu, (1, 0) for Copy "
              "and Reciprocal, (N-38, 0) otherwise", "chapter §3.1 (ACT), N-38")
def _act_gate(b: BundleView) -> Iterator[Finding]:
    from ..isa.decisions.act import ActivationArg3Kind

    func = b.fields["func"]
    if func == _PRELU or func not in ACT_FUNC_FROM_WIRE:
        return
    want = 1 if func in _FORCED else b.decisions.get(ActivationArg3Kind).byte()
    if b.fields["arg3_kind"] != want:
        yield finding("act.arg3_gate", f"+0x0C for {ACT_FUNC_FROM_WIRE[func].name} is {want}", "arg3_kind",
                 b.fields["arg3_kind"], str(want))
    if b.fields["arg3_value"]:
        yield finding("act.arg3_gate", f"the encoder writes args[3]'s value only for Prelu; {ACT_FUNC_FROM_WIRE[func].name} "
                 "leaves it 0", "arg3_value", b.fields["arg3_value"], "0")


@bundle_check("act.set_id", "LoadActFuncSet names one of the 21 trainium function sets", "chapter §2.2")
def _act_set(b: BundleView) -> Iterator[Finding]:
    v = b.fields["act_tbl_sel"]
    sets = b.decisions.get(ActTableIndex).sets()
    if v >= len(sets):
        yield finding("act.set_id", "no such activation function set (R-21)", "act_tbl_sel", v, f"0..{len(sets) - 1}")


@bundle_check("read.count_one", "an accumulator read-out writes one element per partition", "chapter §3.2 (ACT)")
def _read_count(b: BundleView) -> Iterator[Finding]:
    if b.fields["element_count"] != 1:
        yield finding("read.count_one", "ScalarEng read accum instr dst element count must be 1", "element_count",
                 b.fields["element_count"], "1")
    if b.fields["dst.num0"] != 1:
        yield finding("read.count_one", "ScalarEng read accum dst_mem_pattern.num_elem[0] must be 1", "dst.num0",
                 b.fields["dst.num0"], "1")


@bundle_check("read.negated_flag", "the DveReadAccumulator negated flag is 0 or 1", "chapter §4.2, N-11")
def _read_negated(b: BundleView) -> Iterator[Finding]:
    if b.fields["negated"] > 1:
        yield finding("read.negated_flag", "negated flag must be 0 or 1", "negated", b.fields["negated"], "0, 1")


@ir_check("act.equal_partitions", "Activation in, out and reduce_res have equal partition counts", "N-34",
          (Activation,))
def _act_partitions(inst: Instruction) -> Iterator[Finding]:
    if not is_lowered_part(inst):
        yield from equal_partitions("act.equal_partitions", ("src", "dst", "reduce_res"))(inst)


@ir_check("act.equal_elements", "Activation in and out have equal element counts per partition",
          "chapter §3.1 (NKI)", (Activation,))
def _act_elements(inst: Instruction) -> Iterator[Finding]:
    if not is_lowered_part(inst):
        yield from equal_elements("act.equal_elements", ("src", "dst"))(inst)


ir_check("act.pointer_shape", "an Activation pointer scalar is [P,1] over the input's partitions", "N-6, N-34",
         (Activation,), offsets=True)(pointer_shape("act.pointer_shape", "src", (("args[1]", 1), ("args[2]", 2), ("args[3]", 3))))


@ir_check("lint.act_dropped", "an Activation key or alpha the 0x21 bundle has no byte for, dropped under N-9=drop or "
          "N-27=ignore", "N-9, N-27", (Activation,), stage="lint", needs_decisions=True)
def _act_dropped(inst: Instruction, decisions: DecisionSet) -> Iterator[Finding]:
    assert isinstance(inst, Activation)
    if is_lowered_part(inst):
        return
    func = inst.attr("func")
    if not decisions.get(NonPreluAlpha).refuses and func is not ActFunc.Prelu:
        a = inst.ins[3] if len(inst.ins) == 4 else None
        v = getattr(a, "value", inst.attr("alpha") or 0.0)
        if v not in (0, 0.0, None):
            yield Finding("lint.act_dropped", f"alpha {v} is dropped: only Prelu reads it (N-9=drop)", "alpha", v, "0.0")
    if not decisions.get(ActivationUnsupportedKeys).refuses:
        for key, neutral in (("op0", AluOp.bypass), ("op1", AluOp.bypass), ("reverse0", False), ("reverse1", False)):
            if inst.attr(key) not in (None, neutral):
                yield Finding("lint.act_dropped", f"{key} is ignored: the 0x21 band has no byte for it (N-27=ignore)",
                              key, getattr(inst.attr(key), "name", inst.attr(key)), str(getattr(neutral, "name", neutral)))


vector("act.func_byte")(by_classes(_act_func, "func"))


vector("act.scalar_kinds")(by_classes(_act_kinds, "arg1_kind", "arg2_kind", "func", "arg3_kind"))


vector("act.arg3_gate")(by_classes(_act_gate, "func", "arg3_kind", "arg3_value"))


vector("act.set_id")(by_classes(_act_set, "act_tbl_sel"))


vector("read.count_one")(by_classes(_read_count, "element_count", "dst.num0"))


vector("read.negated_flag")(by_classes(_read_negated, "negated"))


register("act.resident", "an Activation's function is in the set the last LoadActFuncSet (0x23) of its stream "
         "loaded", "N-35", "stream")


class ResidencyState:
    """The sets each stream has loaded so far (N-35), fed bundle by bundle in stream order.

    ``table``: the graph's Activation.json ``activation_function_sets`` (set names), which R-21's
    default reads the 0x23 index in; None where no graph table is at hand (a BIR kernel, a bare stream)."""

    #: the opcodes the rule reads (the others pass it by)
    OPCODES = (ACT_TABLE_LOAD.byte, ACTIVATE.byte)

    def __init__(self, decisions: DecisionSet = DEFAULT_DECISIONS, table: Sequence[str] | None = None) -> None:
        self.loaded: dict[str | None, int] = {}
        self.index = decisions.get(ActTableIndex)  # what the loaded index names
        self.table = None if table is None else tuple(table)
        self.sets = self.index.sets(self.table)

    def _set_name(self, k: int) -> str:
        if k >= len(self.sets):
            return "?"
        st = self.sets[k]
        if st is not None:
            return st.name
        return f"{self.table[k]!r}, not an act_info.json set" if self.table is not None else "?"

    def visit(self, stream: str | None, opcode: int, fields: dict[str, int]) -> Iterator[Finding]:
        if opcode == ACT_TABLE_LOAD.byte:
            sel = self.loaded[stream] = fields["act_tbl_sel"]
            if self.table is not None and (sel >= len(self.sets) or self.sets[sel] is None):
                why = (f"the graph's Activation.json lists {len(self.table)} function set(s)" if sel >= len(self.sets)
                       else f"the graph names set {sel} {self._set_name(sel)}")
                yield Finding("act.set_id", f"LoadActFuncSet {sel}: {why} (R-21)", "act_tbl_sel", sel,
                              f"0..{len(self.table) - 1}")
            return
        if opcode != ACTIVATE.byte:
            return
        func = ACT_FUNC_FROM_WIRE.get(fields["func"])
        if func is None:
            return
        where = self.index.holding(func, self.table)
        loaded = self.loaded.get(stream)
        sets = self.sets
        st = sets[loaded] if loaded is not None and loaded < len(sets) else None
        if st is not None and st.holds(func):
            return
        have = ("no LoadActFuncSet on this stream yet" if loaded is None else
                f"last LoadActFuncSet loaded set {loaded} ({self._set_name(loaded)})")
        load = f"load one of {', '.join(map(str, where))}" if where else "no set of this graph holds it"
        yield Finding("act.resident", f"Activation function {func.name} is not resident: {have}; {load}", "func",
                      func.name, ", ".join(map(str, where)))


def residency_rule(decisions: DecisionSet, checks: CheckSet,
                   table: Sequence[str] | None = None) -> ResidencyState | None:
    """A fresh N-35 rule, or None when it is off (N-35=off, or the check disabled). ``table``: the
    graph's activation function set names (R-21), when the stream comes from a NEFF."""
    if not decisions.get(Residency).enforced or not checks.wants(CHECKS["act.resident"]):
        return None
    return ResidencyState(decisions, table)


_NO_RULE = object()


def stream_rule_findings(ctx: object, stream: str, opcode: int, fields: dict[str, int],
                         checks: CheckSet | None) -> list[Finding]:
    """The N-35 findings of one bundle of a kernel, in program order: the rule's state lives on the
    codegen context (one per assemble / check run), ``ctx.stream_rules``."""
    state: Any = getattr(ctx, "stream_rules", None)
    if state is None:
        state = residency_rule(ctx.decisions, checks or CheckSet()) or _NO_RULE  # type: ignore[attr-defined]
        ctx.stream_rules = state  # type: ignore[attr-defined]
    if state is _NO_RULE:
        return []
    return list(state.visit(stream, opcode, fields))
